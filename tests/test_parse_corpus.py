"""Every real PDDL file parses without a false error, and the model survives the printer.

The corpus (see ``corpus.py``): the PDDL files shipped in unified-planning's wheel, the bundled
examples, the Planetarium domains, the construct fixtures, and the ``pddl`` 0.5.1 sdist when it has
been fetched. For each file: zero syntax diagnostics; spans that point at what they name;
parse -> print -> parse gives an equal model and printing is stable; the fast fact scanner of
``:init`` and the general parser give the same model with the same spans.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import (
    CONSTRUCTS_SOURCE,
    EXAMPLES_SOURCE,
    PDDL_SDIST,
    PDDL_SDIST_SOURCE,
    PLANETARIUM_SOURCE,
    UNIFIED_PLANNING,
    CorpusFile,
    corpus_files,
    counts,
    plan_files,
)

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import (
    Action,
    And,
    Arithmetic,
    Atom,
    Comparison,
    Domain,
    Equality,
    FunctionTerm,
    Imply,
    Metric,
    Modal,
    Name,
    Not,
    Number,
    NumericEffect,
    Or,
    Plan,
    Preference,
    Problem,
    Quantified,
    TimedLiteral,
    TimeSpecified,
    TypedName,
    TypeRef,
    When,
    numeric_terms,
    walk,
)
from plansight.analyses.model.printer import print_domain, print_plan, print_problem
from plansight.analyses.syntax.parse_pddl import PddlParse, parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

FILES = corpus_files()
PLANS = plan_files()


def _parsed(file: CorpusFile) -> tuple[str, PddlParse]:
    text = file.text()
    return text, parse_pddl(text)


def _first_difference(left: Any, right: Any, path: str = "model") -> str:
    """Where two models first differ, as a readable path (pytest's own dataclass diff of a whole
    model can take minutes)."""
    stack = [(left, right, path)]
    while stack:
        a, b, where = stack.pop()
        if a == b:
            continue
        if isinstance(a, tuple) and isinstance(b, tuple):
            if len(a) != len(b):
                return f"{where}: {len(a)} items vs {len(b)}"
            pairs = list(enumerate(zip(a, b, strict=True)))
            stack.extend((x, y, f"{where}[{i}]") for i, (x, y) in reversed(pairs))
        elif type(a) is type(b) and hasattr(a, "__dataclass_fields__"):
            stack.extend(
                (getattr(a, f), getattr(b, f), f"{where}.{f}")
                for f in reversed(a.__dataclass_fields__)
                if a.__dataclass_fields__[f].compare
            )
        else:
            return f"{where}: {a!r} vs {b!r}"[:500]
    return "no difference"


def _print(model: Domain | Problem) -> str:
    return print_domain(model) if isinstance(model, Domain) else print_problem(model)


def _nodes(root: Any) -> Iterator[Any]:
    """Every model node under ``root`` (names and numbers included), without recursion."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
            continue
        slots = getattr(type(node), "__slots__", None)
        if slots is None or not hasattr(node, "span"):
            continue
        yield node
        for slot in slots:
            value = getattr(node, slot)
            if isinstance(value, (tuple, Name, Number)) or hasattr(value, "__dataclass_fields__"):
                stack.append(value)


def _span_errors(text: str, model: Domain | Problem | Plan) -> list[str]:
    """Spans that do not cover what they describe: a name's own spelling, a form's parentheses."""
    errors = []
    for node in _nodes(model):
        span: Span = node.span
        if not 0 <= span.start <= span.end <= len(text):
            errors.append(f"{type(node).__name__} span {span} outside the text")
        elif isinstance(node, Name) and node.text and text[span.start : span.end] != node.text:
            errors.append(f"name {node.text!r} at {span} covers {text[span.start : span.end]!r}")
        elif isinstance(node, Number) and node.text and text[span.start : span.end] != node.text:
            errors.append(f"number {node.text!r} at {span} covers {text[span.start : span.end]!r}")
        elif isinstance(node, (Atom, And, Action, Domain, Problem)) and span.end > span.start and (
            text[span.start] != "(" or text[span.end - 1] != ")"
        ):
            errors.append(f"{type(node).__name__} at {span} covers {text[span.start : span.end][:40]!r}")
    return errors[:5]


