/**
 * The status bar's association: what it says for the server's answer, the `; @domain` edit the
 * link command makes, and the request itself against the real server.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";

import { type AssociationResult, associationStatus, parseAssociation, requestAssociation } from "../../src/association";
import { directiveEdit } from "../../src/directiveEdit";
import { definedHeader, statusText } from "../../src/fileKind";
import { buildInitializationOptions, declaredSettings } from "../../src/serverSettings";
import { LspSession, REPO_ROOT } from "./lspSession";

const PROBLEM: AssociationResult = {
  kind: "problem",
  domain: { path: "/work/blocks/domain.pddl", name: "blocksworld", how: "convention" },
  problem: null,
};

describe("the status bar's text for an association", () => {
  test("a problem shows its domain's name and file; the tooltip the full path and the rule", () => {
    const { text, tooltip } = associationStatus(PROBLEM);
    assert.equal(text, "PDDL problem · blocksworld (domain.pddl)");
    assert.match(tooltip, /domain blocksworld: \/work\/blocks\/domain\.pddl/);
    assert.match(tooltip, /found by its \(:domain blocksworld\) in the same folder/);
    assert.match(tooltip, /Click to change the domain or the reference problem/);
  });

  test("each rule is named so the user knows what to change", () => {
    const how = (rule: "directive" | "setting") =>
      associationStatus({ ...PROBLEM, domain: { ...PROBLEM.domain!, how: rule } }).tooltip;
    assert.match(how("directive"), /linked by ; @domain/);
    assert.match(how("setting"), /from plansight\.domainGlobs/);
  });

  test("a plan shows its problem and the domain it reached through the problem", () => {
    const { text, tooltip } = associationStatus({
      kind: "plan",
      domain: { path: "/w/domain.pddl", name: "blocksworld", how: "directive" },
      problem: { path: "/w/p01.pddl", how: "convention" },
    });
    assert.equal(text, "PDDL plan · p01.pddl · blocksworld (domain.pddl)");
    assert.match(tooltip, /problem \/w\/p01\.pddl \(found next to the plan/);
    assert.match(tooltip, /linked by ; @domain/);
    assert.match(tooltip, /Click to change the problem or the reference plan/);
  });

  test("a missing partner is said, and a domain shows its kind only", () => {
    assert.equal(associationStatus({ kind: "problem", domain: null, problem: null }).text, "PDDL problem · no domain");
    assert.equal(associationStatus({ kind: "plan", domain: null, problem: null }).text, "PDDL plan · no problem");
    assert.equal(associationStatus({ kind: "domain", domain: null, problem: null }).text, "PDDL domain");
  });

  test("the status item uses the server's answer when there is one", () => {
    assert.equal(statusText({ kind: "problem", association: PROBLEM }).text, "PDDL problem · blocksworld (domain.pddl)");
  });

  test("a linked reference is shown with its rule; a server that knows references but found none says how to link one", () => {
    const linked = associationStatus({ ...PROBLEM, reference: { path: "/work/ref/goal.pddl", how: "directive" } });
    assert.equal(linked.text, "PDDL problem · blocksworld (domain.pddl) · ref goal.pddl");
    assert.match(linked.tooltip, /Compared with the reference problem \/work\/ref\/goal\.pddl \(linked by ; @reference\)/);
    const plan = associationStatus({
      kind: "plan",
      domain: null,
      problem: { path: "/w/p01.pddl", how: "convention" },
      referencePlan: { path: "/w/gold/p01.plan", how: "setting" },
    });
    assert.match(plan.text, / · ref p01\.plan$/);
    assert.match(plan.tooltip, /reference plan \/w\/gold\/p01\.plan \(from plansight\.referencePlanGlobs\)/);
    assert.match(associationStatus({ ...PROBLEM, reference: null }).tooltip, /No reference problem: link one to check equivalence/);
    assert.doesNotMatch(associationStatus(PROBLEM).tooltip, /reference problem:/, "an older server said nothing about references");
  });

  test("references in the answer are parsed; absent ones stay absent", () => {
    const answer = parseAssociation({
      kind: "problem", domain: null, problem: null, reference: { path: "/r.pddl", how: "setting" }, referencePlan: null,
    });
    assert.deepEqual(answer?.reference, { path: "/r.pddl", how: "setting" });
    assert.equal(answer?.referencePlan, null);
    assert.equal("reference" in parseAssociation({ kind: "problem", domain: null, problem: null })!, false);
  });

  test("malformed answers are refused, unknown rules dropped", () => {
    assert.equal(parseAssociation(null), undefined);
    assert.equal(parseAssociation({ kind: "spaceship" }), undefined);
    assert.deepEqual(parseAssociation({ kind: "problem", domain: { path: "/d.pddl", how: "magic" } }), {
      kind: "problem",
      domain: { path: "/d.pddl", name: null, how: null },
      problem: null,
    });
  });
});

/** Apply an edit to a text, the way the editor would (for checking the whole result). */
function applied(text: string, edit: ReturnType<typeof directiveEdit>): string {
  const lines = text.split("\n");
  const offset = (line: number, character: number) =>
    lines.slice(0, line).reduce((sum, l) => sum + l.length + 1, 0) + character;
  const { start, end } = edit.range;
  return text.slice(0, offset(start.line, start.character)) + edit.newText + text.slice(offset(end.line, end.character));
}

