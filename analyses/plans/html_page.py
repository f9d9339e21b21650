"""The page every plansight view is drawn on: one self-contained HTML file, safe to open anywhere.

The plan view and the model view are opened from a browser (``plansight plan --report``), from a VS
Code webview and from files mailed around by teachers, and they show names taken from user files. So
each page carries everything it needs (inline CSS, inline SVG, one small inline script; nothing
fetched, not even a font), declares a Content-Security-Policy that allows only its own nonce-tagged
style and script, and escapes every name it prints. The colours are CSS variables: a browser picks
light or dark from ``prefers-color-scheme``, and inside VS Code (whose webviews put a ``vscode-light``
/ ``vscode-dark`` class on ``<body>``) the editor's own ``--vscode-*`` theme colours win.
"""

from __future__ import annotations

import html
import json
import secrets
from typing import Any

CHAR_WIDTH = 7.2
"""Width of one character of the 12px SVG labels: enough to size label columns without measuring."""


def new_nonce() -> str:
    """A fresh nonce for one page; a page's CSP admits only the style and script carrying it."""
    return secrets.token_urlsafe(18)


def esc(value: object) -> str:
    """Text or an attribute value from a user file, made inert (quotes included)."""
    return html.escape(str(value), quote=True)


def csp(nonce: str) -> str:
    """The policy of every view: nothing may load, and only the page's own style and script run."""
    return f"default-src 'none'; style-src 'nonce-{nonce}'; script-src 'nonce-{nonce}'; img-src data:"


def json_island(element_id: str, data: Any, nonce: str) -> str:
    """Data for the page's script as a JSON block the browser never executes; ``<``, ``>`` and ``&`` are
    escaped inside the JSON so that a name such as ``</script>`` cannot end the block."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return f'<script type="application/json" id="{esc(element_id)}" nonce="{nonce}">{text}</script>'


BASE_CSS = """
:root { color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --border: #d0d7de; --panel: #f6f8fa;
  --accent: #0969da; --add: #1a7f37; --del: #cf222e; --touch: #b6d7f7; --fail-bg: #ffebe9;
  --dim: #8c959f; --select: #fff8c5; --font: system-ui, -apple-system, "Segoe UI", sans-serif;
  --mono: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
@media (prefers-color-scheme: dark) { :root {
  --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --panel: #151b23;
  --accent: #4493f8; --add: #3fb950; --del: #f85149; --touch: #1f4b7a; --fail-bg: #3c1618;
  --dim: #6e7681; --select: #3b2e00; } }
body.vscode-light, body.vscode-dark, body.vscode-high-contrast, body.vscode-high-contrast-light {
  --bg: var(--vscode-editor-background); --fg: var(--vscode-editor-foreground);
  --muted: var(--vscode-descriptionForeground);
  --border: var(--vscode-panel-border, var(--vscode-widget-border));
  --panel: var(--vscode-sideBar-background, var(--vscode-editor-background));
  --accent: var(--vscode-textLink-foreground);
  --add: var(--vscode-gitDecoration-addedResourceForeground, var(--vscode-charts-green));
  --del: var(--vscode-errorForeground); --touch: var(--vscode-editor-selectionHighlightBackground);
  --fail-bg: var(--vscode-inputValidation-errorBackground, var(--vscode-editor-background));
  --dim: var(--vscode-disabledForeground, var(--vscode-descriptionForeground));
  --select: var(--vscode-editor-findMatchHighlightBackground);
  --font: var(--vscode-font-family); --mono: var(--vscode-editor-font-family); }
body { background: var(--bg); color: var(--fg); font: 14px/1.45 var(--font); margin: 1.2em 1.6em; }
h1 { font-size: 1.35em; margin: 0 0 .2em; } h2 { font-size: 1.1em; margin: 1.4em 0 .5em; }
code, .atom, td.mono { font-family: var(--mono); font-size: .92em; }
.muted { color: var(--muted); } .note { color: var(--muted); font-style: italic; }
.badge { border: 1px solid currentColor; border-radius: .8em; padding: 0 .6em; font-size: .9em; }
.ok { color: var(--add); } .bad { color: var(--del); }
.failure { background: var(--fail-bg); border-left: 4px solid var(--del); padding: .5em .8em;
  margin: .8em 0; }
.scroll { overflow-x: auto; border: 1px solid var(--border); background: var(--panel); padding: .3em; }
table { border-collapse: collapse; margin: .3em 0; }
th, td { border-bottom: 1px solid var(--border); padding: .25em .6em; text-align: left; vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
svg { display: block; font: 12px var(--font); }
svg text { fill: var(--fg); } svg .muted { fill: var(--muted); }
svg .grid { stroke: var(--border); stroke-width: 1; }
ul.tree { list-style: none; padding-left: 1.2em; margin: .2em 0; }
ul.tree li::before { content: "└ "; color: var(--muted); }
"""


def page(title: str, body: str, nonce: str, css: str = "", script: str = "") -> str:
    """A whole page: the CSP first in ``<head>`` (before anything it governs), then the styles, the body
    and the script. ``title`` is escaped here; ``body`` must already be escaped HTML."""
    script_tag = f'<script nonce="{nonce}">{script}</script>' if script else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp(nonce)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style nonce=\"{nonce}\">{BASE_CSS}{css}</style></head>\n"
        f"<body>\n{body}\n{script_tag}</body></html>\n"
    )


def text_width(text: str) -> float:
    """The approximate width in pixels of an SVG label."""
    return len(text) * CHAR_WIDTH


def fmt(value: float, digits: int = 2) -> str:
    """A coordinate or a number for people: no trailing ``.0``, at most ``digits`` decimals."""
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
