// The .vsix in a real VS Code: code-server serves the workbench, Debian's Chromium renders it,
// playwright-core drives it. A workspace links its problem to its domain through the
// `plansight.domainGlobs` setting (so VS Code's own configuration reaches the server), the problem
// has a planted mistake, and the diagnostic must show in the Problems view on the right line. A plan
// with a planted wrong step shows its failing step, and the *Validate this plan* command answers;
// the status-bar item's menu links a problem to a reference problem with a `; @reference` line.
// *Plan this problem* (its lens on `(:goal`) runs Fast Downward and writes `<problem>.plan`, whose
// lens says the plan is valid; the plan view draws its timeline and the model view the problem's
// initial state. *Repair this plan* on a plan with two steps in the wrong order keeps its correct
// prefix, completes it with Fast Downward (the lens then says valid), and Ctrl+Z restores the old
// steps. Both planning flows run the Fast Downward the .vsix bundles with a bare python3, so they
// need a platform .vsix (make test-editors installs the linux-x64 one) and fail without. Screenshots go to vscode-client/test-artifacts/ (PLANSIGHT_E2E_UPDATE_DOCS=1 also
// copies the plan view's to docs/images/vscode-plan-view.png, the README's picture).
//
// Run through run.sh, which installs what this needs. PLANSIGHT_VSIX: the .vsix to install;
// PLANSIGHT_TEST_PYTHON: the interpreter for the server (default: whatever the extension finds,
// python3 from the PATH; never the repository's .venv in the planning flows);
// PLANSIGHT_E2E_VERBOSE=1 prints code-server's log at the end.
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const client = path.resolve(here, "..", "..");
const repo = path.resolve(client, "..");
const artifacts = path.join(client, "test-artifacts");
const codeServerBin = path.join(here, "node_modules", ".bin", "code-server");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
// The flags that keep Chromium from reaching for the network at start (closed here).
const chromiumFlags = [
  "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync",
];

const problemText = [
  "(define (problem two-clear)",
  "  (:domain blocksworld)",
  "  (:objects a b c)",
  "  (:init (on a b) (on-table b) (on-table c) (clear a) (clear c) (handempty))",
  "  (:goal (and (clear a b) (on-table a))))",
  "",
].join("\n");
// A plan whose second step cannot run: `(stack b c)` while holding nothing (the valid plan picks up
// c's block first). Its problem is the example's p01, linked to the domain by a glob.
const brokenPlanText = ["(unstack c a)", "(stack b c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)", ""].join("\n");
// Sussman's anomaly with two steps in the wrong order: step 5 picks up b, which step 4 has just
// covered with a. The first four steps are the correct prefix a repair keeps.
const wrongOrderSteps = ["(unstack c a)", "(put-down c)", "(pick-up a)", "(stack a b)", "(pick-up b)", "(stack b c)"];
const wrongOrderPlanText = ["; @problem anomaly.pddl", ...wrongOrderSteps, ""].join("\n");
// 1-based, as VS Code shows it: the `clear` that has two arguments.
const mistakeLine = 5;
const mistakeColumn = problemText.split("\n")[mistakeLine - 1].indexOf("clear a b") + 1;

let scratch;
let workspaceSettingsFile;
let workspaceSettings;
let codeServer;
let codeServerLog = "";
let browser;
let page;
let baseUrl;
const started = Date.now();

