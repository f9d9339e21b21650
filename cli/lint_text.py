"""``plansight lint`` for people: one ``path:line:col: severity code: message`` line per diagnostic.

The line format is the one compilers use, so terminals and editors turn it into a link. Below each
line the offending source line is shown with the range underlined (``--concise`` drops that), and a
summary closes the report. Colour only on a terminal; piped output is plain text, written without
importing ``rich`` at all: its import is about a tenth of a small file's whole lint, which CI scripts and
batch jobs, piping every run, would pay for nothing (benchmarks/RESULTS.md, start-up).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from plansight.analyses.diagnostics.diagnostic import Diagnostic, Severity
from plansight.analyses.diagnostics.spans import LineIndex
from plansight.analyses.workspace.lint import LintResult

if TYPE_CHECKING:
    from rich.text import Text as RichText

STYLES = {
    Severity.ERROR: "bold red",
    Severity.WARNING: "bold yellow",
    Severity.INFORMATION: "bold blue",
    Severity.HINT: "bold cyan",
}
EXCERPT_WIDTH = 100
"""Longest source excerpt shown; a 1 MB one-line problem must not flood the terminal."""


class Text:
    """A line of the report as pieces of text with their ``rich`` styles: enough to write it plain, and
    turned into ``rich`` text only when it is coloured."""

    __slots__ = ("pieces",)

    def __init__(self, plain: str = "") -> None:
        self.pieces: list[tuple[str, str | None]] = [(plain, None)] if plain else []

    def append(self, text: str, style: str | None = None) -> None:
        """Add a piece at the end of the line."""
        self.pieces.append((text, style))

    @property
    def plain(self) -> str:
        """The line without its styles."""
        return "".join(text for text, _ in self.pieces)

    def rich(self) -> RichText:
        """The line for a ``rich`` console."""
        from rich.text import Text as RichText

        line = RichText()
        for text, style in self.pieces:
            line.append(text, style=style)
        return line


Section = tuple[list[Text], list[Text]]
"""One file's part of the report: lines about the file (what ``--extract`` removed from it), then its
diagnostics with their excerpts."""


def write_text(results: Sequence[LintResult], stream: TextIO, *, concise: bool = False,
               color: bool | None = None, notes: Mapping[str, str] | None = None) -> None:
    """Write the report; ``color=None`` colours only when ``stream`` is a terminal. ``notes`` are lines
    about a file shown before its diagnostics (what ``--extract`` removed from it)."""
    sections = [file_section(result, concise, (notes or {}).get(result.path)) for result in results]
    write_sections(sections, summary(results), stream, concise=concise, color=color)


def file_section(result: LintResult, concise: bool = False, note: str | None = None) -> Section:
    """The report's lines for one file. Rendered as soon as the file is linted, so that a batch can let
    go of the file's text before linting the next one."""
    notes = [Text(f"{result.path}: {note}")] if note else []
    lines: list[Text] = []
    if result.diagnostics:
        index = LineIndex(result.text)
        for diagnostic in result.diagnostics:
            lines.append(_headline(result.path, index, diagnostic))
            if not concise:
                lines.extend(_excerpt(result.text, index, diagnostic))
    return notes, lines


def write_sections(sections: Iterable[Section], closing: Text, stream: TextIO, *, concise: bool = False,
                   color: bool | None = None) -> None:
    """Write the files' sections (a blank line between files with diagnostics unless ``concise``) and
    the summary."""
    colored = False
    if color or (color is None and _may_be_terminal(stream)):
        from rich.console import Console

        console = Console(file=stream, highlight=False, soft_wrap=True, emoji=False, markup=False,
                          force_terminal=color if color else None, no_color=color is False)
        colored = console.is_terminal and not console.no_color if color is None else color

    def emit(text: Text) -> None:
        if colored:
            console.print(text.rich())
        else:
            stream.write(text.plain + "\n")

    first = True
    for notes, lines in sections:
        for note in notes:
            emit(note)
        if not lines:
            continue
        if not concise and not first:
            emit(Text(""))
        first = False
        for line in lines:
            emit(line)
    if not concise and not first:
        emit(Text(""))
    emit(closing)


