"""Semantic tokens after an edit, computed from the previous answer: over random edit sequences on
corpus files the result is exactly a fresh computation, and the one array edit returned turns the
previous encoding into the new one."""

from __future__ import annotations

import random
import re
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from corpus import EXAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plansight.analyses.editing import semantic_token_edits
from plansight.analyses.editing.semantic_token_edits import (
    ArrayEdit,
    EncodedTokens,
    advance,
    apply_edit,
    array_edit,
    changed_region,
    encode_document,
    update_document,
)
from plansight.analyses.editing.semantic_tokens import TOKEN_TYPES, encode, semantic_tokens
from plansight.analyses.editing.symbols import SymbolIndex, build_index, update_index
from plansight.analyses.syntax.documents import ParsedDocument, parse_document, reparse_document

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


# --- the server's way: each version parsed from the previous one, its index updated from the previous one's

PAIRS = sorted((problem, problem.parent / "domain.pddl") for problem in EXAMPLES.glob("*/p*.pddl")
               if (problem.parent / "domain.pddl").exists())
ROUGH_PIECES = ["(", ")", " ", "\n", "; note\n", ";", "(at ", "(not ", "(and ", "?x", "x", "3", "é", "😀",
                ":init", "(:objects extra)", "extra", " - t", "(= (f a) 2)", "(preference p1 (q a))"]
TYPED_PIECES = [" ", "\n    ", "; note\n", "(at home office)", "(open case) ", "(in ?p case)",
                "(not (at case home))", "(at ?p office)", "(forall (?y) (at ?y home))", "(and)", "()",
                "(at )", "(exists (?z - t) (on ?z ?z))", "(on b1 b2)"]
"""what typing in an editor that closes brackets inserts between two elements of a list"""


@dataclass
class Version:
    """One version of a problem as the server holds it: its parse (from the previous parse) and its index
    (updated from the previous index when :func:`update_index` can)."""

    parsed: ParsedDocument
    index: SymbolIndex | None


def indexed(parsed: ParsedDocument, domain: ParsedDocument, base: Version | None) -> SymbolIndex | None:
    if parsed.model is None:
        return None
    derived = parsed.derived
    if base is not None and base.index is not None and derived is not None \
            and derived.previous_text == base.parsed.text:
        updated = update_index(base.index, parsed.model, derived.splice)
        if updated is not None:
            return updated
    return build_index(parsed.model, "p.pddl", domain=domain.domain, domain_path="d.pddl")


def next_version(version: Version, text: str, domain: ParsedDocument) -> Version:
    parsed = reparse_document(version.parsed, "p.pddl", text, lazy=True)
    return Version(parsed, indexed(parsed, domain, version))


def fresh(text: str, domain: ParsedDocument, encoding: str) -> list[int]:
    parsed = parse_document("p.pddl", text)
    index = build_index(parsed.model, "p.pddl", domain=domain.domain, domain_path="d.pddl") \
        if parsed.model is not None else None
    return encode(text, semantic_tokens(text, index), encoding)


def in_sections(text: str, where: float, between: bool) -> int:
    """An offset inside ``:init`` or ``:goal`` most of the time, where the names keep their meaning;
    with ``between``, one between two elements of a list."""
    starts = [at for at in (text.find("(:init"), text.find("(:goal")) if at >= 0]
    if not starts:
        return round(where * len(text))
    begin = min(starts)
    at = begin + round(where * (len(text) - begin))
    if between:  # just before a `(` that follows a `)`, which opens no section
        for match in re.finditer(r"\)\s*(\()[^:]", text[at:]):
            return at + match.start(1)
    return at


def random_edit(text: str, rng: random.Random) -> str:
    """Mostly what typing in an editor that closes brackets does between two elements of a list; now
    and then anything anywhere."""
    if rng.random() < 0.9:
        start = in_sections(text, rng.random(), True)
        removed, pieces = 0, rng.choices(TYPED_PIECES, k=rng.randint(0, 2))
    else:
        where = rng.random()
        start = round(where * len(text)) if rng.random() < 0.5 else in_sections(text, where, False)
        removed, pieces = rng.choice([0, 1, 2, 5, 12, 40]), rng.choices(ROUGH_PIECES, k=rng.randint(0, 3))
    return text[:start] + "".join(pieces) + text[start + removed:]


