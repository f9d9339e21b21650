"""Context-aware completion of names: what may be written at the cursor, and nothing else.

A provider on the hub's completion (``server/feature_hub.py``). Where the cursor is comes from the
open parentheses before it (:mod:`~plansight.analyses.editing.cursor_context`), what may go there
from the domain's vocabulary and the problem's objects: requirement keywords inside
``(:requirements``, section keywords at the head of a section, predicates as snippets with their
arity at the head of an atom, the ``?x`` in scope, and at each argument position of an atom or a
plan step only the objects and constants of the right type.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.checks.domain_references import signature, type_text
from plansight.analyses.checks.requirements import KNOWN
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.cursor_context import CursorContext, cursor_context
from plansight.analyses.editing.describe import function_signature
from plansight.analyses.editing.skeleton_snippets import (
    Skeleton,
    domain_section_skeletons,
    file_skeletons,
    predicate_skeleton,
)
from plansight.analyses.model.deferred import built, peek
from plansight.analyses.model.pddl import (
    Action,
    Domain,
    PredicateDecl,
    Problem,
    Quantified,
    TypedName,
    TypeRef,
    walk,
)
from plansight.analyses.model.vocabulary import OBJECT, Vocabulary, problem_scope, vocabulary
from plansight.analyses.plans.simulate import unparsed_lines
from plansight.analyses.reasoning.plan_steps import applicable_after
from plansight.analyses.semantics.state import GroundAtom
from plansight.analyses.syntax.runs import formula_parts
from plansight.server.context import DocumentContext
from plansight.server.feature_contract import HubSlot, ServerFeature
from plansight.server.symbol_lookup import index_of

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer
    from plansight.server.feature_hub import Provider

DOMAIN_SECTIONS = (":requirements", ":types", ":constants", ":predicates", ":functions", ":action",
                   ":durative-action", ":derived", ":constraints")
PROBLEM_SECTIONS = (":domain", ":requirements", ":objects", ":init", ":goal", ":constraints", ":metric")
ACTION_SECTIONS = (":parameters", ":precondition", ":effect")
DURATIVE_SECTIONS = (":parameters", ":duration", ":condition", ":effect")
FORMULA_SECTIONS = frozenset({":precondition", ":effect", ":condition", ":duration", ":goal", ":init",
                              ":constraints", ":derived", ":metric", ":observe"})
CONDITION_KEYWORDS = ("and", "or", "not", "imply", "exists", "forall", "=", "at start", "at end",
                      "over all", "preference")
EFFECT_KEYWORDS = ("and", "not", "forall", "when", "increase", "decrease", "assign", "scale-up",
                   "scale-down", "at start", "at end")
MAX_ARGUMENT_ITEMS = 1000
"""Objects offered at one argument: a problem with 5,000 crates offers the first 1,000 that start like
the word being typed (typing a letter or two narrows it)."""
APPLICABLE_DETAIL = "applicable here"
"""The detail of a plan-step item whose action the state before the cursor allows."""
TIME_KEYWORDS = frozenset({"at start", "at end", "over all"})
ACTION_HEADS = frozenset({":action", ":durative-action", ":process", ":event"})
_DEFINE = re.compile(r"\(\s*define\b", re.IGNORECASE)
_TYPING = re.compile(r":typing\b", re.IGNORECASE)
_ACTION_SECTION = re.compile(r":(?:effect|precondition|condition|duration|parameters|observe)\b",
                             re.IGNORECASE)


class CompletionFeature(ServerFeature):
    """Completion of keywords, names and arguments in domains, problems and plans."""

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def providers(self) -> Sequence[tuple[HubSlot, Provider]]:
        return [("completion", complete)]


def complete(context: DocumentContext,
             params: types.CompletionParams) -> list[types.CompletionItem] | types.CompletionList:
    """The completion items at the cursor, decided from the raw text around it so that half-typed forms still
    get suggestions.
    """
    if context.kind not in ("domain", "problem", "plan", "unknown"):
        return []
    cursor = cursor_context(context.text, context.mapper.offset(params.position))
    domain = context.domain.domain if context.domain is not None else None
    vocab = vocabulary(domain) if domain is not None else None
    items = Completer(context, cursor, vocab)
    if context.kind == "plan":
        items.plan()
    else:
        items.pddl()
    if items.capped:
        return types.CompletionList(is_incomplete=True, items=items.items)
    return items.items


class Completer:
    """Collects the items for one request; each method handles one kind of place."""

    def __init__(self, context: DocumentContext, cursor: CursorContext, vocab: Vocabulary | None) -> None:
        self.context = context
        self.cursor = cursor
        self.vocab = vocab
        self.items: list[types.CompletionItem] = []
        self.capped = False
        """more items matched than were listed: the client must ask again as the prefix grows"""
        self._range = context.mapper.range(cursor.prefix_span)

    def add(self, label: str, kind: types.CompletionItemKind, detail: str | None = None,
            snippet: str | None = None, documentation: str | None = None, rank: int = 0,
            filter_text: str | None = None) -> None:
        """Add one item replacing the word being typed; ``rank`` sorts groups, insertion order sorts within a
        group.
        """
        new_text = snippet if snippet is not None else label
        self.items.append(types.CompletionItem(
            label=label, kind=kind, detail=detail,
            documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=documentation)
            if documentation else None,
            text_edit=types.TextEdit(range=self._range, new_text=new_text),
            insert_text_format=types.InsertTextFormat.Snippet if snippet is not None else None,
            filter_text=filter_text or label, sort_text=f"{rank}{len(self.items):05d}"))

    def skeleton(self, skeleton: Skeleton, rank: int = 0, filter_text: str | None = None) -> None:
        """A snippet to start a file, a section or a declaration from."""
        self.add(skeleton.label, types.CompletionItemKind.Snippet, detail=skeleton.detail,
                 snippet=skeleton.body, rank=rank, filter_text=filter_text)

    # --- plans ----------------------------------------------------------------------------------

    def plan(self) -> None:
        """Items for a plan step: at its head the ground actions applicable in the state the steps before
        reach (first, marked "applicable here"), then every action name; typed objects for its arguments."""
        cursor = self.cursor
        if self.vocab is None:
            return
        if not cursor.forms or cursor.at_head:
            bare = not cursor.forms  # a step typed without its "(": complete the whole form
            for ground in self._applicable_here()[:MAX_ARGUMENT_ITEMS]:
                words = " ".join(ground)
                self.add(words, types.CompletionItemKind.Event, detail=APPLICABLE_DETAIL,
                         snippet=f"({words})" if bare else words, rank=0)
            for action in self.vocab.actions.values():
                self._action_item(action, bare)
            return
        step = self.vocab.actions.get(cursor.innermost.head if cursor.innermost else "")
        if step is not None:
            self._arguments(step.parameters, cursor.argument_index)

    def _action_item(self, action: Action, bare: bool) -> None:
        body = _snippet(action.name.display, [p.name.display.lstrip("?") for p in action.parameters])
        self.add(action.name.display, types.CompletionItemKind.Function,
                 detail=signature(action.name, action.parameters),
                 snippet=f"({body})" if bare else body, rank=1)

    def _applicable_here(self) -> tuple[GroundAtom, ...]:
        """The ground actions applicable after the steps written before the cursor; none when the plan is
        not linked to a readable problem and domain or a step before cannot run (the state is unknown)."""
        context = self.context
        plan = context.parsed.plan
        domain = context.domain.domain if context.domain is not None else None
        problem = context.problem.problem if context.problem is not None else None
        if plan is None or domain is None or problem is None:
            return ()
        start = self.cursor.forms[0].start if self.cursor.forms else self.cursor.prefix_span.start
        written = unparsed_lines(context.text, plan, context.parsed.diagnostics)
        steps = [step for step in written if step.span.end <= start]
        return applicable_after(domain, problem, steps) or ()

    # --- domains and problems -------------------------------------------------------------------

    def pddl(self) -> None:
        """Items for a domain or problem: section keywords, requirements, and the names that fit the enclosing
        form.
        """
        cursor, heads = self.cursor, self.cursor.heads
        kind = self.context.kind
        if self._starting_a_file():
            self._file_skeletons()
            return
        if not heads:
            return
        if cursor.at_head and len(heads) == 2 and heads[0] == "define":
            for keyword in DOMAIN_SECTIONS if kind == "domain" else PROBLEM_SECTIONS:
                self.add(keyword, types.CompletionItemKind.Keyword, rank=0)
            if kind == "domain":
                for skeleton in domain_section_skeletons(self.context.settings.format_indent, self._closed()):
                    self.skeleton(skeleton, rank=1)
            return
        if kind == "domain" and cursor.at_head and heads[:2] == ("define", ":predicates") and len(heads) == 3:
            typed = _TYPING.search(self.context.text) is not None
            self.skeleton(predicate_skeleton(typed, self._closed()))
            return
        innermost = heads[-1]
        if innermost == ":requirements" and not cursor.at_head:
            present = set(cursor.words_before)
            for requirement, meaning in KNOWN.items():
                if requirement not in present:
                    self.add(requirement, types.CompletionItemKind.Keyword, documentation=meaning)
            return
        if innermost in ACTION_HEADS and not cursor.at_head:
            if cursor.previous_word in (":precondition", ":effect", ":condition", ":parameters", ":duration"):
                return
            sections = DURATIVE_SECTIONS if innermost == ":durative-action" else ACTION_SECTIONS
            for keyword in sections:
                self.add(keyword, types.CompletionItemKind.Keyword)
            return
        if cursor.previous_word == "-" and len(cursor.words_before) >= 2:  # not `(- ?a ?b)`
            self._types()
            return
        if cursor.prefix.startswith("?") or (self.vocab is not None and self._in_formula()):
            self._formula()

    def _starting_a_file(self) -> bool:
        """At the top level of a ``.pddl`` file that has no ``(define`` yet, outside a comment (also right
        after a lone ``(``, typing its head)."""
        cursor, text = self.cursor, self.context.text
        line_start = text.rfind("\n", 0, cursor.offset) + 1
        if ";" in text[line_start:cursor.offset] or _DEFINE.search(text) is not None:
            return False
        return not cursor.forms or (len(cursor.forms) == 1 and cursor.at_head)

    def _closed(self) -> bool:
        """Whether the ``)`` of the form being started is already written (an editor closed the bracket)."""
        return self.context.text.startswith(")", self.cursor.offset)

    def _file_skeletons(self) -> None:
        bare = not self.cursor.forms
        for skeleton in file_skeletons(self.context.path, self.context.settings.format_indent, bare,
                                       False if bare else self._closed(), self._neighbour_domain()):
            self.skeleton(skeleton, filter_text=f"define {skeleton.label}")

    def _neighbour_domain(self) -> str | None:
        """The name of the domain a new problem here would most likely use: the linked one, else the
        ``domain.pddl`` beside the file (as an unsaved buffer when it is open)."""
        linked = self.context.domain.domain if self.context.domain is not None else None
        if linked is not None and self.context.kind == "problem":
            return linked.name.text
        if not os.path.isabs(self.context.path):
            return None
        beside = self.context.read_partner(os.path.join(os.path.dirname(self.context.path), "domain.pddl"))
        model = beside.domain if beside is not None else None
        return model.name.text if model is not None and model.name.text else None

    def _in_formula(self) -> bool:
        heads = self.cursor.heads
        if any(h in FORMULA_SECTIONS for h in heads):
            return True
        # an action's sections are keywords, not forms: `(:action a :precondition (...`
        action_level = next((i for i, h in enumerate(heads) if h in ACTION_HEADS), None)
        return action_level is not None and action_level < len(heads) - 1

    def _formula(self) -> None:
        cursor, vocab = self.cursor, self.vocab
        if cursor.prefix.startswith("?"):
            self._variables(None)
            return
        if vocab is None:
            return
        if cursor.at_head:
            self._predicates(vocab)
            return
        head = cursor.innermost.head if cursor.innermost else ""
        declared: PredicateDecl | None = vocab.predicates.get(head)
        parameters = declared.parameters if declared is not None else None
        if parameters is None and head in vocab.functions:
            parameters = vocab.functions[head].parameters
        if parameters is None:
            return
        index = cursor.argument_index
        if self.context.kind == "domain" or self._in_quantifier():
            self._variables(parameters[index].type if index < len(parameters) else None)
        self._arguments(parameters, index)

    def _in_quantifier(self) -> bool:
        return any(h in ("forall", "exists") for h in self.cursor.heads)

    def _predicates(self, vocab: Vocabulary) -> None:
        in_domain = self.context.kind == "domain"
        for decl in vocab.predicates.values():
            labels = [p.name.display if in_domain else type_text(p.type) for p in decl.parameters]
            self.add(decl.name.display, types.CompletionItemKind.Function,
                     detail=signature(decl.name, decl.parameters),
                     snippet=_snippet(decl.name.display, labels))
        for function in vocab.functions.values():
            labels = [p.name.display if in_domain else type_text(p.type) for p in function.parameters]
            self.add(function.name.display, types.CompletionItemKind.Field,
                     detail=function_signature(function),
                     snippet=_snippet(function.name.display, labels), rank=1)
        section = next((h for h in reversed(self.cursor.heads) if h in FORMULA_SECTIONS), "")
        in_effect = section == ":effect" or self._action_section() == ":effect"
        durative = ":durative-action" in self.cursor.heads
        if section != ":init":
            for keyword in EFFECT_KEYWORDS if in_effect else CONDITION_KEYWORDS:
                if durative or keyword not in TIME_KEYWORDS:
                    self.add(keyword, types.CompletionItemKind.Keyword, rank=2)

    def _action_section(self) -> str:
        """The section of the enclosing action the cursor is in (``:effect``...), by the last section
        keyword written between the action's start and the cursor."""
        for form in self.cursor.forms:
            if form.head in ACTION_HEADS:
                found = _ACTION_SECTION.findall(self.context.text, form.start, self.cursor.offset)
                return found[-1].lower() if found else ""
        return ""

    def _variables(self, wanted: TypeRef | None) -> None:
        """The variables in scope at the cursor (the action's parameters, enclosing quantifiers)."""
        offset = self.cursor.offset
        seen: set[str] = set()
        for occurrence in index_of(self.context).occurrences:
            target = occurrence.target
            if (occurrence.kind != "variable" or not occurrence.is_declaration or target is None
                    or target.scope is None or not (target.scope.start < offset <= target.scope.end)
                    or _is_declaration_list(target.scope, self.context)):
                continue
            if occurrence.key in seen:
                continue
            types_ = self._variable_types(occurrence.span)
            if wanted is not None and self.vocab is not None and not self.vocab.fits(types_, wanted):
                continue
            seen.add(occurrence.key)
            self.add(occurrence.text, types.CompletionItemKind.Variable,
                     detail=" ".join(types_) or OBJECT)

    def _variable_types(self, span: Span) -> tuple[str, ...]:
        model = self.context.parsed.model
        for item in _typed_names(model, span):
            if item.name.span == span:
                return tuple(t.key for t in item.type.names) if item.type is not None else ()
        return ()

    def _arguments(self, parameters: tuple[TypedName, ...], index: int) -> None:
        """Objects and constants that fit parameter ``index`` (and start like the word being typed)."""
        if self.vocab is None or index >= len(parameters):
            return
        wanted = parameters[index].type
        problem_doc = self.context.problem
        problem = problem_doc.problem if problem_doc is not None else None
        entries: list[tuple[TypedName, str]] = [(c, "constant") for c in self.vocab.constants.values()]
        if problem is not None:
            scope = problem_scope(self.vocab, problem)
            entries += [(o, "object") for key, o in scope.objects.items() if key not in self.vocab.constants]
        prefix = self.cursor.prefix.lower()
        shown = 0
        for entry, what in entries:
            if prefix and not entry.name.key.startswith(prefix):
                continue
            if wanted is not None and not self.vocab.fits(_keys(entry.type) or (OBJECT,), wanted):
                continue
            self._object_item(entry, what)
            shown += 1
            if shown >= MAX_ARGUMENT_ITEMS:
                self.capped = True
                return

    def _object_item(self, entry: TypedName, what: str) -> None:
        self.add(entry.name.display, types.CompletionItemKind.Constant if what == "constant"
                 else types.CompletionItemKind.Value, detail=f"{what} - {type_text(entry.type)}")

    def _types(self) -> None:
        if self.vocab is None:
            return
        parents = [p.display for t in self.vocab.domain.types for p in (t.parent.names if t.parent else ())]
        names = [t.name.display for t in self.vocab.domain.types] + parents + [OBJECT]
        for name in dict.fromkeys(names):
            self.add(name, types.CompletionItemKind.Class)


def _snippet(head: str, placeholders: list[str]) -> str:
    """``on ${1:?x} ${2:?y}``: the form's words after its ``(``, each argument a tab stop."""
    stops = " ".join(f"${{{i}:{label}}}" for i, label in enumerate(placeholders, 1))
    return f"{head} {stops}".rstrip()


def _keys(type_ref: TypeRef | None) -> tuple[str, ...]:
    return tuple(t.key for t in type_ref.names) if type_ref is not None else ()


def _is_declaration_list(scope: Span, context: DocumentContext) -> bool:
    """Whether ``scope`` is a predicate or function declaration (whose parameters are not in scope
    anywhere else)."""
    model = context.parsed.model
    if not isinstance(model, Domain):
        return False
    return any(d.span == scope for d in model.predicates) or any(d.span == scope for d in model.functions)


def _typed_names(model: object, span: Span) -> Iterable[TypedName]:
    """The typed names declared in ``model``; for a problem, only in the parts of its goal around
    ``span`` (after an edit, the whole goal is not copied for one variable: ``syntax/runs.py``)."""
    if isinstance(model, Domain):
        for action in model.actions:
            yield from action.parameters
            yield from action.variables
            for formula in (action.precondition, action.effect, action.duration, action.observe):
                for node in walk(formula):
                    if isinstance(node, Quantified):
                        yield from node.variables
        for rule in model.derived:
            yield from rule.head.parameters
            for node in walk(rule.body):
                if isinstance(node, Quantified):
                    yield from node.variables
    elif isinstance(model, Problem):
        for formula in (*formula_parts(peek(model, "goal"), span.start, span.end),
                        built(peek(model, "constraints"))):
            for node in walk(formula):
                if isinstance(node, Quantified):
                    yield from node.variables
