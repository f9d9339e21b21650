"""The formatter: its canonical layout, its promises (idempotent, meaning-preserving, every comment
kept) over the whole corpus and over generated input, its refusal to touch broken files, and the
``plansight format`` command."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from corpus import EXAMPLES, corpus_files, plan_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.formatter import (
    format_document,
    format_parsed,
    format_range,
    format_text,
    whole_document_edit,
)
from plansight.analyses.syntax.documents import parse_document

MESSY = """\
; header comment
(define (domain Travel) (:requirements :typing ; why typing
 :numeric-fluents)
(:types car truck - vehicle ; kinds of vehicle
  place) (:constants Home - place)
(:predicates (at ?v - vehicle ?p - place) ; where a vehicle is
  ; an own-line comment
 (road ?from ?to - place))


(:action go :parameters (?v - vehicle
  ?from ?to - place) :precondition (and (at ?v ?from)
   ; must be connected
   (road ?from ?to)) :effect (and (not (at ?v ?from)) (at ?v ?to) ; arrive
   ))
) ; end of domain
"""

CANONICAL = """\
; header comment
(define (domain Travel)
  (:requirements
    :typing ; why typing
    :numeric-fluents)
  (:types
    car truck - vehicle ; kinds of vehicle
    place)
  (:constants Home - place)
  (:predicates
    (at ?v - vehicle ?p - place) ; where a vehicle is
    ; an own-line comment
    (road ?from ?to - place))

  (:action go
    :parameters (?v - vehicle ?from ?to - place)
    :precondition (and
      (at ?v ?from)
      ; must be connected
      (road ?from ?to))
    :effect (and
      (not (at ?v ?from))
      (at ?v ?to) ; arrive
    ))) ; end of domain
