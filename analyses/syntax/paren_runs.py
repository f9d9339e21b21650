"""Repairs the parentheses of a large file without spelling out its runs of facts.

A `)` missing or too many in a problem of a hundred thousand facts used to send the whole file back
through the token-by-token parse, since the repair's guesses (``parens.py``) look at the facts' own
parentheses: a second to answer each keystroke while a fact is being typed without its `)`. The
repair looks inside a run only where it could guess something there, and ``balance`` says which runs
those are; they alone are spelled out, and the repair made again, until no run could matter. The
guesses, and so the diagnostics, are then the token-by-token ones.

A repair also throws the lexer out of step: after a fact left open, it no longer knows that it is
reading ``:init``, and reads the rest of the section token by token. Once the repair has closed the
fact, the stretch from it to the end of its list is read again as the list's facts, in runs.

The result is the token-by-token parse's model and diagnostics, or None where this path is not sure
of it, and the caller parses token by token (``parse_pddl.py``); ``tests/test_paren_runs.py`` compares
both on damaged copies of large problems and of the corpus.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable

from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.syntax.lexer import BAD, RPAR, RUNS, Token, facts_list_at, lex_pddl, spelled_tokens
from plansight.analyses.syntax.parens import balance, form_structure

_MAX_ROUNDS = 8
"""Repairs made again with more runs spelled out before the caller spells out everything."""


def balance_keeping_runs(
    tokens: list[Token], text: str, first: tuple[list[Token], list[Diagnostic], list[int]]
) -> tuple[list[Token], list[Diagnostic]] | None:
    """``balance(tokens, text)`` whose result parses as the token-by-token tokens' repair does, with as
    many runs of facts kept whole as can be; None after ``_MAX_ROUNDS`` rounds. ``first`` is what
    ``balance(tokens, text, opaque)`` gave: the repair, its diagnostics and the runs it could not see into.
    """
    out, diagnostics, opaque = first
    for _ in range(_MAX_ROUNDS):
        if not opaque:
            return _regain_runs(tokens, out, text), diagnostics
        tokens = _spelled_out(tokens, opaque, text)
        opaque = []
        out, diagnostics = balance(tokens, text, opaque)
    return None


def spelling_of(tokens: list[Token], text: str) -> Callable[[int, int | None], list[Token]]:
    """The tokens of the repaired stream ``tokens`` from one offset to another (None: to the end), its runs
    spelled out: what a syntax error's recovery must see (``parse_pddl.py``). A `)` the repair added has
    no width, at the end of the token before it: it belongs with the tokens from its offset on."""

    def spell(start: int, stop: int | None) -> list[Token]:
        end = len(text) if stop is None else stop
        first = bisect_left(tokens, start, key=_start_of)
        if first and tokens[first - 1].kind in RUNS and tokens[first - 1].end > start:
            first -= 1  # a run cut at ``start``: its facts from there on
        last = len(tokens) if stop is None else bisect_left(tokens, stop, key=_start_of)
        spelled: list[Token] = []
        for token in tokens[first:last]:
            if token.kind in RUNS:
                spelled.extend(spelled_tokens(text, max(token.start, start), min(token.end, end)))
            else:
                spelled.append(token)
        return spelled

    return spell


def _spelled_out(tokens: list[Token], runs: list[int], text: str) -> list[Token]:
    """``tokens`` with the runs at indices ``runs`` replaced by their tokens."""
    spelled: list[Token] = []
    last = 0
    for index in runs:
        run = tokens[index]
        spelled.extend(tokens[last:index])
        spelled.extend(spelled_tokens(text, run.start, run.end))
        last = index + 1
    spelled.extend(tokens[last:])
    return spelled


def _regain_runs(before: list[Token], out: list[Token], text: str) -> list[Token]:
    """``out`` with the stretch after each repair read as runs again where it lies in a list of facts.

    A stretch runs from the first token after a `)` the repair added or a token it removed to the end
    of the list around that token, and is read again only when it holds no other repair (its tokens
    are then exactly the lexer's, and balanced).
    """
    sites = _repair_sites(before, out)
    if not sites:
        return out
    matching, parent = form_structure(out)
    stretches: list[tuple[int, int]] = []  # [first, end) indices into out
    for site in sites:
        first = bisect_left(out, site, key=_start_of)
        while first < len(out) and out[first].end == out[first].start:
            first += 1  # added `)`: zero width
        if first >= len(out):
            continue
        opener = parent[first]
        if opener < 0 or not facts_list_at(text, out[opener].end):
            continue
        end = matching[opener]
        if end <= first or out[end].start == out[end].end:
            continue
        stretches.append((first, end))
    if not stretches:
        return out
    # a stretch holding another repair site (or overlapping another stretch) stays as it is
    site_starts = sorted(sites)
    kept: list[tuple[int, int]] = []
    for first, end in sorted(set(stretches)):
        start, stop = out[first].start, out[end].start
        inside = bisect_left(site_starts, start + 1)
        if inside < len(site_starts) and site_starts[inside] <= stop:
            continue
        if kept and first < kept[-1][1]:
            continue
        kept.append((first, end))
    result: list[Token] = []
    last = 0
    for first, end in kept:
        result.extend(out[last:first])
        stretch = lex_pddl(text, True, start=out[first].start, stop=out[end].start, in_facts=True)
        result.extend(t for t in stretch if t.kind != BAD)
        last = end
    result.extend(out[last:])
    return result


def _repair_sites(before: list[Token], out: list[Token]) -> list[int]:
    """The offsets where ``balance`` added a `)` (zero-width tokens) or dropped one."""
    kept = {id(t) for t in out}
    sites = [t.start for t in out if t.kind == RPAR and t.start == t.end]
    sites.extend(t.end for t in before if id(t) not in kept)
    return sorted(set(sites))


def _start_of(token: Token) -> int:
    return token.start

