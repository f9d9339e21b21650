/**
 * What a PDDL-family file is (domain, problem, plan), for the status bar.
 *
 * The same rule as the server's `detect_kind` (analyses/syntax/documents.py): plans by language, domains
 * and problems by their `(define (domain|problem` header, and a header-less `.pddl` is a problem
 * when it has problem sections. Deciding it here keeps the status bar instant and working while the
 * server starts; the association (which domain a problem is checked against) is the server's job
 * and arrives through {@link FileDescription}'s optional fields once the server offers it.
 *
 * This module must not import `vscode`.
 */
import * as path from "node:path";

import { type AssociationResult, associationStatus } from "./association";

export type FileKind = "domain" | "problem" | "plan" | "ltl";

/** What the status bar shows for a file. */
export interface FileDescription {
  kind: FileKind;
  /** The domain file a problem or plan is checked against (from the server; not offered yet). */
  domainPath?: string;
  /** The problem file a plan is checked against (from the server; not offered yet). */
  problemPath?: string;
  /** The server's full answer (partners and the rules that found them), when it gave one. */
  association?: AssociationResult;
}

// The header may be preceded by comments and whitespace; `define` and the kind are case-insensitive.
const DEFINE = /\(\s*define\s*\(\s*(domain|problem)\b/i;
const PROBLEM_SECTIONS = /\(\s*:(init|objects|goal)\b/i;
const HEAD_CHARS = 1 << 16;

/** Drop `;` comments, so that a commented-out header does not count. */
function withoutComments(text: string): string {
  return text.replace(/;[^\n]*/g, "");
}

const DEFINE_NAMED = /\(\s*define\s*\(\s*(domain|problem)\s+([^\s();]+)/i;

/** What a PDDL text defines, and its name, by its header only (so the first few KB are enough). */
export function definedHeader(text: string): { kind: "domain" | "problem"; name: string } | undefined {
  const header = DEFINE_NAMED.exec(withoutComments(text.slice(0, HEAD_CHARS)));
  if (!header) {
    return undefined;
  }
  return { kind: header[1].toLowerCase() === "domain" ? "domain" : "problem", name: header[2] };
}

export function detectKind(languageId: string, text: string): FileKind | undefined {
  if (languageId === "pddl-plan") {
    return "plan";
  }
  if (languageId === "ltl") {
    return "ltl";
  }
  if (languageId !== "pddl") {
    return undefined;
  }
  const head = withoutComments(text.slice(0, HEAD_CHARS));
  const header = DEFINE.exec(head);
  if (header) {
    return header[1].toLowerCase() === "domain" ? "domain" : "problem";
  }
  return PROBLEM_SECTIONS.test(head) ? "problem" : "domain";
}

const KIND_LABEL: Record<FileDescription["kind"], string> = {
  domain: "PDDL domain",
  problem: "PDDL problem",
  plan: "PDDL plan",
  ltl: "LTL goal",
};

/** The item's text and tooltip for a description: pure, so the wording is easy to review. */
export function statusText(description: FileDescription): { text: string; tooltip: string } {
  if (description.association) {
    return associationStatus(description.association);
  }
  const label = KIND_LABEL[description.kind];
  const partners: string[] = [];
  if (description.domainPath) {
    partners.push(`domain ${path.basename(description.domainPath)}`);
  }
  if (description.problemPath) {
    partners.push(`problem ${path.basename(description.problemPath)}`);
  }
  const text = partners.length > 0 ? `${label} → ${partners.join(", ")}` : label;
  const tooltip = partners.length > 0
    ? `plansight checks this ${label} against the ${partners.join(" and the ")}`
    : `plansight: this file is a ${label}. Click to show the language server log.`;
  return { text, tooltip };
}
