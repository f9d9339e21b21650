"""The plan view as one self-contained HTML page (``plansight plan --report`` and the VS Code webview).

It draws the view model of :mod:`plansight.analyses.plans.plan_view`: a timeline with one swim lane
per object (a cell where a step touches the object, a green mark when it makes something true about
it, a red one when it makes something false), the failing step highlighted with its reason, a Gantt
chart when the steps have start times, line plots of numeric fluents when there are values, the
goals, and a side panel with the state at the step a user clicks (rebuilt by the page's script from
the initial state and the deltas). The page shell, its CSP and its themes are in
:mod:`plansight.analyses.plans.html_page`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from plansight.analyses.plans.html_page import esc, fmt, json_island, new_nonce, page, text_width

MAX_TIMELINE_STEPS = 1500
"""Columns drawn in the swim-lane timeline; a longer plan's later steps are in the table only (an SVG
tens of thousands of pixels wide helps nobody and slows the webview)."""
COLUMN, ROW, HEADER = 28, 22, 24
LABEL_CHARS = 28
GANTT_WIDTH, PLOT_WIDTH, PLOT_HEIGHT = 520, 420, 150

PLAN_CSS = """
.layout { display: grid; grid-template-columns: minmax(0, 1fr) 22em; gap: 1.4em; }
.side { position: sticky; top: .6em; align-self: start; max-height: 94vh; overflow: auto;
  border: 1px solid var(--border); background: var(--panel); padding: .4em .8em; }
@media (max-width: 900px) { .layout { grid-template-columns: 1fr; } .side { position: static; } }
.side h3 { font-size: 1em; margin: .3em 0; }
ul.atoms { list-style: none; padding: 0; margin: .2em 0; font-family: var(--mono); font-size: .9em; }
ul.atoms li.added { color: var(--add); font-weight: 600; } ul.atoms li.deleted { color: var(--del);
  text-decoration: line-through; }
.col { cursor: pointer; } .colbg { fill: transparent; }
.s-failed .colbg { fill: var(--fail-bg); } .selected .colbg, .selected .bar-bg { fill: var(--select); }
.cell { fill: var(--touch); } .addbar { fill: var(--add); } .delbar { fill: var(--del); }
.s-unreached text, .s-not-simulated text { fill: var(--dim); }
.s-failed text.head { fill: var(--del); font-weight: 700; }
.bar { fill: var(--accent); } .s-failed .bar { fill: var(--del); } .s-unreached .bar { fill: var(--dim); }
.bar-bg { fill: transparent; } .line { fill: none; stroke: var(--accent); stroke-width: 2; }
.dot { fill: var(--accent); }
tr[data-step] { cursor: pointer; } tr.selected td { background: var(--select); }
tr.s-failed td { background: var(--fail-bg); } tr.s-unreached td, tr.s-not-simulated td { color: var(--dim); }
td .add { color: var(--add); } td .del { color: var(--del); }
button { font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--border);
  border-radius: 4px; padding: .1em .7em; cursor: pointer; }
