"""Take the plan or the PDDL definition out of a language model's answer, saying what was removed and why.

Models wrap their answer in prose, Markdown fences, bold and list numbering, and PlanBench's prompts end
their plans with ``[PLAN]``/``[PLAN END]`` markers. Reading such an answer is a policy, not a guess
hidden in the parser: extraction is only applied when asked for (``--extract``), and every character it
drops is reported as a :class:`Removal` with its reason. The extracted text is the original with the
removed characters blanked (line breaks kept), so every offset, line and column a diagnostic reports is
the original file's. docs/llm-output.md describes the policy with examples.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from plansight.analyses.diagnostics.spans import Span

ExtractionKind = Literal["plan", "domain", "problem"]

_FENCE = re.compile(r"[ \t]*(```|~~~)")
_PLAN_START = re.compile(r"\[PLAN\]", re.IGNORECASE)
_PLAN_END = re.compile(r"\[PLAN[ _]END\]", re.IGNORECASE)
_TIMESTAMP = re.compile(r"(?<![\d.])\d+(?:\.\d*)?\s*:\s*")
_DURATION = re.compile(r"\s*\[\s*\d+(?:\.\d*)?\s*\]")
_INNER_NUMBER = re.compile(r"\s*(?:step\s*)?\d+\s*[.):]\s*", re.IGNORECASE)
_EMPHASIS = re.compile(r"[*_`~]+")
_NUMBERING = re.compile(
    r"[*_`]*\s*(?:[-*+•>]|\d+\s*[.)]|step\s*\d+\s*[:.)-]?|#+)\s*[*_`]*\s*", re.IGNORECASE
)
_PUNCTUATION = re.compile(r"[,.;:]+")
_DEFINE = re.compile(r"\(\s*define\s*\(\s*(domain|problem)\b", re.IGNORECASE)
_EXCERPT = 60


@dataclass(frozen=True, slots=True)
class Removal:
    """A stretch of the original text that extraction dropped, and the reason a reader is shown."""

    span: Span
    reason: str


@dataclass(frozen=True, slots=True)
class Extraction:
    """The answer with everything that is not the plan or definition blanked, and what was blanked."""

    original: str
    text: str
    """Same length and line breaks as ``original``: offsets into it are offsets into the file."""
    removed: tuple[Removal, ...]
    kind: ExtractionKind

    def compact(self) -> str:
        """The extracted text without the blanked stretches and blank lines, as a reader would write it."""
        lines = (re.sub(r"\s+\)", ")", re.sub(r"\(\s+", "(", " ".join(line.split())))
                 for line in self.text.splitlines())
        return "\n".join(line for line in lines if line)

    def to_json(self) -> dict[str, Any]:
        """The ``extracted`` section of the command-line reports (docs/llm-output.md)."""
        return {
            "kind": self.kind,
            "removed": [
                {"start": r.span.start, "end": r.span.end, "reason": r.reason,
                 "text": _excerpt(self.original[r.span.start:r.span.end])}
                for r in self.removed
            ],
            "text": self.compact(),
        }


def extract(text: str, kind: ExtractionKind) -> Extraction:
    """The plan (``kind="plan"``) or the domain or problem definition held by a model's answer."""
    marks: list[str | None] = [None] * len(text)
    if kind == "plan":
        _mark_plan(text, marks)
    else:
        _mark_definition(text, marks, kind)
    return _build(text, marks, kind)


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT else flat[: _EXCERPT - 1] + "…"


def _mark(marks: list[str | None], text: str, start: int, end: int, reason: str) -> None:
    for index in range(start, end):
        if marks[index] is None and not text[index].isspace():
            marks[index] = reason


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line, its line break excluded."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in re.finditer(r"\n", text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith(";")


def _fenced_blocks(text: str, lines: list[tuple[int, int]], marks: list[str | None]) -> list[list[int]]:
    """Mark the fence lines and return the line numbers inside each fenced block (an unclosed block runs
    to the end)."""
    blocks: list[list[int]] = []
    inside = False
    for number, (start, end) in enumerate(lines):
        if _FENCE.match(text, start, end):
            _mark(marks, text, start, end, "Markdown fence")
            inside = not inside
            if inside:
                blocks.append([])
        elif inside:
            blocks[-1].append(number)
    return blocks


# --- plans ----------------------------------------------------------------------------------------------


def _mark_plan(text: str, marks: list[str | None]) -> None:
    lines = _lines(text)
    region = _plan_markers(text, lines, marks)
    blocks = _fenced_blocks(text, lines, marks)
    answer = next((b for b in blocks if any(_has_action(text, *lines[n]) for n in b)), None)
    if answer is not None:
        inside = set(answer)
        for number, (start, end) in enumerate(lines):
            if number not in inside and not _is_comment(text[start:end]):
                _mark(marks, text, start, end, "outside the code block holding the plan")
    delimited = answer is not None or region
    for start, end in lines:
        if all(marks[i] is not None or text[i].isspace() for i in range(start, end)):
            continue
        if _is_comment(text[start:end]):
            continue
        if _has_action(text, start, end):
            _clean_action_line(text, start, end, marks)
        elif not delimited:
            _mark(marks, text, start, end, "prose (no action on this line)")
        else:
            _strip_emphasis(text, start, end, marks)


