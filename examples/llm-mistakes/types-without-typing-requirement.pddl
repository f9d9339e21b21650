; MISTAKE: the domain declares and uses types but its requirements do not include :typing.
; plansight reports: missing-requirement on `:types`. Fix: add :typing to :requirements.
(define (domain gripper-no-typing)
  (:requirements :strips)
  (:types room ball)
  (:predicates (at-robby ?r - room) (at ?b - ball ?r - room))

  (:action move
    :parameters (?from ?to - room)
    :precondition (at-robby ?from)
    :effect (and (at-robby ?to) (not (at-robby ?from)))))