function elapsed() {
  return `${((Date.now() - started) / 1000).toFixed(1)} s`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || codeServer.exitCode !== null) {
      throw new Error(`code-server did not come up at ${url}:\n${codeServerLog}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

/** Quick Open (Ctrl+P) a file by name and wait until its editor has focus. */
async function openFile(name) {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget .quick-input-box input");
  await input.waitFor({ state: "visible", timeout: 15_000 });
  await input.fill(name);
  await page.locator(".quick-input-widget .monaco-list-row", { hasText: name }).first().waitFor({ timeout: 15_000 });
  await page.keyboard.press("Enter");
  await page.locator(".tab.active", { hasText: name }).waitFor({ timeout: 15_000 });
}

before(async () => {
  const vsix = process.env.PLANSIGHT_VSIX;
  assert.ok(vsix && fs.existsSync(vsix), "PLANSIGHT_VSIX must name the built .vsix");
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "plansight-code-server-"));
  const userData = path.join(scratch, "user-data");
  const extensions = path.join(scratch, "extensions");
  const workspace = path.join(scratch, "workspace");

  fs.mkdirSync(path.join(workspace, "domains"), { recursive: true });
  fs.mkdirSync(path.join(workspace, "problems"), { recursive: true });
  fs.copyFileSync(path.join(repo, "examples", "blocksworld", "domain.pddl"), path.join(workspace, "domains", "blocks.pddl"));
  fs.writeFileSync(path.join(workspace, "problems", "p01.pddl"), problemText);
  fs.mkdirSync(path.join(workspace, "plans"), { recursive: true });
  fs.copyFileSync(path.join(repo, "examples", "blocksworld", "p01.pddl"), path.join(workspace, "plans", "task.pddl"));
  fs.writeFileSync(path.join(workspace, "plans", "task.plan"), brokenPlanText);
  fs.mkdirSync(path.join(workspace, "reference"), { recursive: true });
  fs.copyFileSync(path.join(repo, "examples", "blocksworld", "p02.pddl"), path.join(workspace, "reference", "goal.pddl"));
  // A problem with its domain beside it (linked by the domain.pddl convention, no setting), to plan.
  fs.mkdirSync(path.join(workspace, "solve"), { recursive: true });
  fs.copyFileSync(path.join(repo, "examples", "blocksworld", "domain.pddl"), path.join(workspace, "solve", "domain.pddl"));
  fs.copyFileSync(path.join(repo, "examples", "blocksworld", "p01.pddl"), path.join(workspace, "solve", "sussman.pddl"));
  // A plan that fails, with its problem (named by its @problem line) and domain beside it, to repair.
  fs.mkdirSync(path.join(workspace, "repair"), { recursive: true });
  fs.copyFileSync(path.join(repo, "examples", "blocksworld", "domain.pddl"), path.join(workspace, "repair", "domain.pddl"));
  fs.copyFileSync(path.join(repo, "examples", "blocksworld", "p01.pddl"), path.join(workspace, "repair", "anomaly.pddl"));
  fs.writeFileSync(path.join(workspace, "repair", "anomaly.plan"), wrongOrderPlanText);
  workspaceSettings = {
    "plansight.domainGlobs": [
      { glob: "problems/*.pddl", domain: "domains/blocks.pddl" },
      { glob: "plans/*.pddl", domain: "domains/blocks.pddl" },
      { glob: "reference/*.pddl", domain: "domains/blocks.pddl" },
    ],
  };
  if (process.env.PLANSIGHT_TEST_PYTHON) {
    workspaceSettings["plansight.interpreter"] = process.env.PLANSIGHT_TEST_PYTHON;
  }
  workspaceSettingsFile = path.join(workspace, ".vscode", "settings.json");
  writeJson(workspaceSettingsFile, workspaceSettings);
  // A quiet editor: no welcome page, no update or gallery checks (there is no network to check).
  writeJson(path.join(userData, "User", "settings.json"), {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "extensions.autoUpdate": false,
    "extensions.autoCheckUpdates": false,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "security.workspace.trust.enabled": false,
    "git.openRepositoryInParentFolders": "never",
  });
  const common = ["--user-data-dir", userData, "--extensions-dir", extensions, "--config", path.join(scratch, "config.yaml")];

  const installStart = Date.now();
  execFileSync(codeServerBin, [...common, "--install-extension", vsix], { stdio: "pipe" });
  console.log(`installed ${path.basename(vsix)} in ${Date.now() - installStart} ms`);

  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  codeServer = spawn(codeServerBin, [
    ...common, "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry",
    "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override", workspace,
  ], { stdio: ["ignore", "pipe", "pipe"] });
  codeServer.stdout.on("data", (chunk) => { codeServerLog += chunk; });
  codeServer.stderr.on("data", (chunk) => { codeServerLog += chunk; });
  await waitForHealth(`${baseUrl}/healthz`, 60_000);
  console.log(`code-server listening (${elapsed()})`);

  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumFlags });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${baseUrl}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator(".monaco-workbench .part.statusbar").waitFor({ timeout: 60_000 });
  console.log(`workbench loaded (${elapsed()})`);
});

after(async () => {
  if (process.env.PLANSIGHT_E2E_VERBOSE) {
    console.log(`--- code-server log ---\n${codeServerLog}`);
  }
  await browser?.close();
  if (codeServer && codeServer.exitCode === null) {
    const exited = new Promise((resolve) => codeServer.once("exit", resolve));
    codeServer.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (codeServer.exitCode === null) {
      codeServer.kill("SIGKILL");
    }
  }
  if (scratch) {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});

test("a planted mistake shows in the Problems view, with its code, on its line", async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  try {
    await openFile("p01.pddl");
    await page.keyboard.press("Control+Shift+M"); // View: Problems
    const row = page.locator(".markers-panel .monaco-list-row", { hasText: "takes 1 argument" });
    await row.waitFor({ timeout: 90_000 });
    console.log(`diagnostic in the Problems view (${elapsed()})`);
    const text = await row.innerText();
    assert.match(text, /`clear` takes 1 argument, got 2\./);
    assert.match(text, /wrong-arity/);
    assert.match(text, new RegExp(`\\[Ln ${mistakeLine}, Col ${mistakeColumn}\\]`));
    // The squiggle in the editor, and the status bar naming the file's kind and the domain it is
    // checked against (linked here by the plansight.domainGlobs workspace setting).
    await page.locator(".monaco-editor .squiggly-error").first().waitFor({ timeout: 10_000 });
    await page
      .locator(".part.statusbar", { hasText: "PDDL problem · blocksworld (blocks.pddl)" })
      .waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(artifacts, "code-server-problem.png") });
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, "code-server-failure.png") }).catch(() => undefined);
    throw new Error(`${error.message}\n--- code-server log ---\n${codeServerLog}`);
  }
});

test("a domain is highlighted by the grammar and named in the status bar", async () => {
  await openFile("blocks.pddl");
  await page.locator(".part.statusbar", { hasText: "PDDL domain" }).waitFor({ timeout: 10_000 });
  // TextMate scopes become token classes (mtkN); a highlighted file has more than one.
  const tokenClasses = await page.locator(".monaco-editor .view-line span[class^='mtk']").evaluateAll(
    (spans) => [...new Set(spans.map((span) => span.className))],
  );
  assert.ok(tokenClasses.length >= 4, `only ${tokenClasses.join(", ")}: the grammar did not apply`);
  await page.screenshot({ path: path.join(artifacts, "code-server-domain.png") });
});

/** Run a command from the palette (F1) by its title, as a user would. */
async function runCommand(title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget .quick-input-box input");
  await input.waitFor({ state: "visible", timeout: 15_000 });
  await input.fill(`>${title}`);
  await page.locator(".quick-input-widget .monaco-list-row", { hasText: title }).first().waitFor({ timeout: 15_000 });
  await page.keyboard.press("Enter");
}

/** The text of the active editor's lines as shown (Monaco draws spaces as no-break spaces). */
async function editorLines() {
  const lines = await page.locator(".editor-group-container.active .monaco-editor .view-line").allInnerTexts();
  return lines.map((line) => line.replace(/\u00a0/g, " "));
}

/** The text of the first frame (webviews are nested frames) whose body matches `pattern`. */
async function frameText(pattern, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) {
        continue;
      }
      const body = await frame.locator("body").innerText({ timeout: 1_000 }).catch(() => "");
      if (pattern.test(body)) {
        return body;
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`no webview shows ${pattern} within ${timeoutMs} ms`);
    }
    await page.waitForTimeout(250);
  }
}

async function withFailureScreenshot(name, body) {
  try {
    await body();
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, `code-server-${name}-failure.png`) }).catch(() => undefined);
    throw new Error(`${error.message}\n--- code-server log (tail) ---\n${codeServerLog.slice(-4000)}`);
  }
}

test("a plan's failing step shows in the Problems view, and Validate this plan answers", async () => {
  await withFailureScreenshot("plan", async () => {
    await openFile("task.plan");
    await page.keyboard.press("Control+Shift+M"); // View: Problems (it may already be open)
    const panel = page.locator(".markers-panel");
    if (!(await panel.isVisible())) {
      await page.keyboard.press("Control+Shift+M");
    }
    const row = page.locator(".markers-panel .monaco-list-row", { hasText: "is not executable" });
    await row.waitFor({ timeout: 90_000 });
    const text = await row.innerText();
    assert.match(text, /Step 2 \(stack b c\) is not executable/);
    assert.match(text, /step-not-executable/);
    assert.match(text, /\[Ln 2, Col 1\]/);
    await page.locator(".monaco-editor .squiggly-error").first().waitFor({ timeout: 10_000 });
    await page.locator(".part.statusbar", { hasText: "PDDL plan · task.pddl · blocksworld (blocks.pddl)" }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(artifacts, "code-server-plan.png") });

    await runCommand("plansight: Validate this plan");
    // A server with plan validation names the failing step; one without says so instead of failing.
    const toast = page.locator(".notification-toast", { hasText: /task\.plan fails at step 2|does not support plan validation yet/ });
    await toast.waitFor({ timeout: 60_000 });
    const said = await toast.innerText();
    console.log(`Validate this plan: ${said.split("\n")[0]} (${elapsed()})`);
    await page.waitForTimeout(500); // the toast fades in
    await page.screenshot({ path: path.join(artifacts, "code-server-validate.png") });
    if (/fails at step 2/.test(said)) {
      assert.match(said, /task\.plan fails at step 2 \(stack b c\)/);
      await toast.getByRole("button", { name: "Show report" }).click();
      await page.locator(".tab", { hasText: /Plan report/ }).first().waitFor({ timeout: 20_000 });
      // The report renders in the Markdown preview, a webview: its text lives in a nested frame.
      const report = await frameText(/Where it fails/, 60_000);
      assert.match(report, /Step 2: \(stack b c\)/);
      assert.match(report, /longest executable prefix \(LEA\)\s+1 of 6 steps/);
      await page.screenshot({ path: path.join(artifacts, "code-server-plan-report.png") });
    }
  });
});

test("the status bar's menu links a problem to a reference problem, and the item then names it", async () => {
  await withFailureScreenshot("reference", async () => {
    // Keys typed while a webview (the last test's report) has focus never reach the workbench: a
    // click on an editor tab takes it back. Then close the notifications, which would cover the status bar.
    await page.locator(".tab", { hasText: "blocks.pddl" }).first().click();
    await runCommand("Notifications: Clear All Notifications");
    await openFile("task.pddl");
    const item = page.locator(".part.statusbar .statusbar-item", { hasText: "PDDL problem · blocksworld (blocks.pddl)" });
    await item.waitFor({ timeout: 30_000 });
    await item.click();
    const rows = page.locator(".quick-input-widget .monaco-list-row");
    await rows.filter({ hasText: "Change the reference problem" }).first().click({ timeout: 15_000 });
    // The second pick lists the workspace's problems by name, with their paths.
    await rows.filter({ hasText: "reference/goal.pddl" }).first().click({ timeout: 30_000 });
    await page.locator(".part.statusbar .statusbar-item", { hasText: "ref goal.pddl" }).waitFor({ timeout: 30_000 });
    const lines = await editorLines();
    assert.equal(lines[0], "; @reference ../reference/goal.pddl");
    assert.match(lines[1], /^\(define \(problem /, "the directive is inserted above the problem, nothing replaced");
    await page.screenshot({ path: path.join(artifacts, "code-server-reference.png") });
    // An ordinary edit: undo takes it back.
    await page.keyboard.press("Control+Z");
    await page.locator(".part.statusbar .statusbar-item", { hasText: "ref goal.pddl" }).waitFor({ state: "detached", timeout: 30_000 });
  });
});

/** The installed extension's bundle (bundled/libs), which the server has first on its PYTHONPATH. */
function installedBundle() {
  const extensions = path.join(scratch, "extensions");
  const folder = fs.readdirSync(extensions).find((name) => name.startsWith("plansight."));
  assert.ok(folder, `no plansight extension under ${extensions}`);
  return path.join(extensions, folder, "bundled", "libs");
}

/**
 * Where the server run by `python` finds Fast Downward's wheel, looked up as plansight looks it up
 * (without importing it), the bundle first on its PYTHONPATH; undefined when it finds none.
 */
function fastDownwardOrigin(python) {
  const probe = "import importlib.util; spec = importlib.util.find_spec('up_fast_downward'); print(spec.origin if spec else '')";
  try {
    const env = { ...process.env, PYTHONPATH: installedBundle() };
    const origin = execFileSync(python, ["-c", probe], { encoding: "utf8", timeout: 30_000, env }).trim();
    return origin || undefined;
  } catch {
    return undefined;
  }
}

/**
 * This code-server's `python -m plansight serve` processes, with their interpreters: those whose
 * PYTHONPATH holds the bundle of the extension installed under `scratch` (not another run's).
 */
function serverProcesses() {
  const found = [];
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let argv;
    let environment;
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      environment = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    const ours = environment.some((entry) => entry.startsWith("PYTHONPATH=") && entry.includes(scratch));
    if (ours && argv[1] === "-m" && argv[2] === "plansight" && argv[3] === "serve") {
      found.push({ pid, python: argv[0] });
    }
  }
  return found;
}

/**
 * The planning flows (Plan this problem, Repair this plan) run the Fast Downward the .vsix carries,
 * with the interpreter the extension found (python3 from the PATH, no project packages): a platform
 * .vsix bundles the planner's wheel, the universal one does not. Fails, never skips, when the
 * installed package lacks it, and when the server runs from the repository's .venv instead.
 */
function requireBundledPlanner() {
  const python = process.env.PLANSIGHT_TEST_PYTHON ?? "python3";
  const bundle = installedBundle();
  const origin = fastDownwardOrigin(python);
  assert.ok(
    origin?.startsWith(bundle),
    `${path.basename(process.env.PLANSIGHT_VSIX)} carries no Fast Downward that ${python} can run ` +
      `(found: ${origin ?? "none"}): run this test on the linux-x64 .vsix, as \`make test-editors\` does`,
  );
  const servers = serverProcesses();
  assert.ok(servers.length > 0, "no plansight server of this run is running");
  const venv = path.join(repo, ".venv");
  for (const server of servers) {
    assert.ok(!server.python.startsWith(venv), `the server runs with the repository's ${server.python}, not ${python}`);
  }
  console.log(`planner: ${origin} with ${servers.map((server) => server.python).join(", ")}`);
}

