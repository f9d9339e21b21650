"""The `reference` and `recovery` sections of ``plansight plan`` (docs/metrics.md): options and text.

`plan_command.py` simulates each plan; :mod:`plansight.analyses.plans.plan_json` compares it with its
ground-truth plan (``--reference-plan`` or the plan's ``; @reference-plan`` line) and, with
``--recover``, asks Fast Downward for the completion of its correct prefix. This module declares the
flags those sections read and writes them for a terminal.
"""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO


def add_reference_options(parser: argparse.ArgumentParser) -> None:
    """The options of `plan` that only the reference and recovery sections read."""
    parser.add_argument("--similarity", choices=("v1", "v2"), default="v1",
                        help="action-name similarity for the AQM: v1 = the paper (default), "
                             "v2 = its later code")
    parser.add_argument("--time-limit", type=float, default=30.0, metavar="SECONDS",
                        help="planner time limit for --recover (default 30)")
    parser.add_argument("--memory-limit", type=int, default=2048, metavar="MB",
                        help="planner memory limit for --recover (default 2048)")


def _numbered(out: TextIO, actions: list[str], note: str = "") -> None:
    width = len(str(len(actions)))
    for index, action in enumerate(actions):
        out.write(f"    {index + 1:>{width}}  {action}{note if index == 0 else ''}\n")


def write_reference_text(report: dict[str, Any], out: TextIO) -> None:
    """The AQM table, the metrics, and the recovered plan, under the simulation's report."""
    reference = report.get("reference")
    if reference is not None and reference.get("error"):
        out.write(f"  reference plan: {reference['error']}\n")
    elif reference is not None:
        where = os.path.relpath(reference["path"]) if reference.get("path") else "?"
        out.write(f"  against reference plan {where} ({reference['reference_length']} steps), "
                  f"similarity {reference['similarity_version']} ({reference['similarity_source']})\n")
        paired = {pair["index"]: pair for pair in reference["pairs"]}
        actions = reference["actions"]
        column = max([len(action) for action in actions] + [8])
        for index, (action, label) in enumerate(zip(actions, reference["aqm"], strict=True)):
            pair = paired.get(index)
            partner = f"~ {pair['reference_action']} ({pair['similarity']:g})" if pair else ""
            out.write(f"    {index + 1:>3}  {action:<{column}}  {label:<9}  {partner}".rstrip() + "\n")
        kinds = [step["kind"] for step in reference["steps"]]
        repairs = kinds.count("repair_parameters") + kinds.count("repair_action")
        final = reference["final_score"]
        out.write(f"  StV {reference['stv']} ({kinds.count('remove')} remove, {kinds.count('reorder')} "
                  f"reorder, {repairs} repair, {kinds.count('add')} add)"
                  f" · LCS {reference['lcs_subsequence']} subsequence,"
                  f" {reference['lcs_substring']} contiguous · AQM {reference['aqm_score']:.2f}"
                  f" · score {reference['score']:.4g} ({reference['score_normalised']:.4g} per action)"
                  + (f" · final {final:.4g}" if final is not None else "")
                  + f" · action distance {reference['action_distance']:.2f}\n")
        potential = reference.get("potential")
        if potential is not None:
            mapping = " ".join(f"{k}→{v}" for k, v in potential["mapping"].items()) or "none"
            out.write(f"  potential (pi1): renaming {mapping}, shift {potential['offset']}: "
                      f"{potential['score_normalised']:.4g} per action, StV {potential['stv']}\n")
    write_recovery_text(report, out)


def write_recovery_text(report: dict[str, Any], out: TextIO) -> None:
    """The recovered plan, or why there is none (also under a plan plansight could not simulate: a planner
    that handles its constructs may still repair it)."""
    recovery = report.get("recovery")
    if recovery is not None:
        if recovery["plan"] is None:
            out.write(f"  recovery ({recovery['planner']}): {recovery['status']}: {recovery['message']}\n")
        else:
            out.write(f"  recovered plan ({recovery['planner']}, {recovery['status']}): keeps "
                      f"{len(recovery['prefix'])} step(s), adds {len(recovery['completion'])}:\n")
            _numbered(out, recovery["plan"])