def first_version(pair: tuple[Path, Path]) -> tuple[ParsedDocument, str, Version]:
    """The domain, the problem's text and its first version, parsed and indexed from scratch."""
    problem, domain_path = pair
    domain = parse_document("d.pddl", domain_path.read_text(encoding="utf-8"))
    text = problem.read_text(encoding="utf-8")
    parsed = parse_document("p.pddl", text)
    return domain, text, Version(parsed, indexed(parsed, domain, None))


def every_line_long(narrowed: bool) -> AbstractContextManager[object]:
    """With ``narrowed``, every line counts as long, so that each update following an edit scans only
    the words around it (what it does on a generated problem's one-line object list) and is checked
    against a fresh computation like the others."""
    limit = 0 if narrowed else semantic_token_edits.LONG_LINE
    return mock.patch.object(semantic_token_edits, "LONG_LINE", limit)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PAIRS), st.sampled_from(["utf-16", "utf-8", "utf-32"]), st.integers(0, 2**32),
       st.booleans())
def test_updates_along_the_servers_parse_and_index_chain_are_fresh_computations(
        pair: tuple[Path, Path], encoding: str, seed: int, narrowed: bool) -> None:
    with every_line_long(narrowed):
        chain_of_random_edits(pair, encoding, seed)


def chain_of_random_edits(pair: tuple[Path, Path], encoding: str, seed: int) -> None:
    rng = random.Random(seed)
    domain, text, version = first_version(pair)
    state = encode_document(text, version.index, encoding)
    for _ in range(10):
        text = random_edit(text, rng)
        version = next_version(version, text, domain)
        if rng.random() < 0.25:
            continue  # a version the editor never asked tokens for (typing fast): the next update skips it
        updated, edit = update_document(state, text, version.index, encoding, version.parsed.derived)
        assert updated.data == fresh(text, domain, encoding), text
        assert apply_edit(state.data, edit) == updated.data
        assert updated.arrays().tuples() == semantic_tokens(text, version.index)
        state = updated


def long_problem(facts: int) -> str:
    init = "".join(f"    (on b{i} b{i + 1})\n" for i in range(facts))
    return (f"(define (problem p) (:domain d)\n  (:objects {' '.join(f'b{i}' for i in range(facts + 1))})\n"
            f"  (:init\n{init}  )\n  (:goal (and (on b1 b0) (forall (?x) (on ?x b0)))))\n")


LONG_DOMAIN = "(define (domain d) (:predicates (on ?x ?y) (clear ?x)))"


def chain(texts: list[str], encoding: str = "utf-16") -> tuple[list[EncodedTokens], list[ArrayEdit | None]]:
    """The tokens of each text, each from the previous one's, with the parses and indexes the server
    would hold (every text parsed from the one before)."""
    domain = parse_document("d.pddl", LONG_DOMAIN)
    parsed = parse_document("p.pddl", texts[0])
    version = Version(parsed, indexed(parsed, domain, None))
    states, edits = [encode_document(texts[0], version.index, encoding)], []
    for text in texts[1:]:
        version = next_version(version, text, domain)
        state, edit = update_document(states[-1], text, version.index, encoding, version.parsed.derived)
        assert state.data == fresh(text, domain, encoding)
        assert apply_edit(states[-1].data, edit) == state.data
        states.append(state)
        edits.append(edit)
    return states, edits


def test_typing_in_a_long_init_keeps_the_tokens_after_the_edit_without_recomputing_them() -> None:
    text = long_problem(3000)
    at = text.index("(on b1500 ")
    texts = [text]
    # brackets closed as an editor closes them: each version parses incrementally
    for piece in ("()", "(c)", "(clear)", "(clear )", "(clear b7)", "(clear b7)\n    ", "(clear b7) "):
        texts.append(text[:at] + piece + text[at:])
    states, edits = chain(texts)
    assert all(state.lexical is None for state in states[1:])  # the edited lines only were scanned
    assert all(len(state.shifts) <= 2 for state in states)  # the tokens after the edit moved lazily
    last = edits[-1]
    assert last is not None and len(last.data) <= 15 and last.delete_count <= 15