"""

PLAN_SCRIPT = r"""
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("plan-data").textContent);
  const panel = document.getElementById("state");
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const stateAfter = (last) => {
    const state = new Set(data.initial);
    for (let i = 0; i <= last && i < data.steps.length; i++) {
      const step = data.steps[i];
      if (step.status !== "executed") break;
      for (const atom of step.deleted) state.delete(atom);
      for (const atom of step.added) state.add(atom);
    }
    return state;
  };
  const derivedAfter = (last) => {
    const derived = new Set(data.initial_derived);
    for (let i = 0; i <= last && i < data.steps.length; i++) {
      const step = data.steps[i];
      if (step.status !== "executed") break;
      for (const atom of step.derived_deleted) derived.delete(atom);
      for (const atom of step.derived_added) derived.add(atom);
    }
    return derived;
  };
  const derivedList = (last, marked) => data.has_derived
    ? [el("p", "muted", "Derived by the :derived rules:"), atomList(derivedAfter(last), marked, "added")]
    : [];
  const atomList = (atoms, marked, cls) => {
    const list = el("ul", "atoms");
    for (const atom of [...atoms].sort()) list.append(el("li", marked.has(atom) ? cls : "", atom));
    return list;
  };
  const show = (index) => {
    for (const node of document.querySelectorAll(".selected")) node.classList.remove("selected");
    const chosen = document.querySelectorAll('[data-step="' + index + '"]');
    for (const node of chosen) node.classList.add("selected");
    panel.replaceChildren();
    if (index < 0) {
      panel.append(el("h3", "", "Initial state"), atomList(data.initial, new Set(), ""),
                   ...derivedList(-1, new Set()));
      return;
    }
    const step = data.steps[index];
    panel.append(el("h3", "", "Step " + (index + 1) + " " + step.action));
    if (step.status === "executed") {
      for (const [object, change] of Object.entries(step.touches)) {
        const line = el("div", "atom");
        line.append(el("b", "", object + ": "));
        const words = [...change.added.map((a) => "+" + a), ...change.deleted.map((a) => "-" + a)];
        line.append(el("span", words.length ? "" : "muted", words.length ? words.join(" ") : "unchanged"));
        panel.append(line);
      }
      panel.append(el("p", "muted", "State after this step (what it made true in bold):"),
                   atomList(stateAfter(index), new Set(step.added), "added"),
                   ...derivedList(index, new Set(step.derived_added)));
      if (step.deleted.length) {
        panel.append(el("p", "muted", "No longer true:"),
                     atomList(step.deleted, new Set(step.deleted), "deleted"));
      }
    } else if (step.status === "failed") {
      panel.append(el("p", "bad", data.failure.message),
                   el("p", "muted", "State where the plan stops (before this step):"),
                   atomList(stateAfter(index - 1), new Set(), ""), ...derivedList(index - 1, new Set()));
    } else if (step.status === "unreached") {
      const stop = data.failure.index;
      const words = "Not reached: the plan stops at step " + (stop + 1) + ". State where it stops:";
      panel.append(el("p", "muted", words),
                   atomList(stateAfter(stop - 1), new Set(), ""), ...derivedList(stop - 1, new Set()));
    } else {
      panel.append(el("p", "muted", "Not simulated: " + data.not_simulated));
    }
  };
  const target = (event) => event.target instanceof Element ? event.target.closest("[data-step]") : null;
  document.addEventListener("click", (event) => {
    const found = target(event);
    if (found) show(Number(found.getAttribute("data-step")));
  });
  document.addEventListener("keydown", (event) => {
    const found = target(event);
    if (found && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      show(Number(found.getAttribute("data-step")));
    }
  });
  const linked = /^#step-(\d+)$/.exec(window.location.hash);  // plan.html#step-3 opens on step 3
  if (linked && Number(linked[1]) >= 1 && Number(linked[1]) <= data.steps.length) show(Number(linked[1]) - 1);
})();
"""


def plan_html(view: dict[str, Any], nonce: str | None = None) -> str:
    """The whole page for one plan's view model; ``nonce`` is fresh unless given (tests pin it)."""
    nonce = nonce or new_nonce()
    main = [
        _timeline(view),
        _steps_table(view),
        _gantt(view) if view["temporal"] else "",
        _plots(view["fluents"]),
        _goals(view),
        _constraints(view),
    ]
    body = (
        _header(view)
        + '<div class="layout"><main>' + "".join(main) + "</main>"
        + '<aside class="side"><h2>State</h2><p><button type="button" data-step="-1">Initial state</button> '
        + '<span class="muted">or click a step</span></p><div id="state" aria-live="polite">'
        + _initial_state(view) + "</div></aside></div>"
        + json_island("plan-data", _script_data(view), nonce)
    )
    return page(f"Plan view: {view['name']}", body, nonce, PLAN_CSS, PLAN_SCRIPT)


def _script_data(view: dict[str, Any]) -> dict[str, Any]:
    keys = ("initial", "initial_derived", "has_derived", "failure", "not_simulated")
    fields = ("action", "status", "added", "deleted", "derived_added", "derived_deleted", "touches")
    steps = [{k: step[k] for k in fields} for step in view["steps"]]
    return {**{k: view[k] for k in keys}, "steps": steps}


def _header(view: dict[str, Any]) -> str:
    verdict = view["valid"]
    badge_class = "ok" if verdict else ("bad" if verdict is False else "muted")
    partners = " · ".join(f"{label} <code>{esc(path)}</code>" for label, path in
                          (("problem", view["problem"]), ("domain", view["domain"])) if path)
    parts = [f"<h1>Plan view: {esc(view['name'])}</h1>",
             f'<p><span class="badge {badge_class}">{esc(view["summary"])}</span> '
             f'<span class="muted">{view["length"]} step{"s" if view["length"] != 1 else ""}'
             f'{" · " + partners if partners else ""}</span></p>']
    failure = view["failure"]
    if failure is not None:
        parts.append(f'<div class="failure" data-step="{failure["index"]}"><b>Step {failure["index"] + 1} '
                     f'fails ({esc(failure["category_words"])}).</b> {esc(failure["message"])}</div>')
    if view["not_simulated"] is not None:
        reason = view["not_simulated"].rstrip(".")
        parts.append(f'<p class="note">Not simulated: {esc(reason)}. The steps are listed '
                     "as written; states and changes need a simulation.</p>")
    return "".join(parts)


