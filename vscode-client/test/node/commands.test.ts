/**
 * The extension's analysis commands without VS Code: the arguments sent to the server, how each
 * outcome (a result, an older server without the command, an error, a cancellation) is classified,
 * what the user reads for each result, and the link and status-bar choices.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { ExecuteCommandRequest } from "vscode-languageserver-protocol/node";

import {
  hasVerdict,
  lockedDownHtml,
  renderEquivalence,
  renderGrade,
  renderPlanReport,
  renderRepair,
  renderStepState,
  renderUnknown,
} from "../../src/commandResults";
import { directiveEdit, linkChoice } from "../../src/directiveEdit";
import { fileActions } from "../../src/fileActions";
import {
  clientCommandFor,
  type CommandRunner,
  executeCommandParams,
  runServerCommand,
  SERVER_COMMANDS,
} from "../../src/serverCommands";
import { buildInitializationOptions, declaredSettings } from "../../src/serverSettings";
import { LspSession, REPO_ROOT } from "./lspSession";

/** A runner standing in for the language client: announces `commands`, answers with `answer`. */
function fakeRunner(commands: string[] | undefined, answer: () => Promise<unknown>) {
  const sent: unknown[] = [];
  const runner: CommandRunner = {
    serverCommands: () => commands,
    execute: (params) => {
      sent.push(params);
      return answer();
    },
  };
  return { runner, sent };
}

describe("running a server command", () => {
  const plan = SERVER_COMMANDS.simulatePlan;

  test("the one argument object is sent as the only argument", async () => {
    assert.deepEqual(executeCommandParams(SERVER_COMMANDS.gradeFolder, { folder: "/f", reference: "/r.pddl", report: "/o.html" }), {
      command: "plansight.server.gradeFolder",
      arguments: [{ folder: "/f", reference: "/r.pddl", report: "/o.html" }],
    });
    const { runner, sent } = fakeRunner([plan.id], async () => ({ valid: true }));
    assert.deepEqual(await runServerCommand(runner, plan, { uri: "file:///p.plan" }), { kind: "done", result: { valid: true } });
    assert.deepEqual(sent, [{ command: "plansight.server.simulatePlan", arguments: [{ uri: "file:///p.plan" }] }]);
  });

  test("a server that does not announce the command is not asked, and the user reads what is missing", async () => {
    const { runner, sent } = fakeRunner(["plansight.server.other"], async () => assert.fail("must not be sent"));
    const outcome = await runServerCommand(runner, SERVER_COMMANDS.repairPlan, { uri: "file:///p.plan" });
    assert.deepEqual(outcome, {
      kind: "unsupported",
      message: "plansight: this server does not support plan repair yet (it has no `plansight.server.repairPlan` command). " +
        "Update plansight, or point plansight.serverPath at a newer one.",
    });
    assert.deepEqual(sent, []);
  });

  test("no running server, an unknown-command error, a failure and a cancellation are told apart", async () => {
    const notRunning = await runServerCommand(fakeRunner(undefined, async () => null).runner, plan, {});
    assert.equal(notRunning.kind, "notRunning");
    assert.match((notRunning as { message: string }).message, /not running, so plan validation is unavailable/);

    const reject = (error: unknown) => fakeRunner([plan.id], () => Promise.reject(error)).runner;
    const unknown = await runServerCommand(reject({ code: -32602, message: "Command name 'x' is not defined" }), plan, {});
    assert.equal(unknown.kind, "unsupported");
    const failed = await runServerCommand(reject({ code: -32603, message: "the domain has no actions" }), plan, {});
    assert.deepEqual(failed, { kind: "failed", message: "plansight: plan validation failed: the domain has no actions" });
    assert.deepEqual(await runServerCommand(reject({ code: -32800, message: "Request cancelled" }), plan, {}), { kind: "cancelled" });
  });
});

