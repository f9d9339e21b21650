; MISTAKE: the precondition of `stack` is missing one `)`, so every form after it is
; swallowed into the action.
; plansight reports: unclosed-paren on the `(` that is never closed. Fix: add the `)`.
(define (domain blocksworld-missing-paren)
  (:requirements :strips)
  (:predicates (on ?x ?y) (on-table ?x) (clear ?x) (handempty) (holding ?x))

  (:action pick-up
    :parameters (?x)
    :precondition (and (clear ?x) (on-table ?x) (handempty))
    :effect (and (holding ?x) (not (on-table ?x)) (not (clear ?x)) (not (handempty))))

  (:action stack
    :parameters (?x ?y)
    :precondition (and (holding ?x) (clear ?y)
    :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y)))))
