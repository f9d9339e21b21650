; Wrong vocabulary: typed objects and a predicate the domain does not have.
(define (problem grace-tower)
  (:domain blocksworld)
  (:objects a b c - block)
  (:init (handempty) (on a b) (ontable b) (ontable c) (clear a) (clear c))
  (:goal (and (on c a) (on a b))))