def test_edits_at_the_start_and_at_the_end_of_the_file() -> None:
    text = long_problem(200)
    states, _ = chain([text, " " + text, "\n; head\n" + text, "\n; head\n" + text + "\n", "\n; head\n" + text
                       + " ; tail", text[:-2]])
    # every step checked against a fresh computation in `chain`; after the closing bracket nothing moves,
    # so the tokens there are those of the edited line alone
    assert [state.lexical is None for state in states] == [False, False, False, True, True, False]


def test_edits_in_the_goal_and_several_changes_in_one_version() -> None:
    text = long_problem(400)
    goal = text.index("(forall")
    in_goal = text[:goal] + "(on b3 b4) " + text[goal:]
    at, later = in_goal.index("(on b10 "), in_goal.index("(on b300 ")
    two_places = in_goal[:at] + "(clear b2) " + in_goal[at:later] + "(clear b9) " + in_goal[later:]
    renamed_variable = two_places.replace("(forall (?x) (on ?x b0))", "(forall (?y) (on ?x b0))")
    states, _ = chain([text, in_goal, two_places, renamed_variable])
    assert states[1].lexical is None  # a goal element added: the names of the goal's other elements stand


def test_an_edit_that_declares_recolours_the_uses_after_it() -> None:
    text = long_problem(100)
    added = text.replace("(:objects b0", "(:objects c9 b0").replace("(on b50 b51)", "(on c9 b51)")
    renamed = added.replace("(:objects c9", "(:objects c8")
    states, _ = chain([text, text.replace("(on b50 b51)", "(on c9 b51)"), added, renamed])
    c9 = [TOKEN_TYPES[kind] for (s, e, kind, _) in states[2].arrays().tuples() if added[s:e] == "c9"]
    assert c9 == ["variable", "variable"]  # declared, then used in :init: an object now
    gone = [TOKEN_TYPES[kind] for (s, e, kind, _) in states[3].arrays().tuples() if renamed[s:e] == "c9"]
    assert gone == ["enumMember"]  # its declaration renamed: the use resolves to no object any more


def test_a_burst_of_versions_the_editor_never_asked_for() -> None:
    text = long_problem(300)
    at = text.index("(on b100 ")
    domain = parse_document("d.pddl", LONG_DOMAIN)
    parsed = parse_document("p.pddl", text)
    version = Version(parsed, indexed(parsed, domain, None))
    state = encode_document(text, version.index)
    for step in range(1, 6):  # five keystrokes, tokens asked after the last only
        text = text[:at] + "x" + text[at:]
        at += step % 2 * 40
        version = next_version(version, text, domain)
    updated, edit = update_document(state, text, version.index, "utf-16", version.parsed.derived)
    assert updated.data == fresh(text, domain, "utf-16")
    assert apply_edit(state.data, edit) == updated.data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PAIRS), st.sampled_from(["utf-16", "utf-8"]), st.integers(0, 2**32))
def test_tokens_followed_along_every_parse_are_fresh_computations(
        pair: tuple[Path, Path], encoding: str, seed: int) -> None:
    """What the server does as each version is parsed and indexed (``advance``, from the tokens of the
    version before): where it follows, the tokens are exactly a fresh computation, and the one edit
    from the array the client last received gives them; where it cannot (a declaration changed), it
    says so and the next request computes them from the client's array."""
    rng = random.Random(seed)
    domain, text, version = first_version(pair)
    held = encode_document(text, version.index, encoding)  # the client's last answer
    followed: EncodedTokens | None = held
    for _ in range(12):
        text = random_edit(text, rng)
        version = next_version(version, text, domain)
        followed = (advance(followed, text, version.index, version.parsed.derived)
                    if followed is not None else None)
        if followed is not None:
            assert followed.data == fresh(text, domain, encoding), text
        if rng.random() < 0.3:  # the editor asks: from the followed tokens, or from its own array
            if followed is not None:
                answer = followed
                assert apply_edit(held.data, array_edit(held.data, answer.data)) == answer.data
            else:
                answer, _ = update_document(held, text, version.index, encoding, version.parsed.derived)
            assert answer.data == fresh(text, domain, encoding)
            held = followed = answer


