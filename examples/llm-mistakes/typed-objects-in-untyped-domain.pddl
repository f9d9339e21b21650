; @domain ../blocksworld/domain.pddl
; MISTAKE: the objects are given a type (`- block`), but the blocksworld domain is untyped
; (no :typing requirement, no :types). This is the most common mistake in LLM-written problems.
; plansight reports: typed-objects-untyped-domain on `block`. Fix: write `(:objects a b c)`.
(define (problem three-blocks)
  (:domain blocksworld)
  (:objects a b c - block)
  (:init (on-table a) (on-table b) (on-table c) (clear a) (clear b) (clear c) (handempty))
  (:goal (and (on a b) (on b c))))
