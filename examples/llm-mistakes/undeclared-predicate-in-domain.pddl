; MISTAKE: the actions use `arm-empty`, but `:predicates` declares `handempty` (the LLM mixed
; two common blocksworld vocabularies).
; plansight reports: undeclared-predicate on each `arm-empty`. Fix: use `handempty`.
(define (domain blocksworld-undeclared-predicate)
  (:requirements :strips)
  (:predicates (on-table ?x) (clear ?x) (handempty) (holding ?x))

  (:action pick-up
    :parameters (?x)
    :precondition (and (clear ?x) (on-table ?x) (arm-empty))
    :effect (and (holding ?x) (not (on-table ?x)) (not (clear ?x)) (not (arm-empty))))

  (:action put-down
    :parameters (?x)
    :precondition (holding ?x)
    :effect (and (on-table ?x) (clear ?x) (handempty) (not (holding ?x)))))
