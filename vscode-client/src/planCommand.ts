/**
 * *plansight: Plan this problem* (palette, context menu, the `▷ Plan this problem` lens, Alt+P in a
 * problem): runs the server's planner on the problem as it is in the editor, writes the plan as
 * `<problem>.plan` beside it (or a name the user picks) with a `; @problem` line, and opens it, where
 * the server simulates it at once. The planner's output goes to the *plansight planner* output
 * channel as the server streams it. The decisions are in `planProblem.ts`; this module talks to VS Code.
 */
import * as path from "node:path";
import * as vscode from "vscode";

import { detectKind } from "./fileKind";
import { targetDocument } from "./linkCommand";
import {
  OPEN_SETTINGS,
  planFileText,
  plannerLines,
  planPathFor,
  SHOW_OUTPUT,
  shouldAskForName,
  solveNotice,
} from "./planProblem";
import { type CommandRunner, runServerCommand, SERVER_COMMANDS } from "./serverCommands";
import type { SolveProblemResult } from "./serverProtocol";

export const PLAN_PROBLEM_COMMAND = "plansight.planProblem";
const IS_PROBLEM_CONTEXT = "plansight.editorIsProblem";

/**
 * The server's log channel, except that the planner's lines (the server marks them) go to `planner`:
 * the language client writes every `window/logMessage` to the one channel it is given.
 */
export function routedOutput(main: vscode.OutputChannel, planner: vscode.OutputChannel): vscode.OutputChannel {
  return new Proxy(main, {
    get(target, property, receiver) {
      if (property === "appendLine") {
        return (value: string) => {
          const lines = plannerLines(value);
          if (lines === undefined) {
            target.appendLine(value);
          } else {
            planner.appendLine(lines.join("\n"));
          }
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** Where to write the plan, or undefined when the user dismissed the file dialog. */
async function planTarget(problem: vscode.TextDocument): Promise<vscode.Uri | undefined> {
  const untitled = problem.uri.scheme !== "file";
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const proposed = untitled
    ? vscode.Uri.joinPath(folder ?? vscode.Uri.file(process.cwd()), "problem.plan")
    : vscode.Uri.file(planPathFor(problem.uri.fsPath));
  const setting = vscode.workspace.getConfiguration("plansight", problem.uri).get("planner.whenPlanExists");
  if (!shouldAskForName(await exists(proposed), setting, untitled)) {
    return proposed;
  }
  return vscode.window.showSaveDialog({
    defaultUri: proposed,
    filters: { Plans: ["plan", "soln", "sol"] },
    saveLabel: "Write the plan",
    title: `${path.basename(proposed.fsPath)} exists: write the plan to…`,
  });
}

async function writePlan(problem: vscode.TextDocument, result: SolveProblemResult): Promise<vscode.Uri | undefined> {
  const target = await planTarget(problem);
  if (!target || result.plan === null) {
    return undefined;
  }
  const problemPath = problem.uri.scheme === "file" ? problem.uri.fsPath : result.problem;
  const text = planFileText(result.plan, target.fsPath, problemPath);
  await vscode.workspace.fs.writeFile(target, Buffer.from(text, "utf8"));
  await vscode.window.showTextDocument(target, { preview: false });
  return target;
}

export function registerPlanCommand(server: CommandRunner, planner: vscode.OutputChannel): vscode.Disposable[] {
  async function planProblem(resource?: unknown): Promise<void> {
    const document = await targetDocument(resource);
    if (!document || detectKind(document.languageId, document.getText()) !== "problem") {
      void vscode.window.showInformationMessage("plansight: open a PDDL problem to plan it.");
      return;
    }
    const name = path.basename(document.uri.path);
    planner.appendLine(`--- planning ${name} (${new Date().toLocaleTimeString()}) ---`);
    planner.show(true);
    const command = SERVER_COMMANDS.solveProblem;
    const outcome = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `plansight: ${command.progress} ${name}…`, cancellable: true },
      (_progress, token) => runServerCommand(server, command, { uri: document.uri.toString() }, token),
    );
    if (outcome.kind === "cancelled") {
      return;
    }
    if (outcome.kind !== "done") {
      void vscode.window.showErrorMessage(outcome.message);
      return;
    }
    const result = outcome.result as SolveProblemResult;
    const notice = solveNotice(result, name);
    if (notice.kind === "solved" && !(await writePlan(document, result))) {
      void vscode.window.showInformationMessage(`plansight: the plan for ${name} was not written.`);
      return;
    }
    const show = { info: vscode.window.showInformationMessage, warning: vscode.window.showWarningMessage, error: vscode.window.showErrorMessage }[notice.level];
    const choice = await show(notice.text, ...notice.actions);
    if (choice === SHOW_OUTPUT) {
      planner.show(true);
    } else if (choice === OPEN_SETTINGS) {
      await vscode.commands.executeCommand("workbench.action.openSettings", "plansight.planner");
    }
  }

  // Alt+P is bound only where it can work: in a PDDL problem (a domain is pddl too).
  function updateContext(editor: vscode.TextEditor | undefined): void {
    const document = editor?.document;
    const isProblem = document !== undefined && detectKind(document.languageId, document.getText()) === "problem";
    void vscode.commands.executeCommand("setContext", IS_PROBLEM_CONTEXT, isProblem);
  }
  updateContext(vscode.window.activeTextEditor);
  return [
    vscode.commands.registerCommand(PLAN_PROBLEM_COMMAND, planProblem),
    vscode.window.onDidChangeActiveTextEditor(updateContext),
    // a new file becomes a problem as its header is typed
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document === vscode.window.activeTextEditor?.document) {
        updateContext(vscode.window.activeTextEditor);
      }
    }),
  ];
}
