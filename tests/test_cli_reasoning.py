"""End to end: ``plansight truth`` and ``plansight iou`` as a user runs them — text, JSON, a JSONL
batch of cases, the HTML report and SVG figure, unreadable answers, and exit codes
(docs/reasoning.md)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

PLANSIGHT = Path(sys.executable).parent / "plansight"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "blocksworld"
SUSSMAN_PLAN = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]
"""The optimal plan of examples/blocksworld/p01.pddl (c on a; goal a on b on c): 6 steps."""


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    return subprocess.run([str(PLANSIGHT), *args], cwd=cwd, capture_output=True, text=True, input=stdin,
                          encoding="utf-8", env=env, timeout=120, check=False)


def project(tmp_path: Path) -> Path:
    for name in ("domain.pddl", "p01.pddl"):
        (tmp_path / name).write_text((EXAMPLES / name).read_text())
    return tmp_path


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


# --- plansight truth --------------------------------------------------------------------------------

def test_truth_text_for_each_task(tmp_path: Path) -> None:
    folder = project(tmp_path)
    applicable = run("truth", "applicable", "domain.pddl", "p01.pddl", cwd=folder)
    assert applicable.returncode == 0, applicable.stderr
    assert applicable.stdout.splitlines() == [
        "applicable: 2 applicable actions in the initial state", "  (pick-up b)", "  (unstack c a)"]
    progression = run("truth", "progression", "domain.pddl", "p01.pddl", "--actions", "[unstack(c, a)]",
                      "--action", "put-down(c)", cwd=folder)
    assert progression.stdout.splitlines() == [
        "progression of (put-down c) after (unstack c a)", "add (3):", "  (clear c)", "  (handempty)",
        "  (on-table c)", "delete (1):", "  (holding c)"]
    tracking = run("truth", "tracking", "domain.pddl", "p01.pddl", "--actions", "(unstack c a) (put-down c)",
                   cwd=folder)
    assert "tracking: 7 atoms of the state after (unstack c a) (put-down c)" in tracking.stdout


def test_truth_json_and_a_step_that_cannot_run(tmp_path: Path) -> None:
    folder = project(tmp_path)
    state = run("truth", "state", "domain.pddl", "p01.pddl", "--format", "json", cwd=folder)
    report = json.loads(state.stdout)
    assert report["atoms"] == ["(clear b)", "(clear c)", "(handempty)", "(on c a)", "(on-table a)",
                               "(on-table b)"]
    assert report["task"] == "state" and report["after"] == []
    broken = run("truth", "tracking", "domain.pddl", "p01.pddl", "--actions", "(pick-up a)", cwd=folder)
    assert broken.returncode == 1
    assert "no exact answer: Step 1 (pick-up a) is not executable: (clear a) is false" in broken.stdout


def test_truth_batch_of_cases(tmp_path: Path) -> None:
    folder = project(tmp_path)
    (folder / "cases").mkdir()
    write_jsonl(folder / "cases" / "cases.jsonl", [
        {"task": "applicable", "domain": "../domain.pddl", "problem": "../p01.pddl"},
        {"task": "progression", "domain": "../domain.pddl", "problem": (EXAMPLES / "p01.pddl").read_text(),
         "action": "unstack(c, a)"},
        {"task": "tracking", "domain": "../domain.pddl", "problem": "../p01.pddl",
         "actions": ["unstack(c,a)", "stack(c,b)"]},
        {"task": "flying", "domain": "../domain.pddl", "problem": "../p01.pddl"},
    ])
    completed = run("truth", "--cases", "cases/cases.jsonl", "--format", "json", cwd=folder)
    assert completed.returncode == 1
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    assert [line["case"] for line in lines] == [1, 2, 3, 4]
    assert lines[0]["actions"] == ["(pick-up b)", "(unstack c a)"]
    assert lines[1]["add"] == ["(clear a)", "(holding c)"]
    assert lines[1]["delete"] == ["(clear c)", "(handempty)", "(on c a)"]
    assert "(on c b)" in lines[2]["atoms"]
    assert "unknown task `flying`" in lines[3]["error"]


def test_truth_folder_of_cases(tmp_path: Path) -> None:
    """A folder of case files (one case per .json file, or many per .jsonl line) is answered in name
    order, numbered in one sequence, each answer naming the file (and line) it came from."""
    folder = project(tmp_path)
    cases = folder / "cases"
    cases.mkdir()
    (cases / "a-state.json").write_text(json.dumps(
        {"task": "state", "domain": "../domain.pddl", "problem": "../p01.pddl"}))
    write_jsonl(cases / "b-more.jsonl", [
        {"task": "applicable", "domain": "../domain.pddl", "problem": "../p01.pddl"},
        {"task": "tracking", "domain": "../domain.pddl", "problem": "../p01.pddl",
         "actions": ["(pick-up a)"]},
    ])
    (cases / "notes.txt").write_text("not a case")
    completed = run("truth", "--cases", "cases", "--format", "json", cwd=folder)
    assert completed.returncode == 1, completed.stderr
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    assert [(line["case"], line["source"]) for line in lines] == [
        (1, "a-state.json"), (2, "b-more.jsonl:1"), (3, "b-more.jsonl:2")]
    assert "(on c a)" in lines[0]["atoms"]
    assert lines[1]["actions"] == ["(pick-up b)", "(unstack c a)"]
    assert "(clear a) is false" in lines[2]["error"]
    empty = folder / "empty"
    empty.mkdir()
    refused = run("truth", "--cases", "empty", cwd=folder)
    assert refused.returncode == 2 and "no .jsonl or .json case files" in refused.stderr


def test_truth_answers_numeric_tasks_and_refuses_what_the_simulator_does_not_handle(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text("""(define (domain fuel) (:requirements :strips :numeric-fluents)
      (:predicates (moved)) (:functions (fuel))
      (:action go :parameters () :precondition (> (fuel) 0) :effect (and (moved) (decrease (fuel) 1))))""")
    (tmp_path / "p.pddl").write_text(
        "(define (problem p) (:domain fuel) (:init (= (fuel) 1)) (:goal (moved)))")
    first = run("truth", "applicable", "domain.pddl", "p.pddl", cwd=tmp_path)
    assert first.returncode == 0 and "(go)" in first.stdout
    spent = run("truth", "applicable", "domain.pddl", "p.pddl", "--actions", "(go)", cwd=tmp_path)
    assert spent.returncode == 0 and "0 applicable actions after (go)" in spent.stdout  # (fuel) is now 0
    (tmp_path / "domain.pddl").write_text("""(define (domain fuel) (:requirements :strips :non-deterministic)
      (:predicates (moved))
      (:action go :parameters () :precondition (and) :effect (oneof (moved) (and))))""")
    completed = run("truth", "applicable", "domain.pddl", "p.pddl", cwd=tmp_path)
    assert completed.returncode == 1
    assert completed.stdout == ("no exact answer: there are non-deterministic effects (`oneof`) (in `go`), "
                                "which the simulator does not handle (docs/reasoning.md, Supported PDDL)\n")


def test_truth_usage_errors(tmp_path: Path) -> None:
    folder = project(tmp_path)
    assert run("truth", "state", "domain.pddl", cwd=folder).returncode == 2
    assert run("truth", "state", "domain.pddl", "nope.pddl", cwd=folder).returncode == 2
    unreadable = run("truth", "state", "domain.pddl", "p01.pddl", "--actions", "[???]", cwd=folder)
    assert unreadable.returncode == 2 and "cannot read `???`" in unreadable.stderr


# --- plansight iou ----------------------------------------------------------------------------------

def test_iou_one_answer_in_text_and_json(tmp_path: Path) -> None:
    folder = project(tmp_path)
    answer = "Sure. [pick-up(b), (unstack c a), pick-up(a), fly(a), ???, pick-up(B)]"
    completed = run("iou", "--task", "applicable", "--domain", "domain.pddl", "--problem", "p01.pddl",
                    "--answer", answer, cwd=folder)
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0] == ("applicable: IoU 0.400, precision 0.400, recall 1.000 (2 of 5 answered items right; "
                        "the truth has 2)")
    assert "  wrong (1): (pick-up a)" in lines
    assert "  hallucinated (1): (fly a) (unknown action)" in lines
    assert "  unreadable, counted as wrong (1): `???` (`???` is not a name)" in lines
    assert "  repeats ignored: 1" in lines
    as_json = run("iou", "--task", "applicable", "--domain", "domain.pddl", "--problem", "p01.pddl",
                  "--answer-file", "-", "--format", "json", cwd=folder, stdin=answer)
    report = json.loads(as_json.stdout)
    assert report["iou"] == 0.4 and report["precision"] == 0.4 and report["recall"] == 1.0
    assert report["unreadable"] == [{"text": "???", "reason": "`???` is not a name"}]
    assert report["hallucinated"] == [{"item": "(fly a)", "reason": "unknown action"}]


def test_iou_plan_against_the_planners_optimal_plan(tmp_path: Path) -> None:
    folder = project(tmp_path)
    completed = run("iou", "--task", "optimal-plan", "--domain", "domain.pddl", "--problem", "p01.pddl",
                    "--answer", "[unstack(c,a), put-down(c), pick-up(a), stack(a,b)]", "--format", "json",
                    cwd=folder)
    report = json.loads(completed.stdout)
    assert report["optimal_plan"] == SUSSMAN_PLAN
    assert report["action_distance"] == round(1 - 4 / 6, 4)


def dataset(folder: Path) -> Path:
    rows: list[dict[str, Any]] = []
    full_state = "[on(c,a), clear(c), clear(b), handempty, on-table(a), on-table(b)]"
    for model, answers in (("small", ["[pick-up(a)]", "[on(c,a)]", "[nonsense!!]"]),
                           ("large", ["[pick-up(b), unstack(c,a)]", full_state,
                                      "[(not (on c a)), not handempty]"])):
        rows += [
            {"task": "applicable", "domain": "domain.pddl", "problem": "p01.pddl", "answer": answers[0],
             "model": model},
            {"task": "state", "domain": "domain.pddl", "problem": "p01.pddl", "answer": answers[1],
             "model": model},
            {"task": "progression-delete", "domain": "domain.pddl", "problem": "p01.pddl",
             "action": "unstack(c,a)", "answer": answers[2], "model": model},
            {"task": "plan", "domain": "domain.pddl", "problem": "p01.pddl", "answer": SUSSMAN_PLAN,
             "optimal_plan": SUSSMAN_PLAN, "model": model, "domain_name": "bw"},
        ]
    rows.append({"task": "state", "domain": "domain.pddl", "problem": "p01.pddl"})
    write_jsonl(folder / "answers.jsonl", rows)
    return folder / "answers.jsonl"


def test_iou_dataset_table_report_and_figure(tmp_path: Path) -> None:
    folder = project(tmp_path)
    path = dataset(folder)
    completed = run("iou", path.name, "--report", "report.html", "--figure", "figure.svg", cwd=folder)
    assert completed.returncode == 1  # the last row has no answer
    out = completed.stdout
    assert out.startswith("8 answers scored, 1 not")
    assert re.search(r"applicable \(iou\)\n.*\n  blocksworld +large +1 +1\.000", out)
    assert re.search(r"  blocksworld +small +1  0\.000", out)
    assert "plan (action distance)" in out
    assert "unreadable items (each counted as a wrong answered item):" in out
    assert "`nonsense!!`" in out
    assert "case 9: no `answer`" in out
    html = (folder / "report.html").read_text()
    assert "<script" not in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    panels = re.findall(r"<figure data-domain='([^']*)' data-model='([^']*)'>", html)
    assert sorted(panels) == sorted([("blocksworld", "small"), ("blocksworld", "large")] * 3
                                    + [("bw", "small"), ("bw", "large")])
    assert html.count("<section>") == 4
    for inline in re.findall(r"<svg.*?</svg>", html):
        ElementTree.fromstring(inline)  # each panel is well-formed SVG
    svg = (folder / "figure.svg").read_text()
    figure = ElementTree.fromstring(svg)
    panels_drawn = figure.findall("{http://www.w3.org/2000/svg}g[@class='panel']")
    assert len(panels_drawn) == 8
    titles = {" ".join(t.itertext()) for g in panels_drawn for t in g.findall("{http://www.w3.org/2000/svg}text")}
    assert "blocksworld · large" in titles and "bw · small" in titles


def test_iou_dataset_json(tmp_path: Path) -> None:
    folder = project(tmp_path)
    path = dataset(folder)
    report = json.loads(run("iou", path.name, "--format", "json", cwd=folder).stdout)
    by_case = {answer["case"]: answer for answer in report["answers"]}
    assert by_case[3]["unreadable"] == [{"text": "nonsense!!", "reason": "`nonsense!!` is not a name"}]
    assert by_case[3]["iou"] == 0.0
    assert by_case[7]["iou"] == round(2 / 3, 4)  # both deletes read through `not`, (clear c) missing
    assert by_case[9]["error"] == "no `answer` (a text or a list of items)"
    summary = {(g["task"], g["model"]): g for g in report["summary"]}
    assert summary[("applicable", "large")]["bins"] == [0] * 9 + [1]
    assert summary[("plan", "small")]["metric"] == "action distance"
    assert summary[("plan", "small")]["bins"] == [1] + [0] * 9


def test_iou_reads_the_same_dataset_as_csv_and_parquet(tmp_path: Path) -> None:
    from plansight.analyses.workspace.dataset_tables import read_rows, write_table

    folder = project(tmp_path)
    path = dataset(folder)
    expected = json.loads(run("iou", path.name, "--format", "json", cwd=folder).stdout)
    rows = read_rows(str(path))
    columns = list(dict.fromkeys(name for row in rows for name in row))
    for table in ("answers.csv", "answers.parquet"):
        write_table(str(folder / table), rows, columns)
        completed = run("iou", table, "--format", "json", cwd=folder)
        assert completed.returncode == 1  # the last row has no answer, as in the JSONL
        assert json.loads(completed.stdout) == expected, table
