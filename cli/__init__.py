"""plansight: PDDL and LTL checking from the command line and the editor."""

__version__ = "0.1.0"
