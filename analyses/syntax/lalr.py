"""Drives the LALR(1) tables lark computes for our grammars (compiled ahead of time by :mod:`.lalr_compile`)
token by token, with keyword resolution and error recovery.

lark's own ``parse`` stops at the first error. We feed tokens ourselves so that we can (1) decide
whether a word is a keyword from the parser state (``at`` is a predicate in ``(at ?t ?l)`` and a
time specifier in ``(at start ...)``), and (2) recover: drop a stray token, skip the smallest
enclosing form that cannot be parsed (or replace it with ``()``), and go on, so that every syntax
error is reported and the rest of the file still reaches the semantic checks.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from plansight.analyses.diagnostics.diagnostic import Diagnostic, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.diagnostics.suggest import did_you_mean
from plansight.analyses.syntax.lalr_compile import compile_grammar, load_compiled
from plansight.analyses.syntax.lexer import LPAR, RPAR, Token


class _Reject(Exception):
    """The token is not acceptable in the parser's current state."""


Action = tuple[bool, Any]  # (True, next state) to shift; (False, (size, rule name, callback)) to reduce


class Node:
    """What a rule without a builder method makes: a ``_rule`` or a repetition, whose children the
    enclosing rule splices into its own (so no Node ever reaches a model).

    A repetition's list of children grows in place, by appending, while it is on the parser's stack:
    the next repetition node takes the list over instead of copying it (see :class:`_Snapshot`).
    """

    __slots__ = ("children", "data")

    def __init__(self, data: str, children: list[Any]) -> None:
        self.data = data
        self.children = children

    def __repr__(self) -> str:
        return f"Node({self.data!r}, {self.children!r})"


@dataclass(frozen=True)
class Tables:
    """LALR(1) tables as plain dicts for a tight driver loop, with the callbacks that build the model."""

    actions: dict[Any, dict[str, Action]]
    start_state: Any
    end_state: Any
    resolve: Callable[[Token, Mapping[str, Any]], str]
    describe: Callable[[str], str]
    rooted: bool  # the whole file is one form (PDDL's `(define ...)`), which recovery never skips


def build_tables(
    grammar: str,
    builder: object,
    resolve: Callable[[Token, Mapping[str, Any]], str],
    describe: Callable[[str], str],
    rooted: bool,
) -> Tables:
    """The tables of ``grammar`` (compiled ahead of time, see :mod:`.lalr_compile`) ready for :func:`parse`;
    ``builder``'s methods, named after the rules, build the model on each reduction, ``resolve`` picks a
    token's terminal from the parser state and ``describe`` names terminals in error messages.
    """
    compiled = load_compiled(grammar) or compile_grammar(grammar)
    reductions = [
        (size, origin, _callback(builder, name, expand1, keep))
        for size, origin, name, expand1, keep in compiled["rules"]
    ]
    actions: dict[Any, dict[str, Action]] = {}
    for state, row in compiled["states"].items():
        actions[int(state)] = {
            symbol: (True, target) if target >= 0 else (False, reductions[-1 - target])
            for symbol, target in row.items()
        }
    return Tables(actions, compiled["start"], compiled["end"], resolve, describe, rooted)


def _callback(
    builder: object, name: str, expand1: bool, keep: list[list[Any]] | None
) -> Callable[[list[Any]], Any]:
    """The function a reduction by one rule calls with the rule's children, as lark's tree builder would
    make it: keep and splice children, pass a single child up for ``?rule``, then build."""
    method: Callable[[list[Any]], Any] | None = getattr(builder, name, None)
    build: Callable[[list[Any]], Any]
    if method is not None:
        build = method
    else:

        def build(children: list[Any]) -> Any:
            return Node(name, children)

    if expand1:
        make_node = build

        def build(children: list[Any]) -> Any:
            return children[0] if len(children) == 1 else make_node(children)

    if keep is None:
        return build
    kept = [(index, splice) for index, splice in keep]

    def filtered(children: list[Any]) -> Any:
        out: list[Any] = []
        for index, splice in kept:
            if not splice:
                out.append(children[index])
            elif out:
                out += children[index].children
            else:
                out = children[index].children  # a left-recursive repetition grows its list in place
        return build(out)

    return filtered


