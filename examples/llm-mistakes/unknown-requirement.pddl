; MISTAKE: `:negative-precondition` is not a PDDL requirement; the keyword is plural,
; `:negative-preconditions`.
; plansight reports: unknown-requirement on `:negative-precondition`, with "did you mean
; `:negative-preconditions`?".
(define (domain blocksworld-unknown-requirement)
  (:requirements :strips :negative-precondition)
  (:predicates (on-table ?x) (clear ?x) (handempty) (holding ?x))

  (:action pick-up
    :parameters (?x)
    :precondition (and (clear ?x) (on-table ?x) (handempty) (not (holding ?x)))
    :effect (and (holding ?x) (not (on-table ?x)) (not (clear ?x)) (not (handempty)))))
