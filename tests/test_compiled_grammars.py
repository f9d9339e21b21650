"""The LALR tables compiled ahead of time (analyses/syntax/*.tables.json) are those lark computes from
today's grammars, a stale file is never used, and the callbacks rebuilt from the compiled rules build
exactly what lark's own tree builder would, on every example file, broken ones included."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from lark import Lark
from lark.parsers.lalr_analysis import Shift

from plansight.analyses.syntax import lalr_compile, parse_ltl, parse_pddl, parse_plan
from plansight.analyses.syntax.build_model import ModelBuilder
from plansight.analyses.syntax.lalr import Node, Tables, build_tables
from plansight.grammar import grammar_text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GRAMMARS = ("pddl", "plan", "ltl")


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_the_compiled_tables_are_up_to_date(grammar: str) -> None:
    compiled = lalr_compile.load_compiled(grammar)
    assert compiled is not None, f"run `python scripts/compile_grammars.py`: {grammar} is missing or stale"
    assert compiled == lalr_compile.compile_grammar(grammar), (
        f"the {grammar} tables differ from what lark computes now: run `python scripts/compile_grammars.py`"
    )


def test_a_stale_file_is_compiled_again_instead_of_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = json.loads(lalr_compile.tables_path("plan").read_text())
    stale["digest"] = "0" * 64
    stale["states"] = {}  # would reject every plan
    (tmp_path / "plan.tables.json").write_text(json.dumps(stale))
    monkeypatch.setattr(lalr_compile, "HERE", tmp_path)
    assert lalr_compile.load_compiled("plan") is None
    tables = build_tables("plan", parse_plan._PlanBuilder(), parse_plan._resolve, str, rooted=False)
    monkeypatch.setattr(parse_plan, "_tables", lambda: tables)
    result = parse_plan.parse_plan("(pick a b)\n(drop a b)\n")
    assert result.diagnostics == ()
    assert result.plan is not None and [s.action.text for s in result.plan.steps] == ["pick", "drop"]


def _with_lark_callbacks(grammar: str, builder: object, compiled: Tables) -> Tables:
    """The same tables, reducing through the callbacks lark's own tree builder makes."""
    lark = Lark(grammar_text(grammar), parser="lalr", lexer=lalr_compile.no_lexer(), transformer=builder,
                tree_class=Node, start="start")
    inner = lark.parser.parser.parser
    table, callbacks = inner.parse_table, inner.callbacks
    actions = {
        state: {
            symbol: (True, arg) if action is Shift
            else (False, (len(arg.expansion), arg.origin.name, callbacks[arg]))
            for symbol, (action, arg) in row.items()
        }
        for state, row in table.states.items()
    }
    return replace(compiled, actions=actions, start_state=table.start_states["start"],
                   end_state=table.end_states["start"])


CASES: list[tuple[str, Any, Callable[[], Any], Callable[[str], Any]]] = [
    ("pddl", parse_pddl, ModelBuilder, lambda text: parse_pddl.parse_pddl(text)),
    ("pddl", parse_pddl, ModelBuilder, lambda text: parse_pddl.parse_pddl(text, fast_facts=False)),
    ("plan", parse_plan, parse_plan._PlanBuilder, parse_plan.parse_plan),
    ("ltl", parse_ltl, parse_ltl._Builder, parse_ltl.parse_ltl),
]
SUFFIX = {"pddl": "*.pddl", "plan": "*.plan", "ltl": "*.ltl"}


@pytest.mark.parametrize(("grammar", "module", "builder", "parse"), CASES)
def test_compiled_callbacks_build_what_lark_builds(
    grammar: str, module: Any, builder: Callable[[], Any], parse: Callable[[str], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files = sorted(EXAMPLES.rglob(SUFFIX[grammar]))
    assert len(files) >= 5
    texts = [path.read_text(encoding="utf-8") for path in files]
    # a few broken ones beyond the examples, so that recovery runs on both sides
    texts += [text[: len(text) // 2] + ")" + text[len(text) // 2 :] for text in texts[:5]]
    texts += [text.replace("(", "", 1) for text in texts[:5]]
    ours = [parse(text) for text in texts]
    theirs_tables = _with_lark_callbacks(grammar, builder(), module._tables())
    monkeypatch.setattr(module, "_tables", lambda: theirs_tables)
    theirs = [parse(text) for text in texts]
    assert ours == theirs
    assert any(result.diagnostics for result in ours)
