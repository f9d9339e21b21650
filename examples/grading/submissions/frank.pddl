; Not parseable: a parenthesis is missing.
(define (problem frank-tower)
  (:domain blocksworld)
  (:objects a b c)
  (:init (arm-empty) (on a b) (on-table b) (on-table c) (clear a) (clear c)
  (:goal (and (on c a) (on a b))))
