; MISTAKE: `put-down` has a negative precondition `(not (on-table ?x))`, but the domain only
; declares :strips. Negative effects are fine in STRIPS; negative preconditions are not.
; plansight reports: missing-requirement on `not`. Fix: add :negative-preconditions.
(define (domain blocksworld-negative-precondition)
  (:requirements :strips)
  (:predicates (on-table ?x) (clear ?x) (handempty) (holding ?x))

  (:action pick-up
    :parameters (?x)
    :precondition (and (clear ?x) (on-table ?x) (handempty))
    :effect (and (holding ?x) (not (on-table ?x)) (not (clear ?x)) (not (handempty))))

  (:action put-down
    :parameters (?x)
    :precondition (and (holding ?x) (not (on-table ?x)))
    :effect (and (on-table ?x) (clear ?x) (handempty) (not (holding ?x)))))
