; Equivalent: other names, and the facts that must hold anyway spelled out.
(define (problem alice-tower)
  (:domain blocksworld)
  (:objects red green blue)
  (:init (on-table green) (on red green) (clear red) (on-table blue) (clear blue) (arm-empty))
  (:goal (and (on blue red) (on red green) (on-table green) (clear blue) (arm-empty))))