def test_corpus_has_every_source() -> None:
    """The corpus must not silently shrink: a missing wheel or folder would make every test vacuous."""
    found = counts(FILES)
    assert found.get(UNIFIED_PLANNING, 0) >= 29
    assert found.get(CONSTRUCTS_SOURCE, 0) >= 20
    assert found.get(EXAMPLES_SOURCE, 0) >= 5
    assert found.get(PLANETARIUM_SOURCE, 0) == 3
    if PDDL_SDIST.is_dir():
        assert found.get(PDDL_SDIST_SOURCE, 0) == 836


@pytest.mark.parametrize("file", FILES, ids=lambda f: f.id)
def test_parses_without_diagnostics(file: CorpusFile) -> None:
    text, parsed = _parsed(file)
    assert [(d.code, d.message, d.span) for d in parsed.diagnostics] == []
    assert isinstance(parsed.model, (Domain, Problem))
    assert _span_errors(text, parsed.model) == []


@pytest.mark.parametrize("file", FILES, ids=lambda f: f.id)
def test_print_then_parse_gives_the_same_model(file: CorpusFile) -> None:
    _, parsed = _parsed(file)
    assert parsed.model is not None
    printed = _print(parsed.model)
    reparsed = parse_pddl(printed)
    assert [(d.code, d.message, printed[d.span.start : d.span.end + 20]) for d in reparsed.diagnostics] == []
    same = reparsed.model == parsed.model
    assert same, _first_difference(parsed.model, reparsed.model)
    assert reparsed.model is not None
    assert _print(reparsed.model) == printed, "printing is not stable"
    assert _span_errors(printed, reparsed.model) == []


def _fast_path_sample() -> list[CorpusFile]:
    """Every problem, except that the sdist contributes its first 3 problems per folder: the fact
    scanner's behaviour depends on how a generator lays out `:init`, which is uniform within a folder,
    and the general parser takes 13 s on the whole sdist."""
    chosen: list[CorpusFile] = []
    per_folder: dict[object, int] = {}
    for file in FILES:
        if "(:init" not in file.text().lower():
            continue
        if file.source == PDDL_SDIST_SOURCE:
            per_folder[file.path.parent] = per_folder.get(file.path.parent, 0) + 1
            if per_folder[file.path.parent] > 3:
                continue
        chosen.append(file)
    return chosen


@pytest.mark.parametrize("file", _fast_path_sample(), ids=lambda f: f.id)
def test_fast_fact_scanner_agrees_with_the_parser(file: CorpusFile) -> None:
    text, fast = _parsed(file)
    slow = parse_pddl(text, fast_facts=False)
    assert slow.diagnostics == fast.diagnostics
    assert isinstance(fast.model, Problem) and isinstance(slow.model, Problem)
    same = slow.model == fast.model
    assert same, _first_difference(fast.model, slow.model)
    # equality ignores spans; the fast path builds them itself, so compare them too
    fast_spans = [(type(n).__name__, n.span) for n in _nodes(fast.model)]
    assert fast_spans == [(type(n).__name__, n.span) for n in _nodes(slow.model)]


@pytest.mark.parametrize("file", PLANS, ids=lambda f: f.id)
def test_plans_parse_and_print_back(file: CorpusFile) -> None:
    text = file.text()
    parsed = parse_plan(text)
    assert parsed.diagnostics == ()
    assert parsed.plan is not None and parsed.plan.steps
    assert _span_errors(text, parsed.plan) == []
    printed = print_plan(parsed.plan)
    again = parse_plan(printed)
    assert again.diagnostics == ()
    assert again.plan == parsed.plan
    assert print_plan(again.plan) == printed


