"""The model view: a domain's type tree and who reads and changes each predicate, a problem's objects by
type, initial state and graph of binary facts, and a page that is safe to open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from view_html import read_page

from plansight.analyses.editing.model_html import graph_layout, model_html
from plansight.analyses.editing.model_view import domain_model, problem_model
from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.syntax.documents import parse_document

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

DOMAIN = """(define (domain delivery)
  (:requirements :typing :conditional-effects :negative-preconditions :numeric-fluents)
  (:types truck - vehicle vehicle parcel - object hub depot - place lorry - (either truck parcel))
  (:constants central - hub)
  (:predicates (at ?x - object ?p - place) (in ?x - parcel ?v - vehicle) (road ?a ?b - place)
               (fragile ?x - parcel) (broken ?x - parcel))
  (:functions (fuel ?v - vehicle))
  (:action load :parameters (?x - parcel ?v - vehicle ?p - place)
    :precondition (and (at ?x ?p) (at ?v ?p) (not (broken ?x)))
    :effect (and (in ?x ?v) (not (at ?x ?p))))
  (:action drive :parameters (?v - vehicle ?a ?b - place)
    :precondition (and (at ?v ?a) (road ?a ?b) (> (fuel ?v) 0))
    :effect (and (at ?v ?b) (not (at ?v ?a)) (decrease (fuel ?v) 1)
                 (forall (?x - parcel) (when (and (in ?x ?v) (fragile ?x)) (broken ?x))))))
"""

PROBLEM = """(define (problem two-hubs) (:domain delivery)
  (:objects t1 - truck p1 p2 - parcel north south - depot)
  (:init (at t1 north) (at p1 north) (at p2 south) (road north south) (road south north)
         (road north central) (fragile p2) (= (fuel t1) 5))
  (:goal (at p1 south)))
