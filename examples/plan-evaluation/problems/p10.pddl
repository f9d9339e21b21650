; The running example of Armony et al. 2025 (BlocksWorld instance 10): b is on c, a and c are on the table.
(define (problem bw-p10)
  (:domain blocksworld)
  (:objects a b c)
  (:init (on b c) (on-table a) (on-table c) (clear a) (clear b) (handempty))
  (:goal (and (on a c) (on c b))))
