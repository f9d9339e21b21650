; One package, one city: the truck drives to the depot, picks it up and brings it to the airport.
(define (problem logistics-one-city)
  (:domain logistics)
  (:objects pgh - city
            pgh-po - location
            pgh-airport - airport
            pgh-truck - truck
            pkg1 - package)
  (:init (in-city pgh-po pgh) (in-city pgh-airport pgh)
         (at pgh-truck pgh-airport)
         (at pkg1 pgh-po))
  (:goal (at pkg1 pgh-airport)))
