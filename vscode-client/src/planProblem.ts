/**
 * The pure parts of *plansight: Plan this problem*: where the plan goes, what the written file
 * says, how the planner's output is told apart from the server's log, and what the user is told
 * for each outcome.
 *
 * The server runs the planner (`plansight.server.solveProblem`) and answers with the plan text and
 * the simulator's verdict; the extension writes `<problem>.plan` beside the problem with a
 * `; @problem` line (relative to the plan, so the two can move together), opens it, and the server
 * simulates it as it does every plan that is opened. Unsolvable and over-budget are different
 * notifications: the first asks the user to fix the model, the second to give the planner more.
 *
 * This module must not import `vscode`: the Node tests run it.
 */
import * as path from "node:path";

import type { SolveProblemResult } from "./serverProtocol";

/** The server marks the planner's output lines among its log messages with this prefix. */
export const PLANNER_PREFIX = "[planner] ";

/** The planner's output lines in a log message (prefix removed), or undefined for the server's own lines. */
export function plannerLines(message: string): string[] | undefined {
  if (!message.startsWith(PLANNER_PREFIX)) {
    return undefined;
  }
  return message.split("\n").map((line) => (line.startsWith(PLANNER_PREFIX) ? line.slice(PLANNER_PREFIX.length) : line));
}

/** `<folder>/<stem>.plan` for a problem at `problemPath` (`p01.pddl` -> `p01.plan`). */
export function planPathFor(problemPath: string): string {
  const parsed = path.parse(problemPath);
  return path.join(parsed.dir, `${parsed.name}.plan`);
}

/** The plan file's text: a `; @problem` line relative to the plan's folder (with `/`), then the plan. */
export function planFileText(planText: string, planPath: string, problemPath: string): string {
  let relative = path.relative(path.dirname(planPath), problemPath);
  if (path.isAbsolute(relative)) {
    relative = problemPath; // another drive on Windows: no relative path exists
  }
  const body = planText.endsWith("\n") || planText === "" ? planText : `${planText}\n`;
  return `; @problem ${relative.split(path.sep).join("/")}\n${body}`;
}

export type WhenPlanExists = "ask" | "overwrite";

/** Whether to ask for a file name: always for an unsaved problem, and for an existing plan unless told to overwrite. */
export function shouldAskForName(exists: boolean, setting: unknown, untitled: boolean): boolean {
  if (untitled) {
    return true;
  }
  return exists && setting !== "overwrite";
}

export type NoticeLevel = "info" | "warning" | "error";

/** What the user is told about a run, and which follow-ups to offer. */
export interface SolveNotice {
  level: NoticeLevel;
  text: string;
  /** `solved` writes and opens the plan; the others only tell. */
  kind: "solved" | "unsolvable" | "budget" | "error" | "cancelled" | "skipped";
  actions: string[];
}

export const SHOW_OUTPUT = "Show planner output";
export const OPEN_SETTINGS = "Open planner settings";

function seconds(result: SolveProblemResult): string {
  return `${result.seconds.toFixed(1)} s`;
}

/** The notification for the server's answer about the problem called `name`. */
export function solveNotice(result: SolveProblemResult, name: string): SolveNotice {
  switch (result.status) {
    case "solved": {
      const verdict = result.verdict ?? "not checked";
      return {
        level: result.valid === false ? "warning" : "info",
        text: `plansight: planned ${name} with ${result.planner} in ${seconds(result)}; plansight's simulator: ${verdict}`,
        kind: "solved",
        actions: [],
      };
    }
    case "unsolvable":
      return {
        level: "warning",
        text: `plansight: ${name} is unsolvable: ${result.message} (${result.planner}). Check the goal and the initial state.`,
        kind: "unsolvable",
        actions: [SHOW_OUTPUT],
      };
    case "budget-exceeded":
      return {
        level: "warning",
        text: `plansight: budget exceeded on ${name}: ${result.message} (${result.planner}). ` +
          "Raise plansight.planner.timeLimitSeconds or memoryLimitMB, or choose a faster configuration.",
        kind: "budget",
        actions: [OPEN_SETTINGS, SHOW_OUTPUT],
      };
    case "cancelled":
      return { level: "info", text: `plansight: planning ${name} was cancelled.`, kind: "cancelled", actions: [] };
    case "skipped":
      return { level: "info", text: `plansight: cannot plan ${name}: ${result.message}`, kind: "skipped", actions: [OPEN_SETTINGS] };
    default:
      return {
        level: "error",
        text: `plansight: the planner failed on ${name}: ${result.message}`,
        kind: "error",
        actions: [SHOW_OUTPUT],
      };
  }
}
