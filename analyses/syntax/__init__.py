"""From text to model: the lexer, the LALR driver with error recovery, parenthesis balancing, and one
parser per file kind.
"""
