"""Problem equivalence (Planetarium): scene graphs, fullySpecify, goal closure by search, verdicts,
grading.
"""
