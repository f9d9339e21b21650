"""Broken plans of numeric, temporal (timed initial literals, ``over all``), derived-predicate and PDDL3
domains in the editor, against the real ``plansight serve`` process (pytest-lsp), with VAL's ``Validate``
run on the same files in the same test.

What a user with such a domain open sees: the failing step (or happening) underlined on its plan line with
the broken condition and the fluent values or the happening's time; hover on a step with the values and the
derived atoms; inlay hints with the numeric changes and each happening's start and end; and the
``stateAtStep`` command with the values, the derived atoms and the happening. The line underlined is the
one VAL fails (tests/val_oracle.py), asserted here rather than assumed. The fixtures are the parts' own,
under tests/fixtures/beyond_classical/ (docs/beyond-classical-*.md).
"""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, open_file, session, write
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from test_lsp_plans import STATE, execute, hover_text, inlay_hints, pos, published, whole
from val_oracle import (
    CONSTRAINT,
    DEFAULT_TOLERANCE,
    INVARIANT,
    PRECONDITION,
    happening_steps,
    run_plansight,
    run_val,
)

pytestmark = pytest.mark.lsp

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "beyond_classical"

TRUCKS_BROKEN = "(drive t1 depot mid)\n(drive t1 mid far)\n(refuel t2 depot)\n"
"""t1 burns 6 of its 8 fuel to mid, then needs 7 to reach far: step 2 fails on
``(>= (fuel t1) (distance mid far))``."""
TRUCKS_DOMAIN, TRUCKS_PROBLEM = "numeric/trucks/domain.pddl", "numeric/trucks/problem.pddl"

SHOP_BROKEN = ("0.000: (drive t1 depot bakery) [3.000]\n1.000: (drive t2 depot cafe) [3.000]\n"
               "3.010: (unload t1 bakery) [2.000]\n6.500: (unload t2 cafe) [2.000]\n")
"""The cafe closes at 8 (a timed initial literal); unloading there from 6.5 to 8.5 breaks its ``over all
(open cafe)``."""

TANK_BROKEN = "0.000: (drain p1) [2.000]\n0.500: (drain p2) [2.000]\n3.000: (drain p1) [2.000]\n"
"""Two drains take the level from 20 to 0; the third cannot start (``at start (>= (level) 10)``)."""

ROOMS_BROKEN = "(open-door r1 r2)\n(open-door r2 r3)\n(survey)\n"
"""(survey) needs the derived (all-reachable); r4 is not reachable yet, so no rule derives it."""

LIGHTS_BROKEN = "(switch-on r1)\n(move r1 r2)\n(trip)\n(switch-on r2)\n(move r2 r3)\n"
"""(trip) deletes (safe), which the hard constraint (always (safe)) needs in every state."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Deep enough that the domain search (three folders up) never leaves ``tmp_path``."""
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, project: Path):
    async with session(lsp_client, project):
        yield


def make_project(project: Path, domain: str, problem: str, plan: str) -> tuple[Path, Path, Path]:
    """A fixture's domain and problem (paths under the fixtures folder) next to a broken plan named after
    the problem (so the plan finds its problem, and the problem its domain, as in a user's folder)."""
    shutil.copy(FIXTURES / domain, project / "domain.pddl")
    shutil.copy(FIXTURES / problem, project / "problem.pddl")
    return project / "domain.pddl", project / "problem.pddl", write(project / "problem.plan", plan)


def open_all(client: LanguageClient, domain: Path, problem: Path, plan: Path) -> str:
    """Open the three files, as a user does; returns the plan's URI."""
    open_file(client, domain)
    open_file(client, problem)
    return open_file(client, plan)


def val_failing_lines(domain: Path, problem: Path, plan: Path, kind: str) -> set[int]:
    """The 0-based plan lines of the step(s) VAL fails, checking VAL reports the failure ``kind``."""
    val = run_val(domain, problem, plan)
    assert (val.status, val.kind) == ("invalid", kind), val.output
    steps = run_plansight(domain, problem, plan).steps
    text = plan.read_text()
    if kind == CONSTRAINT:  # broken in the state after step `time`
        assert val.time is not None
        return {text.count("\n", 0, steps[round(val.time) - 1].span.start)}
    return {text.count("\n", 0, steps[i].span.start) for i in happening_steps(val, steps, DEFAULT_TOLERANCE)}


async def state_at(client: LanguageClient, uri: str, line: int) -> dict[str, object]:
    result = await execute(client, STATE, {"uri": uri, "line": line})
    assert isinstance(result, dict)
    return result