describe("the `; @domain` edit", () => {
  const body = "(define (problem p) (:domain d)\n  (:init))\n";

  test("without a directive, one line is inserted at the top", () => {
    const edit = directiveEdit(body, "domain", "../domain.pddl");
    assert.deepEqual(edit.range, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
    assert.equal(applied(body, edit), "; @domain ../domain.pddl\n" + body);
  });

  test("an existing directive line is replaced, and only it", () => {
    const text = "; my notes\n;; @Domain old/d.pddl\n" + body;
    const edit = directiveEdit(text, "domain", "new/d.pddl");
    assert.deepEqual(edit.range, { start: { line: 1, character: 0 }, end: { line: 1, character: 21 } });
    assert.equal(applied(text, edit), "; my notes\n; @domain new/d.pddl\n" + body);
  });

  test("a file starting with other comments gets the directive above them; a later `@domain` is not a directive", () => {
    const text = "; author: me\n; @problem p.pddl\n" + body + "; @domain ignored.pddl\n";
    const edit = directiveEdit(text, "domain", "domain.pddl");
    assert.deepEqual(edit.range.start, { line: 0, character: 0 });
    assert.equal(applied(text, edit), "; @domain domain.pddl\n" + text);
  });

  test("CRLF files keep their line ending: inserted with CRLF, replaced before the CR", () => {
    const crlf = body.replace(/\n/g, "\r\n");
    assert.equal(directiveEdit(crlf, "domain", "d.pddl").newText, "; @domain d.pddl\r\n");
    const text = "; @domain old.pddl\r\n" + crlf;
    const edit = directiveEdit(text, "domain", "sub\\d.pddl");
    assert.deepEqual(edit.range, { start: { line: 0, character: 0 }, end: { line: 0, character: 18 } });
    assert.equal(applied(text, edit), "; @domain sub/d.pddl\r\n" + crlf);
  });

  test("a plan gets `; @problem`", () => {
    assert.equal(directiveEdit("(pick a)\n", "problem", "p01.pddl").newText, "; @problem p01.pddl\n");
  });

  test("only files whose header defines a domain are offered", () => {
    assert.deepEqual(definedHeader("; (define (problem x))\n(define (domain Blocks)"), { kind: "domain", name: "Blocks" });
    assert.equal(definedHeader("(:objects a)"), undefined);
  });
});

describe("plansight/association from the real server", () => {
  let workspace: string;

  before(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), "plansight-association-"));
    for (const folder of ["a", "b", "c", "project"].reduce<string[]>((acc, name) => [...acc, path.join(acc.at(-1) ?? workspace, name)], [])) {
      fs.mkdirSync(folder, { recursive: true });
    }
  });

  after(() => fs.rmSync(workspace, { recursive: true, force: true }));

  test("a problem linked by `; @domain` is answered with the domain, its name and the rule", async () => {
    const project = path.join(workspace, "a", "b", "c", "project");
    fs.mkdirSync(path.join(project, "domains"), { recursive: true });
    const domain = path.join(project, "domains", "blocks.pddl");
    fs.copyFileSync(path.join(REPO_ROOT, "examples", "blocksworld", "domain.pddl"), domain);
    const problem = path.join(project, "p01.pddl");
    fs.writeFileSync(problem, "; @domain domains/blocks.pddl\n(define (problem p) (:domain blocksworld)\n  (:objects a)\n  (:init)\n  (:goal (clear a)))\n");
    const defaults = declaredSettings();
    const session = await LspSession.start({
      workspace: project,
      initializationOptions: buildInitializationOptions((key) => defaults.get(key)),
    });
    try {
      const uri = await session.open(problem, "pddl");
      const answer = await requestAssociation(session.connection, uri);
      assert.deepEqual(answer, {
        kind: "problem",
        domain: { path: domain, name: "blocksworld", how: "directive" },
        problem: null,
        reference: null,
        referencePlan: null,
      });
      assert.equal(associationStatus(answer!).text, "PDDL problem · blocksworld (blocks.pddl)");
    } finally {
      await session.close();
    }
  });
});
