"""The pure core: parsing, checks, plan simulation, metrics and equivalence, with no editor or terminal in
sight, so the CLI and the language server give the same answers.
"""
