"""CPU time of the semantic-token and formatting answers for a 1 MB problem, in process, before and after
an edit: what ``lsp_requests.py`` times through the server, without the protocol and the machine's load.

Generates the 1 MB blocksworld problem of ``lsp_latency.py``, parses it with its domain and builds the
symbol index (as the server does before answering), then times, best of ``--repeat`` with the garbage
collector paused (as the server pauses it while answering), each answer on the opened version and on the
version after an edit (a fact inserted at the start of ``:init``, or a space appended at the end), and
the symbol index and its reads after an object typed at the start of ``:objects``. Runs
against whatever ``plansight`` is importable, so an unpacked copy of an older commit on ``PYTHONPATH``
gives the "before" figures; answers the older code cannot give (deltas) are left out there.

    python benchmarks/editor_request_cpu.py [--repeat 5] [--json OUT]
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import BLOCKSWORLD, blocksworld_problem

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing import formatter
from plansight.analyses.editing.semantic_tokens import encode, semantic_tokens
from plansight.analyses.editing.symbols import build_index
from plansight.analyses.syntax.documents import parse_document


def best(repeat: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """The smallest CPU time of ``repeat`` runs, in ms, and the last result."""
    times = []
    result = None
    for _ in range(repeat):
        start = time.process_time()
        result = work()
        times.append((time.process_time() - start) * 1000)
    return min(times), result


def lazy_readers(text: str, parsed: Any, edited: str, repeat: int) -> dict[str, float]:
    """CPU of the requests that read ``:init`` or the goal, first on the version the server's lazy re-parse
    gives after an edit (``reparse_document(..., lazy=True)``: the moved lists not yet copied), so the
    figure includes whatever copy the request causes. Each repeat re-parses, untimed."""
    from plansight.analyses.editing.quick_fixes import _atom_at, _problem_formulas
    from plansight.analyses.syntax.documents import reparse_document
    from plansight.server.convert import RangeMapper
    from plansight.server.symbols_feature import outline

    mapper = RangeMapper(edited, "utf-16")
    word = edited.index("(on-table ", edited.index("(:init") + 5000) + 1
    span = Span(word, word + len("on-table"))
    try:
        _problem_formulas(parsed.problem, span)
        formulas: Callable[[Any], Any] = lambda problem: _problem_formulas(problem, span)  # noqa: E731
    except TypeError:  # the code before: every formula
        formulas = _problem_formulas

    def timed(work: Callable[[Any], Any]) -> float:
        times = []
        for _ in range(repeat):
            lazy = reparse_document(parsed, "problem.pddl", edited, lazy=True)
            start = time.process_time()
            work(lazy)
            times.append((time.process_time() - start) * 1000)
        return min(times)

    return {"after an edit at the start of :init (lazy parse): document symbols": timed(
                lambda lazy: outline(lazy, mapper)),
            "after an edit at the start of :init (lazy parse): quick fix's atom lookup": timed(
                lambda lazy: _atom_at(formulas(lazy.problem), span))}


def tokens_along_the_chain(text: str, parsed: Any, index: Any, state: Any, edits: dict[str, str],
                           repeat: int) -> dict[str, float]:
    """CPU of the semantic tokens after an edit as the server computes them: the new version parsed lazily
    from the previous one and its index updated from the previous index (``update_index``), both
    untimed and made again for each repeat (the index keeps what a first walk over it made), then the
    tokens from the previous answer, given how the parse was derived when the code takes it."""
    from plansight.analyses.editing.semantic_token_edits import update_document
    from plansight.analyses.editing.symbols import update_index
    from plansight.analyses.syntax.documents import reparse_document

    rows: dict[str, float] = {}
    for label, edited in edits.items():
        times = []
        for _ in range(repeat):
            lazy = reparse_document(parsed, "problem.pddl", edited, lazy=True)
            assert lazy.derived is not None
            new_index = update_index(index, lazy.model, lazy.derived.splice)
            assert new_index is not None
            start = time.process_time()
            try:
                update_document(state, edited, new_index, "utf-16", lazy.derived)
            except TypeError:  # the code before: no derivation
                update_document(state, edited, new_index, "utf-16")
            times.append((time.process_time() - start) * 1000)
        rows[f"semantic tokens after an edit ({label}), index updated as in the server"] = min(times)
    return rows


def object_typed(parsed: Any, index: Any, domain: Any, edited: str, repeat: int) -> dict[str, float]:
    """CPU of the symbol index after an object typed at the start of ``:objects`` (the version parsed
    lazily from the opened one, untimed): made by ``update_index`` from the previous index, or built
    in full where the code cannot update it (the code before); then what the index requests read of
    it, each on a new index made again per repeat (an index keeps what a first read made)."""
    from plansight.analyses.editing.symbols import update_index
    from plansight.analyses.syntax.documents import reparse_document

    def made() -> Any:
        lazy = reparse_document(parsed, "problem.pddl", edited, lazy=True)
        assert lazy.derived is not None
        updated = update_index(index, lazy.model, lazy.derived.splice)
        return updated if updated is not None else build_index(
            lazy.model, "problem.pddl", domain=domain.domain, domain_path="domain.pddl")

    fact = edited.index("(on ", edited.index("(:init")) + 4
    reads: dict[str, Callable[[Any], Any]] = {
        "  then the name at a fact (definition)": lambda new: new.at(fact),
        "  then the references to an object (references, highlight, rename)":
            lambda new: new.references_to(new.at(fact).target),
        "  then every occurrence (semantic tokens' walk)": lambda new: list(new.occurrences)}
    times: dict[str, list[float]] = {}
    for _ in range(repeat):
        lazy = reparse_document(parsed, "problem.pddl", edited, lazy=True)
        assert lazy.derived is not None
        start = time.process_time()
        updated = update_index(index, lazy.model, lazy.derived.splice)
        if updated is None:
            build_index(lazy.model, "problem.pddl", domain=domain.domain, domain_path="domain.pddl")
        times.setdefault("symbol index after an object typed at the start of :objects (update, or full "
                         "build)", []).append((time.process_time() - start) * 1000)
        for label, read in reads.items():
            new = made()
            start = time.process_time()
            read(new)
            times.setdefault(label, []).append((time.process_time() - start) * 1000)
    return {label: min(values) for label, values in times.items()}


def formatting_after_edits(text: str, edits: dict[str, str], repeat: int) -> dict[str, float]:
    """CPU of formatting each edited version: from scratch (what the server did before it kept layouts),
    and, where the code has it, from the layout of the version before the edit (``format_reuse.py``),
    with the edits of the changed lines and a range formatting of an init fact read from that layout."""
    rows: dict[str, float] = {}
    try:
        from plansight.analyses.editing.format_reuse import lay_out, relaid
    except ImportError:
        lay_out = relaid = None  # type: ignore[assignment]
    laid = lay_out(text, 2, 100) if lay_out is not None else None
    for label, edited in edits.items():
        parsed = parse_document("problem.pddl", edited)
        rows[f"formatting after an edit ({label}), from scratch: layout + token check"], fresh = best(
            repeat, lambda parsed=parsed: formatter.format_parsed(parsed))
        if laid is None or relaid is None:
            continue
        rows[f"formatting after an edit ({label}), from the previous layout"], again = best(
            repeat, lambda edited=edited: relaid(laid, edited))
        assert again is not None and again.formatted() == fresh.text
        from plansight.analyses.editing.format_edits import line_edits

        formatted = again.formatted()
        rows[f"  then the edits of the changed lines ({label})"], _ = best(
            repeat, lambda edited=edited, formatted=formatted: line_edits(edited, formatted))
        where = edited.index("(on-table ", 5000)
        span = Span(where, where + 3)
        units = (again.lines, again.placed())
        rows[f"  range formatting of an init fact from that layout ({label})"], edit = best(
            repeat, lambda edited=edited, units=units, span=span: formatter.format_range(
                edited, span, laid_out=units))
        assert edit == formatter.format_range(edited, span)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    repeat = args.repeat
    text = blocksworld_problem(1_000_000)
    domain = parse_document("domain.pddl", BLOCKSWORLD)
    at = text.index("\n", text.index("(:init")) + 1
    edits = {"fact inserted at the start of :init": text[:at] + "    (clear b1)\n" + text[at:],
             "space appended at the end": text + " "}
    gc.disable()
    rows: dict[str, float] = {}

    def indexed(source: str) -> Any:
        parsed = parse_document("problem.pddl", source)
        return parsed, build_index(parsed.model, "problem.pddl", domain=domain.domain,
                                   domain_path="domain.pddl")

    rows["parse + symbol index (for reference)"], (parsed, index) = best(repeat, lambda: indexed(text))
    rows["semantic tokens, tokens + encoding (the code before)"], data = best(
        repeat, lambda: encode(text, semantic_tokens(text, index)))
    try:
        from plansight.analyses.editing.semantic_token_edits import encode_document, update_document
    except ImportError:
        encode_document = update_document = None  # type: ignore[assignment]
    if encode_document is not None:
        rows["semantic tokens, from scratch"], state = best(repeat, lambda: encode_document(text, index))
        assert state.data == data
    for label, edited in edits.items():
        _, new_index = indexed(edited)
        rows[f"semantic tokens after an edit ({label}), from scratch"], fresh = best(
            repeat, lambda edited=edited, new_index=new_index: encode(edited,
                                                                      semantic_tokens(edited, new_index)))
        if update_document is not None:
            rows[f"semantic tokens after an edit ({label}), from the previous answer"], (new, edit) = best(
                repeat, lambda edited=edited, new_index=new_index: update_document(state, edited, new_index))
            assert new.data == fresh
            rows[f"  integers in the delta ({label})"] = float(len(edit.data) if edit else 0)
    viewport = Span(0, text.index("\n", 0) + 1)
    for _ in range(99):
        viewport = Span(0, text.index("\n", viewport.end) + 1)
    rows["semantic tokens, first 100 lines"], _ = best(
        repeat, lambda: encode(text, semantic_tokens(text, index, viewport)))
    rows["formatting: layout + token check"], result = best(repeat, lambda: formatter.format_parsed(parsed))
    assert result.text is not None
    formatted = result.text
    rows["formatting: one edit (the code before)"], one = best(
        repeat, lambda: formatter.whole_document_edit(text, formatted))
    rows["  characters sent, one edit"] = float(len(one.new_text) if one else 0)
    try:
        from plansight.analyses.editing.format_edits import line_edits
    except ImportError:
        line_edits = None  # type: ignore[assignment]
    if line_edits is not None:
        rows["formatting: edits of the changed lines"], many = best(
            repeat, lambda: line_edits(text, formatted))
        rows["  characters sent, edits of the changed lines"] = float(sum(len(e.new_text) for e in many))
    sections = [s.span for s in parsed.outline.sections] if getattr(parsed, "outline", None) else []
    for label, where in (("an init fact", text.index("(on-table ")), ("the goal", text.index("(:goal") + 8),
                         ("the objects", text.index("(:objects") + 12)):
        span = Span(where, where + 3)
        rows[f"range formatting of {label}, whole layout"], _ = best(
            repeat, lambda span=span: formatter.format_range(text, span))
        if line_edits is not None:
            rows[f"range formatting of {label}, its section alone"], _ = best(
                repeat, lambda span=span: formatter.format_range(text, span, sections=sections))
    objects = text.index("(:objects") + len("(:objects ")
    rows.update(object_typed(parsed, index, domain, text[:objects] + "x0 " + text[objects:], repeat))
    rows.update(formatting_after_edits(text, edits, repeat))
    rows.update(lazy_readers(text, parsed, edits["fact inserted at the start of :init"], repeat))
    if update_document is not None:
        rows.update(tokens_along_the_chain(text, parsed, index, state, {
            **edits, "object typed at the start of :objects": text[:objects] + "x0 " + text[objects:]},
            repeat))
    for name, value in rows.items():
        print(f"{name:<80}{value:>10.1f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