"""


def comments(text: str) -> Counter[str]:
    return Counter(m.rstrip() for m in re.findall(r";[^\n]*", text))


def test_messy_domain_gets_the_canonical_layout_with_every_comment_in_place() -> None:
    result = format_document("domain.pddl", MESSY)
    assert result.text == CANONICAL
    assert parse_document("d.pddl", CANONICAL).model == parse_document("d.pddl", MESSY).model


def test_short_forms_stay_on_one_line_and_long_ones_break_at_the_width() -> None:
    text = ("(define (problem p) (:domain d) (:objects a b c - block) (:init (on a b))"
            " (:goal (and (on a b) (on b c))))")
    assert format_text(text) == (
        "(define (problem p)\n"
        "  (:domain d)\n"
        "  (:objects a b c - block)\n"
        "  (:init\n"
        "    (on a b))\n"
        "  (:goal (and (on a b) (on b c))))\n")
    narrow = format_text(text, indent=4, width=30)
    assert "    (:goal (and\n        (on a b)\n        (on b c))))\n" in narrow


def test_long_typed_lists_break_per_type() -> None:
    objects = " ".join(f"block{i}" for i in range(30))
    text = f"(define (problem p) (:domain d) (:objects {objects} - block r1 r2 - room))"
    lines = format_text(text).splitlines()
    assert lines[2] == "  (:objects"
    assert lines[-1] == "    r1 r2 - room))"
    assert all(len(line) <= 100 for line in lines)
    assert lines[3].startswith("    block0 block1 ")


@pytest.mark.parametrize("form", [
    "(:objects " + " ".join(f"b{i}" for i in range(60)) + " - block - - r1 r2 - room t)",
    "(:requirements " + " ".join(f":req-{i}" for i in range(30)) + ")",
    "(:goal " + " ".join(f"name{i}" for i in range(30)) + " - x y)",
])
def test_a_long_one_line_form_of_names_breaks_as_the_same_names_written_over_lines(form: str) -> None:
    # one line of names is laid out straight from its words; over several lines, the same names take
    # the general path: both must give the same text
    one_line = f"(define (problem p) (:domain d) {form})"
    over_lines = one_line.replace(" b1", "\n b1").replace(" :req-1", "\n:req-1").replace(" name1", "\nname1")
    assert over_lines != one_line
    for width in (30, 100):
        formatted = format_text(one_line, indent=2, width=width)
        assert formatted == format_text(over_lines, indent=2, width=width)
        if not form.startswith("(:goal"):  # a head's own names stay on its line, whatever the width
            assert max(len(line) for line in formatted.splitlines()) <= width


def test_a_plan_gets_one_step_per_line_with_its_time_and_duration() -> None:
    text = "; a plan\n0.000:   ( drive r a b )  [2.000]   2.001: (take r b)[1]\n\n\n(noop) ; done\n"
    assert format_document("p.plan", text).text == (
        "; a plan\n0.000: (drive r a b) [2.000]\n2.001: (take r b) [1]\n\n(noop) ; done\n")


def test_a_file_with_syntax_errors_is_left_alone_and_the_reason_names_the_error() -> None:
    broken = "(define (domain d)\n  (:predicates (p ?x)\n  (:action a :parameters () :effect (p x)))"
    result = format_document("d.pddl", broken)
    assert result.text is None
    assert "syntax error" in result.reason


def test_crlf_line_endings_are_kept() -> None:
    text = "(define (domain d)\r\n(:predicates (p)))\r\n"
    assert format_text(text) == "(define (domain d)\r\n  (:predicates\r\n    (p)))\r\n"


def test_range_formatting_touches_only_the_sections_the_range_overlaps() -> None:
    text = "(define (domain d)\n  (:predicates   (p)  (q))\n  (:action a :parameters () :effect (p)))\n"
    start = text.index("(:action")
    edit = format_range(text, Span(start + 2, start + 5))
    assert edit is not None
    edited = text[:edit.span.start] + edit.new_text + text[edit.span.end:]
    assert "(:predicates   (p)  (q))" in edited  # outside the range: untouched
    assert edited == format_text(text).replace("(:predicates\n    (p)\n    (q))", "(:predicates   (p)  (q))")


def test_whole_document_edit_is_minimal() -> None:
    edit = whole_document_edit("(a  b)\n(c)\n", "(a b)\n(c)\n")
    assert edit is not None and edit.span == Span(3, 4) and edit.new_text == ""  # one of the two spaces


# --- the promises over the corpus ------------------------------------------------------------------


def _corpus() -> list[tuple[str, str]]:
    files = [(str(f.path), f.path.read_text(errors="replace")) for f in corpus_files() + plan_files()]
    return [(p, t) for p, t in files if parse_document(p, t).kind != "unknown"]


def test_formatting_is_idempotent_and_meaning_preserving_and_keeps_comments_over_the_corpus() -> None:
    checked = 0
    for path, text in _corpus():
        before = parse_document(path, text)
        result = format_parsed(before)
        if result.text is None:
            assert any(d.severity.value == "error" for d in before.diagnostics), path
            continue
        formatted = result.text
        plan = before.kind == "plan"
        assert format_text(formatted, plan=plan) == formatted, f"not idempotent: {path}"
        assert parse_document(path, formatted).model == before.model, f"meaning changed: {path}"
        assert comments(formatted) == comments(text), f"comments changed: {path}"
        checked += 1
    assert checked >= len(list(EXAMPLES.rglob("*.pddl"))) - 2


# --- generated input -----------------------------------------------------------------------------------

_WORDS = st.sampled_from(
    ["a", "b", "?x", "?y", "-", "t", ":init", "and", "not", "on", "1.5", "#t", "at", "start"])


@st.composite
def _sexpr(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["word", "word", "list", "comment", "blank"] if depth < 4 else ["word"]))
        if kind == "word":
            parts.append(draw(_WORDS))
        elif kind == "list":
            parts.append(draw(_sexpr(depth + 1)))
        elif kind == "comment":
            parts.append("; note " + draw(st.sampled_from(["(", ")", "x", ";;"])) + "\n")
        else:
            parts.append("\n\n")
    spaces = draw(st.sampled_from([" ", "  ", "\n", "\t"]))
    return "(" + spaces.join(parts) + ")"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_sexpr(), min_size=1, max_size=3), st.integers(0, 6), st.integers(20, 120))
def test_generated_forms_keep_their_tokens_and_comments_and_settle_in_one_pass(
        forms: list[str], indent: int, width: int) -> None:
    text = "\n".join(forms)
    once = format_text(text, indent, width)
    assert re.findall(r";[^\n]*|[()]|[^\s();]+", once) == re.findall(r";[^\n]*|[()]|[^\s();]+", text)
    assert format_text(once, indent, width) == once


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_mutated_example_files_are_either_refused_or_formatted_faithfully(data: st.DataObject) -> None:
    files = sorted(EXAMPLES.rglob("*.pddl"))
    path = data.draw(st.sampled_from(files))
    text = path.read_text()
    at = data.draw(st.integers(0, len(text)))
    insert = data.draw(st.sampled_from(["", "(", ")", " ", "\n", "; c\n", "(p ?x)", "-"]))
    cut = data.draw(st.integers(0, 3))
    mutated = text[:at] + insert + text[at + cut:]
    result = format_document(str(path), mutated)
    if result.text is not None:
        assert parse_document(str(path), result.text).model == parse_document(str(path), mutated).model
        assert comments(result.text) == comments(mutated)


# --- the command ---------------------------------------------------------------------------------------


def _plansight(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "plansight", *args],
                          capture_output=True, text=True, timeout=60)


def test_format_command_prints_checks_diffs_and_writes_only_when_asked(tmp_path: Path) -> None:
    messy = tmp_path / "domain.pddl"
    messy.write_text(MESSY)
    printed = _plansight("format", str(messy))
    assert printed.returncode == 0 and printed.stdout == CANONICAL
    assert messy.read_text() == MESSY  # never written without --write
    check = _plansight("format", "--check", str(messy))
    assert check.returncode == 1 and f"would reformat {messy}" in check.stdout
    diff = _plansight("format", "--diff", str(messy))
    assert "+  (:constants Home - place)" in diff.stdout
    as_json = json.loads(_plansight("format", "--check", "--format", "json", str(messy)).stdout)
    assert as_json["files"][0]["status"] == "changed" and as_json["summary"]["changed"] == 1
    assert _plansight("format", "--write", str(messy)).returncode == 0
    assert messy.read_text() == CANONICAL
    assert _plansight("format", "--check", str(messy)).returncode == 0


def test_format_command_refuses_a_broken_file_and_says_why(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pddl"
    broken.write_text("(define (domain d) (:predicates (p))")
    result = _plansight("format", str(broken))
    assert result.returncode == 1
    assert "not formatted" in result.stderr and "syntax error" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("args", [["format", "--indent", "40", "x.pddl"], ["format", "nowhere/"]])
def test_format_command_usage_errors_exit_2(args: list[str]) -> None:
    assert _plansight(*args).returncode == 2
