; Reverse a tower of four blocks: d-c-b-a (a on top) becomes a-b-c-d (d on top).
(define (problem reverse-four)
  (:domain blocksworld)
  (:objects a b c d)
  (:init (on-table d) (on c d) (on b c) (on a b) (clear a) (handempty))
  (:goal (and (on b a) (on c b) (on d c))))
