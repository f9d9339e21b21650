"""``plansight equiv CANDIDATE --reference R`` and ``plansight grade FOLDER --reference R`` when R is a
domain: structural equivalence, logic-form F1 and behaviour on the reference problems
(docs/domain-equivalence.md).

Exit codes as for problems (docs/cli.md): 0 every candidate is structurally equivalent, 1 some is not (or
is unparseable), 2 usage error or an unusable reference or mapping.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from plansight.progress import should_show, with_progress

if TYPE_CHECKING:
    from plansight.analyses.model.pddl import Domain
    from plansight.analyses.workspace.domain_grading import DomainResult, Options


def reference_is_domain(path: str) -> bool:
    """Whether the reference file's header says domain (the problem check is used otherwise)."""
    from plansight.analyses.syntax.lexical import sniff_header
    from plansight.analyses.syntax.reading import read_text_file

    head = read_text_file(path, limit=1 << 16).text
    header = sniff_header(head) if head is not None else None
    return header is not None and header.kind == "domain"


def _prepare(args: argparse.Namespace, command: str) -> tuple[Domain, Options] | None:
    """The reference domain and the comparison options, or None after saying why (the caller exits 2)."""
    from plansight.analyses.domain_equivalence.renaming import MappingError, read_mapping
    from plansight.analyses.plans.recovery import Budget
    from plansight.analyses.syntax.reading import read_text_file
    from plansight.analyses.workspace.domain_grading import (
        Options,
        ReferenceProblem,
        load_domain,
        reference_problems,
    )

    def fail(message: str) -> None:
        print(f"plansight {command}: error: {message}", file=sys.stderr)

    loaded = load_domain(args.reference)
    if loaded.domain is None:
        fail(f"the reference {args.reference} {loaded.error}")
        return None
    problems: list[ReferenceProblem] = []
    if args.problems is not None:
        if not os.path.isdir(args.problems):
            fail(f"--problems {args.problems}: not a folder")
            return None
        problems, skipped = reference_problems(args.problems)
        for reason in skipped:
            print(f"plansight {command}: warning: --problems: {reason}", file=sys.stderr)
        if not problems:
            fail(f"--problems {args.problems}: no PDDL problem in the folder")
            return None
    mapping = None
    if args.mapping is not None:
        read = read_text_file(args.mapping)
        if read.text is None:
            fail(f"--mapping {args.mapping}: {read.failure}")
            return None
        text = read.text
        candidate = _first_candidate_domain(args)
        try:
            mapping = read_mapping(text, candidate, loaded.domain)
        except MappingError as error:
            fail(f"--mapping {args.mapping}: {error}")
            return None
    budget = Budget(time_limit_s=max(1.0, args.time_limit))
    return loaded.domain, Options(mapping, tuple(problems), budget)


def _first_candidate_domain(args: argparse.Namespace) -> Domain | None:
    """The candidate a flat mapping is checked against (names it does not declare are an error)."""
    from plansight.analyses.workspace.domain_grading import load_domain

    paths = getattr(args, "candidates", None) or []
    for path in paths:
        loaded = load_domain(path)
        if loaded.domain is not None:
            return loaded.domain
    return None


def run_domain_equiv(args: argparse.Namespace) -> int:
    """Compare each candidate domain with the reference domain and print the answers."""
    from plansight.analyses.workspace.domain_grading import compare_file

    prepared = _prepare(args, "equiv")
    if prepared is None:
        return 2
    reference, options = prepared
    results = [compare_file(reference, path, path, options) for path in args.candidates]
    if args.format == "json":
        documents = [r.as_json(args.reference) for r in results]
        _reconfigure(json_output=True)
        document = documents[0] if len(documents) == 1 else documents
        json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        _reconfigure(json_output=False)
        for result in results:
            sys.stdout.write(text_of(result))
    return exit_code(results)


def run_domain_grade(args: argparse.Namespace) -> int:
    """Grade every domain in the folder against the reference domain."""
    from plansight.analyses.workspace.domain_grading import (
        compare_file,
        domain_submissions,
        report_json,
        summary_text,
        write_report,
    )

    prepared = _prepare(args, "grade")
    if prepared is None:
        return 2
    reference, options = prepared
    pairs = domain_submissions(args.submissions, args.reference)
    if not pairs:
        print(f"plansight grade: error: no .pddl domains in {args.submissions}", file=sys.stderr)
        return 2
    show = should_show(len(pairs), args.format == "text", args.no_progress, threshold=0)
    rows = (compare_file(reference, student, path, options) for student, path in pairs)
    results = list(with_progress(rows, "Grading", show, total=len(pairs), describe=lambda r: r.student))
    if args.report:
        try:
            write_report(args.report, results, args.reference)
        except OSError as error:
            print(f"plansight grade: error: cannot write {args.report}: {error.strerror or error}",
                  file=sys.stderr)
            return 2
    if args.format == "json":
        _reconfigure(json_output=True)
        json.dump(report_json(results, args.reference), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        _reconfigure(json_output=False)
        width = max(len(r.student) for r in results)
        for r in results:
            score = "" if r.comparison is None else f"F1 {r.comparison.overall.f1:.2f}"
            sys.stdout.write(f"{r.student:<{width}}  {r.outcome:<14}  {score:<7}  {r.explanation}\n")
        sys.stdout.write(f"\n{summary_text(results)}\n")
    return exit_code(results)


def _reconfigure(json_output: bool) -> None:
    if hasattr(sys.stdout, "reconfigure"):
        if json_output:
            sys.stdout.reconfigure(encoding="utf-8")
        else:
            sys.stdout.reconfigure(errors="replace")


def text_of(result: DomainResult) -> str:
    """One candidate's answer as the text format prints it: the verdict, the scores, then what to fix."""
    comparison = result.comparison
    if comparison is None:
        return f"{result.path}: ✗ unparseable\n  {result.explanation}\n"
    if comparison.equivalent:
        lines = [f"{result.path}: ≡ structurally equivalent", f"  {comparison.explanation}"]
    else:
        overall = comparison.overall
        lines = [
            f"{result.path}: ≢ not equivalent (logic-form F1 {overall.f1:.2f}, "
            f"precision {overall.precision:.2f}, recall {overall.recall:.2f}; "
            f"preconditions {comparison.precondition.f1:.2f}, "
            f"effects {comparison.effect.f1:.2f})",
            f"  names {comparison.renaming.how}: {comparison.renaming.describe()}",
        ]
        lines.extend(f"  - {d.message}" for d in comparison.declarations)
        for action in comparison.actions:
            if not action.differences:
                continue
            lines.append(f"  {action.name}: precondition F1 {action.precondition.f1:.2f}, "
                         f"effect F1 {action.effect.f1:.2f}")
            lines.extend(f"    - {d.message.removeprefix(f'`{action.name}`: ')}" for d in action.differences)
    for behaviour in result.behaviours:
        lines.append(f"  problem {behaviour.problem}: {behaviour.outcome}: {behaviour.explanation}")
    return "\n".join(lines) + "\n"


def exit_code(results: Sequence[DomainResult]) -> int:
    """0 when every candidate is structurally equivalent, 1 otherwise."""
    return 0 if all(r.outcome == "equivalent" for r in results) else 1
