; A rover drives between waypoints and takes pictures; both take time (PDDL 2.1 durative actions).
(define (domain rover-time)
  (:requirements :strips :typing :durative-actions)
  (:types rover waypoint)
  (:predicates (at ?r - rover ?w - waypoint)
               (road ?from ?to - waypoint)
               (photo-of ?w - waypoint)
               (camera-ready ?r - rover))

  (:durative-action drive
    :parameters (?r - rover ?from ?to - waypoint)
    :duration (= ?duration 2)
    :condition (and (at start (at ?r ?from)) (over all (road ?from ?to)))
    :effect (and (at start (not (at ?r ?from))) (at end (at ?r ?to))))

  (:durative-action take-photo
    :parameters (?r - rover ?w - waypoint)
    :duration (= ?duration 1)
    :condition (and (over all (at ?r ?w)) (at start (camera-ready ?r)))
    :effect (at end (photo-of ?w))))