def _may_be_terminal(stream: TextIO) -> bool:
    """Whether ``rich`` could take ``stream`` for a terminal: it is one, or the environment says to treat it
    as one (``TTY_COMPATIBLE=1``, ``FORCE_COLOR``). Otherwise ``rich`` would write plain text anyway, so
    it need not be imported to decide."""
    if os.environ.get("TTY_COMPATIBLE") == "1" or os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False


def _headline(path: str, index: LineIndex, diagnostic: Diagnostic) -> Text:
    start = index.position(diagnostic.span.start)
    text = Text()
    text.append(f"{path}:{start.line + 1}:{start.character + 1}:", style="bold")
    text.append(" ")
    text.append(diagnostic.severity.value, style=STYLES[diagnostic.severity])
    text.append(" ")
    text.append(diagnostic.code, style="dim")
    text.append(": ")
    text.append(diagnostic.message)
    return text


def _excerpt(source: str, index: LineIndex, diagnostic: Diagnostic) -> list[Text]:
    """The first line of the range with carets under it, then related notes."""
    lines: list[Text] = []
    span = diagnostic.span
    if source:
        line = index.line_of(span.start)
        line_start, line_end = index.line_start(line), index.line_end(line)
        start = min(max(span.start, line_start), line_end)
        end = min(max(span.end, start), line_end)
        # a window around the range, tabs expanded so the carets line up
        window_start = max(line_start, min(start - EXCERPT_WIDTH // 3, line_end - EXCERPT_WIDTH))
        window_end = min(line_end, max(window_start + EXCERPT_WIDTH, end))
        before = source[window_start:start].expandtabs(4)
        marked = source[start:end].expandtabs(4)
        after = source[end:window_end].expandtabs(4)
        lead = "..." if window_start > line_start else ""
        tail = "..." if window_end < line_end else ""
        number = str(line + 1)
        gutter = " " * len(number)
        code = Text()
        code.append(f" {number} | ", style="dim")
        code.append(lead + before)
        code.append(marked, style=STYLES[diagnostic.severity])
        code.append(after + tail)
        carets = Text()
        carets.append(f" {gutter} | ", style="dim")
        carets.append(" " * (len(lead) + len(before)))
        carets.append("^" * max(1, len(marked)), style=STYLES[diagnostic.severity])
        lines += [code, carets]
    for related in diagnostic.related:
        if related.path is None:
            where = index.position(related.span.start)
            place = f"line {where.line + 1}, column {where.character + 1}"
        else:
            place = related.path
        note = Text()
        note.append("   = note: ", style="dim")
        note.append(f"{related.message} ({place})")
        lines.append(note)
    return lines


def summary(results: Sequence[LintResult]) -> Text:
    """The closing line of the text report: how many files had problems and how many of each severity."""
    counts = dict.fromkeys(Severity, 0)
    with_findings = 0
    for result in results:
        with_findings += bool(result.diagnostics)
        for diagnostic in result.diagnostics:
            counts[diagnostic.severity] += 1
    files = _plural(len(results), "file")
    text = Text()
    if not with_findings:
        text.append(f"No problems found in {files}.", style="bold green")
        return text
    parts = [
        (_plural(counts[Severity.ERROR], "error"), STYLES[Severity.ERROR]),
        (_plural(counts[Severity.WARNING], "warning"), STYLES[Severity.WARNING]),
        (f"{counts[Severity.INFORMATION]} info", STYLES[Severity.INFORMATION]),
        (_plural(counts[Severity.HINT], "hint"), STYLES[Severity.HINT]),
    ]
    text.append(f"Checked {files}: ")
    shown = [(label, style) for label, style in parts if not label.startswith("0 ")]
    for position, (label, style) in enumerate(shown):
        if position:
            text.append(", ")
        text.append(label, style=style)
    text.append(f" in {_plural(with_findings, 'file')}.")
    return text


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