/** Where *Plan this problem* writes the plan of solve/sussman.pddl. */
function solvedPlanFile() {
  return path.join(scratch, "workspace", "solve", "sussman.plan");
}

/** A code lens of the active editor whose text matches `text`. */
function lens(text) {
  return page.locator(".editor-group-container.active .codelens-decoration a", { hasText: text });
}

/** The first webview frame whose body shows `selector`, once it does. */
async function webviewFrame(selector, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame !== page.mainFrame() && (await frame.locator(selector).count().catch(() => 0)) > 0) {
        return frame;
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`no webview shows ${selector} within ${timeoutMs} ms`);
    }
    await page.waitForTimeout(250);
  }
}

test("Plan this problem writes <problem>.plan with its @problem line, and the plan's lens says valid", async () => {
  await withFailureScreenshot("solve", async () => {
    // The last flows left a report webview with focus and notifications: take the workbench back.
    await page.locator(".tab", { hasText: "blocks.pddl" }).first().click();
    await runCommand("Notifications: Clear All Notifications");
    requireBundledPlanner();
    await openFile("sussman.pddl");
    const planLens = lens("Plan this problem");
    await planLens.first().waitFor({ timeout: 60_000 });
    assert.equal((await planLens.first().innerText()).trim(), "▷ Plan this problem");
    const planStart = Date.now();
    await planLens.first().click();

    const toast = page.locator(".notification-toast", { hasText: /plansight: (planned|cannot plan|the planner failed)/ });
    await toast.first().waitFor({ timeout: 90_000 });
    const said = await toast.first().innerText();
    console.log(`Plan this problem: ${said.split("\n")[0]} (${Date.now() - planStart} ms, ${elapsed()})`);
    assert.match(said, /plansight: planned sussman\.pddl with fast-downward lama-first in [\d.]+ s; plansight's simulator: valid: \d+ steps, 2 of 2 goals hold/);

    // The plan is written beside the problem, opened, and simulated by the server.
    await page.locator(".tab.active", { hasText: "sussman.plan" }).waitFor({ timeout: 15_000 });
    const written = fs.readFileSync(solvedPlanFile(), "utf8");
    const lines = await editorLines();
    assert.equal(lines[0], "; @problem sussman.pddl");
    assert.equal(written.split("\n")[0], "; @problem sussman.pddl");
    const steps = written.split("\n").filter((line) => line.startsWith("("));
    assert.ok(steps.length >= 6, `Sussman's anomaly needs 6 steps, the plan has:\n${written}`);
    const verdict = lens(/^valid\b/);
    await verdict.first().waitFor({ timeout: 60_000 });
    console.log(`the plan's lens: ${await verdict.first().innerText()} (${elapsed()})`);
    await page.locator(".part.statusbar", { hasText: "PDDL plan · sussman.pddl" }).waitFor({ timeout: 15_000 });
    // The explorer lists the new file.
    await page.keyboard.press("Control+Shift+E");
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "sussman.plan" }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(artifacts, "code-server-solve.png") });
  });
});

