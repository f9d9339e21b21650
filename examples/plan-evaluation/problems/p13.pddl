; Turn the tower a-b-c upside down.
(define (problem bw-p13)
  (:domain blocksworld)
  (:objects a b c)
  (:init (on a b) (on b c) (on-table c) (clear a) (handempty))
  (:goal (and (on c b) (on b a))))
