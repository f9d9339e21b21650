/**
 * End to end against the real `plansight serve`, over the protocol stack `vscode-languageclient`
 * uses: the server is started by the extension's own launch code, and receives its settings built
 * by the extension's own `buildInitializationOptions` / `buildServerSettings`, so a drift between
 * what the extension sends and what the server reads fails here.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { type Diagnostic, MessageType } from "vscode-languageserver-protocol/node";

import { buildInitializationOptions, buildServerSettings, declaredSettings, SECTION } from "../../src/serverSettings";
import { LspSession, REPO_ROOT } from "./lspSession";

/** A reader like VS Code's `getConfiguration("plansight").get`: the user's values over the declared defaults. */
function settingsReader(user: Record<string, unknown> = {}): (key: string) => unknown {
  const defaults = declaredSettings();
  return (key) => (key in user ? user[key] : defaults.get(key));
}

/** The LSP range of the `occurrence`-th `token` in `text` (ASCII test files: UTF-16 = code points). */
function rangeOf(text: string, token: string, after = "") {
  const anchor = text.indexOf(after);
  const offset = text.indexOf(token, anchor < 0 ? 0 : anchor);
  assert.ok(offset >= 0, `\`${token}\` is not in the test file`);
  const before = text.slice(0, offset).split("\n");
  const line = before.length - 1;
  const character = before[line].length;
  return { start: { line, character }, end: { line, character: character + token.length } };
}

function codes(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((diagnostic) => String(diagnostic.code));
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, "timed out waiting for the server");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const hasCode = (code: string) => (diagnostics: Diagnostic[]) => codes(diagnostics).includes(code);