# --- the construct fixtures: each parses into the structure it was written to exercise -------------

CONSTRUCTS_DIR = Path(__file__).resolve().parent / "fixtures" / "constructs"


def _load(relative: str) -> Domain | Problem:
    text = (CONSTRUCTS_DIR / relative).read_bytes().decode("utf-8")
    parsed = parse_pddl(text)
    assert [(d.code, d.message) for d in parsed.diagnostics] == []
    assert parsed.model is not None
    return parsed.model


def _domain(relative: str) -> Domain:
    model = _load(relative)
    assert isinstance(model, Domain)
    return model


def _problem(relative: str) -> Problem:
    model = _load(relative)
    assert isinstance(model, Problem)
    return model


def n(text: str) -> Name:
    return Name(text.lower(), text)


def atom(predicate: str, *args: str) -> Atom:
    return Atom(n(predicate), tuple(n(a) for a in args))


def term(function: str, *args: str) -> FunctionTerm:
    return FunctionTerm(n(function), tuple(n(a) for a in args))


def num(value: float) -> Number:
    return Number(float(value))


def t(*names: str) -> TypeRef:
    return TypeRef(tuple(n(x) for x in names))


def typed(*pairs: tuple[str, TypeRef | None]) -> tuple[TypedName, ...]:
    return tuple(TypedName(n(name), type_ref) for name, type_ref in pairs)


def _action(domain: Domain, name: str) -> Action:
    return next(a for a in domain.actions if a.name.key == name)


def test_typing_hierarchy_either_and_constants() -> None:
    domain = _domain("typing/domain.pddl")
    assert [(d.name.key, d.parent) for d in domain.types] == [
        ("truck", t("vehicle")), ("van", t("vehicle")), ("depot", t("place")), ("shop", t("place")),
        ("vehicle", None), ("parcel", None), ("place", None),
    ]
    assert domain.constants == typed(("central", t("depot")))
    stored = next(p for p in domain.predicates if p.name.key == "stored")
    assert stored.parameters == typed(("?x", t("parcel", "vehicle")), ("?p", t("place")))
    assert stored.parameters[0].type is not None and stored.parameters[0].type.is_either
    assert _action(domain, "load").parameters == typed(
        ("?x", t("parcel")), ("?v", t("truck", "van")), ("?p", t("place"))
    )
    problem = _problem("typing/p01.pddl")
    assert problem.objects == typed(
        ("t1", t("truck")), ("v1", t("van")), ("p1", t("parcel")), ("p2", t("parcel")), ("s1", t("shop"))
    )


def test_adl_conditions_and_conditional_effects() -> None:
    move = _action(_domain("adl/domain.pddl"), "move")
    assert move.precondition == And((
        atom("in", "?from"),
        Not(Equality(n("?from"), n("?to"))),
        Or((atom("door", "?from", "?to"), atom("door", "?to", "?from"))),
        Not(atom("locked", "?from", "?to")),
        Imply(atom("lit", "?to"), Quantified("exists", typed(("?k", t("key"))), atom("has", "?k"))),
    ))
    assert isinstance(move.effect, And)
    assert move.effect.args[3:] == (
        Quantified("forall", typed(("?r", t("room"))), When(
            And((atom("lit", "?r"), Not(Equality(n("?r"), n("?to"))))), Not(atom("lit", "?r"))
        )),
        When(Not(atom("lit", "?to")), atom("lit", "?to")),
    )
    goal = _problem("adl/p01.pddl").goal
    assert isinstance(goal, And)
    assert goal.args[2] == Quantified("forall", typed(("?r", t("room"))), Not(atom("locked", "?r", "cellar")))


