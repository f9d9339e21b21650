; MISTAKE: `(:domain blocks-world)` names a domain that does not exist: the bundled domain is
; called `blocksworld`. A problem is linked to its domain by this name.
; plansight reports: unknown-domain on `blocks-world`, listing the domains it found.
(define (problem wrong-domain-name)
  (:domain blocks-world)
  (:objects a b c)
  (:init (on-table a) (on-table b) (on-table c) (clear a) (clear b) (clear c) (handempty))
  (:goal (and (on a b) (on b c))))
