"""The language server: pygls wiring, per-document state and one module per editor feature, all answering from
the core in :mod:`plansight.analyses`.
"""