def test_numeric_fluents_action_costs_and_metric() -> None:
    domain = _domain("numeric/domain.pddl")
    assert [(f.name.key, len(f.parameters), f.type) for f in domain.functions] == [
        ("fuel", 1, t("number")), ("capacity", 1, t("number")), ("distance", 2, t("number")),
        ("total-cost", 0, t("number")), ("refuels", 0, None),
    ]
    drive = _action(domain, "drive")
    assert isinstance(drive.precondition, And)
    enough_fuel = Comparison(">=", term("fuel", "?t"), term("distance", "?from", "?to"))
    assert drive.precondition.args[2] == enough_fuel
    overhaul = _action(domain, "overhaul")
    assert isinstance(overhaul.precondition, And)
    assert overhaul.precondition.args[1] == Comparison(
        ">", Arithmetic("-", (term("capacity", "?t"), term("fuel", "?t"))), Arithmetic("-", (num(5),))
    )
    effects = {node.op for a in domain.actions for node in walk(a.effect) if isinstance(node, NumericEffect)}
    assert effects == {"assign", "increase", "decrease", "scale-up", "scale-down"}
    assert NumericEffect("scale-up", term("capacity", "?t"), num(1.5)) in walk(overhaul.effect)
    problem = _problem("numeric/p01.pddl")
    assert Comparison("=", term("distance", "b", "c"), num(25.5)) in problem.init
    assert problem.metric == Metric(
        "minimize", Arithmetic("+", (term("total-cost"), Arithmetic("*", (num(2), term("refuels")))))
    )


def test_derived_predicates() -> None:
    domain = _domain("derived/domain.pddl")
    heads = [(d.head.name.key, len(d.head.parameters)) for d in domain.derived]
    assert heads == [("reachable", 2), ("hub", 1)]
    assert domain.derived[0].body == Or((
        atom("edge", "?a", "?b"),
        Quantified("exists", typed(("?c", t("node"))),
                   And((atom("edge", "?a", "?c"), atom("reachable", "?c", "?b")))),
    ))
    everywhere = Quantified("forall", typed(("?m", t("node"))), atom("reachable", "?n", "?m"))
    assert domain.derived[1].body == everywhere


def test_durative_actions_and_timed_initial_literals() -> None:
    domain = _domain("temporal/domain.pddl")
    toggle = _action(domain, "toggle")
    assert toggle.kind == "durative-action"
    assert [s.key for s in toggle.sections] == [":parameters", ":duration", ":condition", ":effect"]
    assert toggle.duration == And((
        Comparison(">=", n("?duration"), num(1)), Comparison("<=", n("?duration"), term("max-time", "?s"))
    ))
    assert toggle.precondition == And((
        TimeSpecified("start", Not(atom("on", "?s"))),
        TimeSpecified("all", atom("powered")),
        TimeSpecified("end", atom("powered")),
    ))
    drain = TimeSpecified("end", NumericEffect("decrease", term("battery"), n("?duration")))
    assert drain in walk(toggle.effect)
    charge = _action(domain, "charge")
    assert charge.effect == NumericEffect("increase", term("battery"), Arithmetic("*", (n("#t"), num(2))))
    problem = _problem("temporal/p01.pddl")
    assert problem.init[-2:] == (
        TimedLiteral(num(20), Not(atom("powered"))), TimedLiteral(num(2.5), atom("on", "s2"))
    )
    assert problem.metric == Metric("minimize", term("total-time"))
    plan = parse_plan((CONSTRUCTS_DIR / "temporal/p01.plan").read_text(encoding="utf-8")).plan
    assert plan is not None
    assert [(s.time, s.action.key, s.duration) for s in plan.steps] == [
        (num(0), "toggle", num(2)), (num(0.5), "toggle", num(1))
    ]


