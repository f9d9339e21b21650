/**
 * The HTML a plan view or model view webview is given: the server's page, with the extension's own
 * Content-Security-Policy and nonce.
 *
 * The server's page (`plansight.server.planView` / `modelView`) already carries a strict policy, but
 * the webview must not depend on the server getting it right: a webview runs with the extension's
 * rights to post messages, so what may run in it is decided here. Every policy the page declares is
 * removed and one is put first in `<head>`: nothing may load (`default-src 'none'`), and only
 * `<style>` and `<script>` elements that carried the server's nonce run, re-tagged with a nonce the
 * extension draws for this webview. Anything else the page holds (a script without the nonce, an
 * inline handler) stays inert, because the policy forbids inline code that lacks the new nonce.
 *
 * This module must not import `vscode`: the Node tests check it directly and against the real server.
 */
import { randomBytes } from "node:crypto";

/** A fresh nonce for one webview's content. */
export function newNonce(): string {
  return randomBytes(18).toString("base64url");
}

/** The policy of every plansight webview. */
export function webviewPolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src data:;`;
}

const POLICY_META = /<meta\s[^>]*http-equiv\s*=\s*["']?content-security-policy["']?[^>]*>/gi;
const REFRESH_META = /<meta\s[^>]*http-equiv\s*=\s*["']?refresh["']?[^>]*>/gi;
const BASE = /<base\s[^>]*>/gi;

/**
 * `html` (the server's page) with the extension's policy and `nonce`. The page's own nonce is read
 * from its policy; the `<style>`/`<script>` tags that carried it get `nonce` instead, and any other
 * `nonce` attribute is dropped, so an element the server did not tag can never run.
 */
export function webviewHtml(html: string, nonce: string): string {
  const declared = /'nonce-([A-Za-z0-9_\-+/=]+)'/.exec((html.match(POLICY_META) ?? []).join(" "))?.[1];
  let page = html.replace(POLICY_META, "").replace(REFRESH_META, "").replace(BASE, "");
  page = page.replace(/<(style|script)\b([^>]*)>/gi, (_whole, tag: string, attributes: string) => {
    const own = /\snonce\s*=\s*["']([^"']*)["']/i.exec(attributes)?.[1];
    const rest = attributes.replace(/\snonce\s*=\s*("[^"]*"|'[^']*'|[^\s>]*)/gi, "");
    return declared !== undefined && own === declared ? `<${tag} nonce="${nonce}"${rest}>` : `<${tag}${rest}>`;
  });
  const meta = `<meta http-equiv="Content-Security-Policy" content="${webviewPolicy(nonce)}">`;
  const head = /<head(\s[^>]*)?>/i.exec(page);
  if (head) {
    const at = head.index + head[0].length;
    return page.slice(0, at) + meta + page.slice(at);
  }
  return `<!DOCTYPE html><html><head>${meta}</head><body>${page}</body></html>`;
}

/** What `plansight.server.planView` and `modelView` answer. */
export interface ViewResult {
  title: string;
  html: string;
}

export function isViewResult(value: unknown): value is ViewResult {
  const result = value as Partial<ViewResult> | null;
  return typeof result === "object" && result !== null && typeof result.title === "string" && typeof result.html === "string";
}

/** The options every plansight view webview is created with: its script runs, it reaches no file. */
export const VIEW_WEBVIEW_OPTIONS = {
  enableScripts: true,
  enableCommandUris: false,
  enableForms: false,
  localResourceRoots: [],
  enableFindWidget: true,
  retainContextWhenHidden: false,
} as const;