def test_typing_a_fact_is_followed_keystroke_by_keystroke() -> None:
    text = long_problem(200)
    domain = parse_document("d.pddl", LONG_DOMAIN)
    parsed = parse_document("p.pddl", text)
    version = Version(parsed, indexed(parsed, domain, None))
    tokens: EncodedTokens | None = encode_document(text, version.index)
    at = text.index("    (on b100 ")
    for typed in ["()", "c", "l", "e", "a", "r", " ", "q", "7"]:
        text = text[:at] + typed + text[at:]
        at += 1
        version = next_version(version, text, domain)
        assert tokens is not None
        tokens = advance(tokens, text, version.index, version.parsed.derived)
        assert tokens is not None, typed  # followed at every keystroke: no recolouring of the document
        assert tokens.data == fresh(text, domain, "utf-16")
    # declaring the unknown name the fact uses turns that use into an object: the document is recoloured
    declared = text.replace("(:objects b0", "(:objects q7 b0")
    version = next_version(version, declared, domain)
    assert advance(tokens, declared, version.index, version.parsed.derived) is None


def typed_key_by_key(version: Version, tokens: EncodedTokens, text: str, at: int, keys: list[str],
                     domain: ParsedDocument) -> tuple[list[bool], str, EncodedTokens]:
    """``keys`` typed at ``at`` one by one (``\\b``: a backspace), each version parsed and indexed as
    the server does: whether the tokens followed each key, checked against a fresh computation every
    time; the last text and its tokens."""
    followed = []
    for typed in keys:
        if typed == "\b":
            text, at = text[:at - 1] + text[at:], at - 1
        else:
            text, at = text[:at] + typed + text[at:], at + 1
        version = next_version(version, text, domain)
        followed.append(advance(tokens, text, version.index, version.parsed.derived) is not None)
        tokens, _ = update_document(tokens, text, version.index, "utf-16", version.parsed.derived)
        assert tokens.data == fresh(text, domain, "utf-16")
    return followed, text, tokens


def test_typing_a_new_object_at_the_end_of_the_list_is_followed_until_a_use_changes_colour() -> None:
    """A name typed after the last object declares it; while nothing names it the other tokens keep
    their colours and the tokens follow the edit. Once it declares a name a fact uses (`b7x`), that use
    turns from an unknown name into an object, and the tokens are computed from the whole index."""
    text = long_problem(200).replace("(on b7 b8)", "(on b7x b8)")
    domain = parse_document("d.pddl", LONG_DOMAIN)
    parsed = parse_document("p.pddl", text)
    version = Version(parsed, indexed(parsed, domain, None))
    tokens = encode_document(text, version.index)
    at = text.index(")", text.index("(:objects"))
    keys = [" ", "c", "1", "\b", "\b", "b", "7", "x"]
    followed, text, tokens = typed_key_by_key(version, tokens, text, at, keys, domain)
    assert followed == [True] * 7 + [False]
    uses = [TOKEN_TYPES[kind] for (s, e, kind, _) in tokens.arrays().tuples() if text[s:e] == "b7x"]
    assert uses == ["variable", "variable"]  # declared, and the fact's use is an object now


def test_typing_a_new_object_at_the_start_of_the_list_is_followed_until_a_use_changes_colour() -> None:
    """The same at the start of the list, where every declaration after the name moves: while the
    typed name is named nowhere else, no other token changes colour and the tokens follow the edit;
    the key that declares `b7x`, which a fact uses, recolours that use."""
    text = long_problem(200).replace("(on b7 b8)", "(on b7x b8)")
    domain = parse_document("d.pddl", LONG_DOMAIN)
    parsed = parse_document("p.pddl", text)
    version = Version(parsed, indexed(parsed, domain, None))
    tokens = encode_document(text, version.index)
    at = text.index("(:objects") + len("(:objects ")
    text = text[:at] + " " + text[at:]  # a space typed before the first object, the cursor left before it
    version = next_version(version, text, domain)
    tokens, _ = update_document(tokens, text, version.index, "utf-16", version.parsed.derived)
    keys = ["c", "1", "\b", "\b", "b", "7", "x"]
    followed, text, tokens = typed_key_by_key(version, tokens, text, at, keys, domain)
    # "b7" names an object declared further on (a name declared twice is left to a full build of the
    # index); "b7x" declares what the fact uses
    assert followed == [True] * 5 + [False, False], followed
    uses = [TOKEN_TYPES[kind] for (s, e, kind, _) in tokens.arrays().tuples() if text[s:e] == "b7x"]
    assert uses == ["variable", "variable"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([" b3", " c1", "x", "\b", " b7x", " b2", "c2 ", "é", "(", ";"]),
                min_size=1, max_size=10),
       st.sampled_from(["utf-16", "utf-8"]), st.sampled_from(["end", "start", "middle"]), st.booleans())
