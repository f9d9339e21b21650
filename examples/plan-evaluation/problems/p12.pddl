; Four blocks on the table; the goal is the tower a-b-c-d.
(define (problem bw-p12)
  (:domain blocksworld)
  (:objects a b c d)
  (:init (on-table a) (on-table b) (on-table c) (on-table d) (clear a) (clear b) (clear c) (clear d) (handempty))
  (:goal (and (on a b) (on b c) (on c d))))
