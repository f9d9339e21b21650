"""The model view as one self-contained HTML page (``plansight model --report`` and the VS Code webview).

It draws the view models of :mod:`plansight.analyses.editing.model_view`: a domain's type tree and
its predicate table (who reads, adds and deletes each predicate), or a problem's objects by type, its
initial state as tables and its binary facts as a graph. The graph's layout is a circle in declaration
order: deterministic (the same file always gives the same picture) and needing no layout engine;
each predicate gets a colour, named in the legend. The page shell, CSP and themes are shared with
the plan view (:mod:`plansight.analyses.plans.html_page`); the page needs no script.
"""

from __future__ import annotations

import math
from typing import Any

from plansight.analyses.plans.html_page import esc, fmt, new_nonce, page, text_width

PALETTE = 8
"""Predicate colours in the graph; a ninth predicate reuses the first colour (the legend tells them
apart by name and every edge's tooltip names its predicate)."""
MAX_GRAPH_NODES = 150
NODE_LABEL_CHARS = 24

MODEL_CSS = """
:root { --c0: #0969da; --c1: #cf222e; --c2: #1a7f37; --c3: #9a6700; --c4: #8250df; --c5: #bf3989;
  --c6: #0a7c86; --c7: #bc4c00; }
@media (prefers-color-scheme: dark) { :root { --c0: #4493f8; --c1: #f85149; --c2: #3fb950; --c3: #d29922;
  --c4: #a371f7; --c5: #db61a2; --c6: #39c5cf; --c7: #f0883e; } }
body.vscode-light, body.vscode-dark, body.vscode-high-contrast, body.vscode-high-contrast-light {
  --c0: var(--vscode-charts-blue); --c1: var(--vscode-charts-red); --c2: var(--vscode-charts-green);
  --c3: var(--vscode-charts-yellow); --c4: var(--vscode-charts-purple); --c5: var(--vscode-charts-orange);
  --c6: var(--vscode-terminal-ansiCyan); --c7: var(--vscode-terminal-ansiMagenta); }
.edge { fill: none; stroke-width: 1.5; } .node { fill: var(--bg); stroke: var(--fg); stroke-width: 1.5; }
""" + "".join(f".p{i} {{ stroke: var(--c{i}); color: var(--c{i}); }} .p{i}.swatch {{ fill: var(--c{i}); }}\n"
              for i in range(PALETTE)) + """
.static { color: var(--muted); font-style: italic; }
td.none { color: var(--dim); }
ul.tree.root > li::before { content: none; } td code { white-space: nowrap; }
.legend span { margin-right: 1em; white-space: nowrap; } .legend b { font-size: 1.2em; }
"""


def model_html(view: dict[str, Any], nonce: str | None = None) -> str:
    """The whole page for a domain's or a problem's view model; ``nonce`` is fresh unless given."""
    nonce = nonce or new_nonce()
    body = _domain_body(view) if view["kind"] == "domain" else _problem_body(view)
    return page(f"Model view: {view['kind']} {view['name']}", body, nonce, MODEL_CSS)


def _names(names: list[str]) -> str:
    return ", ".join(f"<code>{esc(n)}</code>" for n in names) if names else ""


def _cell(names: list[str]) -> str:
    return f"<td>{_names(names)}</td>" if names else '<td class="none">—</td>'


def _domain_body(view: dict[str, Any]) -> str:
    parts = [f"<h1>Model view: domain {esc(view['name'])}</h1>",
             f'<p class="muted">{esc(view["file"])} · {len(view["actions"])} actions · '
             f'{len(view["predicates"])} predicates</p>',
             "<h2>Type hierarchy</h2>", f'<ul class="tree root">{_tree(view["types"])}</ul>',
             "<h2>Predicates: who reads and who changes them</h2>",
             '<p class="muted">Read: in a precondition or a <code>when</code> condition. A predicate no '
             "action changes is <i>static</i>: the problem's initial state fixes it.</p>"]
    rows = []
    for row in view["predicates"]:
        static = not row["added_by"] and not row["deleted_by"]
        note = ' <span class="static">static</span>' if static else ""
        note += "" if row["declared"] else ' <span class="bad">not declared</span>'
        rows.append(f'<tr><td class="mono">{esc(row["signature"])}{note}</td>{_cell(row["read_by"])}'
                    f'{_cell(row["added_by"])}{_cell(row["deleted_by"])}</tr>')
    parts.append("<table><thead><tr><th>predicate</th><th>read by</th><th>added by</th><th>deleted by</th>"
                 "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")
    if view["functions"]:
        rows = [f'<tr><td class="mono">{esc(row["signature"])}</td>{_cell(row["read_by"])}'
                f'{_cell(row["changed_by"])}</tr>' for row in view["functions"]]
        parts.append("<h2>Numeric fluents</h2><table><thead><tr><th>function</th><th>read by</th>"
                     "<th>changed by</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")
    return "".join(parts)


