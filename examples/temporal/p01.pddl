; Drive from the base to the crater and photograph it.
(define (problem crater-photo)
  (:domain rover-time)
  (:objects rover1 - rover
            base crater - waypoint)
  (:init (at rover1 base) (road base crater) (camera-ready rover1))
  (:goal (photo-of crater)))
