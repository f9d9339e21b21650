/**
 * The extension's decisions that need no VS Code: which server command to run, which Python
 * qualifies, the shape of the settings sent, and what the status bar says.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";

import { detectKind, statusText } from "../../src/fileKind";
import {
  decideLaunch,
  isSupportedPython,
  parsePythonVersion,
  probePython,
  pythonServerCommand,
} from "../../src/serverLaunch";
import {
  buildServerSettings,
  CLIENT_ONLY_SETTINGS,
  declaredSettings,
  serverSettingKeys,
} from "../../src/serverSettings";
import { testInterpreter } from "./lspSession";

let scratch: string;

before(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "plansight-client-"));
});

after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** An executable that prints `output` for `--version`, standing in for an interpreter. */
function fakeInterpreter(name: string, output: string): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, `#!/bin/sh\necho '${output}'\n`, { mode: 0o755 });
  return file;
}

describe("finding a Python for the server", () => {
  test("versions are read from what `python --version` prints, and 3.10 is the oldest accepted", () => {
    assert.deepEqual(parsePythonVersion("Python 3.11.7\n"), [3, 11, 7]);
    assert.deepEqual(parsePythonVersion("Python 3.13.0rc1"), [3, 13, 0]);
    assert.equal(parsePythonVersion("command not found"), undefined);
    assert.ok(isSupportedPython([3, 10, 0]));
    assert.ok(isSupportedPython([4, 0, 0]));
    assert.ok(!isSupportedPython([3, 9, 18]));
    assert.ok(!isSupportedPython([2, 7, 18]));
  });

  test("the interpreter the tests use qualifies", async () => {
    const probe = await probePython(testInterpreter());
    assert.ok(probe.ok, probe.problem);
  });

  test("an old Python is refused with its version and the minimum in the reason", async () => {
    const probe = await probePython(fakeInterpreter("python3.8", "Python 3.8.10"));
    assert.equal(probe.ok, false);
    assert.match(probe.problem ?? "", /is Python 3\.8\.10; plansight needs 3\.10 or newer/);
  });

  test("a missing interpreter is refused with the failing command in the reason", async () => {
    const missing = path.join(scratch, "no-such-python");
    const probe = await probePython(missing);
    assert.equal(probe.ok, false);
    assert.match(probe.problem ?? "", new RegExp(`${missing} --version\` failed \\(ENOENT\\)`));
  });

  test("the first qualifying candidate runs `-m plansight serve`; every refusal is kept for the notification", async () => {
    const old = fakeInterpreter("python-old", "Python 3.9.1");
    const good = fakeInterpreter("python-good", "Python 3.12.2");
    const decision = await decideLaunch({
      interpreters: [
        { command: old, origin: "the Python extension" },
        { command: good, origin: "the PATH" },
      ],
      bundledLibs: "/ext/bundled/libs",
    });
    assert.ok(decision.ok);
    assert.equal(decision.server.command, good);
    assert.deepEqual(decision.server.args, ["-m", "plansight", "serve"]);
    assert.ok(decision.server.env.PYTHONPATH?.startsWith("/ext/bundled/libs"));

    const none = await decideLaunch({ interpreters: [{ command: old, origin: "the PATH" }], bundledLibs: undefined });
    assert.equal(none.ok, false);
    assert.ok(!none.ok);
    assert.deepEqual(none.problems, [`the PATH: \`${old}\` is Python 3.9.1; plansight needs 3.10 or newer`]);
  });

  test("plansight.serverPath wins and runs `plansight serve` without probing any Python", async () => {
    const decision = await decideLaunch({
      serverPath: " /opt/venv/bin/plansight ",
      interpreters: [{ command: "/nonexistent/python", origin: "the PATH" }],
      bundledLibs: "/ext/bundled/libs",
      probe: () => assert.fail("no interpreter should be probed"),
    });
    assert.ok(decision.ok);
    assert.equal(decision.server.command, "/opt/venv/bin/plansight");
    assert.deepEqual(decision.server.args, ["serve"]);
    assert.equal(decision.server.env.PYTHONPATH, undefined);
  });

  test("the bundled plansight wins over one installed in the interpreter's environment", () => {
    // A stand-in bundle whose `plansight` says where it was imported from.
    const libs = path.join(scratch, "bundled", "libs");
    fs.mkdirSync(path.join(libs, "plansight"), { recursive: true });
    fs.writeFileSync(path.join(libs, "plansight", "__init__.py"), "");
    const command = pythonServerCommand({ command: testInterpreter(), origin: "the tests" }, libs, "/elsewhere");
    assert.equal(command.env.PYTHONPATH, `${libs}${path.delimiter}/elsewhere`);
    const imported = execFileSync(testInterpreter(), ["-c", "import plansight; print(plansight.__file__)"], {
      env: { ...process.env, ...command.env },
      encoding: "utf8",
    }).trim();
    assert.equal(imported, path.join(libs, "plansight", "__init__.py"));
  });
});

describe("the settings sent to the server", () => {
  test("every declared setting but the client's own is sent, nested by its dots", () => {
    const keys = serverSettingKeys();
    assert.ok(keys.length > 0);
    for (const key of CLIENT_ONLY_SETTINGS) {
      assert.ok(declaredSettings().has(key), `client setting plansight.${key} is not declared in package.json`);
      assert.ok(!keys.includes(key));
    }
    const values = new Map(keys.map((key, index) => [key, { marker: index }]));
    const sent = buildServerSettings((key) => values.get(key));
    for (const key of keys) {
      const found = key.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], sent);
      assert.deepEqual(found, values.get(key), key);
    }
    assert.ok(!("interpreter" in sent) && !("serverPath" in sent) && !("trace" in sent));
  });

  test("unset and non-JSON values are left for the server's defaults", () => {
    const sent = buildServerSettings((key) => (key === "diagnostics.debounceMs" ? Number.NaN : undefined));
    assert.deepEqual(sent, {});
  });
});

describe("the status bar's description of a file", () => {
  test("domains and problems by their header, plans by their language", () => {
    assert.equal(detectKind("pddl", "; a comment\n(define (domain blocks) ...)"), "domain");
    assert.equal(detectKind("pddl", "(DEFINE ( PROBLEM p1) (:domain blocks))"), "problem");
    assert.equal(detectKind("pddl-plan", "(pick-up a)\n"), "plan");
    assert.equal(detectKind("ltl", "forall x. (clear(x))"), "ltl");
    assert.equal(detectKind("python", "(define (domain d))"), undefined);
  });

  test("a commented-out header does not count; a header-less file with :init is a problem", () => {
    assert.equal(detectKind("pddl", "; (define (problem old)\n(define (domain d))"), "domain");
    assert.equal(detectKind("pddl", "  (:objects a b)\n  (:init (clear a))"), "problem");
    assert.equal(detectKind("pddl", ""), "domain");
  });

  test("the item names the kind, and the partners once the server provides them", () => {
    assert.equal(statusText({ kind: "problem" }).text, "PDDL problem");
    const linked = statusText({ kind: "plan", domainPath: "/w/domains/blocks.pddl", problemPath: "/w/p01.pddl" });
    assert.equal(linked.text, "PDDL plan → domain blocks.pddl, problem p01.pddl");
    assert.match(linked.tooltip, /checks this PDDL plan against the domain blocks\.pddl and the problem p01\.pddl/);
  });
});