describe("server commands against the real server", () => {
  test("an unknown command is reported as unsupported, announced or not", async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "plansight-commands-"));
    const defaults = declaredSettings();
    const session = await LspSession.start({ workspace, initializationOptions: buildInitializationOptions((key) => defaults.get(key)) });
    try {
      const missing = { id: "plansight.server.noSuchCommand", feature: "time travel", progress: "" };
      const execute: CommandRunner["execute"] = (params) => session.connection.sendRequest(ExecuteCommandRequest.type, params);
      const announced = session.capabilities.executeCommandProvider?.commands ?? [];
      const honest: CommandRunner = { serverCommands: () => announced, execute };
      assert.equal((await runServerCommand(honest, missing, {})).kind, "unsupported");
      // A server that announced it anyway: its real error for an unknown command is still recognised.
      const claims: CommandRunner = { serverCommands: () => [missing.id], execute };
      const outcome = await runServerCommand(claims, missing, {});
      assert.deepEqual(outcome, { kind: "unsupported", message: (await runServerCommand(honest, missing, {}) as { message: string }).message });
    } finally {
      await session.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  test("each analysis command the server announces answers real files with a result the extension can show", async (t) => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "plansight-commands-"));
    const example = (name: string) => fs.readFileSync(path.join(REPO_ROOT, "examples", "blocksworld", name), "utf8");
    fs.writeFileSync(path.join(workspace, "domain.pddl"), example("domain.pddl"));
    fs.writeFileSync(path.join(workspace, "p01.pddl"), example("p01.pddl"));
    fs.writeFileSync(path.join(workspace, "p01.plan"), example("p01.plan"));
    fs.mkdirSync(path.join(workspace, "subs"));
    fs.writeFileSync(path.join(workspace, "subs", "ann.pddl"), "; @reference ../p01.pddl\n" + example("p01.pddl"));
    fs.writeFileSync(path.join(workspace, "subs", "bob.pddl"), example("p02.pddl"));
    const defaults = declaredSettings();
    const session = await LspSession.start({ workspace, initializationOptions: buildInitializationOptions((key) => defaults.get(key)) });
    try {
      const announced = session.capabilities.executeCommandProvider?.commands ?? [];
      const runner: CommandRunner = {
        serverCommands: () => announced,
        execute: (params) => session.connection.sendRequest(ExecuteCommandRequest.type, params),
      };
      const absent = Object.values(SERVER_COMMANDS).filter((c) => !announced.includes(c.id));
      t.diagnostic(`not announced by this server: ${absent.map((c) => c.id).join(", ") || "none"}`);
      const result = async (command: (typeof SERVER_COMMANDS)[keyof typeof SERVER_COMMANDS], argument: object) => {
        const outcome = await runServerCommand(runner, command, argument);
        assert.equal(outcome.kind, "done", JSON.stringify(outcome));
        return (outcome as { result: unknown }).result;
      };
      const plan = await session.open(path.join(workspace, "p01.plan"), "pddl-plan");
      if (announced.includes(SERVER_COMMANDS.simulatePlan.id)) {
        assert.match(renderPlanReport(await result(SERVER_COMMANDS.simulatePlan, { uri: plan }), "p01.plan").summary, /^p01\.plan is valid/);
      }
      if (announced.includes(SERVER_COMMANDS.stateAtStep.id)) {
        const state = renderStepState(await result(SERVER_COMMANDS.stateAtStep, { uri: plan, line: 1 }), 1);
        assert.ok(typeof state !== "string" && state.title.startsWith("State before step 2 (put-down c)"), JSON.stringify(state));
      }
      if (announced.includes(SERVER_COMMANDS.checkEquivalence.id)) {
        const ann = await session.open(path.join(workspace, "subs", "ann.pddl"), "pddl");
        const answer = await result(SERVER_COMMANDS.checkEquivalence, { uri: ann });
        assert.ok(hasVerdict(answer), JSON.stringify(answer));
        assert.match(renderEquivalence(answer, "ann.pddl").summary, /^ann\.pddl is equivalent to the reference/);
      }
      if (announced.includes(SERVER_COMMANDS.gradeFolder.id)) {
        const report = path.join(workspace, "report.html");
        const graded = renderGrade(await result(SERVER_COMMANDS.gradeFolder, {
          folder: path.join(workspace, "subs"), reference: path.join(workspace, "p01.pddl"), report,
        }));
        assert.equal(graded.report, report);
        assert.match(fs.readFileSync(report, "utf8"), /<html/i);
        assert.match(graded.rendered.summary, /2 submissions/);
      }
    } finally {
      await session.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe("the state at the cursor's step beyond classical PDDL, from the real server", () => {
  const fixture = (...parts: string[]) => path.join(REPO_ROOT, "tests", "fixtures", "beyond_classical", ...parts);

  async function stateAt(domain: string, problem: string, plan: string, line: number) {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "plansight-state-"));
    fs.copyFileSync(domain, path.join(workspace, "domain.pddl"));
    fs.copyFileSync(problem, path.join(workspace, "problem.pddl"));
    fs.writeFileSync(path.join(workspace, "problem.plan"), plan);
    const defaults = declaredSettings();
    const session = await LspSession.start({ workspace, initializationOptions: buildInitializationOptions((key) => defaults.get(key)) });
    try {
      const runner: CommandRunner = {
        serverCommands: () => session.capabilities.executeCommandProvider?.commands ?? [],
        execute: (params) => session.connection.sendRequest(ExecuteCommandRequest.type, params),
      };
      const uri = await session.open(path.join(workspace, "problem.plan"), "pddl-plan");
      const outcome = await runServerCommand(runner, SERVER_COMMANDS.stateAtStep, { uri, line });
      assert.equal(outcome.kind, "done", JSON.stringify(outcome));
      const state = renderStepState((outcome as { result: unknown }).result, line);
      assert.ok(typeof state !== "string", state as string);
      return state;
    } finally {
      await session.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }

  test("a numeric plan: the fluent values before the failing step, apart from the atoms", async () => {
    const state = await stateAt(fixture("numeric", "trucks", "domain.pddl"), fixture("numeric", "trucks", "problem.pddl"),
      "(drive t1 depot mid)\n(drive t1 mid far)\n", 1);
    assert.match(state.title, /^State before step 2 \(drive t1 mid far\): \d+ atoms true, 9 fluent values$/);
    assert.ok(state.values.includes("(= (fuel t1) 2)") && state.values.includes("(= (total-cost) 6)"), JSON.stringify(state));
    assert.ok(state.atoms.includes("(at t1 mid)") && !state.atoms.some((atom) => atom.startsWith("(=")));
  });

  test("a temporal plan: the happening the step starts at", async () => {
    const state = await stateAt(fixture("temporal", "shop-domain.pddl"), fixture("temporal", "shop-problem.pddl"),
      "0.000: (drive t1 depot bakery) [3.000]\n1.000: (drive t2 depot cafe) [3.000]\n"
      + "3.010: (unload t1 bakery) [2.000]\n6.500: (unload t2 cafe) [2.000]\n", 3);
    assert.match(state.title, /^State before step 4 .*\(unload t2 cafe\).* at time 6\.5 \(happening 8\): \d+ atoms true$/);
    assert.ok(state.atoms.includes("(open cafe)"), JSON.stringify(state));
  });
});

describe("what the user reads after validating a plan", () => {
  test("a valid plan: one line, and a report with the goals", () => {
    const rendered = renderPlanReport({
      path: "/w/p01.plan", length: 4, executable: true, valid: true, lea: 4, failure: null,
      goals: { satisfied: ["(on a b)", "(on b c)"], unsatisfied: [], fraction: 1 }, trace: [], reference: null, recovery: null,
    }, "p01.plan");
    assert.equal(rendered.summary, "p01.plan is valid (4 steps): all 2 goals hold at the end.");
    assert.equal(rendered.level, "info");
    assert.match(rendered.markdown!, /\| longest executable prefix \(LEA\) \| 4 of 4 steps \|/);
    assert.match(rendered.markdown!, /- ✓ `\(on a b\)`/);
  });

  test("a failing step: which step (1-based), which action, why; the trace and reference measures in the report", () => {
    const rendered = renderPlanReport({
      path: "/w/p01.plan", length: 3, executable: false, valid: false, lea: 1,
      failure: { index: 1, action: "(stack a b)", category: "precondition", unsatisfied: ["(clear b)"],
        message: "(clear b) does not hold before (stack a b)" },
      goals: { satisfied: [], unsatisfied: ["(on a b)"], fraction: 0 },
      trace: [{ index: 0, action: "(pick-up a)", added: ["(holding a)"], deleted: ["(clear a)", "(handempty)"] }],
      reference: { stv: 2, aqm: ["correct", "diff_act", "redundant"], score: 0.5 },
      recovery: null,
    }, "p01.plan");
    assert.equal(rendered.summary, "p01.plan fails at step 2 (stack a b): (clear b) does not hold before (stack a b)");
    assert.equal(rendered.level, "error");
    const markdown = rendered.markdown!;
    assert.match(markdown, /Step 2: `\(stack a b\)` \(precondition\)/);
    assert.match(markdown, /- `\(clear b\)`/);
    assert.match(markdown, /\| 1 \| \(pick-up a\) \| \(holding a\) \| \(clear a\) \(handempty\) \|/);
    assert.match(markdown, /\| stv \| 2 \|/);
    assert.match(markdown, /\| AQM labels \| correct, diff_act, redundant \|/);
    assert.doesNotMatch(markdown, /undefined/);
  });

  test("a server message that names the step itself is not repeated after the step", () => {
    const rendered = renderPlanReport({ valid: false, executable: false, length: 6, path: "/w/task.plan",
      failure: { index: 1, action: "(stack b c)", message: "Step 2 (stack b c) is not executable: (holding b) is false." } }, "x");
    assert.equal(rendered.summary, "task.plan fails at step 2 (stack b c): (holding b) is false.");
  });

  test("an executable plan that misses goals is a warning naming them", () => {
    const rendered = renderPlanReport({ valid: false, executable: true, length: 2, failure: null,
      goals: { satisfied: ["(on b c)"], unsatisfied: ["(on a b)"] } }, "x.plan");
    assert.equal(rendered.summary, "x.plan runs (2 steps) but 1 of 2 goals does not hold at the end: (on a b).");
    assert.equal(rendered.level, "warning");
  });

  test("a result of another shape is still shown: the server's words and its JSON", () => {
    const rendered = renderPlanReport({ summary: "simulation skipped: durative actions" }, "t.plan");
    assert.equal(rendered.summary, "simulation skipped: durative actions");
    assert.match(rendered.markdown!, /```json\n\{\n  "summary"/);
    assert.equal(renderUnknown(null, "T", "done.").markdown, undefined);
  });
});

describe("what the user reads after the other commands", () => {
  test("equivalence: yes, no, unknown and unparseable each say so with the explanation", () => {
    const base = { candidate: "/s/ann.pddl", parseable: true, solvable: true, mode: "identity", method: "graph isomorphism" };
    assert.deepEqual(
      [true, false, null].map((equivalent) => {
        const { summary, level } = renderEquivalence({ ...base, equivalent, explanation: "the goals differ" }, "x");
        return [summary, level];
      }),
      [
        ["ann.pddl is equivalent to the reference: the goals differ", "info"],
        ["ann.pddl is not equivalent to the reference: the goals differ", "error"],
        ["Equivalence of ann.pddl with the reference is unknown: the goals differ", "warning"],
      ],
    );
    const broken = renderEquivalence({ ...base, parseable: false, equivalent: null, explanation: "line 3: unclosed (" }, "x");
    assert.equal(broken.summary, "ann.pddl does not parse, so it cannot be compared: line 3: unclosed (");
    assert.match(renderEquivalence({ ...base, equivalent: null }, "x").markdown!, /\| equivalent \| unknown \|/);
  });

  test("grading: the summary as a sentence or as counts, and the report path", () => {
    assert.deepEqual(renderGrade({ report: "/tmp/r.html", summary: "12 submissions: 9 equivalent." }), {
      rendered: { summary: "plansight: 12 submissions: 9 equivalent.", level: "info" },
      report: "/tmp/r.html",
    });
    assert.equal(renderGrade({ summary: { submissions: 3, not_equivalent: 1 } }).rendered.summary,
      "plansight: Graded. submissions: 3, not equivalent: 1.");
  });

  test("the state before a step: sorted atoms, a 1-based step; no step and an unreached step are said", () => {
    assert.deepEqual(renderStepState({ index: 2, action: "(stack a b)", state: ["(on a b)", "(clear a)"], reached: true }, 4), {
      title: "State before step 3 (stack a b): 2 atoms true",
      atoms: ["(clear a)", "(on a b)"],
      values: [],
      derived: [],
    });
    assert.equal(renderStepState(null, 6), "plansight: line 7 holds no plan step; put the cursor on a step.");
    assert.equal(renderStepState({ index: 4, action: "(pick-up c)", state: [], reached: false }, 5),
      "plansight: step 5 (pick-up c) is never reached: the plan fails before it.");
  });

  test("the state before a step beyond classical PDDL: fluent values, derived atoms and the happening, each apart", () => {
    assert.deepEqual(renderStepState({
      index: 1, action: "(drive t1 mid far)", reached: true, happening: null,
      state: ["(road mid far)", "(at t1 mid)"], values: ["(= (fuel t1) 2)", "(= (distance mid far) 7)"], derived: [],
    }, 1), {
      title: "State before step 2 (drive t1 mid far): 2 atoms true, 2 fluent values",
      atoms: ["(at t1 mid)", "(road mid far)"],
      values: ["(= (distance mid far) 7)", "(= (fuel t1) 2)"],
      derived: [],
    });
    const rooms = renderStepState({
      index: 2, action: "(survey)", reached: true, happening: null,
      state: ["(open r1 r2)", "(robot-in r1)"], values: [], derived: ["(reachable r2)", "(cut-off r4)", "(reachable r1)"],
    }, 2);
    assert.ok(typeof rooms !== "string");
    assert.equal(rooms.title, "State before step 3 (survey): 2 atoms true, 3 derived atoms");
    assert.deepEqual(rooms.derived, ["(cut-off r4)", "(reachable r1)", "(reachable r2)"]);
    const shop = renderStepState({
      index: 3, action: "6.500: (unload t2 cafe) [2.000]", reached: true, values: [], derived: [],
      happening: { index: 6, time: 6.5, label: "(unload t2 cafe) start" }, state: ["(open cafe)"],
    }, 3);
    assert.ok(typeof shop !== "string");
    assert.equal(shop.title, "State before step 4 6.500: (unload t2 cafe) [2.000] at time 6.5 (happening 7): 1 atom true");
  });

  test("repair: the server's words, or a plain outcome", () => {
    assert.deepEqual(renderRepair({ message: "kept 3 steps, planner added 2" }), { summary: "plansight: kept 3 steps, planner added 2", level: "info" });
    assert.deepEqual(renderRepair({ repaired: false }), { summary: "plansight: the plan could not be repaired.", level: "warning" });
  });

  test("the grading report runs no script and loads nothing", () => {
    const html = lockedDownHtml('<html><head><title>r</title></head><body><script>alert(1)</script></body></html>');
    assert.match(html, /^<html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:;"><title>/);
    assert.match(lockedDownHtml("<p>bare</p>"), /^<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy"/);
  });
});

describe("links and the status bar's menu", () => {
  test("a problem links to a domain and a reference problem; a plan to a problem and a reference plan; a domain to nothing", () => {
    assert.deepEqual(linkChoice("pddl", false, "partner"), { key: "domain", offer: "domain" });
    assert.deepEqual(linkChoice("pddl", false, "reference"), { key: "reference", offer: "problem" });
    assert.deepEqual(linkChoice("pddl-plan", false, "partner"), { key: "problem", offer: "problem" });
    assert.deepEqual(linkChoice("pddl-plan", false, "reference"), { key: "reference-plan", offer: "plan" });
    assert.match(linkChoice("pddl", true, "reference") as string, /a domain has no reference/);
    assert.match(linkChoice("ltl", false, "partner") as string, /open a PDDL problem or plan/);
  });

  test("`; @reference` and `; @reference-plan` are distinct directives", () => {
    const text = "; @reference-plan gold/p.plan\n(pick a)\n";
    // adding a reference to a file that has a reference plan inserts, it does not replace
    assert.deepEqual(directiveEdit(text, "reference", "r.pddl").range.start, { line: 0, character: 0 });
    assert.equal(directiveEdit(text, "reference", "r.pddl").newText, "; @reference r.pddl\n");
    const replaced = directiveEdit(text, "reference-plan", "gold/q.plan");
    assert.deepEqual(replaced.range, { start: { line: 0, character: 0 }, end: { line: 0, character: 29 } });
  });

  test("the menu offers what applies to the file's kind", () => {
    assert.deepEqual(fileActions("problem").map((a) => a.command),
      ["plansight.setDomain", "plansight.setReference", "plansight.checkEquivalence", "plansight.showModelView", "plansight.showLog"]);
    assert.deepEqual(fileActions("plan").map((a) => a.command), [
      "plansight.setDomain", "plansight.setReference", "plansight.validatePlan", "plansight.repairPlan",
      "plansight.showStateAtStep", "plansight.showPlanView", "plansight.showLog",
    ]);
    assert.ok(!fileActions("domain").some((a) => a.command === "plansight.setReference"));
    assert.equal(fileActions("domain")[0].command, "plansight.showModelView");
  });

  test("a server lens that validates, repairs or checks runs the extension's command, which shows the result", () => {
    assert.equal(clientCommandFor("plansight.server.simulatePlan"), "plansight.validatePlan");
    assert.equal(clientCommandFor("plansight.server.checkEquivalence"), "plansight.checkEquivalence");
    assert.equal(clientCommandFor("plansight.server.planView"), "plansight.showPlanView");
    assert.equal(clientCommandFor("plansight.server.modelView"), "plansight.showModelView");
    assert.equal(clientCommandFor("plansight.server.ltlReport"), undefined);
  });

  test("every command the menu or the code runs is declared in package.json", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "vscode-client", "package.json"), "utf8"));
    const declared = new Set(manifest.contributes.commands.map((c: { command: string }) => c.command));
    for (const kind of ["problem", "plan", "domain"] as const) {
      for (const action of fileActions(kind)) {
        assert.ok(declared.has(action.command), action.command);
      }
    }
    for (const server of Object.values(SERVER_COMMANDS)) {
      const client = clientCommandFor(server.id);
      assert.ok(client === undefined || declared.has(client), client);
    }
  });
});
