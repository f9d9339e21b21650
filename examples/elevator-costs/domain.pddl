; A one-car elevator (after Miconic) with action costs: boarding and leaving cost 1,
; travelling costs what the static function `travel-cost` says for that pair of floors.
(define (domain elevator)
  (:requirements :strips :typing :action-costs)
  (:types passenger floor)
  (:predicates (origin ?p - passenger ?f - floor)
               (destin ?p - passenger ?f - floor)
               (above ?low ?high - floor)
               (boarded ?p - passenger)
               (served ?p - passenger)
               (lift-at ?f - floor))
  (:functions (total-cost) - number
              (travel-cost ?from ?to - floor) - number)

  (:action board
    :parameters (?f - floor ?p - passenger)
    :precondition (and (lift-at ?f) (origin ?p ?f))
    :effect (and (boarded ?p) (not (origin ?p ?f)) (increase (total-cost) 1)))

  (:action depart
    :parameters (?f - floor ?p - passenger)
    :precondition (and (lift-at ?f) (destin ?p ?f) (boarded ?p))
    :effect (and (served ?p) (not (boarded ?p)) (increase (total-cost) 1)))

  (:action up
    :parameters (?from ?to - floor)
    :precondition (and (lift-at ?from) (above ?from ?to))
    :effect (and (lift-at ?to) (not (lift-at ?from))
                 (increase (total-cost) (travel-cost ?from ?to))))

  (:action down
    :parameters (?from ?to - floor)
    :precondition (and (lift-at ?from) (above ?to ?from))
    :effect (and (lift-at ?to) (not (lift-at ?from))
                 (increase (total-cost) (travel-cost ?from ?to)))))
