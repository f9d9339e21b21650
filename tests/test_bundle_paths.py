"""The launcher's set-up inside a platform .vsix: this Python's compiled modules and the bundled WordNet."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from plansight.bundle_paths import activate, bundle_root

THIS_PYTHON = f"cp{sys.version_info.major}{sys.version_info.minor}"


def fake_bundle(tmp_path: Path, versions: tuple[str, ...] = (THIS_PYTHON,)) -> Path:
    """`bundled/` as the .vsix lays it out; returns the `plansight` package folder inside it."""
    package = tmp_path / "extension" / "bundled" / "libs" / "plansight"
    package.mkdir(parents=True)
    for version in versions:
        (tmp_path / "extension" / "bundled" / "cpython" / version).mkdir(parents=True)
    wordnet = tmp_path / "extension" / "bundled" / "wordnet"
    wordnet.mkdir()
    (wordnet / "data.verb").write_text("")
    return package


@pytest.fixture(autouse=True)
def no_wordnet_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    # set first, so that monkeypatch restores the variable's original state after activate() sets it
    monkeypatch.setenv("PLANSIGHT_WORDNET", "unset")
    monkeypatch.delenv("PLANSIGHT_WORDNET")


def test_outside_a_bundle_nothing_changes(tmp_path: Path) -> None:
    package = tmp_path / "site-packages" / "plansight"
    package.mkdir(parents=True)
    path = ["a", str(package.parent)]
    assert bundle_root(package) is None
    assert activate(package, path) is None
    assert path == ["a", str(package.parent)] and "PLANSIGHT_WORDNET" not in os.environ


def test_this_pythons_folder_follows_the_bundle(tmp_path: Path) -> None:
    package = fake_bundle(tmp_path, ("cp39", THIS_PYTHON, "cp399"))
    libs = str(package.parent)
    path = ["first", libs, "site-packages"]
    added = activate(package, path)
    assert added is not None and added.name == THIS_PYTHON
    assert path == ["first", libs, str(added), "site-packages"]
    assert activate(package, path) == added and path.count(str(added)) == 1  # idempotent
    assert os.environ["PLANSIGHT_WORDNET"] == str(package.parent.parent / "wordnet")


def test_a_python_without_a_folder_gets_none(tmp_path: Path) -> None:
    package = fake_bundle(tmp_path, ("cp39",))
    path = [str(package.parent)]
    assert activate(package, path) is None
    assert path == [str(package.parent)]


def test_the_users_wordnet_choice_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANSIGHT_WORDNET", "")  # switched off on purpose
    package = fake_bundle(tmp_path)
    activate(package, [])
    assert os.environ["PLANSIGHT_WORDNET"] == ""
