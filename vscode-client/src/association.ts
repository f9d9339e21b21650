/**
 * The server's `plansight/association` answer (which domain/problem a file is checked against, and
 * by which rule), and what the status bar says about it.
 *
 * The rule is shown because it tells the user where to change the link: a `; @domain` line, the
 * `plansight.domainGlobs` setting, or the file names the conventions look at.
 *
 * This module must not import `vscode`: the request goes through anything that can send one (the
 * `LanguageClient` in the extension, a bare protocol connection in the tests).
 */
import * as path from "node:path";

import { SERVER_REQUEST_METHODS } from "./serverProtocol";

export const ASSOCIATION_REQUEST = SERVER_REQUEST_METHODS.association;

/** Which rule linked a partner ("flag" is the CLI's; the server never answers it, but it is valid). */
export type LinkRule = "flag" | "directive" | "setting" | "convention";

export interface AssociationResult {
  kind: "domain" | "problem" | "plan" | "unknown";
  domain: { path: string; name: string | null; how: LinkRule | null } | null;
  problem: { path: string; how: LinkRule | null } | null;
  /** A problem's reference problem (equivalence, grading); absent from older servers. */
  reference?: Link | null;
  /** A plan's ground-truth plan (StV, AQM); absent from older servers. */
  referencePlan?: Link | null;
}

export interface Link {
  path: string;
  how: LinkRule | null;
}

/** The part of `LanguageClient` / `ProtocolConnection` the request needs (undefined: no server). */
export interface RequestSender {
  sendRequest<R>(method: string, params: unknown): Promise<R | undefined>;
}

export async function requestAssociation(sender: RequestSender, uri: string): Promise<AssociationResult | undefined> {
  return parseAssociation(await sender.sendRequest<unknown>(ASSOCIATION_REQUEST, { uri }));
}

const KINDS = new Set(["domain", "problem", "plan", "unknown"]);
const RULES = new Set(["flag", "directive", "setting", "convention"]);

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}

function rule(value: unknown): LinkRule | null {
  return typeof value === "string" && RULES.has(value) ? (value as LinkRule) : null;
}

/** The answer, checked: a server of another version must not break the status bar. */
export function parseAssociation(raw: unknown): AssociationResult | undefined {
  const answer = record(raw);
  if (!answer || typeof answer.kind !== "string" || !KINDS.has(answer.kind)) {
    return undefined;
  }
  const domain = record(answer.domain);
  const result: AssociationResult = {
    kind: answer.kind as AssociationResult["kind"],
    domain: domain && typeof domain.path === "string"
      ? { path: domain.path, name: typeof domain.name === "string" ? domain.name : null, how: rule(domain.how) }
      : null,
    problem: link(answer.problem),
  };
  // Only a server that knows references answers them; "not said" and "none" differ for the status bar.
  if ("reference" in answer) {
    result.reference = link(answer.reference);
  }
  if ("referencePlan" in answer) {
    result.referencePlan = link(answer.referencePlan);
  }
  return result;
}

function link(value: unknown): Link | null {
  const found = record(value);
  return found && typeof found.path === "string" ? { path: found.path, how: rule(found.how) } : null;
}

const KIND_LABEL = { domain: "PDDL domain", problem: "PDDL problem", plan: "PDDL plan", unknown: "PDDL file" };

function domainRule(how: LinkRule | null, name: string | null): string {
  switch (how) {
    case "directive":
      return "linked by ; @domain";
    case "setting":
      return "from plansight.domainGlobs";
    case "flag":
      return "given on the command line";
    case "convention":
      return `found by its (:domain ${name ?? "NAME"}) in the same folder or one above`;
    default:
      return "found by an unknown rule";
  }
}

function referenceRule(how: LinkRule | null, kind: "problem" | "plan"): string {
  const directive = kind === "plan" ? "@reference-plan" : "@reference";
  const setting = kind === "plan" ? "plansight.referencePlanGlobs" : "plansight.referenceGlobs";
  switch (how) {
    case "directive":
      return `linked by ; ${directive}`;
    case "setting":
      return `from ${setting}`;
    case "flag":
      return "given on the command line";
    default:
      return "found by an unknown rule";
  }
}

function problemRule(how: LinkRule | null): string {
  switch (how) {
    case "directive":
      return "linked by ; @problem";
    case "flag":
      return "given on the command line";
    case "convention":
      return "found next to the plan (same name, or the folder's only problem)";
    default:
      return "found by an unknown rule";
  }
}

/** The item's text and tooltip: `PDDL problem · blocksworld (domain.pddl)`, the paths and rules on hover. */
export function associationStatus(result: AssociationResult): { text: string; tooltip: string } {
  const label = KIND_LABEL[result.kind];
  if (result.kind !== "problem" && result.kind !== "plan") {
    return { text: label, tooltip: `plansight: this file is a ${label}.` };
  }
  const parts: string[] = [label];
  const lines: string[] = [];
  const { domain, problem } = result;
  if (result.kind === "plan") {
    if (problem) {
      parts.push(path.basename(problem.path));
      lines.push(`Checked against the problem ${problem.path} (${problemRule(problem.how)}).`);
    } else {
      parts.push("no problem");
      lines.push("No problem found for this plan: only its syntax is checked.");
    }
  }
  if (domain) {
    const name = domain.name ?? "domain";
    parts.push(`${name} (${path.basename(domain.path)})`);
    const via = result.kind === "plan" && domain.how !== "directive" && problem ? "its problem's domain, " : "";
    lines.push(`Checked against the domain ${name}: ${domain.path} (${via}${domainRule(domain.how, domain.name)}).`);
  } else if (result.kind === "problem" || problem) {
    parts.push("no domain");
    lines.push("No domain found: only the syntax is checked.");
  }
  const reference = result.kind === "plan" ? result.referencePlan : result.reference;
  const what = result.kind === "plan" ? "reference plan" : "reference problem";
  if (reference) {
    parts.push(`ref ${path.basename(reference.path)}`);
    lines.push(`Compared with the ${what} ${reference.path} (${referenceRule(reference.how, result.kind)}).`);
  } else if (reference === null) {
    lines.push(`No ${what}: link one to ${result.kind === "plan" ? "score this plan against it" : "check equivalence"}.`);
  }
  const partner = result.kind === "plan" ? "problem" : "domain";
  lines.push(`Click to change the ${partner} or the ${what} (adds a ; @ line at the top).`);
  return { text: parts.join(" · "), tooltip: lines.join("\n") };
}
