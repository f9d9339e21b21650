"""At start-up the server says once, in one message, which optional features are off and how to get them."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, session
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from plansight.server import startup_notes
from plansight.server.startup_notes import Probes, announce_missing, missing_features, notice


def probes(fast_downward: bool = True, nltk_error: str | None = None, wordnet: bool = True) -> Probes:
    return Probes(lambda: fast_downward, lambda: nltk_error, lambda: wordnet)


def test_nothing_missing_means_no_message() -> None:
    assert missing_features(probes()) == []
    assert notice([]) is None


def test_missing_fast_downward_says_repair_is_off_and_how_to_get_it() -> None:
    (note,) = missing_features(probes(fast_downward=False))
    assert "plan repair is off" in note
    assert "pip install up-fast-downward" in note and ".vsix for your platform" in note


def test_missing_nltk_names_the_module_and_skips_the_wordnet_note() -> None:
    (note,) = missing_features(probes(nltk_error="no module named 'regex'", wordnet=False))
    assert "'regex'" in note and "pip install nltk regex" in note


def test_missing_wordnet_says_how_to_download_it() -> None:
    (note,) = missing_features(probes(wordnet=False))
    assert "string similarity" in note and "python -m nltk.downloader wordnet" in note


def test_everything_missing_is_one_warning() -> None:
    shown: list[types.ShowMessageParams] = []
    asyncio.run(announce_missing(shown.append, probes(fast_downward=False, wordnet=False)))
    (message,) = shown
    assert message.type == types.MessageType.Warning
    assert "plan repair is off" in message.message and "nltk.downloader" in message.message


def test_nothing_is_shown_when_all_is_there() -> None:
    shown: list[types.ShowMessageParams] = []
    asyncio.run(announce_missing(shown.append, probes()))
    assert shown == []


def test_a_failing_probe_shows_nothing_and_keeps_going() -> None:
    def broken() -> bool:
        raise OSError("unreadable folder")

    shown: list[types.ShowMessageParams] = []
    asyncio.run(announce_missing(shown.append, Probes(broken, lambda: None, lambda: True)))
    assert shown == []


def test_the_installed_probes_see_this_test_environment() -> None:
    # the test set-up installs up-fast-downward, nltk and WordNet: nothing is off here
    assert startup_notes.INSTALLED.fast_downward()
    assert startup_notes.INSTALLED.nltk_error() is None
    assert startup_notes.INSTALLED.wordnet()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=SERVER, server_env={**os.environ, "PLANSIGHT_WORDNET": ""}))
async def client(lsp_client: LanguageClient, project: Path):
    async with session(lsp_client, project):
        yield


@pytest.mark.lsp
async def test_the_real_server_says_it_once_without_wordnet(client: LanguageClient) -> None:
    for _ in range(200):
        if client.messages:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)  # a second message would have arrived by now
    notes = [m for m in client.messages if "plansight:" in m.message]
    assert len(notes) == 1, [m.message for m in client.messages]
    assert "WordNet 3.0 was not found" in notes[0].message
    assert "plan repair is off" not in notes[0].message
