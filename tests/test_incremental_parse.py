"""The incremental re-parse (``analyses/syntax/incremental.py``) against a full parse.

After every edit of random edit sequences, the document parsed incrementally from the previous
version must equal a full parse of the new text: the same kind, the same model with every span, and
the same diagnostics with their ranges. The edits are made of PDDL fragments (parentheses, names,
comments, section keywords, whole facts) so that they often keep the file valid, often break it, and
sometimes cross a section's boundary, where the incremental path must give way to a full parse.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plansight.analyses.editing.symbols import SymbolIndex, build_index, update_index
from plansight.analyses.syntax import documents
from plansight.analyses.syntax.documents import ParsedDocument, parse_document, reparse_document
from plansight.analyses.syntax.incremental import changed_range
from plansight.analyses.syntax.local_repair import REPAIR_CODES

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

PROBLEM = """; @domain domain.pddl
(define (problem small)
  (:domain blocks)
  (:objects a b c - block t1 - table)
  (:init (on a b) (clear a) ; a comment (on x y)
    (ontable b) (not (broken c))
    (= (weight a) 3)
    (at 10 (clear c))
    (handempty))
  (:goal (and (on b c) (clear b)
              (not (on a b))))
  (:metric minimize (total-cost))
)
"""

PROBLEM_WITH_NOTES = """(define (problem notes)
  (:domain d)
  (:objects - thing a b)
  (:init (p a) (q a b))
  (:goal-utilities (= (g) 1))
  (:goal (p b))
)
"""

DOMAIN = """(define (domain blocks)
  (:requirements :strips :typing)
  (:types block)
  (:predicates (on ?x ?y - block) (clear ?x - block))
  (:action stack
    :parameters (?x ?y - block)
    :precondition (and (clear ?x) (clear ?y))
    :effect (and (on ?x ?y) (not (clear ?y))))
  (:action unstack :parameters (?x ?y - block)
    :precondition (on ?x ?y) :effect (and (clear ?y) (not (on ?x ?y))))
)
"""

BASES = [
    ("problem.pddl", PROBLEM),
    ("notes.pddl", PROBLEM_WITH_NOTES),
    ("domain.pddl", DOMAIN),
    ("p01.pddl", (EXAMPLES / "blocksworld" / "p01.pddl").read_text()),
    ("domain.pddl", (EXAMPLES / "temporal" / "domain.pddl").read_text()),
    ("p01.pddl", (EXAMPLES / "temporal" / "p01.pddl").read_text()),
    ("p01.pddl", (EXAMPLES / "adl" / "p01.pddl").read_text()),
]

FRAGMENTS = [
    "(", ")", "()", " ", "\n", "\r\n", ";", "; (p a))", "a", "b1", "-", "?x", "=", "3", "#", "é",
    "(on a b)", "(clear c) ", "(not (on b c))", "(and (p) ", ":init", ":goal", "(:init (p a))",
    "(:objects d - block)", "and", "(at 5 (p))", "- block", "(forall (?x) (p ?x))", "))", "((",
    "(:action a :parameters () :effect (p))", "start", "(:domain", "at end",
]


def assert_same(incremental: ParsedDocument, full: ParsedDocument) -> None:
    """Equal in everything a user could notice: spans take part (the model's equality ignores them)."""
    assert incremental.kind == full.kind
    assert repr(incremental.model) == repr(full.model)
    assert repr(incremental.diagnostics) == repr(full.diagnostics)
    assert [d.data for d in incremental.diagnostics] == [d.data for d in full.diagnostics]
    assert incremental.directives == full.directives
    # a parse with a parenthesis repair has no outline of its own, but one made from the previous
    # version's keeps it, so that typing on into the open fact stays incremental (``local_repair.py``)
    repaired = any(d.code in REPAIR_CODES for d in full.diagnostics)
    assert (incremental.outline is None) == (full.outline is None) or (repaired and full.outline is None)


BALANCED = [" ", "\n", "x", "(on a b)", "(clear c) ", "(not (on b c))", "(= (f) 2)", "(p)", "()"]
"""Fragments that keep a clean file clean at most places, so that long runs of edits take the
incremental path rather than a full parse of a broken file."""


@st.composite
def edit_sequences(draw: st.DrawFn) -> tuple[str, str, list[tuple[int, int, str]]]:
    """A base file and edits to it: random fragments, balanced ones, and undos of the edit before (an
    editor's typing and undoing, which returns to a clean file)."""
    path, text = draw(st.sampled_from(BASES))
    edits: list[tuple[int, int, str]] = []
    texts = [text]
    for _ in range(draw(st.integers(1, 10))):
        style = draw(st.sampled_from(["random", "balanced", "balanced", "undo"]))
        if style == "undo" and edits:
            start, end, inserted = edits[-1]
            edit = (start, start + len(inserted), texts[-2][start:end])
        else:
            current = texts[-1]
            start = draw(st.integers(0, len(current)))
            if style == "random":
                removed = draw(st.integers(0, min(12, len(current) - start)))
                inserted = "".join(draw(st.lists(st.sampled_from(FRAGMENTS), max_size=3)))
            else:
                removed, inserted = 0, draw(st.sampled_from(BALANCED))
            edit = (start, start + removed, inserted)
        current = texts[-1]
        texts.append(current[:edit[0]] + edit[2] + current[edit[1]:])
        edits.append(edit)
    return path, text, edits


PARTNER = parse_document("domain.pddl", DOMAIN).domain


def index_of(parsed: ParsedDocument) -> SymbolIndex:
    return build_index(parsed.model, parsed.path, domain=PARTNER, domain_path="domain.pddl")


def assert_same_index(updated: SymbolIndex, full: SymbolIndex) -> None:
    assert list(updated.occurrences) == list(full.occurrences)
    assert updated.declarations == full.declarations
    assert updated.visible == full.visible


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_sequences())
def test_every_edit_parses_as_a_full_parse_would(case: tuple[str, str, list[tuple[int, int, str]]]) -> None:
    """The parse, and the symbol index updated from the previous version's where that is possible."""
    path, text, edits = case
    current = parse_document(path, text)
    index = index_of(current)
    for start, end, inserted in edits:
        text = text[:start] + inserted + text[end:]
        current = reparse_document(current, path, text)  # chained: each builds on the last
        assert_same(current, parse_document(path, text))
        full_index = index_of(current)
        updated = None if current.derived is None else update_index(index, current.model,
                                                                     current.derived.splice)
        if updated is not None:
            assert_same_index(updated, full_index)
        index = updated or full_index


