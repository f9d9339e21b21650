"""Small PDDL texts shared by the end-to-end tests (server, editors)."""

TINY_DOMAIN = """\
(define (domain tiny)
  (:requirements :strips)
  (:predicates (clear ?x) (holding ?x) (handempty))
  (:action pick
    :parameters (?x)
    :precondition (and (clear ?x) (handempty))
    :effect (and (holding ?x) (not (clear ?x)) (not (handempty)))))
"""
