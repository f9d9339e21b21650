; SYNTAX TEST "source.pddl" "a typed STRIPS domain: header, sections, requirements, atoms, variables"
; @problem ../p01.pddl
; ^ comment.line.semicolon.pddl
; ^^^^^^^^ comment.line.semicolon.pddl keyword.other.directive.pddl
;          ^^^^^^^^^^^ comment.line.semicolon.pddl string.unquoted.path.pddl
(define (domain blocks-world)
; <- punctuation.section.parens.begin.pddl
;^^^^^^ keyword.control.define.pddl
;       ^ punctuation.section.parens.begin.pddl
;        ^^^^^^ storage.type.header.pddl
;               ^^^^^^^^^^^^ entity.name.type.header.pddl
  (:requirements :strips :typing :negative-preconditions)
;  ^^^^^^^^^^^^^ keyword.other.section.pddl
;                ^^^^^^^ support.constant.requirement.pddl
;                        ^^^^^^^ support.constant.requirement.pddl
;                                ^^^^^^^^^^^^^^^^^^^^^^^ support.constant.requirement.pddl
;                                                       ^ punctuation.section.parens.end.pddl
  (:types block table - object)
;  ^^^^^^ keyword.other.section.pddl
;         ^^^^^ - entity.name.type.pddl
;                     ^ keyword.operator.type.pddl
;                       ^^^^^^ entity.name.type.pddl
  (:predicates (on ?x - block ?y - (either block table)) (clear ?x) (handempty))
;  ^^^^^^^^^^^ keyword.other.section.pddl
;               ^^ entity.name.function.pddl
;                  ^^ variable.parameter.pddl
;                     ^ keyword.operator.type.pddl
;                       ^^^^^ entity.name.type.pddl
;                                   ^^^^^^ keyword.other.either.pddl
;                                          ^^^^^ entity.name.type.pddl
;                                                         ^^^^^ entity.name.function.pddl
;                                                                    ^^^^^^^^^ entity.name.function.pddl
  (:functions (total-cost) - number)
;  ^^^^^^^^^^ keyword.other.section.pddl
;              ^^^^^^^^^^ entity.name.function.pddl
  (:action pick-up
;  ^^^^^^^ keyword.other.section.pddl
;          ^^^^^^^ entity.name.function.action.pddl
    :parameters (?x - block)
;   ^^^^^^^^^^^ keyword.other.section.pddl
;                ^^ variable.parameter.pddl
    :precondition (and (clear ?x) (not (on ?x ?x)) (forall (?y - block) (imply (on ?y ?x) (= ?y ?y))))
;   ^^^^^^^^^^^^^ keyword.other.section.pddl
;                  ^^^ keyword.operator.logical.pddl
;                       ^^^^^ entity.name.function.pddl
;                                  ^^^ keyword.operator.logical.pddl
;                                       ^^ entity.name.function.pddl
;                                                   ^^^^^^ keyword.control.quantifier.pddl
;                                                                        ^^^^^ keyword.operator.logical.pddl
;                                                                                          ^ keyword.operator.comparison.pddl
    :effect (and (not (clear ?x)) (when (on ?x ?x) (handempty)) (increase (total-cost) 1)))
;   ^^^^^^^ keyword.other.section.pddl
;                                  ^^^^ keyword.control.conditional.pddl
;                                                                ^^^^^^^^ keyword.operator.assignment.pddl
;                                                                          ^^^^^^^^^^ entity.name.function.pddl
;                                                                                      ^ constant.numeric.pddl
  (:durative-action fly
;  ^^^^^^^^^^^^^^^^ keyword.other.section.pddl
;                   ^^^ entity.name.function.action.pddl
    :parameters (?p)
    :duration (= ?duration (* 2 (distance ?p)))
;   ^^^^^^^^^ keyword.other.section.pddl
;                ^^^^^^^^^ variable.language.duration.pddl
;                           ^ keyword.operator.arithmetic.pddl
;                             ^ constant.numeric.pddl
;                                ^^^^^^^^ entity.name.function.pddl
    :condition (and (at start (at ?p)) (over all (clear ?p)))
;                    ^^ keyword.other.temporal.pddl
;                       ^^^^^ keyword.other.temporal.pddl
;                              ^^ entity.name.function.pddl
;                                       ^^^^ keyword.other.temporal.pddl
;                                            ^^^ keyword.other.temporal.pddl
    :effect (at end (decrease (fuel ?p) (- 10 #t)))))
;                                        ^ keyword.operator.arithmetic.pddl
;                                          ^^ constant.numeric.pddl
;                                             ^^ variable.language.time.pddl