OBJECT_WORDS = ["a", "b", "f", "c2", "- block", "- table", "- (either block table)", "-", "- object"]
"""What an edit of ``:objects`` inserts or deletes: names, and the ``- type`` that types every name
before it back to the previous group, so that an edit next to a typed group changes names it never
touched."""


@st.composite
def object_versions(draw: st.DrawFn) -> list[list[str]]:
    """Successive versions of a problem's object list, as words: each replaces a run of the previous
    version's words by others."""
    words = draw(st.lists(st.sampled_from(OBJECT_WORDS), max_size=10))
    versions = [words]
    for _ in range(draw(st.integers(1, 6))):
        start = draw(st.integers(0, len(words)))
        end = draw(st.integers(start, min(len(words), start + 3)))
        words = words[:start] + draw(st.lists(st.sampled_from(OBJECT_WORDS), max_size=3)) + words[end:]
        versions.append(words)
    return versions


@settings(max_examples=300, deadline=None)
@given(object_versions(), st.booleans())
def test_every_edit_of_the_objects_parses_as_a_full_parse_would(
        versions: list[list[str]], lazy: bool) -> None:
    """Names gain and lose types through words they do not touch (``f a - block`` with ``a - block``
    deleted leaves ``f`` untyped): the incremental parse must see it, lazily or not."""
    template = PROBLEM.replace("a b c - block t1 - table", "{}")
    current = parse_document("problem.pddl", template.format(" ".join(versions[0])))
    for words in versions[1:]:
        text = template.format(" ".join(words))
        current = reparse_document(current, "problem.pddl", text, lazy=lazy)
        assert_same(current, parse_document("problem.pddl", text))


