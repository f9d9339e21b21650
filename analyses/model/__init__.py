"""The immutable models: PDDL domains, problems and plans, LTL goals, symbol tables (vocabulary), and
the printer back to PDDL text.
"""