def _label(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


def _timeline(view: dict[str, Any]) -> str:
    lanes: list[str] = view["lanes"]
    steps = view["steps"][:MAX_TIMELINE_STEPS]
    heading = "<h2>Timeline: what each step changes about each object</h2>"
    if not steps:
        return heading + '<p class="note">The plan has no steps.</p>'
    label_width = max([80.0] + [text_width(_label(lane)) + 16 for lane in lanes])
    width = label_width + len(steps) * COLUMN + 8
    height = HEADER + max(len(lanes), 1) * ROW + 4
    parts = [f'<text x="{fmt(label_width - 8)}" y="16" text-anchor="end" class="muted">step</text>']
    for row, lane in enumerate(lanes):
        y = HEADER + row * ROW
        parts.append(f'<line class="grid" x1="0" x2="{fmt(width)}" y1="{y}" y2="{y}"/>'
                     f'<text x="{fmt(label_width - 8)}" y="{y + 15}" text-anchor="end">'
                     f"<title>{esc(lane)}</title>{esc(_label(lane))}</text>")
    lane_row = {lane: row for row, lane in enumerate(lanes)}
    for column, step in enumerate(steps):
        x = label_width + column * COLUMN
        status = step["status"].replace(" ", "-")
        cells = [f'<rect class="colbg" x="{fmt(x)}" y="0" width="{COLUMN}" height="{height}"/>'
                 f'<text class="head" x="{fmt(x + COLUMN / 2)}" y="16" text-anchor="middle">'
                 f"{column + 1}</text>"]
        for obj, change in step["touches"].items():
            if obj not in lane_row:
                continue
            y = HEADER + lane_row[obj] * ROW
            tip = _change_words(obj, change) or f"{obj}: an argument, unchanged"
            title = f"step {column + 1} {step['action']}"
            cells.append(f'<rect class="cell" x="{fmt(x + 3)}" y="{y + 3}" width="{COLUMN - 6}" '
                         f'height="{ROW - 6}" rx="3"><title>{esc(title)}\n{esc(tip)}</title></rect>')
            if change["added"]:
                cells.append(f'<rect class="addbar" x="{fmt(x + 3)}" y="{y + 3}" width="{COLUMN - 6}" '
                             'height="5"/>')
            if change["deleted"]:
                cells.append(f'<rect class="delbar" x="{fmt(x + 3)}" y="{y + ROW - 8}" width="{COLUMN - 6}" '
                             'height="5"/>')
        parts.append(f'<g class="col s-{status}" data-step="{step["index"]}">' + "".join(cells) + "</g>")
    svg = (f'<svg role="img" aria-label="swim lanes: the objects each step touches" width="{fmt(width)}" '
           f'height="{height}">' + "".join(parts) + "</svg>")
    notes = []
    if not lanes:
        notes.append('<p class="note">No step touches an object'
                     + (" (the plan was not simulated)." if view["not_simulated"] else ".") + "</p>")
    if len(view["steps"]) > MAX_TIMELINE_STEPS:
        notes.append(f'<p class="note">The timeline shows the first {MAX_TIMELINE_STEPS} of '
                     f'{len(view["steps"])} steps; the table lists them all.</p>')
    legend = ('<p class="muted">A cell: the step names the object or changes an atom about it; '
              '<span class="ok">green top</span>: it made something true, '
              '<span class="bad">red bottom</span>: false. '
              "Hover a cell for the atoms, click a column for the state.</p>")
    return heading + legend + f'<div class="scroll">{svg}</div>' + "".join(notes)


def _change_words(obj: str, change: dict[str, list[str]]) -> str:
    words = [*("+" + a for a in change["added"]), *("-" + a for a in change["deleted"])]
    return f"{obj}: " + " ".join(words) if words else ""


def _steps_table(view: dict[str, Any]) -> str:
    temporal = view["temporal"]
    head = ("<tr><th>#</th>" + ("<th>start</th><th>duration</th>" if temporal else "")
            + "<th>action</th><th>objects</th><th>changes</th></tr>")
    rows = []
    for step in view["steps"]:
        status = step["status"].replace(" ", "-")
        changes = " ".join([*(f'<span class="add">+{esc(a)}</span>' for a in step["added"]),
                            *(f'<span class="del">-{esc(a)}</span>' for a in step["deleted"])])
        if step["status"] == "executed" and not changes:
            changes = '<span class="muted">no change</span>'
        elif step["status"] != "executed":
            changes = f'<span class="muted">{esc(step["status"])}</span>'
        times = ""
        if temporal:
            times = "".join(f'<td class="mono">{"" if v is None else fmt(v, 3)}</td>'
                            for v in (step["time"], step["duration"]))
        objects = ", ".join(esc(obj) for obj in step["touches"])
        rows.append(f'<tr class="s-{status}" data-step="{step["index"]}" tabindex="0">'
                    f'<td>{step["index"] + 1}</td>'
                    f'{times}<td class="mono">{esc(step["action"])}</td><td>{objects}</td>'
                    f'<td class="mono">{changes}</td></tr>')
    return ("<h2>Steps</h2><div class=\"scroll\"><table><thead>" + head + "</thead><tbody>"
            + "".join(rows) + "</tbody></table></div>")


def _gantt(view: dict[str, Any]) -> str:
    steps = [s for s in view["steps"] if s["time"] is not None]
    end = max([s["time"] + (s["duration"] or 0) for s in steps] + [1e-9])
    labels = [_label(f"{s['index'] + 1} {s['action']}") for s in steps]
    label_width = max([80.0] + [text_width(label) + 16 for label in labels])
    scale = GANTT_WIDTH / end
    height = HEADER + len(steps) * ROW + 8
    parts = []
    for tick in _ticks(end):
        x = label_width + tick * scale
        parts.append(f'<line class="grid" x1="{fmt(x)}" x2="{fmt(x)}" y1="{HEADER - 6}" y2="{height}"/>'
                     f'<text class="muted" x="{fmt(x)}" y="12" text-anchor="middle">{fmt(tick)}</text>')
    for row, (step, label) in enumerate(zip(steps, labels, strict=True)):
        y = HEADER + row * ROW
        x = label_width + step["time"] * scale
        bar = max((step["duration"] or 0) * scale, 3)
        status = step["status"].replace(" ", "-")
        tip = f"{step['action']}: start {fmt(step['time'], 3)}" + (
            f", duration {fmt(step['duration'], 3)}" if step["duration"] is not None else ", no duration")
        parts.append(f'<g class="col s-{status}" data-step="{step["index"]}">'
                     f'<rect class="bar-bg" x="0" y="{y}" width="{fmt(label_width + GANTT_WIDTH + 8)}" '
                     f'height="{ROW}"/>'
                     f'<text x="{fmt(label_width - 8)}" y="{y + 15}" text-anchor="end">{esc(label)}</text>'
                     f'<rect class="bar" x="{fmt(x)}" y="{y + 4}" width="{fmt(bar)}" '
                     f'height="{ROW - 8}" rx="2">'
                     f"<title>{esc(tip)}</title></rect></g>")
    svg = (f'<svg role="img" aria-label="Gantt chart of the plan" '
           f'width="{fmt(label_width + GANTT_WIDTH + 16)}" '
           f'height="{height}">' + "".join(parts) + "</svg>")
    return "<h2>Gantt chart</h2>" + f'<div class="scroll">{svg}</div>'


def _ticks(end: float, wanted: int = 8) -> list[float]:
    """Round tick values from 0 to ``end``: steps of 1, 2 or 5 times a power of ten."""
    raw = end / wanted
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return [i * step for i in range(int(end / step + 1e-9) + 1)]


def _plots(fluents: dict[str, Any]) -> str:
    heading = "<h2>Numeric fluents and metric</h2>"
    series: Sequence[dict[str, Any]] = fluents["series"]
    if not series:
        return heading + f'<p class="note">{esc(fluents["absent"])}.</p>'
    return heading + "".join(_plot(s["name"], s["values"]) for s in series)


def _plot(name: str, values: Sequence[float | None]) -> str:
    """One line plot of a fluent over the states s0..sn (a gap where the value is unknown)."""
    known = [v for v in values if v is not None]
    if not known:
        return f'<p class="note">{esc(name)}: no known value.</p>'
    low, high = min(known), max(known)
    span = (high - low) or 1.0
    left, top, inner_w, inner_h = 48, 10, PLOT_WIDTH - 60, PLOT_HEIGHT - 36
    step = inner_w / max(len(values) - 1, 1)
    segments: list[list[str]] = [[]]
    dots = []
    for index, value in enumerate(values):
        if value is None:
            segments.append([])
            continue
        x, y = left + index * step, top + inner_h - (value - low) / span * inner_h
        segments[-1].append(f"{fmt(x)},{fmt(y)}")
        dots.append(f'<circle class="dot" cx="{fmt(x)}" cy="{fmt(y)}" r="2.5">'
                    f"<title>{esc(name)} = {fmt(value)} after {index} step{'s' if index != 1 else ''}</title>"
                    "</circle>")
    lines = "".join(f'<polyline class="line" points="{" ".join(points)}"/>' for points in segments if points)
    axes = (f'<line class="grid" x1="{left}" x2="{left}" y1="{top}" y2="{top + inner_h}"/>'
            f'<line class="grid" x1="{left}" x2="{left + inner_w}" y1="{top + inner_h}" '
            f'y2="{top + inner_h}"/>'
            f'<text class="muted" x="{left - 6}" y="{top + 10}" text-anchor="end">{fmt(high)}</text>'
            f'<text class="muted" x="{left - 6}" y="{top + inner_h}" text-anchor="end">{fmt(low)}</text>'
            f'<text class="muted" x="{left}" y="{PLOT_HEIGHT - 8}">s0</text>'
            f'<text class="muted" x="{left + inner_w}" y="{PLOT_HEIGHT - 8}" text-anchor="end">'
            f"s{len(values) - 1}</text>")
    return (f"<h3>{esc(name)}</h3>"
            f'<svg role="img" aria-label="{esc(name)} over the plan" width="{PLOT_WIDTH}" '
            f'height="{PLOT_HEIGHT}">'
            f"{axes}{lines}{''.join(dots)}</svg>")


def _goals(view: dict[str, Any]) -> str:
    goals = view["goals"]
    if goals is None:
        return ""
    items = [*(f'<li class="ok">✓ <code>{esc(g)}</code></li>' for g in goals["satisfied"]),
             *(f'<li class="bad">✗ <code>{esc(g)}</code></li>' for g in goals["unsatisfied"])]
    where = "at the end of the plan" if view["failure"] is None else "where the plan stops"
    return f"<h2>Goals {where}</h2><ul>" + "".join(items) + "</ul>" if items else ""


def _constraints(view: dict[str, Any]) -> str:
    """PDDL3: each constraint (✓ holds, ✗ violated, ? undecided: the plan stopped early) with its message,
    then each preference's violation count and the metric."""
    pddl3 = view.get("pddl3")
    if pddl3 is None:
        return ""
    marks = {True: ("ok", "✓"), False: ("bad", "✗"), None: ("muted", "?")}
    items = []
    for constraint in pddl3["constraints"]:
        css, mark = marks[constraint["holds"]]
        if constraint["preference"] is not None:
            css = "muted" if constraint["holds"] is False else css  # soft: never makes the plan invalid
        items.append(f'<li class="{css}" title="{esc(constraint["message"])}">{mark} '
                     f'<code>{esc(constraint["text"])}</code>'
                     + (f' <span class="muted">(preference {esc(constraint["preference"])})</span>'
                        if constraint["preference"] is not None else "")
                     + (f' <span class="bad">{esc(constraint["message"])}</span>'
                        if constraint["holds"] is False and constraint["preference"] is None else "")
                     + "</li>")
    parts = ["<h2>Trajectory constraints</h2><ul>" + "".join(items) + "</ul>" if items else ""]
    if pddl3["preferences"]:
        counts = ", ".join(f'<code>{esc(p["name"])}</code> {p["violations"]}' for p in pddl3["preferences"])
        parts.append(f"<p>Preferences violated (<code>is-violated</code>): {counts}</p>")
    if pddl3["metric"] is not None:
        parts.append(f'<p>Metric: <code>{esc(pddl3["metric"])}</code></p>')
    return "".join(parts)


def _initial_state(view: dict[str, Any]) -> str:
    if view["not_simulated"] is not None:
        return f'<p class="muted">No state: {esc(view["not_simulated"])}</p>'
    atoms = "".join(f"<li>{esc(atom)}</li>" for atom in view["initial"])
    html = f'<h3>Initial state</h3><ul class="atoms">{atoms}</ul>'
    if view["has_derived"]:
        derived = "".join(f"<li>{esc(atom)}</li>" for atom in view["initial_derived"])
        html += f'<p class="muted">Derived by the :derived rules:</p><ul class="atoms">{derived}</ul>'
    return html