def test_deleting_the_type_of_a_group_untypes_the_name_before_the_edit() -> None:
    before = PROBLEM.replace("a b c - block t1 - table", "a - block f a - block f")
    after = PROBLEM.replace("a b c - block t1 - table", "a - block f f")
    for lazy in (False, True):
        edited = reparse_document(parse_document("problem.pddl", before), "problem.pddl", after, lazy=lazy)
        assert edited.problem is not None
        assert [(o.name.text, o.type) for o in edited.problem.objects][1:] == [("f", None), ("f", None)]
        assert_same(edited, parse_document("problem.pddl", after))


OPEN_FACT_LAYOUTS = [
    "  (:init\n{facts})",  # one fact per line, indented under `(:init`
    "  (:init {facts})",  # the first fact on the line of `(:init`
    "(:init\n{facts})",  # `(:init` at the left margin
]
INDENTS = ["    ", "    ", "    ", "  ", "", "\t", "      "]
"""mostly under ``(:init``; at its column or left of it, a fact's line closes ``(:init`` when a ``)`` is
missing, which the local repair must leave to the full one"""


@st.composite
def typed_open_facts(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A problem, and the versions of typing a fact key by key somewhere among its facts, as an editor
    that does not close brackets sends them: the ``(`` alone, letters, now and then a deletion, a
    comment, or another fact on the same line, and perhaps the ``)`` at last."""
    facts = draw(st.lists(st.sampled_from(["(clear a)", "(on a b)", "(on-table b)", "(clear c)",
                                           "(not (on b a))", "(= (weight a) 2)"]), min_size=1, max_size=6))
    tails = st.sampled_from(["", "", "", " ; note", " (clear b)"])
    lines = [draw(st.sampled_from(INDENTS)) + fact + draw(tails) for fact in facts]
    layout = draw(st.sampled_from(OPEN_FACT_LAYOUTS))
    text = ("(define (problem p)\n  (:domain blocks)\n  (:objects a b c)\n"
            + layout.format(facts="\n".join(lines)) + "\n  (:goal (and (on a b) (clear a)))\n)\n")
    init = text.index("(:init")
    goal = text.index("(:goal")
    line_ends = [m.start() for m in re.finditer("\n", text) if init < m.start() < goal]
    # mostly on a new line of its own after a fact's line (where a new fact is usually typed); else
    # anywhere between two facts, or at the start of a line, before the fact on it
    at = draw(st.sampled_from(line_ends))
    prefix = "\n" + draw(st.sampled_from(INDENTS))
    if draw(st.integers(0, 3)) == 0:
        between = [m.end() for m in re.finditer(r"\) ", text[:goal]) if m.end() > init]
        at = draw(st.sampled_from([at + 1, *between]))
        prefix = draw(st.sampled_from(["", " "]))
    keys = [prefix + "(", *draw(st.sampled_from(["clear b", "on c a", "on-table a", "x"]))]
    keys += draw(st.lists(st.sampled_from(["\b", "z", " ", "; c\n", "; c", ")", " (p)"]), max_size=3))
    return text, _typed(text, at, keys)


def _typed(text: str, at: int, keys: list[str]) -> list[str]:
    """The versions of ``text`` as ``keys`` are typed at ``at``, one per key (``\b`` deletes the
    character before the cursor, unless that ends a line)."""
    versions = []
    for key in keys:
        if key == "\b":
            if text[at - 1:at] not in ("", "\n"):
                text, at = text[:at - 1] + text[at:], at - 1
        else:
            text, at = text[:at] + key + text[at:], at + len(key)
        versions.append(text)
    return versions


def _each_parses_as_a_full_parse_would(text: str, versions: list[str], lazy: bool) -> None:
    """Every version, parsed from the one before, equals a full parse of its text."""
    current = parse_document("problem.pddl", text)
    for version in versions:
        current = reparse_document(current, "problem.pddl", version, lazy=lazy)
        assert_same(current, parse_document("problem.pddl", version))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed_open_facts(), st.booleans())
def test_typing_a_fact_without_its_closing_paren_parses_as_a_full_parse_would(
        case: tuple[str, list[str]], lazy: bool) -> None:
    """Each key, parsed from the version before, gives the model and the diagnostics (the repair's
    guess of where the `)` goes among them) of a full parse; the repair is made on the typed facts
    alone only where the whole file's would decide the same (``local_repair.py``)."""
    _each_parses_as_a_full_parse_would(*case, lazy)


GOAL_LAYOUTS = ["  (:goal (and\n{atoms}))", "  (:goal\n    (and\n{atoms}))", "  (:goal (and {atoms}))",
                "(:goal\n(and\n{atoms}))"]


@st.composite
def typed_open_goal_atoms(draw: st.DrawFn) -> tuple[str, list[str]]:
    """The same for a goal atom typed into the goal's ``(and ...)``, after ``:init`` facts laid out in
    any of the ways above: with a ``)`` missing, a fact line of ``:init`` at or left of its column would
    be taken for the end of ``:init`` first."""
    facts = draw(st.lists(st.sampled_from(["(clear a)", "(on a b)", "(not (on b a))"]), min_size=1,
                          max_size=4))
    fact_lines = "\n".join(draw(st.sampled_from(INDENTS)) + fact for fact in facts)
    atoms = draw(st.lists(st.sampled_from(["(on a b)", "(clear c)", "(not (clear a))",
                                           "(exists (?x) (clear ?x))"]), min_size=1, max_size=4))
    atom_lines = "\n".join(draw(st.sampled_from(INDENTS)) + atom for atom in atoms)
    text = ("(define (problem p)\n  (:domain blocks)\n  (:objects a b c)\n"
            + draw(st.sampled_from(OPEN_FACT_LAYOUTS)).format(facts=fact_lines) + "\n"
            + draw(st.sampled_from(GOAL_LAYOUTS)).format(atoms=atom_lines) + "\n)\n")
    goal = text.index("(:goal")
    line_ends = [m.start() for m in re.finditer("\n", text) if goal < m.start() < len(text) - 3]
    at = draw(st.sampled_from(line_ends)) if line_ends else text.index("(and", goal) + 4
    keys = ["\n" + draw(st.sampled_from(INDENTS)) + "(", *draw(st.sampled_from(["clear b", "on c a"]))]
    keys += draw(st.lists(st.sampled_from(["\b", "z", " ", ")"]), max_size=2))
    return text, _typed(text, at, keys)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed_open_goal_atoms(), st.booleans())
