; MISTAKE: `:precondtion` is misspelled (missing `i`); PDDL only knows `:precondition`.
; plansight reports: syntax-error on `:precondtion`. Fix: `:precondition`.
(define (domain blocksworld-misspelled-keyword)
  (:requirements :strips)
  (:predicates (on-table ?x) (clear ?x) (handempty) (holding ?x))

  (:action pick-up
    :parameters (?x)
    :precondtion (and (clear ?x) (on-table ?x) (handempty))
    :effect (and (holding ?x) (not (on-table ?x)) (not (clear ?x)) (not (handempty)))))
