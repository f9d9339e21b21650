"""LTL goals: checks against the PDDL vocabulary, evaluation on trajectories, goal F1, reports."""