class _Run:
    """One pass over the tokens: the LR stacks plus the stack of open parentheses."""

    __slots__ = ("actions", "opens", "states", "values")

    def __init__(self, actions: dict[Any, dict[str, Action]], states: list[Any], values: list[Any],
                 opens: list[int]) -> None:
        self.actions = actions
        self.states = states
        self.values = values
        self.opens = opens

    @property
    def row(self) -> dict[str, Action]:
        return self.actions[self.states[-1]]

    def feed(self, token: Any) -> None:
        """Shift ``token``, reducing first as the table says; raises _Reject if it does not fit."""
        actions, states, values = self.actions, self.states, self.values
        kind = token.type
        while True:
            entry = actions[states[-1]].get(kind)
            if entry is None:
                raise _Reject
            shift, arg = entry
            if shift:
                states.append(arg)
                values.append(token)
                return
            self._reduce(*arg)

    def _reduce(self, size: int, origin: str, callback: Callable[[list[Any]], Any]) -> None:
        states, values = self.states, self.values
        if size:
            children = values[-size:]
            del states[-size:]
            del values[-size:]
        else:
            children = []
        values.append(callback(children))
        states.append(self.actions[states[-1]][origin][1])

    def finish(self, end_state: Any, text_length: int) -> Any:
        """Reduce to the start symbol at the end of input; raises _Reject if the input is incomplete."""
        while self.states[-1] != end_state:
            entry = self.actions[self.states[-1]].get("$END")
            if entry is None or entry[0]:
                raise _Reject
            self._reduce(*entry[1])
        return self.values[-1]

    def copy(self) -> _Run:
        """An independent run in the same state (further feeding of either leaves the other intact)."""
        return _Snapshot(self).restore()


class _Snapshot:
    """A run's state frozen in time proportional to its stack depth, not to what the stack holds.

    Repetitions are Nodes whose child lists only ever grow, by appending, and only while the
    Node is on a live stack (a left-recursive repetition hands its list to the next repetition
    node); everything else on the stack is immutable. So a snapshot shares the values
    and records how long each Node's list was: restoring copies just those lists, cut to their
    recorded length. Copying the values instead cost time quadratic in the file, since a file's
    snapshots all hold the one growing list of its sections (or plan steps).
    """

    __slots__ = ("actions", "grown", "opens", "states", "values")

    def __init__(self, run: _Run) -> None:
        self.actions = run.actions
        self.states = tuple(run.states)
        self.values = tuple(run.values)
        self.opens = tuple(run.opens)
        self.grown = tuple((i, len(v.children)) for i, v in enumerate(self.values) if isinstance(v, Node))

    def restore(self) -> _Run:
        """A live run in the snapshot's state."""
        values = list(self.values)
        for i, length in self.grown:
            tree = values[i]
            values[i] = Node(tree.data, tree.children[:length])
        return _Run(self.actions, list(self.states), values, list(self.opens))


_MAX_RECOVERIES = 200


