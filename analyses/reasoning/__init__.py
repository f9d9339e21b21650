"""Reasoning about action: the exact answers (ground truth) of the tasks of Murthy, Mink and Sanneman,
"Metrics for Holistic Evaluation of LLM Reasoning about Action, Change, and Planning" (2025), reading
the answers LLMs write, and scoring them by intersection over union (docs/reasoning.md).
"""
