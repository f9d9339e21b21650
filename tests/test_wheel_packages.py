"""The wheel (and so every .vsix, whose bundle is built from it) holds every package of the repository.

An editable install maps folders through `[tool.setuptools.package-dir]` and works even when a
package is missing from `packages`; the wheel then silently lacks it and the bundled server fails
to start. This caught `plansight.analyses.reasoning`.
"""

from __future__ import annotations

from installed_tree import ROOT, pyproject


def test_every_mapped_folder_is_a_listed_package() -> None:
    setuptools = pyproject()["tool"]["setuptools"]
    assert sorted(setuptools["package-dir"]) == sorted(setuptools["packages"])


def test_every_package_folder_is_mapped() -> None:
    mapped = {folder for folder in pyproject()["tool"]["setuptools"]["package-dir"].values()}
    for top in ("cli", "analyses", "server", "grammar"):
        for init in sorted((ROOT / top).rglob("__init__.py")):
            folder = init.parent.relative_to(ROOT).as_posix()
            if "__pycache__" not in folder:
                assert folder in mapped, f"{folder} is not in [tool.setuptools.package-dir]"
