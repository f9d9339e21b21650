/**
 * `plansight.setDomain` and `plansight.setReference`: link the active problem to a domain (a plan to
 * a problem), or either to its reference (a reference problem, a ground-truth plan), chosen from the
 * workspace, by writing the `; @domain` / `; @problem` / `; @reference` / `; @reference-plan` line at
 * the top of the file.
 *
 * The change is an ordinary edit of the buffer (undoable, saved by the user), because the directive
 * is the one link rule that lives with the file and wins over settings and conventions.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as vscode from "vscode";

import { directiveEdit, linkChoice, type LinkTarget } from "./directiveEdit";
import { definedHeader } from "./fileKind";

export const SET_DOMAIN_COMMAND = "plansight.setDomain";
export const SET_REFERENCE_COMMAND = "plansight.setReference";

/** The header is near the top; a multi-megabyte problem must not be read whole to learn its kind. */
const HEAD_BYTES = 4096;
const MAX_FILES = 5000;
const EXCLUDED = "**/{node_modules,.git}/**";

async function head(uri: vscode.Uri): Promise<string | undefined> {
  try {
    if (uri.scheme === "file") {
      const handle = await fs.open(uri.fsPath, "r");
      try {
        const buffer = Buffer.alloc(HEAD_BYTES);
        const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
        return buffer.subarray(0, bytesRead).toString("utf8");
      } finally {
        await handle.close();
      }
    }
    return Buffer.from((await vscode.workspace.fs.readFile(uri)).subarray(0, HEAD_BYTES)).toString("utf8");
  } catch {
    return undefined; // unreadable: simply not offered
  }
}

interface Candidate extends vscode.QuickPickItem {
  uri?: vscode.Uri;
}

export type OfferedKind = "domain" | "problem" | "plan";

/** The workspace's files of a kind: domains and problems by their header, plans by their extension. */
async function candidates(kind: OfferedKind, exclude?: vscode.Uri): Promise<Candidate[]> {
  const found: Candidate[] = [];
  const excluded = exclude?.toString();
  if (kind === "plan") {
    for (const uri of await vscode.workspace.findFiles("**/*.{plan,soln,sol}", EXCLUDED, MAX_FILES)) {
      if (uri.toString() !== excluded) {
        found.push({ label: path.basename(uri.path), description: vscode.workspace.asRelativePath(uri), uri });
      }
    }
  } else {
    const files = await vscode.workspace.findFiles("**/*.pddl", EXCLUDED, MAX_FILES);
    await Promise.all(files.map(async (uri) => {
      if (uri.toString() === excluded) {
        return;
      }
      const header = definedHeader((await head(uri)) ?? "");
      if (header?.kind === kind) {
        found.push({ label: header.name, description: vscode.workspace.asRelativePath(uri), uri });
      }
    }));
  }
  return found.sort((a, b) => (a.description ?? "").localeCompare(b.description ?? ""));
}

const BROWSE = "Browse…";

/**
 * Let the user choose a file of a kind: the workspace's files in a quick pick, and "Browse…" for one
 * elsewhere (a reference kept outside the students' folder, say). Undefined: cancelled.
 */
export async function pickFile(kind: OfferedKind, placeHolder: string, exclude?: vscode.Uri): Promise<vscode.Uri | undefined> {
  const items = await candidates(kind, exclude);
  const browse: Candidate = { label: `$(folder-opened) ${BROWSE}`, description: `choose a ${kind} file anywhere` };
  const chosen = await vscode.window.showQuickPick([...items, browse], { placeHolder, matchOnDescription: true });
  if (!chosen) {
    return undefined;
  }
  if (chosen.uri) {
    return chosen.uri;
  }
  const filters: Record<string, string[]> = kind === "plan" ? { Plans: ["plan", "soln", "sol", "txt"] } : { PDDL: ["pddl"] };
  const picked = await vscode.window.showOpenDialog({
    canSelectFiles: true,
    canSelectFolders: false,
    canSelectMany: false,
    defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
    filters,
    openLabel: `Use this ${kind}`,
  });
  return picked?.[0];
}

/** The document a command acts on: the one it was invoked on (context menu), else the active one. */
export async function targetDocument(resource?: unknown): Promise<vscode.TextDocument | undefined> {
  return resource instanceof vscode.Uri
    ? vscode.workspace.openTextDocument(resource)
    : vscode.window.activeTextEditor?.document;
}

export async function linkToPartner(resource?: unknown, target: LinkTarget = "partner"): Promise<void> {
  const document = await targetDocument(resource);
  if (!document) {
    void vscode.window.showInformationMessage("plansight: open a PDDL problem or plan to link it.");
    return;
  }
  const choice = linkChoice(document.languageId, definedHeader(document.getText())?.kind === "domain", target);
  if (typeof choice === "string") {
    void vscode.window.showInformationMessage(`plansight: ${choice}`);
    return;
  }
  const what = choice.key.replace("-", " ");
  const chosen = await pickFile(
    choice.offer,
    `Link ${path.basename(document.uri.path)} to this ${what} (writes a ; @${choice.key} line at the top)`,
    document.uri,
  );
  if (!chosen) {
    return;
  }
  const relative = path.relative(path.dirname(document.uri.fsPath), chosen.fsPath);
  const change = directiveEdit(document.getText(), choice.key, relative);
  const { start, end } = change.range;
  const edit = new vscode.WorkspaceEdit();
  edit.replace(document.uri, new vscode.Range(start.line, start.character, end.line, end.character), change.newText);
  await vscode.workspace.applyEdit(edit);
}
