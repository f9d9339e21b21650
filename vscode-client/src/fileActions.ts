/**
 * What clicking the status-bar item offers for the active file: change what it is linked to, and
 * run the checks that apply to its kind.
 *
 * This module must not import `vscode`.
 */
import type { FileKind } from "./fileKind";

export interface FileAction {
  label: string;
  detail?: string;
  command: string;
}

const LOG: FileAction = { label: "$(output) Show the language server log", command: "plansight.showLog" };

export function fileActions(kind: FileKind): FileAction[] {
  switch (kind) {
    case "problem":
      return [
        { label: "$(link) Change the domain…", detail: "writes a ; @domain line at the top", command: "plansight.setDomain" },
        {
          label: "$(references) Change the reference problem…",
          detail: "writes a ; @reference line at the top",
          command: "plansight.setReference",
        },
        { label: "$(check-all) Check equivalence with the reference", command: "plansight.checkEquivalence" },
        { label: "$(type-hierarchy) Show the model view", command: "plansight.showModelView" },
        LOG,
      ];
    case "plan":
      return [
        { label: "$(link) Change the problem…", detail: "writes a ; @problem line at the top", command: "plansight.setDomain" },
        {
          label: "$(references) Change the reference plan…",
          detail: "writes a ; @reference-plan line at the top",
          command: "plansight.setReference",
        },
        { label: "$(play) Validate the plan", command: "plansight.validatePlan" },
        { label: "$(wrench) Repair the plan", command: "plansight.repairPlan" },
        { label: "$(list-flat) Show the state at the cursor's step", command: "plansight.showStateAtStep" },
        { label: "$(graph) Show the plan view", detail: "timeline, Gantt chart, states", command: "plansight.showPlanView" },
        LOG,
      ];
    case "domain":
      return [
        { label: "$(type-hierarchy) Show the model view", detail: "types, who reads and changes each predicate", command: "plansight.showModelView" },
        LOG,
        { label: "$(debug-restart) Restart the language server", command: "plansight.restartServer" },
      ];
    default:
      return [LOG, { label: "$(debug-restart) Restart the language server", command: "plansight.restartServer" }];
  }
}
