"""The test corpus: real PDDL files from several independent sources, found at test time.

Everything is inside the repository or fetched into it: the unified-planning files come from its
installed wheel, the construct fixtures and Planetarium's three domains from ``tests/fixtures/``, and the
``pddl`` 0.5.1 sdist's 836 files from ``.cache/corpus`` once ``tests/fetch_corpus.py`` has fetched them.
Each file carries its source so tests can report per-source counts and treat the sdist (many FOND
``oneof`` files) separately.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
FIXTURES = REPO / "tests" / "fixtures"
CONSTRUCTS = FIXTURES / "constructs"
PLANETARIUM = FIXTURES / "planetarium"
CACHE = REPO / ".cache" / "corpus"
PDDL_SDIST = CACHE / "pddl-0.5.1"

UNIFIED_PLANNING = "unified-planning"
EXAMPLES_SOURCE = "examples"
PLANETARIUM_SOURCE = "planetarium"
CONSTRUCTS_SOURCE = "constructs"
PDDL_SDIST_SOURCE = "pddl-sdist"


@dataclass(frozen=True)
class CorpusFile:
    path: Path
    source: str

    @property
    def id(self) -> str:
        """A short, stable test id: the source and the path below it."""
        for root in (_unified_planning_root(), EXAMPLES, CONSTRUCTS, PLANETARIUM, PDDL_SDIST):
            if root is not None and self.path.is_relative_to(root.resolve()):
                return f"{self.source}/{self.path.relative_to(root.resolve()).as_posix()}"
        return f"{self.source}/{self.path.name}"

    def text(self) -> str:
        """The file's text exactly as an editor would see it (no newline translation: CRLF stays)."""
        return self.path.read_bytes().decode("utf-8", errors="replace")


@cache
def _unified_planning_root() -> Path | None:
    spec = importlib.util.find_spec("unified_planning")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def _pddl_files(root: Path | None, pattern: str = "**/*.pddl") -> list[Path]:
    if root is None or not root.is_dir():
        return []
    return sorted(p.resolve() for p in root.glob(pattern) if p.is_file())


DELIBERATE_MISTAKES = (("llm-mistakes",), ("grading", "submissions"), ("plan-evaluation", "generated"),
                       ("plan-evaluation", "remapped"), ("ltl", "mistakes"), ("llm-answers",))
"""Example folders whose files are wrong on purpose (students' and models' mistakes to be caught), or, for
``llm-answers``, raw model output that is only PDDL once ``--extract`` has taken it out of its prose."""


def _is_deliberate_mistake(path: Path) -> bool:
    parts = path.relative_to(EXAMPLES.resolve()).parts
    return any(parts[i:i + len(folder)] == folder for folder in DELIBERATE_MISTAKES
               for i in range(len(parts)))


def corpus_files(include_sdist: bool = True) -> list[CorpusFile]:
    """Every corpus ``.pddl`` file (domains and problems), each once, in a stable order.

    Excludes the example folders of deliberate mistakes (:data:`DELIBERATE_MISTAKES`). ``include_sdist``
    adds the ``pddl`` sdist files when they have been fetched.
    """
    up_root = _unified_planning_root()
    sources = [
        (UNIFIED_PLANNING, _pddl_files(up_root / "test" if up_root else None)),
        (EXAMPLES_SOURCE, [p for p in _pddl_files(EXAMPLES) if not _is_deliberate_mistake(p)]),
        (PLANETARIUM_SOURCE, _pddl_files(PLANETARIUM)),
        (CONSTRUCTS_SOURCE, _pddl_files(CONSTRUCTS)),
    ]
    if include_sdist:
        sources.append((PDDL_SDIST_SOURCE, _pddl_files(PDDL_SDIST)))
    files: list[CorpusFile] = []
    seen: set[Path] = set()
    for source, paths in sources:
        for path in paths:
            if path not in seen:
                seen.add(path)
                files.append(CorpusFile(path, source))
    return files


def plan_files(include_sdist: bool = True) -> list[CorpusFile]:
    """The valid plans of the corpus (examples and, when fetched, the sdist's ``.plan`` files)."""
    files = [CorpusFile(p, EXAMPLES_SOURCE) for p in _pddl_files(EXAMPLES, "**/*.plan")
             if not _is_deliberate_mistake(p)]
    files += [CorpusFile(p, CONSTRUCTS_SOURCE) for p in _pddl_files(CONSTRUCTS, "**/*.plan")]
    if include_sdist:
        files += [CorpusFile(p, PDDL_SDIST_SOURCE) for p in _pddl_files(PDDL_SDIST, "**/*.plan")]
    return files


def counts(files: list[CorpusFile]) -> dict[str, int]:
    """How many files each source contributes."""
    result: dict[str, int] = {}
    for file in files:
        result[file.source] = result.get(file.source, 0) + 1
    return result


# --- domain / problem pairs -------------------------------------------------------------------------

_HEADER = re.compile(r"\(\s*define\s*\(\s*(domain|problem)\s+([^\s()]+)", re.IGNORECASE)
_DOMAIN_REF = re.compile(r"\(\s*:domain\s+([^\s()]+)", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")


def _header(text: str) -> tuple[str, str] | None:
    """``("domain", name)`` or ``("problem", domain name)``, read with a regex so that pairing does
    not depend on the parser under test."""
    text = re.sub(r";[^\n]*", "", text)
    m = _HEADER.search(text)
    if m is None:
        return None
    if m.group(1).lower() == "domain":
        return "domain", m.group(2).lower()
    ref = _DOMAIN_REF.search(text, m.end())
    return ("problem", ref.group(1).lower()) if ref else None


def pairs(files: list[CorpusFile]) -> list[tuple[CorpusFile, CorpusFile]]:
    """(domain, problem) pairs: a problem's domain is a file in its folder with the domain name its
    ``(:domain ...)`` names; among several (``d01.pddl`` ... beside ``p01.pddl`` ...) the one whose
    number matches, else ``domain.pddl``, else the first."""
    domains: dict[tuple[Path, str], list[CorpusFile]] = {}
    problems: list[tuple[CorpusFile, str]] = []
    for file in files:
        header = _header(file.text())
        if header is None:
            continue
        kind, name = header
        if kind == "domain":
            domains.setdefault((file.path.parent, name), []).append(file)
        else:
            problems.append((file, name))
    result = []
    for problem, name in problems:
        candidates = domains.get((problem.path.parent, name))
        if not candidates:
            continue
        numbers = _DIGITS.findall(problem.path.stem)
        chosen = next((d for d in candidates if numbers and _DIGITS.findall(d.path.stem) == numbers), None)
        chosen = chosen or next((d for d in candidates if d.path.stem.lower() == "domain"), candidates[0])
        result.append((chosen, problem))
    return result