def parse(
    tokens: list[Token], tables: Tables, text_length: int, first_error_only: bool = False
) -> tuple[Any, list[Diagnostic]]:
    """The model built from ``tokens`` (balanced in parentheses), or None, and the syntax errors.

    ``first_error_only`` stops at the first error, with no model: for a caller that parses again from
    there another way, recovering would be wasted work.
    """
    actions = tables.actions
    resolve = tables.resolve
    diagnostics: list[Diagnostic] = []
    matching = _match(tokens)
    skips: dict[int, tuple[int, bool]] = {}  # form start -> (index after it, replaced by "()")
    snapshots: list[tuple[int, _Snapshot]] = []  # in increasing token index
    run = _Run(actions, [tables.start_state], [], [])
    count = len(tokens)
    index = 0
    recoveries = 0
    item_start = 0  # where the current top-level item (a plan step) began; used when not rooted

    def feed(run: _Run, i: int) -> bool:
        """Shift token ``i`` after the reductions it triggers (what :meth:`_Run.feed` does, written out:
        this loop runs once per token of the file); False when it does not fit, with the reductions
        before that point kept, as the error report and recovery expect."""
        token = tokens[i]
        states, values = run.states, run.values
        row = actions[states[-1]]
        kind = token.type = resolve(token, row)
        entry = row.get(kind)
        if entry is None:
            return False
        while not entry[0]:
            size, origin, callback = entry[1]
            if size:
                children = values[-size:]
                del states[-size:]
                del values[-size:]
            else:
                children = []
            values.append(callback(children))
            states.append(actions[states[-1]][origin][1])
            entry = actions[states[-1]].get(kind)
            if entry is None:
                return False
        states.append(entry[1])
        values.append(token)
        if token.kind == LPAR:
            run.opens.append(i)
        elif token.kind == RPAR and run.opens:
            run.opens.pop()
        return True

    def accepts(run: _Run, i: int) -> bool:
        row = run.row
        if i >= count:
            return "$END" in row
        return _can_shift(actions, run.states, resolve(tokens[i], row))

    def replay_to(target: int) -> _Run:
        start_index, start_run = 0, _Run(actions, [tables.start_state], [], [])
        latest = bisect_right(snapshots, target, key=_index_of) - 1
        if latest >= 0:
            start_index, start_run = snapshots[latest][0], snapshots[latest][1].restore()
        i = start_index
        while i < target:
            if i in skips:
                after, replaced = skips[i]
                if replaced:
                    _feed_empty_form(start_run, tokens[i])
                i = after
                continue
            feed(start_run, i)
            i += 1
        return start_run

    while index < count:
        if index in skips:
            after, replaced = skips[index]
            if replaced:
                _feed_empty_form(run, tokens[index])
            index = after
            continue
        token = tokens[index]
        if token.kind == LPAR and len(run.opens) == (1 if tables.rooted else 0):
            snapshots.append((index, _Snapshot(run)))
        if feed(run, index):
            index += 1
            if token.kind == RPAR and not run.opens:
                item_start = index
            continue
        diagnostics.append(_syntax_error(token, run, tables))
        if first_error_only:
            return None, diagnostics
        recoveries += 1
        if recoveries > _MAX_RECOVERIES:
            return None, diagnostics
        # 1. a stray token (or a stray keyword with its argument form): drop it
        if token.kind not in (LPAR, RPAR):
            if accepts(run, index + 1):
                index += 1
                continue
            if index + 1 < count and tokens[index + 1].kind == LPAR:
                after = matching[index + 1] + 1
                if accepts(run, after):
                    index = after
                    continue
        # 2. stray text before the root form (`x=y` above `(define ...`, a pasted prompt): skip to
        # where the file can start, so the domain or problem after it is still read and checked
        if tables.rooted and not run.opens and not run.values and token.kind != LPAR:
            resume = next((i for i in range(index + 1, count) if tokens[i].kind == LPAR
                           and accepts(run, i)), None)
            if resume is not None:
                diagnostics[-1] = _stray_before_root(tokens[index:resume], diagnostics[-1])
                index = resume
                continue
        # 3. the smallest enclosing form that can be skipped or emptied
        candidates = list(reversed(run.opens))
        if token.kind == LPAR:
            candidates.insert(0, index)
        recovered = False
        for opener in candidates:
            if opener == 0 and tables.rooted:
                break
            after = matching[opener] + 1
            attempt = replay_to(opener)
            if accepts(attempt, after):
                skips[opener] = (after, False)
            else:
                empty = attempt.copy()
                if not _feed_empty_form(empty, tokens[opener]) or not accepts(empty, after):
                    continue
                attempt = empty
                skips[opener] = (after, True)
            run = attempt
            del snapshots[bisect_left(snapshots, opener, key=_index_of):]
            index = after
            recovered = True
            break
        if not recovered and not tables.rooted:
            # 4. a broken top-level item (a plan step with a stray number before it): drop it and
            # resume at the next token that can start an item, after the form the error is in
            clean = replay_to(item_start)
            scan_from = matching[run.opens[0]] + 1 if run.opens else index
            resume = next((i for i in range(scan_from, count) if accepts(clean, i)), None)
            if resume is not None and resume > item_start:
                skips[item_start] = (resume, False)
                run, index, recovered = clean, resume, True
                del snapshots[bisect_left(snapshots, item_start, key=_index_of):]
        if not recovered:
            return None, diagnostics
    try:
        result = run.finish(tables.end_state, text_length)
    except _Reject:
        end = tokens[-1] if tokens else Token("$END", "", text_length, text_length)
        diagnostics.append(_syntax_error(end, run, tables, at_end=True))
        return None, diagnostics
    return result, diagnostics


