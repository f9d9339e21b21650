"""Diagnostics: positions in the text (spans), the diagnostic record and its catalogue of stable codes,
severity overrides, and near-miss suggestions.
"""
