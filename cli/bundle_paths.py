"""Make the VS Code extension's per-platform bundle usable before any command runs.

A platform `.vsix` carries plansight in `bundled/libs` (put on `PYTHONPATH` by the extension) and,
beside it, what a bare Python lacks: compiled modules for each CPython minor version in
`bundled/cpython/cp3XX` (orjson, regex) and WordNet 3.0 in `bundled/wordnet` (see the README's VS
Code section). Only the running interpreter knows which of the version folders it can load, so the
choice is made here, the way Microsoft's Python Debugger extension picks its per-version debugpy.
Outside a bundle (a pip install, a development checkout) nothing happens.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def bundle_root(package_dir: Path = PACKAGE_DIR) -> Path | None:
    """`bundled/` when this plansight is the copy in `bundled/libs/plansight`, else None."""
    libs = package_dir.parent
    if libs.name == "libs" and libs.parent.name == "bundled":
        return libs.parent
    return None


def version_folder(root: Path, version: tuple[int, int] | None = None) -> Path:
    """The compiled modules for this interpreter: `cpython/cp312` for CPython 3.12."""
    major, minor = version or (sys.version_info.major, sys.version_info.minor)
    return root / "cpython" / f"cp{major}{minor}"


def activate(package_dir: Path = PACKAGE_DIR, path: list[str] | None = None) -> Path | None:
    """Put the bundle's folder for this Python on `path` (default `sys.path`) right after
    `bundled/libs`, and point `PLANSIGHT_WORDNET` at the bundled WordNet unless the user set it
    (an empty value switches WordNet off). Returns the version folder added, if any."""
    root = bundle_root(package_dir)
    if root is None:
        return None
    wordnet = root / "wordnet"
    if (wordnet / "data.verb").is_file():
        os.environ.setdefault("PLANSIGHT_WORDNET", str(wordnet))
    folder = version_folder(root)
    if sys.implementation.name != "cpython" or not folder.is_dir():
        return None
    entries = sys.path if path is None else path
    if str(folder) in entries:
        return folder
    libs = str(root / "libs")
    position = next((i + 1 for i, entry in enumerate(entries) if _same(entry, libs)), len(entries))
    entries.insert(position, str(folder))
    return folder


def _same(entry: str, folder: str) -> bool:
    try:
        return os.path.samefile(entry, folder)
    except OSError:
        return False