def test_tokens_followed_through_edits_of_the_object_list_are_fresh_computations(
        typed: list[str], encoding: str, where: str, narrowed: bool) -> None:
    with every_line_long(narrowed):
        type_into_the_object_list(typed, encoding, where)


def type_into_the_object_list(typed: list[str], encoding: str, where: str) -> None:
    text = long_problem(30).replace("(on b7 b8)", "(on b7x b8)")
    domain = parse_document("d.pddl", LONG_DOMAIN)
    parsed = parse_document("p.pddl", text)
    version = Version(parsed, indexed(parsed, domain, None))
    followed: EncodedTokens | None = encode_document(text, version.index, encoding)
    at = {"end": text.index(")", text.index("(:objects")),
          "start": text.index("(:objects") + len("(:objects "),
          "middle": text.index(" b15 ", text.index("(:objects"))}[where]
    for piece in typed:
        if piece == "\b":
            text, at = text[:at - 1] + text[at:], at - 1
        else:
            text, at = text[:at] + piece + text[at:], at + len(piece)
        version = next_version(version, text, domain)
        if followed is not None:
            followed = advance(followed, text, version.index, version.parsed.derived)
        if followed is None:
            followed = encode_document(text, version.index, encoding)
        assert followed.data == fresh(text, domain, encoding), text


def test_edits_of_comments_and_keywords_on_long_lines_are_followed_exactly() -> None:
    """Every line counted as long: a number typed in a comment after a fact stays part of the comment,
    and a blank typed between a `(` and its keyword leaves the keyword coloured, as a fresh computation
    has them; the tokens still follow each of these edits (none recolours the document)."""
    text = long_problem(12).replace(
        "  (:init\n", "  (:init (on b1 b2) ; 3 :note (and x)\n").replace(
        "(:goal (and (on b1 b0)", "(:goal (and ( not (on b1 b0))")
    domain = parse_document("d.pddl", LONG_DOMAIN)
    parsed = parse_document("p.pddl", text)
    version = Version(parsed, indexed(parsed, domain, None))
    tokens: EncodedTokens | None = encode_document(text, version.index)
    comment = text.index(":note") + len(":note")
    keyword = text.index("( not") + 1
    with every_line_long(True):
        for at, typed in ((comment, " 7"), (keyword, " ")):
            text = text[:at] + typed + text[at:]
            version = next_version(version, text, domain)
            assert tokens is not None
            tokens = advance(tokens, text, version.index, version.parsed.derived)
            assert tokens is not None, typed
            assert tokens.data == fresh(text, domain, "utf-16"), typed


def test_a_name_a_fact_uses_since_the_last_object_edit_recolours_it_when_declared() -> None:
    """An object typed at the start of the list (nothing names it: followed), then a fact naming an
    unknown `zz`, then `zz` declared at the start of the list: the fact's use turns into an object, so
    that last edit recolours the document, and every version's tokens are a fresh computation's."""
    text = long_problem(200)
    domain = parse_document("d.pddl", LONG_DOMAIN)
    parsed = parse_document("p.pddl", text)
    version = Version(parsed, indexed(parsed, domain, None))
    tokens = encode_document(text, version.index)
    first = text.index("(:objects") + len("(:objects ")
    fact = text.index("    (on b100 ")
    followed = []
    for edited in (text[:first] + "c1 " + text[first:],
                   text[:first] + "c1 " + text[first:fact] + "    (clear zz)\n" + text[fact:],
                   text[:first] + "c1 zz " + text[first:fact] + "    (clear zz)\n" + text[fact:]):
        version = next_version(version, edited, domain)
        followed.append(advance(tokens, edited, version.index, version.parsed.derived) is not None)
        tokens, _ = update_document(tokens, edited, version.index, "utf-16", version.parsed.derived)
        assert tokens.data == fresh(edited, domain, "utf-16")
    assert followed == [True, True, False]
