; Briefcase world (ADL): whatever is in a briefcase travels with it (forall + when).
; A briefcase can only be closed when something is in it (exists), only moves when closed
; (negative precondition), never "moves" to where it already is (equality), and `at` takes
; either a briefcase or a portable thing (either-type).
(define (domain briefcase)
  (:requirements :strips :typing :negative-preconditions :equality
                 :existential-preconditions :universal-preconditions :conditional-effects)
  (:types location briefcase portable)
  (:predicates (at ?x - (either briefcase portable) ?l - location)
               (in ?p - portable ?b - briefcase)
               (open ?b - briefcase))

  (:action open-case
    :parameters (?b - briefcase)
    :precondition (not (open ?b))
    :effect (open ?b))

  (:action close-case
    :parameters (?b - briefcase)
    :precondition (and (open ?b) (exists (?p - portable) (in ?p ?b)))
    :effect (not (open ?b)))

  (:action put-in
    :parameters (?p - portable ?b - briefcase ?l - location)
    :precondition (and (open ?b) (at ?p ?l) (at ?b ?l) (not (in ?p ?b)))
    :effect (in ?p ?b))

  (:action take-out
    :parameters (?p - portable ?b - briefcase)
    :precondition (and (open ?b) (in ?p ?b))
    :effect (not (in ?p ?b)))

  (:action move
    :parameters (?b - briefcase ?from ?to - location)
    :precondition (and (at ?b ?from) (not (open ?b)) (not (= ?from ?to)))
    :effect (and (at ?b ?to) (not (at ?b ?from))
                 (forall (?p - portable)
                   (when (in ?p ?b) (and (at ?p ?to) (not (at ?p ?from))))))))
