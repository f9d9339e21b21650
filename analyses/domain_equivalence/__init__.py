"""Comparing a candidate domain (a student's, an LLM's) with a reference domain (docs/domain-equivalence.md):
structural equivalence up to renaming, the Embodied Agent Interface's logic-form F1 per action (Li et al.
2024), and behaviour on the reference problems."""
