; Reference: "Block a is on b, b on the table, c on the table. Build the tower c on a on b."
(define (problem tower-of-three)
  (:domain blocksworld)
  (:objects a b c)
  (:init (arm-empty) (on a b) (on-table b) (on-table c) (clear a) (clear c))
  (:goal (and (on c a) (on a b))))
