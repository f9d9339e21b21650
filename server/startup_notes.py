"""Once per start: tell the user which optional features are off on this machine, and how to turn them on.

Plan repair needs Fast Downward and the paper's name similarity needs NLTK with WordNet 3.0; without
them plansight still works (no repair; a string similarity for AQM labels), which a user would not
notice until the numbers differ. The platform `.vsix` carries both where it can (there is no Fast
Downward wheel for linux-arm64); the universal one carries neither compiled part. One notification
lists everything that is off, rather than one per feature at the moment it is first used.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from collections.abc import Callable
from dataclasses import dataclass

from lsprotocol import types

from plansight.analyses.plans import fast_downward, word_similarity

log = logging.getLogger(__name__)

REPAIR_HOW = (
    "plan repair is off: Fast Downward was not found. Install the plansight .vsix for your platform, or "
    "`python -m pip install up-fast-downward` into the Python that runs plansight (no wheel exists for "
    "Linux on ARM)"
)
NLTK_HOW = (
    "AQM labels use a string similarity instead of WordNet's: NLTK is missing ({error}). "
    "Install the plansight .vsix for your platform, or `python -m pip install nltk regex`"
)
WORDNET_HOW = (
    "AQM labels use a string similarity instead of WordNet's: WordNet 3.0 was not found. Install the "
    "plansight .vsix for your platform, or run `python -m nltk.downloader wordnet`"
)


@dataclass(frozen=True, slots=True)
class Probes:
    """What is installed; the tests substitute their own answers."""

    fast_downward: Callable[[], bool]
    nltk_error: Callable[[], str | None]
    wordnet: Callable[[], bool]


def _fast_downward() -> bool:
    # found with find_spec, without importing `up_fast_downward` (whose package imports unified-planning)
    return fast_downward.driver() is not None


def _nltk_error() -> str | None:
    # NLTK's import takes over a second; whether it and its compiled dependency are there is enough
    for module in ("nltk", "regex"):
        if importlib.util.find_spec(module) is None:
            return f"no module named {module!r}"
    return None


def _wordnet() -> bool:
    return word_similarity.wordnet_available()


INSTALLED = Probes(_fast_downward, _nltk_error, _wordnet)


def missing_features(probes: Probes = INSTALLED) -> list[str]:
    """One sentence per feature that is off, saying how to get it; empty when all is there."""
    notes: list[str] = []
    if not probes.fast_downward():
        notes.append(REPAIR_HOW)
    error = probes.nltk_error()
    if error is not None:
        notes.append(NLTK_HOW.format(error=error))
    elif not probes.wordnet():
        notes.append(WORDNET_HOW)
    return notes


def notice(notes: list[str]) -> types.ShowMessageParams | None:
    """The one message for `notes`, or None when nothing is missing."""
    if not notes:
        return None
    return types.ShowMessageParams(
        type=types.MessageType.Warning, message="plansight: " + "; ".join(notes) + ".")


async def announce_missing(show: Callable[[types.ShowMessageParams], None],
                           probes: Probes = INSTALLED) -> None:
    """Probe off the event loop (the file system; NLTK's data path on machines without a bundled or
    Debian WordNet), then show the one message."""
    try:
        notes = await asyncio.to_thread(missing_features, probes)
    except Exception:  # a probe failing must not take the server down; the log says why
        log.exception("checking the optional features failed")
        return
    for note in notes:
        log.warning("%s", note)
    message = notice(notes)
    if message is not None:
        show(message)
