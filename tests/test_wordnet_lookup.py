"""Where WordNet is looked for: the bundled copy (`PLANSIGHT_WORDNET`), NLTK's data path, then Debian's
folder; a user who followed NLTK's own instructions on macOS or Windows gets WordNet's numbers too."""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import nltk
import pytest

from plansight.analyses.plans import word_similarity

DEBIAN = Path("/usr/share/wordnet")
FILES = sorted(path.name for path in DEBIAN.iterdir())


def wordnet_copy(target: Path) -> Path:
    """A copy of Debian's WordNet (the tests' set-up installs it) at `target`; not links, which NLTK's
    path sandbox refuses."""
    target.mkdir(parents=True)
    for name in FILES:
        shutil.copyfile(DEBIAN / name, target / name)
    return target


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No WordNet anywhere: an empty NLTK data path and no Debian folder, until a test adds one."""
    monkeypatch.delenv("PLANSIGHT_WORDNET", raising=False)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "nltk_data")])
    monkeypatch.setattr(word_similarity, "WORDNET_DIRS", (str(tmp_path / "debian"),))
    word_similarity.reset()
    yield tmp_path
    word_similarity.reset()


def stack_remove() -> float:
    # stack.v.01 and remove.v.01 meet two levels below the verb root: 2 * 1 / (3 + 4)
    return word_similarity.name_similarity("stack", "remove", "v2")


def test_nothing_installed_means_the_fallback(places: Path) -> None:
    assert word_similarity.locate_wordnet() is None
    assert word_similarity.source() == "fallback"
    assert word_similarity.wordnet_location() is None


def test_debian_folder_is_the_last_resort(places: Path) -> None:
    wordnet_copy(places / "debian")
    location = word_similarity.wordnet_location()
    assert location is not None and location.origin == "debian"
    assert stack_remove() == pytest.approx(2 / 7)


def test_nltk_data_path_wins_over_debian(places: Path) -> None:
    wordnet_copy(places / "debian")
    wordnet_copy(places / "nltk_data" / "corpora" / "wordnet")
    location = word_similarity.wordnet_location()
    assert location is not None and location.origin == "nltk-data"
    assert str(places / "nltk_data") in str(location.root)
    assert word_similarity.source() == "wordnet-3.0"
    assert stack_remove() == pytest.approx(2 / 7)


def test_nltk_download_zip_is_read(places: Path) -> None:
    # nltk.download("wordnet") may leave only corpora/wordnet.zip (a `wordnet/` folder inside)
    corpora = places / "nltk_data" / "corpora"
    corpora.mkdir(parents=True)
    with zipfile.ZipFile(corpora / "wordnet.zip", "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("wordnet/", "")  # NLTK's archives list their folder, as zip tools do
        for name in FILES:
            archive.write(DEBIAN / name, f"wordnet/{name}")
    location = word_similarity.wordnet_location()
    assert location is not None and location.origin == "nltk-data"
    assert "wordnet.zip" in str(location.root)
    assert stack_remove() == pytest.approx(2 / 7)


def test_bundled_copy_wins_over_everything(places: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wordnet_copy(places / "debian")
    wordnet_copy(places / "nltk_data" / "corpora" / "wordnet")
    bundled = wordnet_copy(places / "extension" / "bundled" / "wordnet")
    monkeypatch.setenv("PLANSIGHT_WORDNET", str(bundled))
    location = word_similarity.wordnet_location()
    assert location is not None
    assert (location.origin, location.root) == ("PLANSIGHT_WORDNET", str(bundled))
    assert str(bundled) in location.describe()
    assert stack_remove() == pytest.approx(2 / 7)


def test_a_wrong_bundled_path_falls_through(places: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wordnet_copy(places / "debian")
    (places / "empty").mkdir()
    monkeypatch.setenv("PLANSIGHT_WORDNET", str(places / "empty"))
    location = word_similarity.wordnet_location()
    assert location is not None and location.origin == "debian"


def test_empty_variable_switches_wordnet_off(places: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wordnet_copy(places / "debian")
    wordnet_copy(places / "nltk_data" / "corpora" / "wordnet")
    monkeypatch.setenv("PLANSIGHT_WORDNET", "")
    assert word_similarity.locate_wordnet() is None
    assert word_similarity.source() == "fallback"
