"""The model view as one self-contained HTML page (``plansight model --report`` and the VS Code webview).

It draws the view models of :mod:`plansight.analyses.editing.model_view`: a domain's type tree and
its predicate table (who reads, adds and deletes each predicate), or a problem's objects by type, its
initial state as tables and its binary facts as a graph. The graph is drawn in layers, left to right
(:func:`graph_layout`): deterministic (the same file always gives the same picture) and needing no
layout engine; each predicate gets a colour, named in the legend. The page shell, CSP and themes are
shared with the plan view (:mod:`plansight.analyses.plans.html_page`); the page needs no script.
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
svg text.label { paint-order: stroke; stroke: var(--panel); stroke-width: 4px; stroke-linejoin: round; }
ul.tree.root > li::before { content: none; } td code, td.sig { white-space: nowrap; }
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
        rows.append(f'<tr><td class="mono sig">{esc(row["signature"])}{note}</td>{_cell(row["read_by"])}'
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


ROW_GAP = 44
"""Vertical distance between two nodes of one layer (room for a label above each)."""


def graph_layout(nodes: list[str], edges: list[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """Each node's (layer, row): a layered drawing, deterministic for a given file.

    Edges go left to right wherever they can: a node's layer is the longest path to it from a node
    nothing points at (``(at pkg1 pgh-po)`` and ``(in-city pgh-po pgh)`` put packages, then places,
    then cities in three columns). Edges closing a cycle are found by a depth-first search in
    declaration order and left out of the layering. Within a layer, nodes are ordered by the mean row
    of the nodes pointing at them (the barycentre heuristic of Sugiyama, Tagawa and Toda, 1981),
    ties and sources in declaration order.
    """
    order = {name: index for index, name in enumerate(nodes)}
    successors: dict[str, list[str]] = {name: [] for name in nodes}
    for source, target in edges:
        if source != target and target not in successors[source]:
            successors[source].append(target)
    forward: dict[str, list[str]] = {name: [] for name in nodes}
    state: dict[str, int] = {}  # 1: on the search path, 2: done
    for root in nodes:
        if root in state:
            continue
        stack = [(root, iter(successors[root]))]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                continue  # closes a cycle: drawn, but not used for layering
            else:
                forward[node].append(child)
                if child not in state:
                    state[child] = 1
                    stack.append((child, iter(successors[child])))
    incoming = {name: 0 for name in nodes}
    for targets in forward.values():
        for target in targets:
            incoming[target] += 1
    layer = {name: 0 for name in nodes}
    ready = [name for name in nodes if incoming[name] == 0]
    while ready:
        node = ready.pop(0)
        for target in forward[node]:
            layer[target] = max(layer[target], layer[node] + 1)
            incoming[target] -= 1
            if incoming[target] == 0:
                ready.append(target)
    for name in nodes:  # a node nothing points at sits just before the first node it points at
        if forward[name] and all(name not in forward[other] for other in nodes):
            layer[name] = min(layer[target] for target in forward[name]) - 1
    predecessors: dict[str, list[str]] = {name: [] for name in nodes}
    for source, targets in forward.items():
        for target in targets:
            predecessors[target].append(source)
    layers: dict[int, list[str]] = {}
    for name in nodes:
        layers.setdefault(layer[name], []).append(name)
    row: dict[str, int] = {}
    for number in sorted(layers):
        members = layers[number]
        if number:
            ranked = sorted((_barycentre(predecessors[name], row, len(members)), order[name], name)
                            for name in members)
            members = [name for _, _, name in ranked]
        for index, name in enumerate(members):
            row[name] = index
    for number in sorted(layers, reverse=True)[1:]:  # one sweep back: order by the nodes pointed at
        ranked = sorted((_barycentre(forward[name], row, row[name]), order[name], name)
                        for name in layers[number])
        for index, (_, _, name) in enumerate(ranked):
            row[name] = index
    return {name: (layer[name], row[name]) for name in nodes}


def _barycentre(predecessors: list[str], row: dict[str, int], fallback: int) -> float:
    placed = [row[p] for p in predecessors if p in row]
    return sum(placed) / len(placed) if placed else float(fallback)


def _graph(graph: dict[str, Any]) -> str:
    nodes = [node["name"] for node in graph["nodes"]]
    edges = graph["edges"]
    if not edges:
        return '<p class="note">The initial state has no binary facts (facts of two objects) to draw.</p>'
    if len(nodes) > MAX_GRAPH_NODES:
        return (f'<p class="note">{len(nodes)} objects take part in binary facts, more than a readable '
                f"graph holds ({MAX_GRAPH_NODES}); the table above lists them all.</p>")
    cells = graph_layout(nodes, [(e["source"], e["target"]) for e in edges])
    columns = max(layer for layer, _ in cells.values()) + 1
    rows = max(row for _, row in cells.values()) + 1
    widths = [max([60.0] + [text_width(_short(n)) for n, (layer, _) in cells.items() if layer == column])
              for column in range(columns)]
    lefts = [20 + widths[0] / 2]
    for column in range(1, columns):
        lefts.append(lefts[-1] + widths[column - 1] / 2 + 90 + widths[column] / 2)
    height = {layer: 0 for layer in range(columns)}
    for layer, row in cells.values():
        height[layer] = max(height[layer], row + 1)
    places = {name: (lefts[layer], 34 + (row + (rows - height[layer]) / 2) * ROW_GAP)
              for name, (layer, row) in cells.items()}
    width = lefts[-1] + widths[-1] / 2 + 30
    total_height = 34 + rows * ROW_GAP
    colour = {p: i % PALETTE for i, p in enumerate(dict.fromkeys(e["predicate"] for e in edges))}
    pairs = {(e["source"], e["target"]) for e in edges}
    parallel: dict[tuple[str, str], int] = {}
    parts = ['<defs>' + "".join(
        f'<marker id="arrow{i}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        f'orient="auto-start-reverse"><path class="p{i} swatch" d="M0,0 L10,5 L0,10 z"/></marker>'
        for i in range(PALETTE)) + "</defs>"]
    for edge in edges:
        (x1, y1), (x2, y2) = places[edge["source"]], places[edge["target"]]
        index = colour[edge["predicate"]]
        tip = f"({edge['predicate']} {edge['source']} {edge['target']})"
        if edge["source"] == edge["target"]:
            parts.append(f'<circle class="edge p{index}" cx="{fmt(x1 + 11)}" cy="{fmt(y1 + 9)}" r="9">'
                         f"<title>{esc(tip)}</title></circle>")
            continue
        key = (edge["source"], edge["target"])
        nth = parallel.get(key, 0)
        parallel[key] = nth + 1
        # bend an edge when a→b and b→a both exist, when two predicates join one pair, or when it
        # runs inside one layer (it would cross the nodes between), so that no two draw over each other
        same_layer = cells[edge["source"]][0] == cells[edge["target"]][0]
        bend = 14 * (nth + 1) if (edge["target"], edge["source"]) in pairs or nth else 0
        if same_layer:
            bend += 30
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        sx, sy, ex, ey = x1 + ux * 7, y1 + uy * 7, x2 - ux * 8, y2 - uy * 8
        mx, my = (sx + ex) / 2 - uy * bend, (sy + ey) / 2 + ux * bend
        parts.append(f'<path class="edge p{index}" d="M{fmt(sx)},{fmt(sy)} Q{fmt(mx)},{fmt(my)} '
                     f'{fmt(ex)},{fmt(ey)}" marker-end="url(#arrow{index})"><title>{esc(tip)}</title></path>')
    for node in graph["nodes"]:
        x, y = places[node["name"]]
        typed = f" - {node['type']}" if node["type"] else ""
        parts.append(f'<circle class="node" cx="{fmt(x)}" cy="{fmt(y)}" r="5">'
                     f"<title>{esc(node['name'] + typed)}</title></circle>"
                     f'<text class="label" x="{fmt(x)}" y="{fmt(y - 10)}" text-anchor="middle">'
                     f'{esc(_short(node["name"]))}</text>')
    legend = "".join(f'<span class="p{i}"><b>—</b> <code>{esc(p)}</code></span>' for p, i in colour.items())
    return (f'<p class="legend">{legend}</p><div class="scroll"><svg role="img" '
            f'aria-label="graph of the binary facts of the initial state" width="{fmt(width)}" '
            f'height="{fmt(total_height)}">' + "".join(parts) + "</svg></div>")
