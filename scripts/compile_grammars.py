"""Recompiles the LALR(1) tables of the PDDL, plan and LTL grammars after a grammar (or lark) changed.

    python scripts/compile_grammars.py

The tables are stored next to ``analyses/syntax/lalr_compile.py``, which explains why they exist;
``tests/test_compiled_grammars.py`` fails while one is out of date.
"""

from __future__ import annotations

from plansight.analyses.syntax.lalr_compile import write_compiled

GRAMMARS = ("pddl", "plan", "ltl")


def main() -> int:
    for grammar in GRAMMARS:
        print(f"wrote {write_compiled(grammar)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
