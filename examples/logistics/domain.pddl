; Logistics: trucks move packages within a city, airplanes between airports (typed STRIPS).
; `at` is an ordinary predicate name here, not the temporal `at start` keyword.
(define (domain logistics)
  (:requirements :strips :typing)
  (:types truck airplane - vehicle
          package vehicle - physobj
          airport - location
          location city physobj - object)
  (:predicates (in-city ?loc - location ?c - city)
               (at ?obj - physobj ?loc - location)
               (in ?pkg - package ?veh - vehicle))

  (:action load-truck
    :parameters (?pkg - package ?truck - truck ?loc - location)
    :precondition (and (at ?truck ?loc) (at ?pkg ?loc))
    :effect (and (not (at ?pkg ?loc)) (in ?pkg ?truck)))

  (:action load-airplane
    :parameters (?pkg - package ?plane - airplane ?loc - airport)
    :precondition (and (at ?pkg ?loc) (at ?plane ?loc))
    :effect (and (not (at ?pkg ?loc)) (in ?pkg ?plane)))

  (:action unload-truck
    :parameters (?pkg - package ?truck - truck ?loc - location)
    :precondition (and (at ?truck ?loc) (in ?pkg ?truck))
    :effect (and (not (in ?pkg ?truck)) (at ?pkg ?loc)))

  (:action unload-airplane
    :parameters (?pkg - package ?plane - airplane ?loc - airport)
    :precondition (and (in ?pkg ?plane) (at ?plane ?loc))
    :effect (and (not (in ?pkg ?plane)) (at ?pkg ?loc)))

  (:action drive-truck
    :parameters (?truck - truck ?from ?to - location ?c - city)
    :precondition (and (at ?truck ?from) (in-city ?from ?c) (in-city ?to ?c))
    :effect (and (not (at ?truck ?from)) (at ?truck ?to)))

  (:action fly-airplane
    :parameters (?plane - airplane ?from ?to - airport)
    :precondition (at ?plane ?from)
    :effect (and (not (at ?plane ?from)) (at ?plane ?to))))