def test_pddl3_constraints_and_preferences() -> None:
    domain = _domain("preferences/domain.pddl")
    assert domain.constraints == Modal("always", (), (Not(atom("photo", "base")),))
    go = _action(domain, "go")
    assert Preference(n("quiet"), Not(atom("visited", "?to"))) in walk(go.precondition)
    problem = _problem("preferences/p01.pddl")
    assert problem.goal == And((
        atom("visited", "c"),
        Preference(n("p-photo-a"), atom("photo", "a")),
        Preference(None, atom("photo", "b")),
    ))
    assert isinstance(problem.constraints, And)
    modal = [(c.op, c.numbers, len(c.args)) for c in problem.constraints.args if isinstance(c, Modal)]
    assert modal == [
        ("always", (), 1), ("sometime", (), 1), ("within", (num(10),), 1), ("at-most-once", (), 1),
        ("sometime-after", (), 2), ("sometime-before", (), 2), ("always-within", (num(5),), 2),
        ("hold-during", (num(2), num(6)), 1), ("hold-after", (num(8),), 1),
    ]
    late = Preference(n("p-late"), Modal("sometime", (), (atom("photo", "c"),)))
    assert problem.constraints.args[-1] == late
    assert problem.metric is not None
    assert term("is-violated", "quiet") in numeric_terms(problem.metric.expr)


def test_processes_and_events() -> None:
    domain = _domain("pddl-plus/domain.pddl")
    assert [(a.name.key, a.kind) for a in domain.actions] == [
        ("open-valve", "action"), ("close-valve", "action"), ("fill", "process"), ("overflow", "event"),
    ]
    fill = _action(domain, "fill")
    assert fill.effect == NumericEffect("increase", term("level", "?t"), Arithmetic("*", (n("#t"), num(2))))


def test_contingent_observe_oneof_unknown() -> None:
    domain = _domain("contingent/domain.pddl")
    look = _action(domain, "look")
    assert (look.observe, look.effect) == (atom("heads", "?c"), None)
    flip = _action(domain, "flip")
    assert isinstance(flip.effect, Modal) and flip.effect.op == "oneof" and len(flip.effect.args) == 2
    problem = _problem("contingent/p01.pddl")
    assert problem.init[1:] == (
        Modal("unknown", (), (atom("heads", "penny"),)),
        Modal("oneof", (), (atom("heads", "penny"), atom("tails", "penny"))),
    )


def test_letter_case_crlf_and_non_ascii_comments() -> None:
    raw = (CONSTRUCTS_DIR / "case-crlf/domain.pddl").read_bytes()
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")
    text = raw.decode("utf-8")
    assert "🧱" in text  # outside the BMP: 2 UTF-16 code units, 1 code point
    domain = _domain("case-crlf/domain.pddl")
    assert (domain.name.key, domain.name.text) == ("blocks-world", "Blocks-World")
    assert [r.key for r in domain.requirements] == [":strips", ":typing"]
    assert [a.name.key for a in domain.actions] == ["pick-up", "stack"]
    stack = _action(domain, "stack")
    assert text[stack.name.span.start : stack.name.span.end] == "Stack"
    assert stack.precondition == And((atom("holding", "?b"), atom("clear", "?under")))
    problem = _problem("case-crlf/p01.pddl")
    assert problem.domain_name == n("blocks-world")
    assert atom("on-table", "b") in problem.init and atom("hand-empty") in problem.init
    plan = parse_plan((CONSTRUCTS_DIR / "case-crlf/p01.plan").read_bytes().decode("utf-8"))
    assert plan.diagnostics == ()
    assert plan.plan is not None and plan.plan.cost == num(2)
    assert [(s.action.key, [a.key for a in s.args]) for s in plan.plan.steps] == [
        ("pick-up", ["a"]), ("stack", ["a", "b"])
    ]