async def test_numeric_plan(client: LanguageClient, project: Path) -> None:
    domain, problem, plan = make_project(project, TRUCKS_DOMAIN, TRUCKS_PROBLEM, TRUCKS_BROKEN)
    uri = open_all(client, domain, problem, plan)
    (failing,) = await published(client, uri, "step-not-executable")
    assert failing.range == types.Range(start=pos(1, 0), end=pos(1, 18))
    assert failing.severity == types.DiagnosticSeverity.Error
    assert ("(>= (fuel t1) (distance mid far)) is false: (fuel t1) is 2 after step 1 (drive t1 depot mid), "
            "which decreased it by 6; (distance mid far) is 7 (its initial value)") in failing.message
    assert val_failing_lines(domain, problem, plan, PRECONDITION) == {failing.range.start.line}

    hints = await inlay_hints(client, uri, whole(3))
    assert [(h.position.line, str(h.label)) for h in hints] == [
        (0, "+(at t1 mid) -(at t1 depot) (fuel t1) 8→2 (total-cost) 0→6")]
    hover = await hover_text(client, uri, 1, 3) or ""
    assert hover.startswith("**Step 2** `(drive t1 mid far)` — not executable")
    assert "fluent values):\n```pddl\n" in hover
    assert "(= (fuel t1) 2) (= (fuel t2) 3)" in hover and "(= (total-cost) 6)" in hover

    state = await state_at(client, uri, 1)
    assert (state["index"], state["reached"], state["happening"], state["derived"]) == (1, True, None, [])
    assert {"(= (fuel t1) 2)", "(= (fuel t2) 3)", "(= (distance mid far) 7)", "(= (total-cost) 6)"} \
        <= set(state["values"])  # type: ignore[arg-type]
    assert "(at t1 mid)" in state["state"]  # type: ignore[operator]


async def test_temporal_plan_with_a_deadline_and_an_over_all(client: LanguageClient, project: Path) -> None:
    domain, problem, plan = make_project(project, "temporal/shop-domain.pddl", "temporal/shop-problem.pddl",
                                         SHOP_BROKEN)
    uri = open_all(client, domain, problem, plan)
    (failing,) = await published(client, uri, "step-not-executable")
    # the step's action, not its time or duration
    assert failing.range == types.Range(start=pos(3, 7), end=pos(3, 23))
    assert failing.message.startswith(
        "(unload t2 cafe) runs from time 6.5 but its over all condition breaks between time 8 and 8.5")
    assert "(open cafe) is false since time 8: it stopped holding at happening 9 ((at 8 (not (open cafe))))" \
        in failing.message
    assert val_failing_lines(domain, problem, plan, INVARIANT) == {failing.range.start.line}

    hints = await inlay_hints(client, uri, whole(4))
    assert [(h.position.line, str(h.label)) for h in hints] == [
        (0, "start -(at t1 depot) · end +(at t1 bakery)"),
        (1, "start -(at t2 depot) · end +(at t2 cafe)"),
        (2, "start -(loaded t1) · end +(delivered bakery)"),
        (3, "start -(loaded t2)"),
    ]
    hover = await hover_text(client, uri, 3, 10) or ""
    assert "Start at time 6.5 (happening 8): changed `-(loaded t2)`" in hover
    assert "over all condition breaks between time 8 and 8.5" in hover
    assert "State before it starts (" in hover and "(open cafe)" in hover.split("State before it starts")[1]

    state = await state_at(client, uri, 3)
    assert state["happening"] == {"index": 7, "time": 6.5, "label": "(unload t2 cafe) start"}
    assert "(open cafe)" in state["state"] and "(loaded t2)" in state["state"]  # type: ignore[operator]


