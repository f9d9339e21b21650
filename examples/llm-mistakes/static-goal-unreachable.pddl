; @domain ../logistics/domain.pddl
; MISTAKE: the goal asks for `(in-city bos-airport pgh)`. No action changes `in-city` (it is
; static: it describes the map), and it is false in the initial state, so no plan can ever
; reach this goal. The LLM confused "where things are" (`at`) with the map.
; plansight reports: static-goal-unreachable on the `in-city` goal atom.
(define (problem static-goal)
  (:domain logistics)
  (:objects pgh bos - city
            pgh-po - location
            pgh-airport bos-airport - airport
            pgh-truck - truck
            plane1 - airplane
            pkg1 - package)
  (:init (in-city pgh-po pgh) (in-city pgh-airport pgh) (in-city bos-airport bos)
         (at pgh-truck pgh-po) (at plane1 pgh-airport) (at pkg1 pgh-po))
  (:goal (and (at pkg1 bos-airport) (in-city bos-airport pgh))))