def test_typing_a_goal_atom_without_its_closing_paren_parses_as_a_full_parse_would(
        case: tuple[str, list[str]], lazy: bool) -> None:
    _each_parses_as_a_full_parse_would(*case, lazy)


def test_a_fact_typed_on_its_own_line_is_repaired_incrementally_at_every_key(
        monkeypatch: pytest.MonkeyPatch) -> None:
    facts = "".join(f"    (on b{i} b{i + 1})\n" for i in range(50))
    text = (f"(define (problem p)\n  (:domain blocks)\n  (:objects b0)\n  (:init\n{facts}  )\n"
            "  (:goal (on b1 b2))\n)\n")
    at = text.index("    (on b20 ")
    text = text[:at] + "    \n" + text[at:]
    at += 4
    current = parse_document("problem.pddl", text)

    def no_full_parse(*_args: object) -> None:
        raise AssertionError("parsed the whole file again")

    for key in "(clear b":
        text, at = text[:at] + key + text[at:], at + 1
        expected = parse_document("problem.pddl", text)
        with monkeypatch.context() as patch:
            patch.setattr(documents, "parse_document", no_full_parse)
            current = reparse_document(current, "problem.pddl", text, lazy=True)
        assert_same(current, expected)
        [repair] = [d for d in current.diagnostics if d.code == "unclosed-paren"]
        assert "is not closed: add `)` before this line" in repair.message
    text = text[:at] + ")" + text[at:]
    with monkeypatch.context() as patch:
        patch.setattr(documents, "parse_document", no_full_parse)
        current = reparse_document(current, "problem.pddl", text, lazy=True)
    assert_same(current, parse_document("problem.pddl", text))
    assert not current.diagnostics


def _spelled(text: str, anchor: str, offset: int, inserted: str, removed: int = 0) -> str:
    at = text.index(anchor) + offset
    return text[:at] + inserted + text[at + removed:]


