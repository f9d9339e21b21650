"""Semantic checks of domains, problems and plans, one pass per concern."""
