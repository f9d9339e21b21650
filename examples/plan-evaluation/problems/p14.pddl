; Swap two stacked blocks.
(define (problem bw-p14)
  (:domain blocksworld)
  (:objects a b)
  (:init (on a b) (on-table b) (clear a) (handempty))
  (:goal (on b a)))
