"""The plan view: what each step changes about which object, the failure, the Gantt chart's times, and a
page that is safe to open (well-formed, nothing external, strict CSP, every name escaped)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from view_html import read_page

from plansight.analyses.plans.plan_html import plan_html
from plansight.analyses.plans.plan_json import PlanJob
from plansight.analyses.plans.plan_view import NO_FLUENT_VALUES, plan_view
from plansight.analyses.plans.simulate import simulate, unparsed_lines
from plansight.analyses.syntax.documents import parse_document

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
BLOCKS = (EXAMPLES / "blocksworld" / "domain.pddl").read_text()
SUSSMAN = (EXAMPLES / "blocksworld" / "p01.pddl").read_text()
WRONG_ORDER = "(unstack c a)\n(put-down c)\n(pick-up a)\n(stack a b)\n(pick-up b)\n(stack b c)\n"
VALID = "(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)\n"


def job_for(domain_text: str, problem_text: str, plan_text: str, path: str = "p01.plan") -> PlanJob:
    domain = parse_document("domain.pddl", domain_text).domain
    problem = parse_document("p01.pddl", problem_text).problem
    document = parse_document(path, plan_text)
    assert domain is not None and problem is not None and document.plan is not None
    steps = unparsed_lines(document.text, document.plan, document.diagnostics)
    return PlanJob(path, document, domain, problem, "domain.pddl", "p01.pddl", steps=steps,
                   simulation=simulate(domain, problem, steps))


def view_of(plan_text: str, **kwargs: Any) -> dict[str, Any]:
    return plan_view(job_for(BLOCKS, SUSSMAN, plan_text, **kwargs))


def test_each_step_lists_what_it_changed_about_each_object_it_touches() -> None:
    view = view_of(WRONG_ORDER)
    first = view["steps"][0]
    assert first["action"] == "(unstack c a)"
    assert first["status"] == "executed"
    # (handempty) names no object: it is among the step's changes but in no object's lane
    assert first["touches"] == {
        "c": {"added": ["(holding c)"], "deleted": ["(on c a)", "(clear c)"]},
        "a": {"added": ["(clear a)"], "deleted": ["(on c a)"]},
    }
    assert "(handempty)" in first["deleted"]
    stack = view["steps"][3]
    assert stack["touches"]["b"] == {"added": ["(on a b)"], "deleted": ["(clear b)"]}


def test_the_failing_step_is_marked_with_its_reason_and_later_steps_are_unreached() -> None:
    view = view_of(WRONG_ORDER)
    assert [s["status"] for s in view["steps"]] == ["executed"] * 4 + ["failed", "unreached"]
    assert view["failure"]["index"] == 4
    assert view["failure"]["category_words"] == "wrong order"
    assert "stopped holding after step 4 (stack a b)" in view["failure"]["message"]
    # a step that did not run changed nothing, but its arguments are still the objects it would touch
    unchanged = {"added": [], "deleted": []}
    assert view["steps"][5]["touches"] == {"b": unchanged, "c": unchanged}
    assert view["valid"] is False and view["lea"] == 4


def test_lanes_follow_the_problems_declaration_order() -> None:
    assert view_of(VALID)["lanes"] == ["a", "b", "c"]
    assert view_of("(pick-up b)\n(stack b c)\n")["lanes"] == ["b", "c"]


def test_a_temporal_plan_keeps_its_start_times_and_durations_and_each_steps_changes() -> None:
    temporal = EXAMPLES / "temporal"
    view = plan_view(job_for((temporal / "domain.pddl").read_text(), (temporal / "p01.pddl").read_text(),
                             (temporal / "p01.plan").read_text()))
    assert view["temporal"] is True
    assert [(s["time"], s["duration"]) for s in view["steps"]] == [(0.0, 2.0), (2.001, 1.0)]
    assert view["not_simulated"] is None and view["valid"] is True
    assert [(s["status"], s["added"], s["deleted"]) for s in view["steps"]] == [
        ("executed", ["(at rover1 crater)"], ["(at rover1 base)"]),
        ("executed", ["(photo-of crater)"], [])]
    page = plan_html(view)
    assert "Gantt chart" in page
    assert "start 2.001, duration 1" in read_page(page).plain_text


def test_the_fluent_plots_say_why_they_are_absent() -> None:
    assert "declares no numeric fluents" in view_of(VALID)["fluents"]["absent"]
    costs = EXAMPLES / "elevator-costs"
    plan = (costs / "p01.plan").read_text()
    view = plan_view(job_for((costs / "domain.pddl").read_text(), (costs / "p01.pddl").read_text(), plan))
    [series] = view["fluents"]["series"]
    assert series["name"] == "(total-cost)" and len(series["values"]) == len(view["steps"]) + 1
    assert series["values"][0] == 0 and series["values"] == sorted(series["values"])  # costs only add up
    assert "(total-cost) = " in read_page(plan_html(view)).plain_text
    unchanged = plan_view(job_for((costs / "domain.pddl").read_text(), (costs / "p01.pddl").read_text(), ""))
    assert unchanged["fluents"] == {"series": [], "absent": NO_FLUENT_VALUES}


def test_fluent_values_are_drawn_as_a_line_with_a_gap_where_a_value_is_unknown() -> None:
    view = view_of(VALID)
    view["fluents"] = {"series": [{"name": "total-cost", "values": [0, 1, 2, None, 4]}], "absent": ""}
    page = read_page(plan_html(view))
    assert page.problems == []
    assert len(page.all("polyline")) == 2  # 0..2, then 4 alone after the gap
    assert len(page.all("circle")) == 4
    assert "total-cost = 4 after 4 steps" in page.plain_text


def test_the_page_is_well_formed_self_contained_and_under_a_strict_csp() -> None:
    page = read_page(plan_html(view_of(WRONG_ORDER)))
    assert page.problems == []
    assert len(page.all("script")) == 2  # the data block and the page's script
    failed = [a for a in page.all("tr") if a.get("data-step") == "4"]
    assert failed and failed[0]["class"] == "s-failed"
    assert "Step 5 fails (wrong order)." in page.plain_text


def test_names_from_the_files_cannot_inject_markup_or_script() -> None:
    hostile = "<script>alert(1)</script>"
    plan = f"(unstack c a)\n({hostile} a)\n"  # an unparsed line is shown as written
    view = view_of(plan, path='<img src=x onerror="alert(2)">.plan')
    assert any(hostile in step["action"] for step in view["steps"])
    text = plan_html(view)
    page = read_page(text)
    assert page.problems == []
    assert hostile in page.plain_text  # shown, as text
    assert "<script>alert" not in text and "<img" not in text
    # the JSON data block escapes "<" so that "</script>" inside a name cannot close it
    assert "\\u003c/script\\u003e" in text


def test_every_page_has_its_own_nonce() -> None:
    view = view_of(VALID)
    assert plan_html(view, nonce="abc") == plan_html(view, nonce="abc")
    assert plan_html(view) != plan_html(view)


def test_a_numeric_plan_plots_its_changing_fluents_and_sums_up_its_metric() -> None:
    trucks = Path(__file__).parent / "fixtures" / "beyond_classical" / "numeric" / "trucks"
    view = plan_view(job_for((trucks / "domain.pddl").read_text(), (trucks / "problem.pddl").read_text(),
                             (trucks / "plan.txt").read_text()))
    assert view["summary"] == "valid · (total-cost) = 23"
    series = {s["name"]: s["values"] for s in view["fluents"]["series"]}
    assert series["(fuel t1)"] == [8, 2, 10, 3, 3, 3] and series["(fuel t2)"] == [3, 3, 3, 3, 6, 0]
    assert "(distance depot mid)" not in series  # a value no step changes is not plotted
