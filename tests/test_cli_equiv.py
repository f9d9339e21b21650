"""``plansight equiv`` end to end: the JSON of docs/cli.md, the text a student reads, and the exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

GRADING = Path(__file__).resolve().parent.parent / "examples" / "grading"
REFERENCE = GRADING / "reference.pddl"
SUBMISSIONS = GRADING / "submissions"
KEYS = ["candidate", "parseable", "solvable", "equivalent", "mode", "explanation", "method"]


def plansight(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args], capture_output=True, text=True, timeout=120
    )


def test_json_of_one_equivalent_candidate_and_exit_0() -> None:
    done = plansight(
        "equiv", str(SUBMISSIONS / "alice.pddl"), "--reference", str(REFERENCE), "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert list(answer) == KEYS
    assert answer["candidate"] == str(SUBMISSIONS / "alice.pddl")
    assert (answer["parseable"], answer["solvable"], answer["equivalent"], answer["mode"]) == (
        True,
        True,
        True,
        "identity",
    )
    assert answer["method"] == "fullySpecify (blocksworld rules)"


def test_several_candidates_give_a_list_and_exit_1_when_one_is_not_equivalent() -> None:
    files = [str(SUBMISSIONS / name) for name in ("alice.pddl", "bob.pddl", "frank.pddl")]
    done = plansight("equiv", *files, "--reference", str(REFERENCE), "--format", "json")
    assert done.returncode == 1
    answers = json.loads(done.stdout)
    assert [a["equivalent"] for a in answers] == [True, False, False]
    assert answers[1]["explanation"].startswith(
        "Not equivalent: after completing the goal with what must hold"
    )
    assert (
        "lacks (clear c), (on a b), (on c a) and adds (clear a), (on a c), (on c b)"
        in answers[1]["explanation"]
    )
    assert answers[2]["parseable"] is False and answers[2]["solvable"] is False


def test_placeholder_mode_accepts_the_other_tower() -> None:
    done = plansight(
        "equiv",
        str(SUBMISSIONS / "bob.pddl"),
        "--reference",
        str(REFERENCE),
        "--placeholder",
        "--format",
        "json",
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["mode"] == "placeholder"


def test_text_output_names_the_outcome_and_the_fix() -> None:
    done = plansight("equiv", str(SUBMISSIONS / "erin.pddl"), "--reference", str(REFERENCE))
    assert done.returncode == 1
    first, second = done.stdout.splitlines()
    assert (
        first
        == f"{SUBMISSIONS / 'erin.pddl'}: ≢ unsolvable (identity mode; fullySpecify (blocksworld rules))"
    )
    assert second.strip() == (
        "No reachable state satisfies your goal: (on b a) and (on c a) cannot hold "
        "together: only one thing can be on top of `a`."
    )


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    missing = plansight("equiv", str(SUBMISSIONS / "alice.pddl"), "--reference", str(tmp_path / "none.pddl"))
    assert missing.returncode == 2 and "--reference" in missing.stderr
    lonely = tmp_path / "reference.pddl"
    lonely.write_text(REFERENCE.read_text())
    unlinked = plansight("equiv", str(SUBMISSIONS / "alice.pddl"), "--reference", str(lonely))
    assert unlinked.returncode == 2
    assert "no domain file was found for it (give one with --domain" in unlinked.stderr
    linked = plansight(
        "equiv",
        str(SUBMISSIONS / "alice.pddl"),
        "--reference",
        str(lonely),
        "--domain",
        str(GRADING / "domain.pddl"),
    )
    assert linked.returncode == 0
