"""The order in which a folder's ``.pddl`` files are tried as a problem's domain (docs/files-and-links.md).

Benchmark sets often give each problem its own domain file (``p02.pddl`` with ``d02.pddl``,
``domain-p02.pddl`` or ``p02-domain.pddl``), all declaring the same domain name: a file paired with the
problem by name or number comes first, then any ``*domain*`` file, then the rest, each group by path.

What this needs from the folder (each file's path, lower-case stem and numbers) depends only on the
folder's listing, so it is worked out once per listing (:class:`FolderFiles`) and each problem only
looks up its own pairs. Ranking every file for every problem instead made linting a folder of 1,000
problems quadratic: a million rankings, most of a batch's time (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

_NUMBERS = re.compile(r"\d+")
_SEPARATOR = "\0"
"""Between the stems a :class:`FolderFiles` joins for searching: no file name holds it, so no match spans
two stems."""


@dataclass(frozen=True, slots=True)
class _Candidate:
    """One ``.pddl`` file of the folder with what ranking it needs."""

    path: str
    compared: str
    """``path`` as compared with the excluded file's (case-folded where the filesystem folds case)."""
    stem: str
    numbers: tuple[str, ...]
    domain_like: bool


class FolderFiles:
    """A folder's ``.pddl`` files, indexed so that one problem's ranking costs what its pairs cost."""

    def __init__(self, folder: str, names: Sequence[str]) -> None:
        candidates = []
        for name in names:
            if not name.lower().endswith(".pddl"):
                continue
            path = os.path.normpath(os.path.join(folder, name))
            stem = _stem(path)
            candidates.append(_Candidate(path, os.path.normcase(path), stem,
                                         tuple(_NUMBERS.findall(stem)), "domain" in stem))
        candidates.sort(key=lambda c: c.path)
        self._candidates = candidates
        self._groups = ([i for i, c in enumerate(candidates) if c.domain_like],
                        [i for i, c in enumerate(candidates) if not c.domain_like])
        self._by_numbers: dict[tuple[str, ...], list[int]] = {}
        for index, candidate in enumerate(candidates):
            self._by_numbers.setdefault(candidate.numbers, []).append(index)
        self._stems = _SEPARATOR.join(c.stem for c in candidates)
        self._starts: list[int] = []
        offset = 0
        for candidate in candidates:
            self._starts.append(offset)
            offset += len(candidate.stem) + 1

    def ranked(self, problem_path: str) -> Iterator[str]:
        """The paths, likeliest domain of ``problem_path`` first, without ``problem_path`` itself; lazily,
        since the search usually stops at the first file."""
        excluded = os.path.normcase(os.path.normpath(problem_path))
        paired = self._paired(_stem(problem_path))
        for index in sorted(paired):
            if self._candidates[index].compared != excluded:
                yield self._candidates[index].path
        for group in self._groups:
            for index in group:
                candidate = self._candidates[index]
                if index not in paired and candidate.compared != excluded:
                    yield candidate.path

    def _paired(self, problem_stem: str) -> set[int]:
        """Indexes of the files whose stem holds the problem's stem or has exactly its numbers."""
        if not problem_stem:
            return set(range(len(self._candidates)))
        numbers = tuple(_NUMBERS.findall(problem_stem))
        paired = set(self._by_numbers.get(numbers, ())) if numbers else set()
        found = self._stems.find(problem_stem)
        while found != -1:
            index = bisect_right(self._starts, found) - 1
            paired.add(index)
            # the next stem: one stem is paired once however often it holds the problem's stem
            next_start = self._starts[index + 1] if index + 1 < len(self._starts) else len(self._stems)
            found = self._stems.find(problem_stem, next_start)
        return paired


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0].lower()
