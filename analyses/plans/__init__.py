"""Plans: simulation (LEA, failure explanation), metrics against a reference plan (AQM, StV, LCS,
scores), reports, and recovery with a planner.
"""

# the temporal simulator registers itself with `simulate` (it builds on simulate's result types, so
# simulate cannot import it without an import cycle)
from plansight.analyses.plans import temporal as _temporal  # noqa: F401