test("the plan view opens from its lens and draws the timeline: a lane per object, a column per step", async () => {
  await withFailureScreenshot("plan-view", async () => {
    await page.locator(".tab", { hasText: "sussman.plan" }).first().click();
    await runCommand("Notifications: Clear All Notifications");
    await lens("Show plan view").first().click({ timeout: 30_000 });
    await page.locator(".tab", { hasText: "Plan view: sussman.plan" }).waitFor({ timeout: 30_000 });
    const frame = await webviewFrame("svg[aria-label^='swim lanes']", 60_000);
    assert.match(await frame.locator("h1").innerText(), /Plan view: sussman\.plan/);
    assert.match(await frame.locator(".badge").first().innerText(), /valid/);
    const steps = await frame.locator("svg[aria-label^='swim lanes'] g.col").count();
    const written = fs.readFileSync(solvedPlanFile(), "utf8");
    assert.equal(steps, written.split("\n").filter((line) => line.startsWith("(")).length);
    const lanes = await frame.locator("svg[aria-label^='swim lanes'] > text title").evaluateAll(
      (titles) => titles.map((title) => title.textContent),
    );
    for (const block of ["a", "b", "c"]) {
      assert.ok(lanes.includes(block), `no lane for ${block}: ${lanes.join(", ")}`);
    }
    assert.ok((await frame.locator("svg[aria-label^='swim lanes'] rect.cell").count()) >= steps);
    // A click on a step shows the state after it in the side panel (the page's own script runs under the CSP).
    await frame.locator("svg[aria-label^='swim lanes'] g.col").last().click();
    await frame.locator("#state", { hasText: "(on a b)" }).waitFor({ timeout: 10_000 });
    // The planner's output took the panel: close it, so the picture is the plan and its view.
    if (await page.locator(".part.panel").isVisible()) {
      await page.locator(".tab", { hasText: "sussman.plan" }).first().click();
      await page.keyboard.press("Control+J");
      await page.locator(".part.panel").waitFor({ state: "hidden", timeout: 5_000 });
    }
    await page.waitForTimeout(300); // let the selection paint
    await page.screenshot({ path: path.join(artifacts, "code-server-plan-view.png") });
    // The README's picture: the side bar hidden, so the view is wide enough for its state panel.
    await page.locator(".tab", { hasText: "sussman.plan" }).first().click();
    await page.keyboard.press("Control+B");
    await page.locator(".part.sidebar").waitFor({ state: "hidden", timeout: 5_000 });
    await page.mouse.move(300, 500); // no tooltip from the editor's toolbar in the picture
    await page.waitForTimeout(800); // the webview re-lays out, the tooltip fades
    const picture = path.join(artifacts, "vscode-plan-view.png");
    await page.screenshot({ path: picture, clip: { x: 0, y: 0, width: 1400, height: 640 } });
    if (process.env.PLANSIGHT_E2E_UPDATE_DOCS) {
      fs.copyFileSync(picture, path.join(repo, "docs", "images", "vscode-plan-view.png"));
    }
    await page.keyboard.press("Control+B");
    await page.locator(".part.sidebar").waitFor({ state: "visible", timeout: 5_000 });
  });
});

