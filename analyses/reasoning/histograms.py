"""The paper's histograms as SVG: one panel per task, domain and model, for an HTML page or a figure.

Both outputs are self-contained and offline: plain SVG drawn here (no plotting library, no script,
no web font, nothing fetched), so the HTML page opens anywhere and the SVG drops into a paper.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from plansight.analyses.reasoning.summary import BINS, Group

PANEL_WIDTH = 300
PANEL_HEIGHT = 190
_LEFT, _RIGHT, _TOP, _BOTTOM = 34, 10, 38, 30
_BAR = "#4c72b0"
_FONT = "font-family='Helvetica, Arial, sans-serif'"


def panel(group: Group, x: float = 0, y: float = 0) -> str:
    """One histogram as an SVG group at (x, y): bars of the ten bins with their counts, the axes, a
    title naming the domain and model and a line with n and the mean."""
    counts = group.bins()
    top = max(counts) or 1
    plot_w = PANEL_WIDTH - _LEFT - _RIGHT
    plot_h = PANEL_HEIGHT - _TOP - _BOTTOM
    bar_w = plot_w / BINS
    parts = [f"<g transform='translate({x:g},{y:g})' class='panel'>",
             f"<rect width='{PANEL_WIDTH}' height='{PANEL_HEIGHT}' fill='white' stroke='#ccc'/>",
             f"<text x='{PANEL_WIDTH / 2:g}' y='15' text-anchor='middle' font-size='12' {_FONT}>"
             f"{escape(group.domain)} · {escape(group.model)}</text>",
             f"<text x='{PANEL_WIDTH / 2:g}' y='29' text-anchor='middle' font-size='10' fill='#555' {_FONT}>"
             f"{escape(group.task)}: n={len(group.values)}, mean {escape(group.metric)} "
             f"{_mean_text(group)}</text>"]
    base = _TOP + plot_h
    for index, count in enumerate(counts):
        height = count / top * (plot_h - 12)
        left = _LEFT + index * bar_w
        low, high = index / BINS, (index + 1) / BINS
        parts.append(f"<rect x='{left + 1:.1f}' y='{base - height:.1f}' width='{bar_w - 2:.1f}' "
                     f"height='{height:.1f}' fill='{_BAR}'>"
                     f"<title>{low:.1f}–{high:.1f}: {count}</title></rect>")
        if count:
            parts.append(f"<text x='{left + bar_w / 2:.1f}' y='{base - height - 2:.1f}' text-anchor='middle' "
                         f"font-size='9' {_FONT}>{count}</text>")
    parts.append(f"<line x1='{_LEFT}' y1='{base}' x2='{_LEFT + plot_w}' y2='{base}' stroke='black'/>")
    parts.append(f"<line x1='{_LEFT}' y1='{_TOP}' x2='{_LEFT}' y2='{base}' stroke='black'/>")
    for tick in (0.0, 0.5, 1.0):
        tx = _LEFT + tick * plot_w
        parts.append(f"<text x='{tx:.1f}' y='{base + 13}' text-anchor='middle' font-size='9' {_FONT}>"
                     f"{tick:g}</text>")
    parts.append(f"<text x='{_LEFT + plot_w / 2:.1f}' y='{PANEL_HEIGHT - 4}' text-anchor='middle' "
                 f"font-size='10' {_FONT}>{escape(group.metric)}</text>")
    parts.append(f"<text x='{_LEFT - 4}' y='{_TOP + 8}' text-anchor='end' font-size='9' {_FONT}>{top}</text>")
    parts.append("</g>")
    return "".join(parts)


def _mean_text(group: Group) -> str:
    return f"{sum(group.values) / len(group.values):.3f}" if group.values else "–"


def figure_svg(groups: Sequence[Group]) -> str:
    """Every panel in one SVG: a row per task, a column per domain and model."""
    tasks = list(dict.fromkeys(g.task for g in groups))
    columns = list(dict.fromkeys((g.domain, g.model) for g in groups))
    width = max(1, len(columns)) * PANEL_WIDTH
    height = max(1, len(tasks)) * PANEL_HEIGHT
    body = [panel(g, columns.index((g.domain, g.model)) * PANEL_WIDTH, tasks.index(g.task) * PANEL_HEIGHT)
            for g in groups]
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
            f"viewBox='0 0 {width} {height}'>" + "".join(body) + "</svg>\n")


def report_html(groups: Sequence[Group], title: str = "IoU per task, domain and model") -> str:
    """The offline HTML page: a section per task with one histogram per domain and model."""
    sections = []
    for task in dict.fromkeys(g.task for g in groups):
        members = [g for g in groups if g.task == task]
        panels = "".join(
            f"<figure data-domain='{escape(g.domain, quote=True)}' "
            f"data-model='{escape(g.model, quote=True)}'>"
            f"<svg xmlns='http://www.w3.org/2000/svg' width='{PANEL_WIDTH}' height='{PANEL_HEIGHT}' "
            f"role='img' aria-label='{escape(g.task, quote=True)} {escape(g.domain, quote=True)} "
            f"{escape(g.model, quote=True)}'>{panel(g)}</svg></figure>"
            for g in members)
        sections.append(f"<section><h2>{escape(task)} <small>({escape(members[0].metric)})</small></h2>"
                        f"<div class='grid'>{panels}</div></section>")
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{escape(title)}</title><style>"
            "body{font-family:Helvetica,Arial,sans-serif;margin:2em;color:#222}"
            ".grid{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0}small{color:#666;font-weight:normal}"
            "</style></head><body>"
            f"<h1>{escape(title)}</h1><p>Histograms of the score of each answer, in ten bins of width 0.1 "
            "(the last includes 1). IoU for the reasoning tasks, action distance for plans (Murthy, Mink "
            "and Sanneman 2025).</p>" + "".join(sections) + "</body></html>\n")