"""


def domain_of(text: str) -> Domain:
    domain = parse_document("domain.pddl", text).domain
    assert domain is not None
    return domain


def problem_of(text: str) -> Problem:
    problem = parse_document("p.pddl", text).problem
    assert problem is not None
    return problem


def tree_lines(node: dict[str, Any], depth: int = 0) -> list[str]:
    return ["  " * depth + node["name"] + (f" {node['constants']}" if node["constants"] else ""),
            *(line for child in node["children"] for line in tree_lines(child, depth + 1))]


def test_the_type_tree_puts_each_type_under_its_parents() -> None:
    view = domain_model(domain_of(DOMAIN), "domain.pddl")
    # lorry is declared under (either truck parcel): it appears under both; place was never declared
    assert tree_lines(view["types"]) == [
        "object",
        "  vehicle",
        "    truck",
        "      lorry",
        "  parcel",
        "    lorry",
        "  place",
        "    hub ['central']",
        "    depot",
    ]


def test_each_predicate_says_which_actions_read_add_and_delete_it() -> None:
    rows = {row["name"]: row for row in domain_model(domain_of(DOMAIN))["predicates"]}
    assert (rows["at"]["read_by"], rows["at"]["added_by"], rows["at"]["deleted_by"]) == (
        ["load", "drive"], ["drive"], ["load", "drive"])
    # a when-condition is read; a when-effect changes; a negated precondition is still a read
    assert rows["fragile"]["read_by"] == ["drive"] and rows["fragile"]["added_by"] == []
    assert rows["in"]["read_by"] == ["drive"] and rows["in"]["added_by"] == ["load"]
    assert rows["broken"]["read_by"] == ["load"] and rows["broken"]["added_by"] == ["drive"]
    assert rows["road"]["read_by"] == ["drive"]
    assert rows["road"]["added_by"] == rows["road"]["deleted_by"] == []
    assert rows["at"]["signature"] == "(at ?x - object ?p - place)"
    fuel = domain_model(domain_of(DOMAIN))["functions"]
    assert fuel == [{"name": "fuel", "signature": "(fuel ?v - vehicle)", "read_by": ["drive"],
                     "changed_by": ["drive"]}]


def test_a_problem_lists_its_objects_by_type_with_the_domains_constants() -> None:
    view = problem_model(problem_of(PROBLEM), "p.pddl", domain_of(DOMAIN))
    assert view["objects_by_type"] == [
        {"type": "hub", "objects": ["central"]},
        {"type": "truck", "objects": ["t1"]},
        {"type": "parcel", "objects": ["p1", "p2"]},
        {"type": "depot", "objects": ["north", "south"]},
    ]
    assert [(t["predicate"], t["rows"]) for t in view["init"]] == [
        ("at", [["t1", "north"], ["p1", "north"], ["p2", "south"]]),
        ("road", [["north", "south"], ["south", "north"], ["north", "central"]]),
        ("fragile", [["p2"]]),
    ]
    assert view["numeric"] == [{"function": "fuel", "args": ["t1"], "value": "5"}]


def test_the_graph_has_one_edge_per_binary_fact_and_its_nodes_in_declaration_order() -> None:
    graph = problem_model(problem_of(PROBLEM), "p.pddl", domain_of(DOMAIN))["graph"]
    assert [(e["source"], e["predicate"], e["target"]) for e in graph["edges"]] == [
        ("t1", "at", "north"), ("p1", "at", "north"), ("p2", "at", "south"),
        ("north", "road", "south"), ("south", "road", "north"), ("north", "road", "central")]
    # unary facts such as (fragile p2) draw nothing; constants come first, as declared
    assert [n["name"] for n in graph["nodes"]] == ["central", "t1", "p1", "p2", "north", "south"]


def test_the_layered_layout_draws_edges_left_to_right_and_cuts_cycles() -> None:
    chain = graph_layout(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("c", "d")])
    assert chain == {"a": (0, 0), "b": (1, 0), "c": (2, 0), "d": (3, 0)}  # (layer, row)
    # x -> y -> x closes a cycle at y -> x, which is left out of the layering; s, pointing at y, sits
    # in the layer just before y, ordered after x (declaration order breaks the tie)
    assert graph_layout(["x", "y", "s"], [("x", "y"), ("y", "x"), ("s", "y")]) == {
        "x": (0, 0), "y": (1, 0), "s": (0, 1)}
    # packages and trucks, then the places they are at, then the cities of those places
    logistics = problem_model(problem_of((EXAMPLES / "logistics" / "p02.pddl").read_text()))["graph"]
    cells = graph_layout([n["name"] for n in logistics["nodes"]],
                         [(e["source"], e["target"]) for e in logistics["edges"]])
    assert {name for name, (layer, _) in cells.items() if layer == 2} == {"pgh", "bos"}
    assert {name for name, (layer, _) in cells.items() if layer == 0} == {
        "pgh-truck", "bos-truck", "plane1", "pkg1"}


def test_both_pages_are_well_formed_and_under_a_strict_csp() -> None:
    for view in (domain_model(domain_of(DOMAIN), "domain.pddl"),
                 problem_model(problem_of(PROBLEM), "p.pddl", domain_of(DOMAIN))):
        page = read_page(model_html(view))
        assert page.problems == []
        assert page.all("script") == []  # the model view needs no script at all
    problem_page = read_page(model_html(problem_model(problem_of(PROBLEM), "p.pddl")))
    edges = [a for a in problem_page.all("path") if "edge" in (a.get("class") or "")]
    assert len(edges) == 6
    assert "(road north central)" in problem_page.plain_text  # each edge's tooltip names its fact


def test_every_name_is_escaped() -> None:
    hostile = '<script>alert("x")</script>'
    view = problem_model(problem_of(PROBLEM), f"{hostile}.pddl")
    view["name"] = hostile
    view["objects_by_type"][0]["objects"].append(hostile)
    view["init"][0]["rows"].append([hostile, "north"])
    view["graph"]["nodes"].append({"name": hostile, "type": hostile})
    view["graph"]["edges"].append({"source": hostile, "target": "north", "predicate": hostile})
    text = model_html(view)
    page = read_page(text)
    assert page.problems == []
    assert "<script>" not in text
    assert page.plain_text.count(hostile) >= 5
    domain = domain_model(domain_of(DOMAIN), "domain.pddl")
    domain["types"]["children"][0]["name"] = hostile
    domain["predicates"][0]["read_by"].append(hostile)
    text = model_html(domain)
    assert read_page(text).problems == [] and "<script>" not in text


def test_the_examples_render() -> None:
    for path in sorted(EXAMPLES.glob("*/*.pddl")):
        document = parse_document(str(path), path.read_text())
        if document.domain is not None:
            view = domain_model(document.domain, str(path))
        elif document.problem is not None:
            view = problem_model(document.problem, str(path))
        else:
            continue
        assert read_page(model_html(view)).problems == [], path
