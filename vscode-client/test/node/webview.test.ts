/**
 * The plan view and model view webviews: the HTML the extension hands a webview carries only its own
 * Content-Security-Policy and nonce, whatever the page it got; and the real server's pages, assembled
 * that way, load nothing and run only the page's own style and script.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { ExecuteCommandRequest } from "vscode-languageserver-protocol/node";

import { type CommandRunner, runServerCommand, SERVER_COMMANDS } from "../../src/serverCommands";
import { buildInitializationOptions, declaredSettings } from "../../src/serverSettings";
import { isViewResult, newNonce, VIEW_WEBVIEW_OPTIONS, webviewHtml, webviewPolicy } from "../../src/webviewHtml";
import { LspSession, REPO_ROOT } from "./lspSession";

const SERVER_PAGE = [
  "<!DOCTYPE html><html><head><meta charset=\"utf-8\">",
  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'nonce-SRV'; script-src 'nonce-SRV'\">",
  "<title>t</title><style nonce=\"SRV\">body{}</style></head><body>",
  "<script type=\"application/json\" id=\"plan-data\" nonce=\"SRV\">{}</script>",
  "<script>alert('no nonce')</script><script nonce=\"GUESS\">alert('wrong nonce')</script>",
  "<script nonce=\"SRV\">run()</script></body></html>",
].join("");

/** What a policy-enforcing browser would run: the policy's nonce, and each tag with its nonce. */
function audit(html: string): { policies: string[]; tags: { tag: string; nonce: string | undefined }[] } {
  const policies = [...html.matchAll(/<meta\s[^>]*http-equiv="Content-Security-Policy"\s+content="([^"]*)"/gi)].map((m) => m[1]);
  const tags = [...html.matchAll(/<(script|style)\b([^>]*)>/gi)].map((m) => ({
    tag: m[1].toLowerCase(),
    nonce: /\snonce="([^"]*)"/.exec(m[2])?.[1],
  }));
  return { policies, tags };
}

describe("the HTML a view webview is given", () => {
  test("one policy, the extension's, first in <head>; the server's nonce is replaced by the extension's", () => {
    const html = webviewHtml(SERVER_PAGE, "EXT");
    const { policies, tags } = audit(html);
    assert.deepEqual(policies, [webviewPolicy("EXT")]);
    assert.ok(html.indexOf("Content-Security-Policy") < html.indexOf("<style"));
    assert.ok(!html.includes("SRV"));
    // the server's own style, data block and script run; the two it did not tag never can
    assert.deepEqual(tags, [
      { tag: "style", nonce: "EXT" },
      { tag: "script", nonce: "EXT" },
      { tag: "script", nonce: undefined },
      { tag: "script", nonce: undefined },
      { tag: "script", nonce: "EXT" },
    ]);
  });

  test("the policy lets nothing load and no unsigned code run", () => {
    const policy = webviewPolicy("N");
    assert.match(policy, /^default-src 'none';/);
    assert.ok(!policy.includes("unsafe"));
    assert.ok(!/https?:|\*/.test(policy));
  });

  test("a page without a policy, or a policy without a nonce, gets no runnable code", () => {
    const bare = webviewHtml("<html><head></head><body><script nonce=\"x\">run()</script></body></html>", "EXT");
    assert.deepEqual(audit(bare).tags, [{ tag: "script", nonce: undefined }]);
    const fragment = webviewHtml("<p>hello</p>", "EXT");
    assert.deepEqual(audit(fragment).policies, [webviewPolicy("EXT")]);
  });

  test("refresh and base elements are dropped, and nonces are fresh", () => {
    const html = webviewHtml("<html><head><meta http-equiv=\"refresh\" content=\"0;url=x\"><base href=\"x\"></head></html>", "N");
    assert.ok(!/refresh|<base/i.test(html));
    assert.notEqual(newNonce(), newNonce());
    assert.match(newNonce(), /^[A-Za-z0-9_-]{24}$/);
  });

  test("the webview reaches no file and runs no command link", () => {
    assert.deepEqual(VIEW_WEBVIEW_OPTIONS.localResourceRoots, []);
    assert.equal(VIEW_WEBVIEW_OPTIONS.enableCommandUris, false);
    assert.equal(VIEW_WEBVIEW_OPTIONS.enableScripts, true);
  });

  test("the real server's plan and model views, assembled for a webview, are locked down", async (t) => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "plansight-views-"));
    const example = (name: string) => fs.readFileSync(path.join(REPO_ROOT, "examples", "blocksworld", name), "utf8");
    fs.writeFileSync(path.join(workspace, "domain.pddl"), example("domain.pddl"));
    fs.writeFileSync(path.join(workspace, "p01.pddl"), example("p01.pddl"));
    fs.writeFileSync(path.join(workspace, "p01.plan"), "(unstack c a)\n(<script>alert(1)</script>)\n");
    const defaults = declaredSettings();
    const session = await LspSession.start({ workspace, initializationOptions: buildInitializationOptions((key) => defaults.get(key)) });
    try {
      const announced = session.capabilities.executeCommandProvider?.commands ?? [];
      if (!announced.includes(SERVER_COMMANDS.planView.id)) {
        t.diagnostic("this server has no plan view");
      }
      const runner: CommandRunner = {
        serverCommands: () => announced,
        execute: (params) => session.connection.sendRequest(ExecuteCommandRequest.type, params),
      };
      const plan = await session.open(path.join(workspace, "p01.plan"), "pddl-plan");
      const problem = await session.open(path.join(workspace, "p01.pddl"), "pddl");
      for (const [command, uri, title] of [
        [SERVER_COMMANDS.planView, plan, "Plan view: p01.plan"],
        [SERVER_COMMANDS.modelView, problem, "Model view: sussman"],
      ] as const) {
        const outcome = await runServerCommand(runner, command, { uri });
        assert.equal(outcome.kind, "done", JSON.stringify(outcome));
        const result = (outcome as { result: unknown }).result;
        assert.ok(isViewResult(result));
        assert.equal(result.title, title);
        const nonce = newNonce();
        const html = webviewHtml(result.html, nonce);
        const { policies, tags } = audit(html);
        assert.deepEqual(policies, [webviewPolicy(nonce)]);
        assert.ok(tags.every((tag) => tag.nonce === nonce), JSON.stringify(tags));
        assert.ok(!/https?:\/\//i.test(html), "no external URL");
        assert.ok(!/<[^>]+\son[a-z]+\s*=/i.test(html), "no inline event handler");
        assert.ok(!html.includes("<script>alert"), "a name from the file is escaped");
      }
    } finally {
      await session.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
