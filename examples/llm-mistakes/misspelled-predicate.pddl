; @domain ../blocksworld/domain.pddl
; MISTAKE: the initial state says `on_table` (underscore); the domain declares `on-table`.
; plansight reports: undeclared-predicate on `on_table`, with "did you mean `on-table`?".
(define (problem misspelled-predicate)
  (:domain blocksworld)
  (:objects a b c)
  (:init (on_table a) (on-table b) (on-table c) (clear a) (clear b) (clear c) (handempty))
  (:goal (and (on a b) (on b c))))