def _plan_markers(text: str, lines: list[tuple[int, int]], marks: list[str | None]) -> bool:
    """PlanBench's ``[PLAN]`` ... ``[PLAN END]``: only what lies between is the plan. True when a marker
    was found (the plan's lines are then delimited)."""
    begin = next((m for m in _PLAN_START.finditer(text) if not _in_comment(text, m.start())), None)
    finish = next((m for m in _PLAN_END.finditer(text, begin.end() if begin is not None else 0)
                   if not _in_comment(text, m.start())), None)
    if begin is None and finish is None:
        return False
    if begin is not None:
        for start, end in lines:
            if end <= begin.start() and not _is_comment(text[start:end]):
                _mark(marks, text, start, end, "before [PLAN]")
        line_start = text.rfind("\n", 0, begin.start()) + 1
        _mark(marks, text, line_start, begin.start(), "before [PLAN]")
        _mark(marks, text, begin.start(), begin.end(), "[PLAN] marker")
    if finish is not None:
        _mark(marks, text, finish.start(), finish.end(), "[PLAN END] marker")
        _mark(marks, text, finish.end(), len(text), "after [PLAN END]")
    return True


def _has_action(text: str, start: int, end: int) -> bool:
    return "(" in text[start:end] and not _is_comment(text[start:end])


def _clean_action_line(text: str, start: int, end: int, marks: list[str | None]) -> None:
    """Keep the ``(action ...)`` groups (with an IPC timestamp or duration), drop the decoration."""
    comment = text.find(";", start, end)
    stop = end if comment < 0 else comment
    position = start
    first = True
    while position < stop:
        opening = text.find("(", position, stop)
        if opening < 0:
            if ")" not in text[position:stop]:  # a stray `)` is the parser's to report, not ours to hide
                _mark(marks, text, position, stop, _reason(text[position:stop], first=False))
            break
        leading = text[position:opening]
        timestamp = _TIMESTAMP.search(leading) if first else None
        before = leading[: timestamp.start()].strip() if timestamp is not None else ""
        if timestamp is not None and timestamp.end() == len(leading) and (
                not before or _NUMBERING.fullmatch(before)):
            leading = leading[: timestamp.start()]  # `0.000:` belongs to the step, numbering before it not
        if leading.strip() and (")" not in leading or (first and _NUMBERING.fullmatch(leading.strip()))):
            _mark(marks, text, position, position + len(leading), _reason(leading, first))
        closing = _closing(text, opening, stop)
        inner = _INNER_NUMBER.match(text, opening + 1, closing)
        if inner is not None and inner.end() < closing:
            _mark(marks, text, inner.start(), inner.end(), "list numbering")
        _strip_emphasis(text, opening + 1, closing, marks)
        position = closing + 1 if closing < stop else stop
        duration = _DURATION.match(text, position, stop)
        if duration is not None:
            position = duration.end()
        first = False


def _closing(text: str, opening: int, stop: int) -> int:
    """Where the group opened at ``opening`` closes on its line (``stop`` when it does not)."""
    depth = 0
    for index in range(opening, stop):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return stop


def _strip_emphasis(text: str, start: int, end: int, marks: list[str | None]) -> None:
    """Markdown emphasis and inline-code marks: ``*``, ``**``, backticks (``_`` and ``~`` only when doubled,
    since names may hold them)."""
    for match in re.finditer(r"\*+|`+|__+|~~+", text[start:end]):
        _mark(marks, text, start + match.start(), start + match.end(), "Markdown emphasis")


def _reason(chunk: str, first: bool) -> str:
    content = chunk.strip()
    if _EMPHASIS.fullmatch(content):
        return "Markdown emphasis"
    if first and _NUMBERING.fullmatch(content):
        return "list numbering"
    if _PUNCTUATION.fullmatch(content):
        return "punctuation"
    return "prose around the action"


# --- domains and problems -------------------------------------------------------------------------------


def _mark_definition(text: str, marks: list[str | None], kind: ExtractionKind) -> None:
    lines = _lines(text)
    _fenced_blocks(text, lines, marks)
    headers = [m for m in _DEFINE.finditer(text)
               if marks[m.start()] is None and not _in_comment(text, m.start())]
    if not headers:
        return
    header = next((m for m in headers if m.group(1).lower() == kind), headers[0])
    begin = header.start()
    finish = _definition_end(text, begin, marks)
    for start, end in lines:
        if _is_comment(text[start:end]):
            continue
        _mark(marks, text, start, min(end, begin), "prose before the definition")
        _mark(marks, text, max(start, finish), end, "after the definition")


def _in_comment(text: str, offset: int) -> bool:
    line_start = text.rfind("\n", 0, offset) + 1
    return ";" in text[line_start:offset]


def _definition_end(text: str, begin: int, marks: list[str | None]) -> int:
    """The offset after the ``)`` closing the definition opened at ``begin`` (the text's end when the
    answer was cut off)."""
    depth = 0
    index = begin
    while index < len(text):
        char = text[index]
        if char == ";":
            newline = text.find("\n", index)
            index = len(text) if newline < 0 else newline
            continue
        if marks[index] is None:
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    return index + 1
        index += 1
    return len(text)


# --- result ---------------------------------------------------------------------------------------------


def _build(text: str, marks: list[str | None], kind: ExtractionKind) -> Extraction:
    removed: list[Removal] = []
    current: str | None = None
    begin = last = 0
    for index, reason in enumerate(marks):
        if reason is None:
            if current is not None and not text[index].isspace():
                removed.append(Removal(Span(begin, last + 1), current))
                current = None
            continue
        if reason != current:
            if current is not None:
                removed.append(Removal(Span(begin, last + 1), current))
            current, begin = reason, index
        last = index
    if current is not None:
        removed.append(Removal(Span(begin, last + 1), current))
    blanked = "".join(" " if marks[i] is not None else char for i, char in enumerate(text))
    return Extraction(text, blanked, tuple(removed), kind)