test("the model view opens from the lens on (:init and shows the objects and the initial state", async () => {
  await withFailureScreenshot("model-view", async () => {
    await page.locator(".tab", { hasText: "sussman.pddl" }).first().click();
    await runCommand("Notifications: Clear All Notifications");
    // Two lenses read "Show model view": on (:objects and on (:init, the last one.
    await lens("Show model view").last().click({ timeout: 30_000 });
    await page.locator(".tab", { hasText: "Model view: sussman" }).waitFor({ timeout: 30_000 });
    const frame = await webviewFrame("h1:has-text('Model view: problem sussman')", 60_000);
    const headings = await frame.locator("h2").allInnerTexts();
    assert.ok(headings.includes("Objects by type") && headings.includes("Initial state"), headings.join(" | "));
    const rows = (await frame.locator("table tbody tr").allInnerTexts()).map((row) => row.replace(/\s+/g, " ").trim());
    // The objects, then the initial state: a predicate's first row names it and counts its facts.
    assert.ok(rows.some((row) => /^object 3 a,? b,? c$/.test(row)), `no row of the three blocks: ${rows.join(" | ")}`);
    assert.ok(rows.includes("on (1) c a"), `no (on c a) row: ${rows.join(" | ")}`);
    assert.ok(rows.includes("on-table (2) a"), `no on-table rows: ${rows.join(" | ")}`);
    assert.ok(rows.some((row) => row.startsWith("handempty (1)")), `no handempty row: ${rows.join(" | ")}`);
    await page.screenshot({ path: path.join(artifacts, "code-server-model-view.png") });
    // One editor group again, for the Settings editor of the next flow.
    await page.locator(".tab", { hasText: "sussman.pddl" }).first().click();
    await runCommand("View: Close All Editor Groups");
  });
});