@pytest.mark.parametrize(("anchor", "offset", "inserted", "removed"), [
    ("(clear a)", 0, "(clear b) ", 0),  # a new fact in :init
    ("(clear a)", 1, "un", 0),  # a renamed predicate
    ("(on b c)", 0, "(clear c) ", 0),  # a new goal atom
    ("(not (on a b))", 0, "", 14),  # a goal atom deleted
    ("(:metric", 0, "\n  ", 0),  # blank lines between sections
    ("a b c - block", 0, "d ", 0),  # a new object
    ("(total-cost))\n)\n", 16, " ; the end", 0),  # a comment after the last parenthesis
])
def test_edits_inside_a_section_parse_only_that_section(
        monkeypatch: pytest.MonkeyPatch, anchor: str, offset: int, inserted: str, removed: int) -> None:
    previous = parse_document("problem.pddl", PROBLEM)
    text = _spelled(PROBLEM, anchor, offset, inserted, removed)
    expected = parse_document("problem.pddl", text)

    def no_full_parse(*_args: object) -> None:
        raise AssertionError("parsed the whole file again")

    monkeypatch.setattr(documents, "parse_pddl", no_full_parse)
    parsed = reparse_document(previous, "problem.pddl", text)
    assert_same(parsed, expected)
    assert parsed.derived is not None
    updated = update_index(index_of(previous), parsed.model, parsed.derived.splice)
    if "(:init" in anchor or "(clear" in anchor or "(on" in anchor or "(not" in anchor:  # facts and goals
        assert updated is not None
    if updated is not None:
        assert_same_index(updated, index_of(expected))


@pytest.mark.parametrize("text", [
    _spelled(PROBLEM, "(:init", 0, ")"),  # a stray parenthesis between sections
    _spelled(PROBLEM, "(:init", 1, "", 5),  # the section keyword deleted
    _spelled(PROBLEM, "(clear a)", 0, "; "),  # a comment that swallows the rest of the line
    _spelled(PROBLEM, "(problem small)", 9, "x"),  # the header
])
def test_edits_the_incremental_path_cannot_vouch_for_parse_the_whole_file(text: str) -> None:
    previous = parse_document("problem.pddl", PROBLEM)
    assert_same(reparse_document(previous, "problem.pddl", text), parse_document("problem.pddl", text))


UNTYPED = PROBLEM.replace("a b c - block t1 - table", "a b c t1")


@pytest.mark.parametrize(("base", "text"), [
    (UNTYPED, _spelled(UNTYPED, "(:objects", 9, "x")),
    (UNTYPED, _spelled(UNTYPED, "(:objects", 9, "", 1)),
    (PROBLEM, _spelled(PROBLEM, "(:init", 6, "x")),
    (PROBLEM, _spelled(PROBLEM, "(and", 4, "x")),
])
def test_a_letter_typed_after_a_lists_keyword_makes_another_keyword(base: str, text: str) -> None:
    """`(:objectsx a b c)` is an unknown section, not the objects `x a b c`: the edit touches the
    keyword, so the whole file is parsed again."""
    previous = parse_document("problem.pddl", base)
    assert_same(reparse_document(previous, "problem.pddl", text), parse_document("problem.pddl", text))


def test_a_file_with_syntax_errors_is_parsed_in_full_until_it_is_clean() -> None:
    broken = _spelled(PROBLEM, "(:goal", 0, "(")
    previous = parse_document("problem.pddl", broken)
    assert previous.outline is None and previous.diagnostics
    fixed = parse_document("problem.pddl", PROBLEM)
    assert_same(reparse_document(previous, "problem.pddl", PROBLEM), fixed)
    assert fixed.outline is not None


def test_changed_range_is_the_stretch_between_common_prefix_and_suffix() -> None:
    old = "x" * 10_000 + "abc" + "y" * 9_000
    new = "x" * 10_000 + "aZZc" + "y" * 9_000
    change = changed_range(old, new)
    assert change is not None
    assert (change.start, change.old_end, change.delta) == (10_001, 10_002, 1)
    assert changed_range(old, old) is None
    assert changed_range("ab", "abab") == changed_range("ab", "abab")
    grown = changed_range("ab", "abab")
    assert grown is not None and grown.old_end - grown.start + grown.delta == 2
