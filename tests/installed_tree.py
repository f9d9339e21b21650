"""The package laid out the way the wheel installs it, as a tree of symbolic links.

setuptools maps folders onto one package (``cli/`` is ``plansight``, ``analyses/`` is
``plansight.analyses``: ``[tool.setuptools.package-dir]`` in pyproject.toml). Tools that find modules by
walking folders (mypy, import-linter) cannot follow that mapping in the repository, so they are run on
this tree instead. Every folder is a real directory and every file a link, so a test can add a module
to the tree without touching the repository.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # import-linter brings tomli where the standard library has no TOML reader
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def pyproject() -> dict[str, Any]:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)


def link_installed_tree(destination: Path) -> Path:
    """Lay out every package of ``[tool.setuptools.package-dir]`` under ``destination``; returns it."""
    mapping: dict[str, str] = pyproject()["tool"]["setuptools"]["package-dir"]
    for package, folder in mapping.items():
        target = destination.joinpath(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for source in sorted((ROOT / folder).iterdir()):
            if source.is_file() and not source.name.startswith("."):
                (target / source.name).symlink_to(source)
    return destination
