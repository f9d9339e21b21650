"""Compiles a lark grammar into the plain LALR(1) tables :mod:`.lalr` drives, and keeps them on disk.

Building the tables with lark takes longer than linting a small file, and importing lark as long again,
so the tables of the three grammars are compiled ahead of time into ``<grammar>.tables.json`` next to this
module (``python scripts/compile_grammars.py`` rewrites them). Each file records the digest of the grammar
it was compiled from: a grammar edited since is compiled again with lark when loaded, so a stale file can
cost time but never a wrong parse. ``tests/test_compiled_grammars.py`` fails while a file is stale.

The compiled form keeps, for every rule, what lark's tree builder would do with the rule's children
(which ones to keep, which ``_rule`` or repetition children to splice in, ``?rule`` inlining);
:mod:`.lalr` rebuilds the same callbacks from it, so the model is identical either way.
"""

from __future__ import annotations

import hashlib
import json
import logging
from functools import cache
from pathlib import Path
from typing import Any

from plansight.grammar import grammar_text

# Pinned lark internals, used only when a grammar is compiled (each one is checked by name in
# tests/test_pinned_internals.py, so an upgrade that moves one fails there, not as a wrong parse):
# * a ``lark.lexer.Lexer`` subclass passed as ``Lark(lexer=...)`` is instantiated with its LexerConf;
# * ``Lark.parser.parser.parser``: ParsingFrontend -> LALR_Parser -> ``_Parser``, whose ``parse_table``
#   (``states``, ``start_states``, ``end_states``) we read;
# * ``lark.parsers.lalr_analysis.Shift``/``Reduce`` are the only actions, compared by identity; a Shift
#   carries the next state, a Reduce a rule; the goto after a reduce is the Shift entry under
#   ``rule.origin.name``;
# * a rule's ``expansion`` (symbols with ``name``, ``is_term``, ``filter_out``), ``origin.name``, ``alias``
#   and ``options`` (``expand1``, ``keep_all_tokens``, ``template_source``, ``empty_indices``), and
#   ``Lark.options.maybe_placeholders``, which decide how lark's tree builder treats the children;
# * the end-of-input terminal is ``$END`` and terminal names are upper case.

log = logging.getLogger(__name__)

FORMAT = 1
HERE = Path(__file__).resolve().parent


def tables_path(grammar: str) -> Path:
    """Where the compiled tables of ``grammar`` are kept."""
    return HERE / f"{grammar}.tables.json"


def grammar_digest(grammar: str) -> str:
    """What a compiled file must have been compiled from to be used."""
    return hashlib.sha256(grammar_text(grammar).encode("utf-8")).hexdigest()


def load_compiled(grammar: str) -> dict[str, Any] | None:
    """The compiled tables of ``grammar``, or None when missing or compiled from another grammar text."""
    try:
        compiled: dict[str, Any] = json.loads(tables_path(grammar).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        log.debug("no compiled tables for the %s grammar: compiling it", grammar)
        return None
    if compiled.get("format") != FORMAT or compiled.get("digest") != grammar_digest(grammar):
        log.debug("the compiled tables of the %s grammar are stale: compiling it", grammar)
        return None
    return compiled


def compile_grammar(grammar: str) -> dict[str, Any]:
    """The LALR(1) tables of ``grammar`` as computed by lark, in the JSON form :mod:`.lalr` loads.

    States map each symbol to an int: ``n >= 0`` shifts (or, under a rule name, goes) to state ``n``,
    ``-1 - k`` reduces by rule ``k``. A rule is ``[size, origin, callback, expand1, keep]``: the builder
    method (or default node name) to call, whether a single child is passed up as is (``?rule``), and
    which children to keep as ``[index, splice]`` (None to pass them all through untouched).
    """
    from lark import Lark
    from lark.parsers.lalr_analysis import Shift

    lark = Lark(grammar_text(grammar), parser="lalr", lexer=no_lexer(), start="start")
    table = lark.parser.parser.parser.parse_table  # ParsingFrontend -> LALR_Parser -> _Parser
    placeholders = bool(lark.options.maybe_placeholders)
    start, end = table.start_states["start"], table.end_states["start"]
    # lark numbers states in an order that varies between runs (it iterates over sets): number them in
    # the order a breadth-first walk from the start state meets them, symbols taken alphabetically, so
    # that the same grammar always compiles to the same file
    number: dict[Any, int] = {}
    queue = [start, end]
    for state in queue:
        if state in number:
            continue
        number[state] = len(number)
        queue.extend(arg for _, (action, arg) in sorted(table.states[state].items()) if action is Shift)
    rules: list[list[Any]] = []
    index_of: dict[Any, int] = {}
    states: dict[str, dict[str, int]] = {}
    for state in sorted(number, key=number.__getitem__):
        entries: dict[str, int] = {}
        for symbol, (action, arg) in sorted(table.states[state].items()):
            if action is Shift:
                entries[symbol] = number[arg]
                continue
            if arg not in index_of:
                index_of[arg] = len(rules)
                rules.append(_rule(arg, placeholders))
            entries[symbol] = -1 - index_of[arg]
        states[str(number[state])] = entries
    assert len(number) == len(table.states), "a state no shift reaches"
    return {
        "format": FORMAT,
        "grammar": grammar,
        "digest": grammar_digest(grammar),
        "start": number[start],
        "end": number[end],
        "rules": rules,
        "states": states,
    }


@cache
def no_lexer() -> type:
    """A lark lexer class that is never run: the tokens come from plansight's own lexer."""
    from lark.lexer import Lexer

    class NoLexer(Lexer):
        def __init__(self, conf: Any) -> None:
            pass

        def lex(self, *args: Any) -> Any:  # pragma: no cover - never called
            raise NotImplementedError

    return NoLexer


def _rule(rule: Any, placeholders: bool) -> list[Any]:
    """What lark's tree builder does with the children of ``rule``, as data."""
    expansion = rule.expansion
    options = rule.options
    if placeholders and options.empty_indices and any(options.empty_indices):
        # lark would insert None for the missing part; no grammar of ours needs it, so nor does the driver
        raise ValueError(f"`[...]` placeholders are not supported by compiled grammars ({rule}): use `?`")
    keep = [
        [index, not symbol.is_term and symbol.name.startswith("_")]  # a `_rule` or repetition is spliced in
        for index, symbol in enumerate(expansion)
        if options.keep_all_tokens or not (symbol.is_term and symbol.filter_out)
    ]
    filtered = len(keep) < len(expansion) or any(splice for _, splice in keep)
    callback = rule.alias or options.template_source or rule.origin.name
    expand1 = bool(options.expand1 and not rule.alias)
    return [len(expansion), rule.origin.name, callback, expand1, keep if filtered else None]


def write_compiled(grammar: str) -> Path:
    """Compile ``grammar`` and store its tables where :func:`load_compiled` looks."""
    path = tables_path(grammar)
    path.write_text(json.dumps(compile_grammar(grammar), separators=(",", ":"), sort_keys=True) + "\n",
                    encoding="utf-8")
    return path
