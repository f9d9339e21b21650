"""Plans: simulation (LEA, failure explanation), metrics against a reference plan (AQM, StV, LCS,
scores), reports, and recovery with a planner.
"""
