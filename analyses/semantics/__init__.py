"""PDDL's state semantics: grounding, states, and what actions do to them."""
