; @domain ../blocksworld/domain.pddl
; MISTAKE: `clear` takes 1 argument; the goal gives it 2 (the LLM meant "a and b are clear").
; plansight reports: wrong-arity on `clear`. Fix: `(clear a) (clear b)`.
(define (problem wrong-arity)
  (:domain blocksworld)
  (:objects a b c)
  (:init (on a b) (on-table b) (on-table c) (clear a) (clear c) (handempty))
  (:goal (and (clear a b) (on-table a))))