describe("plansight serve, driven like the extension drives it", () => {
  let scratch: string;
  let workspace: string;
  let problemPath: string;
  let problemText: string;

  before(() => {
    // domains/ and problems/ are siblings, so no convention links them: only `plansight.domainGlobs` can.
    // The workspace sits two folders below the scratch folder, so the server's search for a domain
    // (the problem's folder and the three above it) never leaves the scratch folder and never sees
    // strangers' files in the temp folder.
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "plansight-protocol-"));
    workspace = path.join(scratch, "course", "project");
    fs.mkdirSync(path.join(workspace, "domains"), { recursive: true });
    fs.mkdirSync(path.join(workspace, "problems"));
    fs.copyFileSync(
      path.join(REPO_ROOT, "examples", "blocksworld", "domain.pddl"),
      path.join(workspace, "domains", "blocks.pddl"),
    );
    // The planted mistake: `clear` takes one argument.
    problemText = [
      "(define (problem two-clear)",
      "  (:domain blocksworld)",
      "  (:objects a b c)",
      "  (:init (on a b) (on-table b) (on-table c) (clear a) (clear c) (handempty))",
      "  (:goal (and (clear a b) (on-table a))))",
      "",
    ].join("\n");
    problemPath = path.join(workspace, "problems", "p01.pddl");
    fs.writeFileSync(problemPath, problemText);
    // Beside the problem, a domain of another name: the search finds a domain, but not `blocksworld`,
    // so without a glob the problem's `(:domain blocksworld)` is `unknown-domain`.
    fs.writeFileSync(
      path.join(workspace, "problems", "domain.pddl"),
      "(define (domain gripper)\n  (:predicates (at-robby ?r))\n  (:action move :parameters (?from ?to)\n"
        + "    :precondition (at-robby ?from) :effect (and (at-robby ?to) (not (at-robby ?from)))))\n",
    );
  });

  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  test("a planted mistake in an example gets its diagnostic on the offending name", async () => {
    const example = path.join(REPO_ROOT, "examples", "llm-mistakes", "wrong-arity.pddl");
    const text = fs.readFileSync(example, "utf8");
    const session = await LspSession.start({
      workspace: path.dirname(example),
      initializationOptions: buildInitializationOptions(settingsReader()),
    });
    try {
      const diagnostics = await session.diagnosticsFor(await session.open(example, "pddl"), hasCode("wrong-arity"));
      const arity = diagnostics.find((diagnostic) => diagnostic.code === "wrong-arity");
      assert.deepEqual(arity?.range, rangeOf(text, "clear", "(:goal"));
      assert.equal(arity?.severity, 1 /* Error */);
      assert.match(arity?.message ?? "", /`clear` takes 1 argument, got 2/);
      assert.equal(arity?.source, "plansight");
      // The declared defaults are all valid for the server: it has nothing to complain about.
      assert.deepEqual(session.messages.filter((message) => message.type <= MessageType.Warning), []);
    } finally {
      await session.close();
    }
  });

  test("domainGlobs sent as initializationOptions link a problem to its domain", async () => {
    const user = { domainGlobs: [{ glob: "problems/*.pddl", domain: "domains/blocks.pddl" }] };
    const session = await LspSession.start({
      workspace,
      initializationOptions: buildInitializationOptions(settingsReader(user)),
    });
    try {
      const diagnostics = await session.diagnosticsFor(await session.open(problemPath, "pddl"), hasCode("wrong-arity"));
      assert.deepEqual(codes(diagnostics), ["wrong-arity"]);
      assert.deepEqual(diagnostics[0].range, rangeOf(problemText, "clear", "(:goal"));
      assert.deepEqual(session.messages, []);
    } finally {
      await session.close();
    }
  });

  test("without the glob the same problem has no domain (the setting is what links them)", async () => {
    const session = await LspSession.start({
      workspace,
      initializationOptions: buildInitializationOptions(settingsReader()),
    });
    try {
      const diagnostics = await session.diagnosticsFor(await session.open(problemPath, "pddl"), hasCode("unknown-domain"));
      assert.ok(!codes(diagnostics).includes("wrong-arity"), `unexpected: ${codes(diagnostics).join(", ")}`);
      const unknown = diagnostics.find((d) => d.code === "unknown-domain");
      assert.deepEqual(unknown?.range, rangeOf(problemText, "blocksworld"));
      assert.match(unknown?.message ?? "", /found `gripper` \(domain\.pddl\)/);
    } finally {
      await session.close();
    }
  });

  test("a settings change pushed in didChangeConfiguration re-checks open documents", async () => {
    const session = await LspSession.start({
      workspace,
      initializationOptions: buildInitializationOptions(settingsReader()),
    });
    try {
      const uri = await session.open(problemPath, "pddl");
      await session.diagnosticsFor(uri, hasCode("unknown-domain"));
      const user = { domainGlobs: [{ glob: "problems/**", domain: "domains/blocks.pddl" }] };
      // The shape serverController.ts pushes on a configuration change.
      await session.changeConfiguration(buildInitializationOptions(settingsReader(user)));
      const diagnostics = await session.diagnosticsFor(uri, hasCode("wrong-arity"));
      assert.deepEqual(codes(diagnostics), ["wrong-arity"]);
    } finally {
      await session.close();
    }
  });

  test("the workspace/configuration answer the middleware gives is read like the initial options", async () => {
    // The server pulls its section when the client supports it; the answer wins over the options.
    const user = { domainGlobs: [{ glob: "problems/*.pddl", domain: "domains/blocks.pddl" }] };
    const asked: Array<string | undefined> = [];
    const session = await LspSession.start({
      workspace,
      initializationOptions: buildInitializationOptions(settingsReader()),
      capabilities: { workspace: { configuration: true } },
      configuration: (section) => {
        asked.push(section);
        return section === SECTION ? buildServerSettings(settingsReader(user)) : null;
      },
    });
    try {
      // Open only once the server has its answer: it does not re-check documents opened before.
      await until(() => asked.length > 0);
      const diagnostics = await session.diagnosticsFor(await session.open(problemPath, "pddl"), hasCode("wrong-arity"));
      assert.deepEqual(codes(diagnostics), ["wrong-arity"]);
      assert.deepEqual(asked, [SECTION]);
    } finally {
      await session.close();
    }
  });

  test("an invalid setting is reported by the server, naming the key, and the default is used", async () => {
    const session = await LspSession.start({
      workspace,
      initializationOptions: buildInitializationOptions(settingsReader({ "diagnostics.debounceMs": -5 })),
    });
    try {
      await session.diagnosticsFor(await session.open(problemPath, "pddl"), hasCode("unknown-domain"));
      const warnings = session.messages.filter((message) => message.type === MessageType.Warning);
      assert.equal(warnings.length, 1, JSON.stringify(session.messages));
      assert.match(warnings[0].message, /plansight\.diagnostics\.debounceMs` is -5/);
    } finally {
      await session.close();
    }
  });
});
