"""Semantic tokens after an edit, computed from the previous answer: over random edit sequences on
corpus files the result is exactly a fresh computation, and the one array edit returned turns the
previous encoding into the new one."""

from __future__ import annotations

from corpus import EXAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plansight.analyses.editing.semantic_token_edits import (
    ArrayEdit,
    apply_edit,
    changed_region,
    encode_document,
    update_document,
)
from plansight.analyses.editing.semantic_tokens import TOKEN_TYPES, encode, semantic_tokens
from plansight.analyses.editing.symbols import SymbolIndex, build_index
from plansight.analyses.syntax.documents import parse_document

SAMPLES = sorted(p for p in EXAMPLES.rglob("*.pddl") if p.stat().st_size < 6000)[:40]
PIECES = ["(", ")", " ", "\n", "\r\n", "\r", "\t", ";", "; note\n", "and", "(and ", "(\n  and", "at start",
          " 3", "-1.5", ":init", ":", "?x", "b1", "x", "é", "😀", "(at ", "(not ", "minimize",
          "(:objects a - t)"]


def index_of(path: str, text: str) -> SymbolIndex | None:
    parsed = parse_document(path, text)
    return build_index(parsed.model, path) if parsed.model is not None else None


edits = st.lists(st.tuples(st.floats(0, 1), st.sampled_from([0, 0, 1, 2, 7, 40]),
                           st.lists(st.sampled_from(PIECES), max_size=3)), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), st.sampled_from(["utf-16", "utf-8", "utf-32"]), edits)
def test_an_update_is_a_fresh_computation_and_its_edit_gives_the_new_array(
        path: object, encoding: str, changes: list[tuple[float, int, list[str]]]) -> None:
    name = str(path)
    with open(name, encoding="utf-8") as source:
        text = source.read()
    state = encode_document(text, index_of(name, text), encoding)
    for where, removed, pieces in changes:
        start = round(where * len(text))
        text = text[:start] + "".join(pieces) + text[start + removed:]
        index = index_of(name, text)
        updated, edit = update_document(state, text, index, encoding)
        assert updated.data == encode(text, semantic_tokens(text, index), encoding)
        assert apply_edit(state.data, edit) == updated.data
        state = updated


def test_adding_an_object_recolours_its_uses_further_down() -> None:
    text = "(define (problem p) (:domain d)\n  (:objects a)\n  (:init (on a b))\n  (:goal (on b a)))\n"
    domain = parse_document("d.pddl", "(define (domain d) (:predicates (on ?x ?y)))")
    assert domain.domain is not None

    def index(source: str) -> SymbolIndex:
        parsed = parse_document("p.pddl", source)
        return build_index(parsed.model, "p.pddl", domain=domain.domain, domain_path="d.pddl")

    before = encode_document(text, index(text))
    edited = text.replace("(:objects a)", "(:objects a b)")
    after, edit = update_document(before, edited, index(edited))
    kinds = [TOKEN_TYPES[kind] for kind in after.data[3::5]]
    b_uses = [kinds[i] for i, (s, e) in enumerate(zip(after.tokens.starts, after.tokens.ends, strict=True))
              if edited[s:e] == "b"]
    assert b_uses == ["variable", "variable", "variable"]  # declared, then two uses: objects now
    assert edit is not None and apply_edit(before.data, edit) == after.data


def test_an_edit_of_one_fact_in_a_long_init_changes_a_few_integers() -> None:
    facts = "".join(f"    (on b{i} b{i + 1})\n" for i in range(2000))
    text = f"(define (problem p) (:domain d)\n  (:objects {' '.join(f'b{i}' for i in range(2001))})\n" \
           f"  (:init\n{facts}  )\n  (:goal (on b1 b0)))\n"
    before = encode_document(text, index_of("p.pddl", text))
    at = text.index("(on b1000 ")
    edited = text[:at] + "(on b7 b8)\n    " + text[at:]
    after, edit = update_document(before, edited, index_of("p.pddl", edited))
    assert edit == ArrayEdit(edit.start, 0, edit.data) and len(edit.data) == 15  # one fact: 3 tokens
    assert apply_edit(before.data, edit) == after.data
    assert after.data == encode_document(edited, index_of("p.pddl", edited)).data


def test_changed_region_is_where_two_texts_differ() -> None:
    assert changed_region("abcdef", "abXYef") == (2, 4, 4)
    assert changed_region("aaaa", "aaaaa") == (4, 4, 5)
    assert changed_region("same", "same") == (4, 4, 4)



def test_the_same_text_indexed_again_needs_no_edit() -> None:
    name = str(SAMPLES[0])
    with open(name, encoding="utf-8") as source:
        text = source.read()
    before = encode_document(text, index_of(name, text))
    after, edit = update_document(before, text, index_of(name, text))
    assert edit is None and after.data == before.data and after.data
