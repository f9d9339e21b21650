; @domain ../blocksworld/domain.pddl
; MISTAKE: block `a` is declared twice in :objects.
; plansight reports: duplicate-declaration on the second `a`. Fix: remove it.
(define (problem duplicate-object)
  (:domain blocksworld)
  (:objects a b c a)
  (:init (on-table a) (on-table b) (on-table c) (clear a) (clear b) (clear c) (handempty))
  (:goal (and (on a b) (on b c))))
