; MISTAKE: `unstack` uses `?z` in its precondition, but only `?x` and `?y` are parameters
; (the LLM renamed a parameter and missed one use).
; plansight reports: free-variable on `?z`. Fix: write `?y`, or add `?z` to :parameters.
(define (domain blocksworld-free-variable)
  (:requirements :strips)
  (:predicates (on ?x ?y) (clear ?x) (handempty) (holding ?x))

  (:action unstack
    :parameters (?x ?y)
    :precondition (and (on ?x ?z) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (on ?x ?y)) (not (clear ?x)) (not (handempty)))))