def _tree(node: dict[str, Any]) -> str:
    constants = (f' <span class="muted">constants: {_names(node["constants"])}</span>'
                 if node["constants"] else "")
    cycle = ' <span class="bad">(cycle: declared under its own subtype)</span>' if node.get("cycle") else ""
    kids = "".join(_tree(child) for child in node["children"])
    return (f"<li><code>{esc(node['name'])}</code>{constants}{cycle}"
            + (f'<ul class="tree">{kids}</ul>' if kids else "") + "</li>")


def _problem_body(view: dict[str, Any]) -> str:
    domain = f" (domain {esc(view['domain_name'])})" if view["domain_name"] else ""
    facts = sum(len(table["rows"]) for table in view["init"]) + len(view["numeric"]) + len(view["other_init"])
    parts = [f"<h1>Model view: problem {esc(view['name'])}{domain}</h1>",
             f'<p class="muted">{esc(view["file"])} · '
             f'{sum(len(group["objects"]) for group in view["objects_by_type"])} objects · '
             f"{facts} initial facts</p>",
             "<h2>Objects by type</h2>"]
    rows = [f'<tr><td><code>{esc(group["type"])}</code></td><td>{len(group["objects"])}</td>'
            f'<td>{_names(group["objects"])}</td></tr>' for group in view["objects_by_type"]]
    parts.append("<table><thead><tr><th>type</th><th>#</th><th>objects</th></tr></thead><tbody>"
                 + "".join(rows) + "</tbody></table>" if rows else '<p class="note">No objects.</p>')
    parts.append("<h2>Initial state</h2>")
    rows = []
    width = max([1] + [len(args) for table in view["init"] for args in table["rows"]])
    for table in view["init"]:
        count = len(table["rows"])
        for number, args in enumerate(table["rows"]):
            head = (f'<td rowspan="{count}" class="mono">{esc(table["predicate"])} '
                    f'<span class="muted">({count})</span></td>') if number == 0 else ""
            cells = "".join(f'<td class="mono">{esc(arg)}</td>' for arg in args) or '<td class="none">—</td>'
            rows.append(f"<tr>{head}{cells}{'<td></td>' * (width - max(len(args), 1))}</tr>")
    empty = '<p class="note">The initial state is empty.</p>'
    parts.append(f'<table><thead><tr><th>predicate</th><th colspan="{width}">arguments</th></tr></thead>'
                 "<tbody>" + "".join(rows) + "</tbody></table>" if rows else empty)
    if view["numeric"]:
        rows = [f'<tr><td class="mono">({esc(" ".join([n["function"], *n["args"]]))})</td>'
                f'<td class="mono">{esc(n["value"])}</td></tr>' for n in view["numeric"]]
        parts.append("<h3>Numeric values</h3><table><thead><tr><th>fluent</th><th>value</th></tr></thead>"
                     "<tbody>" + "".join(rows) + "</tbody></table>")
    if view["other_init"]:
        parts.append("<h3>Other initial facts</h3><ul>"
                     + "".join(f"<li><code>{esc(text)}</code></li>" for text in view["other_init"]) + "</ul>")
    parts.append("<h2>Binary facts as a graph</h2>" + _graph(view["graph"]))
    return "".join(parts)


def _short(name: str) -> str:
    return name if len(name) <= NODE_LABEL_CHARS else name[:NODE_LABEL_CHARS - 1] + "…"


def graph_layout(nodes: list[str]) -> tuple[float, dict[str, tuple[float, float]]]:
    """The circle's radius and each node's centre (relative to the circle's centre): evenly spaced in
    the given order, the first at the top, going clockwise; about 46px of circumference per node."""
    count = len(nodes)
    radius = max(90.0, count * 46 / (2 * math.pi))
    places = {}
    for index, name in enumerate(nodes):
        angle = -math.pi / 2 + 2 * math.pi * index / max(count, 1)
        places[name] = (radius * math.cos(angle), radius * math.sin(angle)) if count > 1 else (0.0, 0.0)
    return radius, places


