"""The VS Code snippets (``vscode-client/snippets/pddl.json``): registered for PDDL and shipped in the
``.vsix``, and each one, expanded with its placeholders, is PDDL plansight reads without a syntax
error (a file skeleton on its own, a section inside a domain, a formula inside an effect)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from plansight.analyses.diagnostics.diagnostic import Severity
from plansight.analyses.syntax.documents import parse_document

CLIENT = Path(__file__).resolve().parent.parent / "vscode-client"
SNIPPETS = json.loads((CLIENT / "snippets" / "pddl.json").read_text(encoding="utf-8"))
SECTION_HOST = "(define (domain host)\n  (:requirements :strips :typing :durative-actions)\n{}\n)\n"
EFFECT_HOST = SECTION_HOST.format("(:action host-action :parameters (?y - object) :effect (and {}))")


def expand(body: list[str]) -> str:
    """The snippet as VS Code inserts it with every placeholder left at its default."""
    text = "\n".join(body).replace("${TM_FILENAME_BASE}", "rooms")
    while re.search(r"\$\{\d+:[^{}]*\}", text):
        text = re.sub(r"\$\{\d+:([^{}]*)\}", r"\1", text)
    return re.sub(r"\$\{\d+\}|\$\d+", "", text)


def hosted(name: str, text: str) -> str:
    if name in ("PDDL domain", "PDDL problem"):
        return text
    if name in ("PDDL forall effect", "PDDL conditional effect"):
        filled = text.replace("condition", "(p ?y)").replace("effect", "(not (p ?y))")
        return EFFECT_HOST.replace("{}", filled)
    return SECTION_HOST.format(text)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_each_snippet_expands_to_readable_pddl(name: str) -> None:
    text = hosted(name, expand(SNIPPETS[name]["body"]))
    diagnostics = parse_document("snippet.pddl", text).diagnostics
    errors = [d.message for d in diagnostics if d.severity is Severity.ERROR]
    assert errors == [], text


def test_the_snippets_are_registered_and_packaged() -> None:
    package = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    assert {"language": "pddl", "path": "./snippets/pddl.json"} in package["contributes"]["snippets"]
    assert "!snippets/*.json" in (CLIENT / ".vscodeignore").read_text(encoding="utf-8").splitlines()
    assert package["contributes"]["configurationDefaults"]["[pddl]"]["editor.formatOnType"] is True
    assert {"domain", "problem", ":action"} <= {p for s in SNIPPETS.values() for p in s["prefix"]}
