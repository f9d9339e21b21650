"""Reading a free-text answer into ground atoms or actions, the way LLMs write them.

The paper's prompts ask for ``[a, b, c]`` lists, and answers arrive in every spelling: ``pick-up(a)``,
``(pick-up a)``, ``stack(a, b)``, ``on a b``, quoted, numbered, one per line, with prose around the
list. Whatever can be read becomes a (name, arguments) tuple in lower case; whatever cannot is kept,
with the reason, because an unreadable item must count against the answer rather than vanish
(docs/reasoning.md, "Reading answers").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

Words = tuple[str, ...]
"""A read item: the predicate or action name, then its arguments, lower-cased: ``("on", "a", "b")``."""

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]*")
"""A PDDL name (``pick-up``, ``b7``); LLMs never need more, and ``???`` or ``a:b`` is not one."""
_CALL = re.compile(r"^([^\s()]+)\s*\((.*)\)$", re.DOTALL)
_BULLET = re.compile(r"^(?:[-*•]\s+|\d+[.)]\s+)")
_SEPARATORS = ",;\n"
_QUOTES = "\"'`"


@dataclass(frozen=True, slots=True)
class Unreadable:
    """An item of the answer that is no atom or action at all, with the reason shown to the user."""

    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class ReadAnswer:
    """An answer as a set: the distinct items read (in the order first written), the distinct
    unreadable ones, how many repeats were dropped, and whether a ``[...]`` list was found."""

    items: tuple[Words, ...]
    unreadable: tuple[Unreadable, ...]
    duplicates: int
    list_found: bool


def read_answer(answer: str | Sequence[str], negated_means_deleted: bool = False) -> ReadAnswer:
    """Read an answer: a text (the last ``[...]`` list in it, else the whole text) or a list of item
    texts (a JSON array). ``negated_means_deleted``: ``(not (on a b))`` reads as ``(on a b)``, which
    is how PDDL writes a delete effect; elsewhere a negated atom is unreadable, since the tasks ask for
    what holds or is applicable."""
    texts, found = item_texts(answer)
    items: dict[Words, None] = {}
    unreadable: dict[str, Unreadable] = {}
    duplicates = 0
    for text in texts:
        words = read_item(text, negated_means_deleted)
        if isinstance(words, Unreadable):
            key = " ".join(words.text.lower().split())
            if key in unreadable:
                duplicates += 1
            else:
                unreadable[key] = words
        elif words in items:
            duplicates += 1
        else:
            items[words] = None
    return ReadAnswer(tuple(items), tuple(unreadable.values()), duplicates, found)


def read_sequence(value: str | Sequence[str]) -> tuple[list[Words], list[Unreadable]]:
    """Actions in order, repeats kept (a plan, the steps leading to a state), and the unreadable ones."""
    items: list[Words] = []
    unreadable: list[Unreadable] = []
    for text in item_texts(value)[0]:
        words = read_item(text)
        if isinstance(words, Unreadable):
            unreadable.append(words)
        else:
            items.append(words)
    return items, unreadable


def item_texts(answer: str | Sequence[str]) -> tuple[list[str], bool]:
    """The texts of the items, in order, and whether a ``[...]`` list was found."""
    if isinstance(answer, str):
        body, found = _last_list(answer)
        chunks = _split(body)
    else:
        found = True
        chunks = [piece for text in answer for piece in _split(str(text))]
    return [text for chunk in chunks for text in _forms(chunk)], found


def read_item(text: str, negated_means_deleted: bool = False) -> Words | Unreadable:
    """One item: ``(on a b)``, ``on(a, b)``, ``on a b`` or ``handempty``; an :class:`Unreadable` for
    anything else (nested forms, stray brackets, a negation where none is meaningful)."""
    shown = text.strip()
    item = shown
    negated = False
    while True:
        item = item.strip().strip(_QUOTES).strip().rstrip(".").strip()
        lowered = item.lower()
        if item.startswith("(") and _closes_at_end(item):
            item = item[1:-1]
            continue
        if lowered.startswith("not") and (lowered[3:4].isspace() or lowered[3:4] == "("):
            if negated:
                return Unreadable(shown, "a double negation")
            negated = True
            item = item[3:]
            continue
        break
    if negated and not negated_means_deleted:
        return Unreadable(shown, "a negated atom: the task asks for atoms that hold or for actions")
    call = _CALL.match(item)
    if call is not None:
        words = [call.group(1), *call.group(2).replace(",", " ").split()]
    else:
        words = item.replace(",", " ").split()
    if any("(" in w or ")" in w for w in words):
        return Unreadable(shown, "not one `(name argument ...)` form")
    if not words:
        return Unreadable(shown, "empty")
    bad = next((w for w in words if not _NAME.fullmatch(w)), None)
    if bad is not None:
        return Unreadable(shown, f"`{bad}` is not a name")
    return tuple(w.lower() for w in words)


def words_text(words: Words) -> str:
    """``(on a b)``: an item as PDDL, the one spelling reports use."""
    return "(" + " ".join(words) + ")"


def _last_list(text: str) -> tuple[str, bool]:
    """The inside of the last balanced ``[...]`` at the outermost level; the whole text when there
    is none (the answer forgot the brackets, or is prose: its items are read and judged all the same)."""
    depth = 0
    start = -1
    last: tuple[int, int] | None = None
    for index, character in enumerate(text):
        if character == "[":
            if depth == 0:
                start = index
            depth += 1
        elif character == "]" and depth > 0:
            depth -= 1
            if depth == 0:
                last = (start + 1, index)
    if last is None:
        return text, False
    return text[last[0]:last[1]], True


def _split(body: str) -> list[str]:
    """Items separated by commas, semicolons or line breaks outside parentheses (``stack(a, b)`` is one)."""
    chunks: list[str] = []
    depth = 0
    current: list[str] = []
    for character in body:
        if character == "(":
            depth += 1
        elif character == ")":
            depth = max(depth - 1, 0)
        if character in _SEPARATORS and depth == 0:
            chunks.append("".join(current))
            current = []
        else:
            current.append(character)
    chunks.append("".join(current))
    cleaned = (_BULLET.sub("", chunk.strip()).strip() for chunk in chunks)
    return [chunk for chunk in cleaned if chunk.strip(_QUOTES + " \t")]


def _forms(chunk: str) -> list[str]:
    """``(on a b) (clear c)`` written without commas: one item per parenthesised form; a chunk that
    is not a run of forms stays whole."""
    stripped = chunk.strip().strip(_QUOTES).strip()
    if not stripped.startswith("("):
        return [chunk]
    forms: list[str] = []
    depth = 0
    start = 0
    for index, character in enumerate(stripped):
        if character == "(":
            if depth == 0:
                start = index
            depth += 1
        elif character == ")":
            depth -= 1
            if depth == 0:
                forms.append(stripped[start:index + 1])
            elif depth < 0:
                return [chunk]
        elif depth == 0 and not character.isspace():
            return [chunk]
    return forms if depth == 0 and len(forms) > 1 else [chunk]


def _closes_at_end(text: str) -> bool:
    """Whether the ``(`` at the start is closed by the ``)`` at the very end (``(a) (b)`` is not)."""
    if not text.endswith(")"):
        return False
    depth = 0
    for index, character in enumerate(text):
        if character == "(":
            depth += 1
        elif character == ")":
            depth -= 1
            if depth == 0:
                return index == len(text) - 1
    return False
