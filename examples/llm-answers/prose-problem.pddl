Here is the PDDL problem for the description you gave (three blocks, c on a, the goal is the
tower a-b-c):

```pddl
(define (problem tower-abc)
  (:domain blocksworld)
  (:objects a b c)
  (:init (on c a) (on-table a) (on-table b) (clear c) (clear b) (handempty))
  (:goal (and (on a b) (on b c))))
```

The goal lists b on c and a on b; block c stays on the table.