def _stray_before_root(stray: list[Token], error: Diagnostic) -> Diagnostic:
    """One error over all the text skipped before the root form, saying the rest was still read."""
    span = Span(stray[0].start, stray[-1].end)
    return make("syntax-error", f"{error.message} Everything before the first `(` is ignored; the rest of "
                "the file is still read.", span)


def _index_of(snapshot: tuple[int, _Snapshot]) -> int:
    return snapshot[0]


def _feed_empty_form(run: _Run, at: Token) -> bool:
    for kind in (LPAR, RPAR):
        if kind not in run.row:
            return False
        try:
            run.feed(Token(kind, "", at.start, at.start))
        except _Reject:
            return False
    return True


def _match(tokens: list[Token]) -> list[int]:
    matching = list(range(len(tokens)))
    stack: list[int] = []
    for i, token in enumerate(tokens):
        if token.kind == LPAR:
            stack.append(i)
        elif token.kind == RPAR and stack:
            matching[stack.pop()] = i
    return matching


def _can_shift(actions: dict[Any, dict[str, Action]], states: list[Any], terminal: str) -> bool:
    """Whether ``terminal`` would be shifted after the reductions it triggers.

    An LALR row lists a terminal as soon as some reduction is possible on it (lookaheads of merged
    states), even when the state reached after reducing rejects it; only a shift proves the token
    fits. Simulated on a copy of the state stack: nothing is built and the run is untouched.
    """
    # the run's stack below ``kept`` plus ``pushed`` on top: copying the whole stack for every token
    # made deeply nested input (10,000 open parentheses) quadratic
    kept = len(states)
    pushed: list[Any] = []
    while True:
        entry = actions[pushed[-1] if pushed else states[kept - 1]].get(terminal)
        if entry is None:
            return False
        if entry[0]:
            return True
        size, origin, _ = entry[1]
        if size:
            popped = min(size, len(pushed))
            del pushed[len(pushed) - popped:]
            kept -= size - popped
        pushed.append(actions[pushed[-1] if pushed else states[kept - 1]][origin][1])


def _syntax_error(token: Token, run: _Run, tables: Tables, at_end: bool = False) -> Diagnostic:
    # internal run tokens (FACTS, NAMES) describe as "": never worth naming to a user
    expected = sorted({
        tables.describe(t) for t in run.row
        if t.isupper() and t != "$END" and tables.describe(t) and _can_shift(tables.actions, run.states, t)
    })
    if len(expected) > 8:
        expected = [*expected[:8], "..."]
    listing = ", ".join(expected) if expected else "the end of the file"
    if at_end:
        message = f"The file ends too early: expected {listing}."
        return make("syntax-error", message, Span(token.end, token.end))
    found = token.text or token.type
    message = f"Unexpected `{found}`: expected {listing}."
    keyword_options = [t for t in expected if t.startswith("`:") or t.startswith("`")]
    if token.text and keyword_options:
        words = [t.strip("`") for t in keyword_options]
        suggestion = did_you_mean(token.text.lower(), words)
        if suggestion:
            message += f" Did you mean `{suggestion}`?"
    return make("syntax-error", message, Span(token.start, token.end))
