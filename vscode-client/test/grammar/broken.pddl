; SYNTAX TEST "source.pddl" "a missing parenthesis spoils nothing after it"
(define (domain d)
  (:action a :parameters (?x) :precondition (and (p ?x) :effect (q ?x))
;                                                       ^^^^^^^ keyword.other.section.pddl
;                                                                ^ entity.name.function.pddl
  (:requirements :strips
;                ^^^^^^^ support.constant.requirement.pddl
; a comment inside an unclosed list (ends the line only)
; ^^^^^^^^^ comment.line.semicolon.pddl
  (:action b :parameters (?y)))
;  ^^^^^^^ - support.constant.requirement.pddl