def _graph(graph: dict[str, Any]) -> str:
    nodes = [node["name"] for node in graph["nodes"]]
    edges = graph["edges"]
    if not edges:
        return '<p class="note">The initial state has no binary facts (facts of two objects) to draw.</p>'
    if len(nodes) > MAX_GRAPH_NODES:
        return (f'<p class="note">{len(nodes)} objects take part in binary facts, more than a readable '
                f"graph holds ({MAX_GRAPH_NODES}); the table above lists them all.</p>")
    radius, places = graph_layout(nodes)
    margin = max(text_width(_short(n)) for n in nodes) + 24
    centre = radius + margin
    size = 2 * centre
    colour = {p: i % PALETTE for i, p in enumerate(dict.fromkeys(e["predicate"] for e in edges))}
    pairs = {(e["source"], e["target"]) for e in edges}
    parallel: dict[tuple[str, str], int] = {}
    parts = ['<defs>' + "".join(
        f'<marker id="arrow{i}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        f'orient="auto-start-reverse"><path class="p{i} swatch" d="M0,0 L10,5 L0,10 z"/></marker>'
        for i in range(PALETTE)) + "</defs>"]
    for edge in edges:
        (x1, y1), (x2, y2) = places[edge["source"]], places[edge["target"]]
        x1, y1, x2, y2 = x1 + centre, y1 + centre, x2 + centre, y2 + centre
        index = colour[edge["predicate"]]
        tip = f"({edge['predicate']} {edge['source']} {edge['target']})"
        if edge["source"] == edge["target"]:
            dx, dy = (x1 - centre), (y1 - centre)
            norm = math.hypot(dx, dy) or 1.0
            cx, cy = x1 + dx / norm * 14, y1 + dy / norm * 14
            parts.append(f'<circle class="edge p{index}" cx="{fmt(cx)}" cy="{fmt(cy)}" r="9">'
                         f"<title>{esc(tip)}</title></circle>")
            continue
        key = (edge["source"], edge["target"])
        nth = parallel.get(key, 0)
        parallel[key] = nth + 1
        # bend each edge a little (more for each further predicate between the same pair) so that a→b
        # and b→a, or two predicates on one pair, do not draw over each other
        bend = 14 * (nth + 1) if (edge["target"], edge["source"]) in pairs or nth else 0
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        sx, sy, ex, ey = x1 + ux * 7, y1 + uy * 7, x2 - ux * 8, y2 - uy * 8
        mx, my = (sx + ex) / 2 - uy * bend, (sy + ey) / 2 + ux * bend
        parts.append(f'<path class="edge p{index}" d="M{fmt(sx)},{fmt(sy)} Q{fmt(mx)},{fmt(my)} '
                     f'{fmt(ex)},{fmt(ey)}" marker-end="url(#arrow{index})"><title>{esc(tip)}</title></path>')
    for node in graph["nodes"]:
        x, y = places[node["name"]]
        norm = math.hypot(x, y) or 1.0
        lx, ly = x + centre + x / norm * 12, y + centre + y / norm * 12 + 4
        anchor = "start" if x / norm > 0.2 else "end" if x / norm < -0.2 else "middle"
        if anchor == "middle":
            ly += 8 if y > 0 else -6
        typed = f" - {node['type']}" if node["type"] else ""
        parts.append(f'<circle class="node" cx="{fmt(x + centre)}" cy="{fmt(y + centre)}" r="5">'
                     f"<title>{esc(node['name'] + typed)}</title></circle>"
                     f'<text x="{fmt(lx)}" y="{fmt(ly)}" text-anchor="{anchor}">'
                     f'{esc(_short(node["name"]))}</text>')
    legend = "".join(f'<span class="p{i}"><b>—</b> <code>{esc(p)}</code></span>' for p, i in colour.items())
    return (f'<p class="legend">{legend}</p><div class="scroll"><svg role="img" '
            f'aria-label="graph of the binary facts of the initial state" width="{fmt(size)}" '
            f'height="{fmt(size)}">' + "".join(parts) + "</svg></div>")
