; Take the laptop and the papers to the office; the sandwich stays home.
(define (problem commute)
  (:domain briefcase)
  (:objects home office - location
            case - briefcase
            laptop papers sandwich - portable)
  (:init (at case home) (open case)
         (at laptop home) (at papers home) (at sandwich home))
  (:goal (and (at laptop office) (at papers office) (at sandwich home)
              (forall (?p - portable) (not (in ?p case))))))
