; @domain ../adl/domain.pddl
; MISTAKE: the goal requires `(at laptop office)` and also `(not (at laptop office))` (the LLM
; meant "not at home"). No state satisfies both.
; plansight reports: contradictory-goal. Fix: `(not (at laptop home))`.
(define (problem contradictory)
  (:domain briefcase)
  (:objects home office - location
            case - briefcase
            laptop - portable)
  (:init (at case home) (open case) (at laptop home))
  (:goal (and (at laptop office) (not (at laptop office)))))
