"""Files and how they are linked: sources, association of problems with domains and plans with
problems, references, and linting a file end to end.
"""
