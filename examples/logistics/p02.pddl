; One package from the Pittsburgh post office to the Boston post office: truck, plane, truck.
(define (problem logistics-two-cities)
  (:domain logistics)
  (:objects pgh bos - city
            pgh-po bos-po - location
            pgh-airport bos-airport - airport
            pgh-truck bos-truck - truck
            plane1 - airplane
            pkg1 - package)
  (:init (in-city pgh-po pgh) (in-city pgh-airport pgh)
         (in-city bos-po bos) (in-city bos-airport bos)
         (at pgh-truck pgh-po) (at bos-truck bos-airport)
         (at plane1 pgh-airport)
         (at pkg1 pgh-po))
  (:goal (at pkg1 bos-po)))
