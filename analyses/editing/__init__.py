"""What the editor shows: symbols, hover descriptions, formatting, folding, semantic tokens, quick
fixes, cursor context.
"""
