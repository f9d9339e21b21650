; Unsolvable: two blocks cannot both stand on a.
(define (problem erin-tower)
  (:domain blocksworld)
  (:objects a b c)
  (:init (arm-empty) (on a b) (on-table b) (on-table c) (clear a) (clear c))
  (:goal (and (on c a) (on b a))))
