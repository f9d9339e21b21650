"""``plansight model FILE``: what a domain or a problem declares, as data or as a page to look at.

For a domain: its type hierarchy and, per predicate, which actions read, add and delete it; for a
problem: its objects by type, its initial state and the graph of its binary facts
(:mod:`plansight.analyses.editing.model_view`). The view model is printed as JSON; ``--report
FILE.html`` writes the model view page instead, the same page the editor's *Show model view* opens.
Exit codes: 0 done, 2 a usage error or a file that is not a readable domain or problem.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any


def add_model_parser(sub: Any) -> None:
    """Register ``plansight model`` on the top-level parser."""
    parser = sub.add_parser(
        "model", help="a domain's types and predicate use, a problem's objects and initial state",
        description="Describes one domain (type hierarchy; which actions read, add and delete each "
                    "predicate) or one problem (objects by type, the initial state, the graph of its "
                    "binary facts). Prints JSON, or writes an HTML page with --report. Exit code 0: "
                    "done, 2: usage error or a file that is not a readable domain or problem.")
    parser.add_argument("path", metavar="FILE", help="a PDDL domain or problem")
    parser.add_argument("--domain", metavar="FILE",
                        help="a problem's domain (its constants join the objects); default: found as "
                             "`plansight lint` finds it")
    parser.add_argument("--report", metavar="HTML", help="write the model view page to this file "
                                                         "instead of printing JSON")


def run_model(args: argparse.Namespace) -> int:
    """Print or write the model view of one domain or problem."""
    from plansight.analyses.editing.model_html import model_html
    from plansight.analyses.editing.model_view import domain_model, problem_model
    from plansight.analyses.workspace.lint import Analyzer, DiskSource

    for label, path in (("", args.path), ("--domain ", args.domain)):
        if path is not None and not os.path.isfile(path):
            return _usage(f"{label}{path}: no such file")
    analyzer = Analyzer(DiskSource(memoize=True))
    document = analyzer.parse(args.path)
    if document is None:
        return _usage(f"`{args.path}` could not be read")
    if document.domain is not None:
        view = domain_model(document.domain, args.path)
    elif document.problem is not None:
        association = analyzer.associate(document, args.domain)
        domain = association.domain.domain if association.domain is not None else None
        view = problem_model(document.problem, args.path, domain)
    else:
        return _usage(f"`{args.path}` is not a PDDL domain or problem that can be read")
    if args.report is not None:
        try:
            with open(args.report, "w", encoding="utf-8") as handle:
                handle.write(model_html(view))
        except OSError as error:
            return _usage(f"--report {args.report}: {error}")
        return 0
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    json.dump(view, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def _usage(message: str) -> int:
    print(f"plansight model: error: {message}", file=sys.stderr)
    return 2
