; One folder per student: dana's answer is equivalent (the goal lists only what matters).
(define (problem dana-tower)
  (:domain blocksworld)
  (:objects x y z)
  (:init (arm-empty) (on-table x) (on y x) (clear y) (on-table z) (clear z))
  (:goal (and (on z y) (on y x))))
