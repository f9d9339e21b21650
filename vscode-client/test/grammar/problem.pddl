; SYNTAX TEST "source.pddl" "a problem: header, domain reference, objects, timed literals, PDDL3, metric"
(define (problem p01) (:domain blocks-world)
;        ^^^^^^^ storage.type.header.pddl
;                ^^^ entity.name.type.header.pddl
;                      ^^^^^^^ keyword.other.section.pddl
;                              ^^^^^^^^^^^^ entity.name.type.header.pddl
  (:objects a b - block t1 - table)
;  ^^^^^^^^ keyword.other.section.pddl
;           ^ - entity.name.function.pddl
;               ^ keyword.operator.type.pddl
;                 ^^^^^ entity.name.type.pddl
  (:init (on a t1) (at 10 (clear b)) (= (total-cost) 0) (at b t1))
;  ^^^^^ keyword.other.section.pddl
;         ^^ entity.name.function.pddl
;                   ^^ keyword.other.temporal.pddl
;                      ^^ constant.numeric.pddl
;                                     ^ keyword.operator.comparison.pddl
;                                                        ^^ entity.name.function.pddl
  (:goal (and (on a b) (preference p0 (clear a))))
;  ^^^^^ keyword.other.section.pddl
;                       ^^^^^^^^^^ keyword.other.preference.pddl
  (:constraints (and (always (clear t1)) (sometime-before (on a b) (clear b))))
;  ^^^^^^^^^^^^ keyword.other.section.pddl
;                     ^^^^^^ keyword.other.modal.pddl
;                                         ^^^^^^^^^^^^^^^ keyword.other.modal.pddl
  (:metric minimize (total-cost)))
;  ^^^^^^^ keyword.other.section.pddl
;          ^^^^^^^^ keyword.other.metric.pddl
;                    ^^^^^^^^^^ entity.name.function.pddl
