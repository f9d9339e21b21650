; Sussman's anomaly: c is on a, the goal is the tower a-b-c.
(define (problem sussman)
  (:domain blocksworld)
  (:objects a b c)
  (:init (on c a) (on-table a) (on-table b) (clear c) (clear b) (handempty))
  (:goal (and (on a b) (on b c))))
