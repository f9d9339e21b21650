; @domain ../blocksworld/domain.pddl
; MISTAKE: the goal mentions block `d`, which is not among the objects.
; plansight reports: undeclared-object on `d`. Fix: declare `d` or remove it from the goal.
(define (problem undeclared-object)
  (:domain blocksworld)
  (:objects a b c)
  (:init (on-table a) (on-table b) (on-table c) (clear a) (clear b) (clear c) (handempty))
  (:goal (and (on a b) (on b c) (on c d))))
