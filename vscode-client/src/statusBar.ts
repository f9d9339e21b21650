/**
 * The status-bar item: what the active PDDL-family file is, and (later) what it is checked against.
 *
 * The text comes from a {@link FileDescriber}. Today that is {@link describeLocally}, which knows the
 * kind only; when the server can answer "which domain/problem is this file associated with", a
 * describer that asks it replaces the local one (see `extension.ts`), and this item shows the
 * association and lets the user change it with no change here.
 */
import * as vscode from "vscode";

import { detectKind, statusText, type FileDescription } from "./fileKind";

export type FileDescriber = (document: vscode.TextDocument) => Promise<FileDescription | undefined>;

/** The describer that needs no server: the kind, from the language and the header. */
export const describeLocally: FileDescriber = async (document) => {
  const kind = detectKind(document.languageId, document.getText());
  return kind === undefined ? undefined : { kind };
};

export class FileStatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscriptions: vscode.Disposable[] = [];
  private pending: ReturnType<typeof setTimeout> | undefined;
  /** Bumped on every refresh, so an answer for a file that is no longer active is dropped. */
  private generation = 0;

  constructor(private describer: FileDescriber, clickCommand: string) {
    this.item = vscode.window.createStatusBarItem("plansight.fileKind", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "plansight file kind";
    this.item.command = clickCommand;
    this.subscriptions.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.refresh()),
      // Editing can turn a domain into a problem (the header is being typed): refresh, but not per key.
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document === vscode.window.activeTextEditor?.document) {
          this.refreshSoon();
        }
      }),
    );
    this.refresh();
  }

  /** Swap in a describer that knows more (the server's association) and show its answer. */
  setDescriber(describer: FileDescriber): void {
    this.describer = describer;
    this.refresh();
  }

  refresh(): void {
    const generation = ++this.generation;
    const document = vscode.window.activeTextEditor?.document;
    if (!document) {
      this.item.hide();
      return;
    }
    this.describer(document).then(
      (description) => {
        if (generation !== this.generation) {
          return;
        }
        if (!description) {
          this.item.hide();
          return;
        }
        const { text, tooltip } = statusText(description);
        this.item.text = text;
        this.item.tooltip = tooltip;
        this.item.show();
      },
      () => this.item.hide(),
    );
  }

  /** Refresh after a quiet moment: for bursts (typing, diagnostics of several files arriving). */
  refreshSoon(): void {
    if (this.pending !== undefined) {
      clearTimeout(this.pending);
    }
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.refresh();
    }, 300);
  }

  dispose(): void {
    if (this.pending !== undefined) {
      clearTimeout(this.pending);
    }
    this.subscriptions.forEach((subscription) => subscription.dispose());
    this.item.dispose();
  }
}
