/**
 * The extension's commands that run the server's analyses on a file or folder: validate, repair,
 * check equivalence, grade a folder, show the state at a plan step, show the plan view and the model
 * view (webviews, `webviewHtml.ts`); and the status bar's menu.
 *
 * Each command finds its file (the one it was invoked on from a menu, else the active editor), runs
 * the server command (`serverCommands.ts`, with a cancellable progress notification), and shows the
 * result (`commandResults.ts`): a notification with the verdict, and a report to open. The
 * server does the work and, for repair, the edit; nothing here interprets PDDL.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";

import { hasVerdict, lockedDownHtml, type Rendered, renderEquivalence, renderGrade, renderPlanReport, renderRepair, renderStepState } from "./commandResults";
import { fileActions } from "./fileActions";
import { detectKind } from "./fileKind";
import { pickFile, targetDocument } from "./linkCommand";
import { type CommandRunner, type Outcome, runServerCommand, type ServerCommand, SERVER_COMMANDS } from "./serverCommands";
import { isViewResult, newNonce, VIEW_WEBVIEW_OPTIONS, webviewHtml } from "./webviewHtml";

export const FILE_ACTIONS_COMMAND = "plansight.fileActions";
const REPORT_SCHEME = "plansight-report";

/** Reports as read-only virtual documents, so they open in the Markdown preview and need no file. */
class ReportDocuments implements vscode.TextDocumentContentProvider {
  private readonly reports = new Map<string, string>();
  private count = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.reports.get(uri.toString()) ?? "";
  }

  add(title: string, markdown: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${title}.md`, query: String(++this.count) });
    this.reports.set(uri.toString(), markdown);
    return uri;
  }
}

export function registerCommands(context: vscode.ExtensionContext, server: CommandRunner): vscode.Disposable[] {
  const reports = new ReportDocuments();

  async function run(command: ServerCommand, argument: object): Promise<unknown | undefined> {
    const outcome: Outcome = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `plansight: ${command.progress}…`, cancellable: true },
      (_progress, token) => runServerCommand(server, command, argument, token),
    );
    switch (outcome.kind) {
      case "done":
        return outcome.result ?? null;
      case "cancelled":
        return undefined;
      case "unsupported":
        void vscode.window.showWarningMessage(outcome.message);
        return undefined;
      default: {
        const choice = await vscode.window.showErrorMessage(outcome.message, "Show log");
        if (choice === "Show log") {
          await vscode.commands.executeCommand("plansight.showLog");
        }
        return undefined;
      }
    }
  }

  async function showReport(title: string, markdown: string): Promise<void> {
    const uri = reports.add(title, markdown);
    try {
      await vscode.commands.executeCommand("markdown.showPreview", uri);
    } catch {
      // no Markdown preview (a trimmed-down editor): the Markdown source reads well too
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    }
  }

  async function tell(rendered: Rendered, title: string): Promise<void> {
    const show = {
      info: vscode.window.showInformationMessage,
      warning: vscode.window.showWarningMessage,
      error: vscode.window.showErrorMessage,
    }[rendered.level];
    const buttons = rendered.markdown ? ["Show report"] : [];
    const choice = await show(rendered.summary, ...buttons);
    if (choice === "Show report" && rendered.markdown) {
      await showReport(title, rendered.markdown);
    }
  }

  /** The plan a plan command acts on, or a message saying what to open. */
  async function planDocument(resource: unknown, verb: string): Promise<vscode.TextDocument | undefined> {
    const document = await targetDocument(resource);
    if (document?.languageId !== "pddl-plan") {
      void vscode.window.showInformationMessage(`plansight: open a plan (.plan, .soln, .sol) to ${verb} it.`);
      return undefined;
    }
    return document;
  }

  async function validatePlan(resource?: unknown): Promise<void> {
    const document = await planDocument(resource, "validate");
    if (!document) {
      return;
    }
    const name = path.basename(document.uri.path);
    const result = await run(SERVER_COMMANDS.simulatePlan, { uri: document.uri.toString() });
    if (result !== undefined) {
      await tell(renderPlanReport(result, name), `Plan report ${name}`);
    }
  }

  async function repairPlan(resource?: unknown): Promise<void> {
    const document = await planDocument(resource, "repair");
    if (!document) {
      return;
    }
    // The server edits the buffer itself (workspace/applyEdit), so the repair is one undoable edit.
    const result = await run(SERVER_COMMANDS.repairPlan, { uri: document.uri.toString() });
    if (result !== undefined) {
      await tell(renderRepair(result), "Plan repair");
    }
  }

  async function showStateAtStep(resource?: unknown): Promise<void> {
    const document = await planDocument(resource, "simulate");
    if (!document) {
      return;
    }
    const editor = vscode.window.activeTextEditor;
    const line = editor?.document === document ? editor.selection.active.line : 0;
    const result = await run(SERVER_COMMANDS.stateAtStep, { uri: document.uri.toString(), line });
    if (result === undefined) {
      return;
    }
    const state = renderStepState(result, line);
    if (typeof state === "string") {
      void vscode.window.showInformationMessage(state);
      return;
    }
    const pick = vscode.window.createQuickPick();
    pick.title = state.title;
    pick.placeholder = "Type to filter the atoms and values";
    // basic atoms, then fluent values, then derived atoms, each section under its own separator
    const section = (name: string, items: string[]): vscode.QuickPickItem[] =>
      items.length ? [{ label: name, kind: vscode.QuickPickItemKind.Separator }, ...items.map((label) => ({ label }))] : [];
    pick.items = [
      ...section("Atoms", state.atoms),
      ...section("Fluent values", state.values),
      ...section("Derived by the :derived rules", state.derived),
    ];
    pick.onDidAccept(() => pick.hide());
    pick.onDidHide(() => pick.dispose());
    pick.show();
  }

  async function checkEquivalence(resource?: unknown): Promise<void> {
    const document = await targetDocument(resource);
    if (!document || detectKind(document.languageId, document.getText()) !== "problem") {
      void vscode.window.showInformationMessage("plansight: open a PDDL problem to compare it with its reference.");
      return;
    }
    const name = path.basename(document.uri.path);
    const result = await run(SERVER_COMMANDS.checkEquivalence, { uri: document.uri.toString() });
    if (result === undefined) {
      return;
    }
    if (!hasVerdict(result)) {
      // No verdict: most often no reference is linked yet, which the user can fix from here.
      const words = renderEquivalence(result, name).summary;
      const choice = await vscode.window.showWarningMessage(words, "Set the reference…");
      if (choice) {
        await vscode.commands.executeCommand("plansight.setReference", document.uri);
      }
      return;
    }
    await tell(renderEquivalence(result, name), `Equivalence ${name}`);
  }

  async function gradeFolder(resource?: unknown): Promise<void> {
    let folder = resource instanceof vscode.Uri ? resource : undefined;
    if (!folder) {
      const picked = await vscode.window.showOpenDialog({
        canSelectFiles: false,
        canSelectFolders: true,
        canSelectMany: false,
        defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
        openLabel: "Grade the submissions in this folder",
      });
      folder = picked?.[0];
    }
    if (!folder) {
      return;
    }
    const reference = await pickFile("problem", `The reference problem the submissions in ${path.basename(folder.fsPath)} are compared with`);
    if (!reference) {
      return;
    }
    // The report goes to the extension's storage, never into the students' folder.
    const reportDir = path.join(context.globalStorageUri.fsPath, "grade-reports");
    fs.mkdirSync(reportDir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const report = path.join(reportDir, `${path.basename(folder.fsPath)}-${stamp}.html`);
    const result = await run(SERVER_COMMANDS.gradeFolder, { folder: folder.fsPath, reference: reference.fsPath, report });
    if (result === undefined) {
      return;
    }
    const graded = renderGrade(result);
    const written = graded.report ?? report;
    if (fs.existsSync(written)) {
      const panel = vscode.window.createWebviewPanel(
        "plansight.gradeReport",
        `Grading: ${path.basename(folder.fsPath)}`,
        vscode.ViewColumn.Active,
        { enableScripts: false, enableFindWidget: true, localResourceRoots: [] },
      );
      panel.webview.html = lockedDownHtml(fs.readFileSync(written, "utf8"));
    }
    const choice = await vscode.window.showInformationMessage(graded.rendered.summary, ...(fs.existsSync(written) ? ["Save report as…"] : []));
    if (choice === "Save report as…") {
      const target = await vscode.window.showSaveDialog({
        defaultUri: vscode.Uri.file(path.join(folder.fsPath, "..", path.basename(written))),
        filters: { HTML: ["html"] },
      });
      if (target) {
        await vscode.workspace.fs.copy(vscode.Uri.file(written), target, { overwrite: true });
      }
    }
  }

  /** One webview per (view, file): asking again shows it again, and saving the file redraws it. */
  const views = new Map<string, { panel: vscode.WebviewPanel; command: ServerCommand; uri: string }>();

  async function showView(command: ServerCommand, document: vscode.TextDocument): Promise<void> {
    const uri = document.uri.toString();
    const key = `${command.id} ${uri}`;
    const result = await run(command, { uri });
    if (result === undefined) {
      return;
    }
    if (!isViewResult(result)) {
      void vscode.window.showErrorMessage(`plansight: the server's answer to ${command.id} is not a page.`);
      return;
    }
    let view = views.get(key);
    if (!view) {
      const panel = vscode.window.createWebviewPanel("plansight.view", result.title, vscode.ViewColumn.Beside, VIEW_WEBVIEW_OPTIONS);
      view = { panel, command, uri };
      views.set(key, view);
      panel.onDidDispose(() => views.delete(key));
    }
    view.panel.title = result.title;
    view.panel.webview.html = webviewHtml(result.html, newNonce());
    view.panel.reveal(undefined, true);
  }

  async function redrawViews(): Promise<void> {
    // A saved partner (the problem of a plan, the domain of a problem) changes the views of the files
    // linked to it too, so every open view is redrawn; there are rarely more than two.
    for (const view of views.values()) {
      const outcome = await runServerCommand(server, view.command, { uri: view.uri });
      if (outcome.kind === "done" && isViewResult(outcome.result)) {
        view.panel.webview.html = webviewHtml(outcome.result.html, newNonce());
      }
    }
  }

  async function showPlanView(resource?: unknown): Promise<void> {
    const document = await planDocument(resource, "see");
    if (document) {
      await showView(SERVER_COMMANDS.planView, document);
    }
  }

  async function showModelView(resource?: unknown): Promise<void> {
    const document = await targetDocument(resource);
    const kind = document ? detectKind(document.languageId, document.getText()) : undefined;
    if (!document || (kind !== "domain" && kind !== "problem")) {
      void vscode.window.showInformationMessage("plansight: open a PDDL domain or problem to see its model.");
      return;
    }
    await showView(SERVER_COMMANDS.modelView, document);
  }

  async function showFileActions(): Promise<void> {
    const document = vscode.window.activeTextEditor?.document;
    const kind = document ? detectKind(document.languageId, document.getText()) : undefined;
    const actions = fileActions(kind ?? "domain");
    const chosen = await vscode.window.showQuickPick(actions, {
      placeHolder: document ? `plansight: ${path.basename(document.uri.path)}` : "plansight",
    });
    if (chosen) {
      await vscode.commands.executeCommand(chosen.command);
    }
  }

  return [
    vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, reports),
    vscode.commands.registerCommand("plansight.validatePlan", validatePlan),
    vscode.commands.registerCommand("plansight.repairPlan", repairPlan),
    vscode.commands.registerCommand("plansight.showStateAtStep", showStateAtStep),
    vscode.commands.registerCommand("plansight.checkEquivalence", checkEquivalence),
    vscode.commands.registerCommand("plansight.gradeFolder", gradeFolder),
    vscode.commands.registerCommand(FILE_ACTIONS_COMMAND, showFileActions),
    vscode.commands.registerCommand("plansight.showPlanView", showPlanView),
    vscode.commands.registerCommand("plansight.showModelView", showModelView),
    vscode.workspace.onDidSaveTextDocument(() => (views.size ? redrawViews() : undefined)),
    { dispose: () => views.forEach((view) => view.panel.dispose()) },
  ];
}