async def test_temporal_numeric_plan(client: LanguageClient, project: Path) -> None:
    """A happening's condition on a fluent: the value, and the happening that set it, in the message; the
    value changes at each start and end in the hints."""
    domain, problem, plan = make_project(project, "temporal/tank-domain.pddl", "temporal/tank-problem.pddl",
                                         TANK_BROKEN)
    uri = open_all(client, domain, problem, plan)
    (failing,) = await published(client, uri, "step-not-executable")
    assert failing.range == types.Range(start=pos(2, 7), end=pos(2, 17))
    assert failing.message.startswith(
        "Happening 5 (time 3): (drain p1) cannot start: its at start condition is false: (>= (level) 10) is "
        "false: (level) is 0 after happening 2 at time 0.5 ((drain p2) start), which decreased it by 10.")
    assert val_failing_lines(domain, problem, plan, PRECONDITION) == {failing.range.start.line}

    hints = await inlay_hints(client, uri, whole(3))
    assert [(h.position.line, str(h.label)) for h in hints] == [
        (0, "start -(idle p1) (level) 20→10 · end +(idle p1)"),
        (1, "start -(idle p2) (level) 10→0 · end +(idle p2)"),
    ]
    hover = await hover_text(client, uri, 2, 10) or ""
    assert "State before it starts (2 atoms, 4 fluent values):" in hover and "(= (level) 0)" in hover

    state = await state_at(client, uri, 2)
    assert state["happening"] == {"index": 4, "time": 3.0, "label": "(drain p1) start"}
    assert "(= (level) 0)" in state["values"]  # type: ignore[operator]


async def test_derived_predicate_plan(client: LanguageClient, project: Path) -> None:
    domain, problem, plan = make_project(project, "derived/rooms-domain.pddl", "derived/rooms-problem.pddl",
                                         ROOMS_BROKEN)
    uri = open_all(client, domain, problem, plan)
    (failing,) = await published(client, uri, "step-not-executable")
    assert failing.range == types.Range(start=pos(2, 0), end=pos(2, 8))
    assert "(all-reachable) is false: no rule derives it — (reachable r4) is false" in failing.message
    assert val_failing_lines(domain, problem, plan, PRECONDITION) == {failing.range.start.line}

    hints = await inlay_hints(client, uri, whole(3))
    assert [(h.position.line, str(h.label)) for h in hints] == [(0, "+(open r1 r2)"), (1, "+(open r2 r3)")]
    hover = await hover_text(client, uri, 2, 2) or ""
    assert "State before step 3 (8 atoms):" in hover
    assert ("Derived by the `:derived` rules (4 atoms):\n```pddl\n(cut-off r4)\n"
            "(reachable r1) (reachable r2) (reachable r3)\n```") in hover

    state = await state_at(client, uri, 2)
    assert state["derived"] == ["(cut-off r4)", "(reachable r1)", "(reachable r2)", "(reachable r3)"]
    assert "(reachable r1)" not in state["state"]  # type: ignore[operator]
    assert state["values"] == [] and state["happening"] is None


async def test_pddl3_plan(client: LanguageClient, project: Path) -> None:
    domain, problem, plan = make_project(project, "pddl3/lights/domain.pddl", "pddl3/lights/problem.pddl",
                                         LIGHTS_BROKEN)
    uri = open_all(client, domain, problem, plan)
    (broken,) = await published(client, uri, "constraint-violated")
    assert broken.range == types.Range(start=pos(2, 0), end=pos(2, 6))
    assert broken.severity == types.DiagnosticSeverity.Error
    assert broken.message == "The constraint (always (safe)) is violated after step 3: (safe) is false there."
    assert val_failing_lines(domain, problem, plan, CONSTRAINT) == {broken.range.start.line}
    preferences = await published(client, uri, "preference-violated")
    # lit-before when moving into a dark room (steps 2 and 5), and the goal preference back at the end
    assert sorted((d.range.start.line, d.message.split(" is violated")[0]) for d in preferences) == [
        (1, "The preference lit-before of move"), (4, "The goal preference back"),
        (4, "The preference lit-before of move")]

    state = await state_at(client, uri, 3)
    assert "(alarm)" in state["state"] and "(safe)" not in state["state"]  # type: ignore[operator]


async def test_fixing_the_plan_clears_the_diagnostic(client: LanguageClient, project: Path) -> None:
    """Editing the broken numeric plan into a valid one (refuel at mid first) takes the error away."""
    domain, problem, plan = make_project(project, TRUCKS_DOMAIN, TRUCKS_PROBLEM, TRUCKS_BROKEN)
    uri = open_all(client, domain, problem, plan)
    await published(client, uri, "step-not-executable")
    fixed = (FIXTURES / "numeric" / "trucks" / "plan.txt").read_text()
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)]))
    deadline = time.monotonic() + 60
    while "step-not-executable" in codes(client, uri) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert not {"step-not-executable", "goal-not-satisfied"} & codes(client, uri)


def codes(client: LanguageClient, uri: str) -> set[str]:
    """The codes of the diagnostics last published for ``uri``."""
    return {str(d.code) for d in client.diagnostics.get(uri, [])}