/** The plan steps of a plan file's text (its `;` lines left out). */
function stepsOf(text) {
  return text.split("\n").filter((line) => line.startsWith("("));
}

test("Repair this plan keeps the correct prefix and completes it (the lens says valid); undo restores the old steps", async () => {
  await withFailureScreenshot("repair", async () => {
    const planFile = path.join(scratch, "workspace", "repair", "anomaly.plan");
    await runCommand("Notifications: Clear All Notifications");
    await openFile("anomaly.plan");
    requireBundledPlanner();
    const failing = lens(/^LEA 4\/6/);
    await failing.first().waitFor({ timeout: 60_000 });
    console.log(`before the repair: ${await failing.first().innerText()} (${elapsed()})`);

    const repairStart = Date.now();
    await runCommand("plansight: Repair this plan");
    // Its answer, not the progress notification that shows while Fast Downward runs.
    const toast = page.locator(".notification-toast", { hasText: /plansight: / }).filter({ hasNotText: /Repairing the plan/ });
    await toast.first().waitFor({ timeout: 90_000 });
    const said = await toast.first().innerText();
    console.log(`Repair this plan: ${said.split("\n")[0]} (${Date.now() - repairStart} ms, ${elapsed()})`);
    assert.match(said, /plansight: plan found/);
    const verdict = lens(/^valid\b/);
    await verdict.first().waitFor({ timeout: 60_000 });
    await page.screenshot({ path: path.join(artifacts, "code-server-repair.png") });

    // The repair is an edit of the buffer: saved, the file holds the prefix and the planner's completion.
    await runCommand("File: Save");
    const deadline = Date.now() + 15_000;
    while (fs.readFileSync(planFile, "utf8") === wrongOrderPlanText && Date.now() < deadline) {
      await page.waitForTimeout(200);
    }
    const repaired = fs.readFileSync(planFile, "utf8");
    assert.equal(repaired.split("\n")[0], "; @problem anomaly.pddl", "the plan's header is kept");
    const steps = stepsOf(repaired);
    assert.deepEqual(steps.slice(0, 4), wrongOrderSteps.slice(0, 4), `the correct prefix is kept:\n${repaired}`);
    // From the prefix's state (a on b, c on the table) the goal needs at least six more steps.
    assert.ok(steps.length >= 10, `the completion is too short to reach the goal:\n${repaired}`);
    assert.notDeepEqual(steps, wrongOrderSteps);

    // One undo takes the whole repair back.
    await page.locator(".tab", { hasText: "anomaly.plan" }).first().click();
    await page.keyboard.press("Control+Z");
    await failing.first().waitFor({ timeout: 60_000 });
    await runCommand("File: Save");
    const restoredBy = Date.now() + 15_000;
    while (fs.readFileSync(planFile, "utf8") !== wrongOrderPlanText && Date.now() < restoredBy) {
      await page.waitForTimeout(200);
    }
    assert.equal(fs.readFileSync(planFile, "utf8"), wrongOrderPlanText);
    await runCommand("View: Close All Editor Groups");
  });
});

test("with no usable Python the user is told what was tried, and offered the settings", async () => {
  // Changing the interpreter restarts the server with it; this one does not exist.
  const missing = path.join(scratch, "no-such-python");
  writeJson(workspaceSettingsFile, { ...workspaceSettings, "plansight.interpreter": missing });
  const toast = page.locator(".notification-toast", { hasText: "plansight needs Python 3.10 or newer" });
  await toast.waitFor({ timeout: 30_000 });
  assert.ok((await toast.innerText()).includes(`plansight.interpreter: \`${missing} --version\` failed (ENOENT)`));
  const openSettings = toast.getByRole("button", { name: "Open settings" });
  await openSettings.waitFor();
  await page.waitForTimeout(500); // the toast fades in
  await page.screenshot({ path: path.join(artifacts, "code-server-no-python.png") });
  await openSettings.click();
  // The Settings editor, filtered to this extension's settings (in code-server the interpreter and
  // server path, machine settings, are under its "Remote" tab).
  await page.locator(".settings-editor .setting-item", { hasText: "Domain Globs" }).first().waitFor({ timeout: 15_000 });
});
