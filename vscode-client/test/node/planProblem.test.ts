/**
 * *Plan this problem* without VS Code: where the plan is written and what the file says, which log
 * lines are the planner's, what the user is told for each outcome (unsolvable and over-budget apart),
 * and the whole round trip against the real server: its plan, written as the extension writes it, is
 * a plan the server then finds valid.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { ExecuteCommandRequest } from "vscode-languageserver-protocol/node";

import {
  OPEN_SETTINGS,
  planFileText,
  plannerLines,
  planPathFor,
  SHOW_OUTPUT,
  shouldAskForName,
  solveNotice,
} from "../../src/planProblem";
import { clientCommandFor, type CommandRunner, runServerCommand, SERVER_COMMANDS } from "../../src/serverCommands";
import type { SolveProblemResult } from "../../src/serverProtocol";
import { buildInitializationOptions, declaredSettings } from "../../src/serverSettings";
import { LspSession, REPO_ROOT } from "./lspSession";

function result(overrides: Partial<SolveProblemResult>): SolveProblemResult {
  return {
    status: "solved", message: "plan found", planner: "fast-downward lama-first", plan: "(a)\n", output: "",
    seconds: 0.61, exit_code: 0, valid: true, verdict: "valid: 1 steps, 1 of 1 goals hold", problem: "/w/p01.pddl",
    domain: "/w/domain.pddl", ...overrides,
  };
}

describe("the plan file", () => {
  test("is <problem>.plan beside the problem, and starts with a relative ; @problem line", () => {
    const problem = path.join("/w", "problems", "p01.pddl");
    assert.equal(planPathFor(problem), path.join("/w", "problems", "p01.plan"));
    assert.equal(planFileText("(a)\n(b)", planPathFor(problem), problem), "; @problem p01.pddl\n(a)\n(b)\n");
    assert.equal(planFileText("(a)\n", path.join("/w", "plans", "x.plan"), problem), "; @problem ../problems/p01.pddl\n(a)\n");
  });

  test("a name is asked for an unsaved problem, and for an existing plan unless the setting says overwrite", () => {
    assert.equal(shouldAskForName(false, "ask", false), false);
    assert.equal(shouldAskForName(true, "ask", false), true);
    assert.equal(shouldAskForName(true, undefined, false), true);
    assert.equal(shouldAskForName(true, "overwrite", false), false);
    assert.equal(shouldAskForName(false, "overwrite", true), true);
    assert.equal(declaredSettings().get("planner.whenPlanExists"), "ask");
  });
});

describe("the planner's output", () => {
  test("marked log lines are the planner's, without their mark; the server's own lines are not", () => {
    assert.deepEqual(plannerLines("[planner] Solution found!\n[planner] Plan length: 6 step(s)."), ["Solution found!", "Plan length: 6 step(s)."]);
    assert.equal(plannerLines("analysed p01.pddl in 3 ms"), undefined);
  });

  test("the lens's server command runs the extension's command", () => {
    assert.equal(clientCommandFor(SERVER_COMMANDS.solveProblem.id), "plansight.planProblem");
  });
});

describe("what the user is told", () => {
  test("solved: the planner, the time and the simulator's verdict", () => {
    const notice = solveNotice(result({}), "p01.pddl");
    assert.deepEqual(notice, {
      level: "info", kind: "solved", actions: [],
      text: "plansight: planned p01.pddl with fast-downward lama-first in 0.6 s; plansight's simulator: valid: 1 steps, 1 of 1 goals hold",
    });
    assert.equal(solveNotice(result({ valid: false, verdict: "NOT valid: step 1 fails" }), "p01.pddl").level, "warning");
  });

  test("unsolvable and budget exceeded are different warnings, each with what to do", () => {
    const unsolvable = solveNotice(result({ status: "unsolvable", plan: null, message: "the planner proved that no plan reaches the goal" }), "p.pddl");
    const budget = solveNotice(result({ status: "budget-exceeded", plan: null, message: "no plan within 1 s" }), "p.pddl");
    assert.equal(unsolvable.kind, "unsolvable");
    assert.match(unsolvable.text, /p\.pddl is unsolvable: the planner proved that no plan reaches the goal/);
    assert.deepEqual(unsolvable.actions, [SHOW_OUTPUT]);
    assert.equal(budget.kind, "budget");
    assert.match(budget.text, /budget exceeded on p\.pddl: no plan within 1 s .*timeLimitSeconds/);
    assert.deepEqual(budget.actions, [OPEN_SETTINGS, SHOW_OUTPUT]);
    assert.notEqual(unsolvable.text, budget.text);
  });

  test("a planner error is an error with the output at hand; a cancel says so quietly", () => {
    const error = solveNotice(result({ status: "planner-error", plan: null, message: "Fast Downward failed (exit 31)" }), "p.pddl");
    assert.equal(error.level, "error");
    assert.deepEqual(error.actions, [SHOW_OUTPUT]);
    assert.equal(solveNotice(result({ status: "cancelled", plan: null }), "p.pddl").level, "info");
  });
});

describe("against the real server", () => {
  test("the plan it finds, written as the extension writes it, is one the server finds valid", async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "plansight-plan-"));
    const example = (name: string) => fs.readFileSync(path.join(REPO_ROOT, "examples", "blocksworld", name), "utf8");
    fs.writeFileSync(path.join(workspace, "domain.pddl"), example("domain.pddl"));
    fs.writeFileSync(path.join(workspace, "p01.pddl"), example("p01.pddl"));
    const defaults = declaredSettings();
    const session = await LspSession.start({ workspace, initializationOptions: buildInitializationOptions((key) => defaults.get(key)) });
    try {
      const announced = session.capabilities.executeCommandProvider?.commands ?? [];
      assert.ok(announced.includes(SERVER_COMMANDS.solveProblem.id), JSON.stringify(announced));
      const runner: CommandRunner = {
        serverCommands: () => announced,
        execute: (params) => session.connection.sendRequest(ExecuteCommandRequest.type, params),
      };
      const problemPath = path.join(workspace, "p01.pddl");
      const problem = await session.open(problemPath, "pddl");
      const outcome = await runServerCommand(runner, SERVER_COMMANDS.solveProblem, { uri: problem });
      assert.equal(outcome.kind, "done", JSON.stringify(outcome));
      const answer = (outcome as { result: SolveProblemResult }).result;
      assert.equal(answer.status, "solved", answer.message);
      assert.equal(solveNotice(answer, "p01.pddl").kind, "solved");
      const planPath = planPathFor(problemPath);
      fs.writeFileSync(planPath, planFileText(answer.plan!, planPath, problemPath));
      const plan = await session.open(planPath, "pddl-plan");
      const simulated = await runServerCommand(runner, SERVER_COMMANDS.simulatePlan, { uri: plan });
      assert.equal((simulated as { result: { valid: boolean; problem: string } }).result.valid, true);
      assert.ok(fs.readFileSync(planPath, "utf8").startsWith("; @problem p01.pddl\n(unstack c a)\n"));
    } finally {
      await session.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
