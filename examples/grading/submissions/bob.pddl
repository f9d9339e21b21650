; Not equivalent: the tower is built the wrong way round.
(define (problem bob-tower)
  (:domain blocksworld)
  (:objects a b c)
  (:init (arm-empty) (on a b) (on-table b) (on-table c) (clear a) (clear c))
  (:goal (and (on a c) (on c b))))