def test_keywords_as_names() -> None:
    domain = _domain("reserved-names/domain.pddl")
    assert [p.name.key for p in domain.predicates] == ["at", "over", "link"]
    assert [c.name.key for c in domain.constants] == ["start", "end"]
    start = _action(domain, "start")
    assert start.precondition == And((
        TimeSpecified("start", atom("at", "?from")),
        TimeSpecified("all", atom("link", "?from", "?to")),
        TimeSpecified("end", atom("over", "?to")),
    ))
    assert start.effect == And((
        TimeSpecified("start", Not(atom("at", "?from"))), TimeSpecified("end", atom("at", "?to"))
    ))
    problem = _problem("reserved-names/p01.pddl")
    assert [o.name.key for o in problem.objects] == ["over", "all"]
    assert problem.init == (
        atom("at", "start"), atom("link", "start", "over"), atom("link", "over", "all"),
        atom("link", "all", "end"), atom("over", "end"), atom("over", "all"),
    )
    assert problem.goal == And((atom("at", "end"), atom("over", "end")))
    assert _problem("reserved-names/ferry-p01.pddl").goal == atom("at", "end")


def _construct_models() -> list[Domain | Problem]:
    return [_load(p.relative_to(CONSTRUCTS_DIR).as_posix()) for p in sorted(CONSTRUCTS_DIR.glob("**/*.pddl"))]


def test_construct_fixtures_cover_every_node_type_and_operator() -> None:
    """The fixtures are the parser's and printer's coverage of PDDL 3.1: every formula node, modal
    operator, assignment operator, comparison, arithmetic operator and action kind appears."""
    nodes: set[str] = set()
    ops: set[str] = set()
    kinds: set[str] = set()
    for model in _construct_models():
        roots: list[Any] = []
        if isinstance(model, Domain):
            kinds.update(a.kind for a in model.actions)
            roots += [model.constraints, *(d.body for d in model.derived)]
            roots += [f for a in model.actions for f in (a.precondition, a.effect, a.duration, a.observe)]
        else:
            roots += [*model.init, model.goal, model.constraints]
            if model.metric is not None:
                roots.append(Comparison("=", model.metric.expr, model.metric.expr))
        for node in (x for root in roots for x in walk(root)):
            nodes.add(type(node).__name__)
            if isinstance(node, (Modal, NumericEffect, Comparison)):
                ops.add(node.op)
            if isinstance(node, (Comparison, NumericEffect)):
                exprs = [node.left, node.right] if isinstance(node, Comparison) else [node.target, node.value]
                for expr in (e for x in exprs for e in numeric_terms(x)):
                    nodes.add(type(expr).__name__)
                    if isinstance(expr, Arithmetic):
                        ops.add(expr.op)
    assert nodes >= {
        "Atom", "Equality", "Not", "And", "Or", "Imply", "Quantified", "Comparison", "Preference",
        "TimeSpecified", "TimedLiteral", "Modal", "When", "NumericEffect", "Number", "FunctionTerm",
        "Arithmetic", "Name",
    }
    assert ops >= {
        "always", "sometime", "within", "at-most-once", "sometime-after", "sometime-before",
        "always-within", "hold-during", "hold-after", "oneof", "unknown",
        "assign", "increase", "decrease", "scale-up", "scale-down",
        "<", "<=", "=", ">=", ">", "+", "-", "*", "/",
    }
    assert kinds == {"action", "durative-action", "process", "event"}


def test_commented_out_facts_are_not_facts() -> None:
    """Regression: the fast fact scanner once read `;(p c)` as a fact, and gave the atom after a
    comment holding `(` a span starting inside the comment."""
    text = (
        "(define (problem p) (:domain d) (:objects a b c)\n"
        "  (:init (p a) ; see (p b)\n"
        "         (p b)\n"
        "         ;(p c)\n"
        "         ; (p c)\n"
        "  )\n"
        "  (:goal (and (p a) ;(p c)\n  )))\n"
    )
    for fast_facts in (True, False):
        parsed = parse_pddl(text, fast_facts=fast_facts)
        assert parsed.diagnostics == ()
        assert isinstance(parsed.model, Problem)
        assert parsed.model.init == (atom("p", "a"), atom("p", "b"))
        assert [text[f.span.start : f.span.end] for f in parsed.model.init] == ["(p a)", "(p b)"]
        assert parsed.model.goal == And((atom("p", "a"),))
