; Not equivalent: the initial state puts every block on the table.
(define (problem carol-tower)
  (:domain blocksworld)
  (:objects a b c)
  (:init (arm-empty) (on-table a) (on-table b) (on-table c) (clear a) (clear b) (clear c))
  (:goal (and (on c a) (on a b))))
