"""What every plansight view page must be, checked the way a browser would read it: well-formed, loading
nothing from outside, running only its own nonce-tagged style and script, with no inline handlers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
URL_ATTRIBUTES = {"src", "href", "xlink:href", "action", "formaction", "data", "poster", "srcset"}


@dataclass
class Page:
    """The parsed page: every element with its attributes, the text, and the problems found."""

    elements: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def all(self, tag: str) -> list[dict[str, str | None]]:
        """The attributes of every ``tag`` element."""
        return [attrs for name, attrs in self.elements if name == tag]

    @property
    def plain_text(self) -> str:
        """The page's text as a reader sees it (entities decoded)."""
        return "".join(self.text)


class _Reader(HTMLParser):
    def __init__(self, page: Page) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.page.elements.append((tag, dict(attrs)))
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.page.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.open or self.open[-1] != tag:
            self.page.problems.append(f"</{tag}> closes <{self.open[-1] if self.open else 'nothing'}>")
            return
        self.open.pop()

    def handle_data(self, data: str) -> None:
        if self.open and self.open[-1] in ("script", "style"):
            return
        self.page.text.append(data)


def read_page(html: str) -> Page:
    """Parse ``html`` and list what breaks the rules every view keeps."""
    page = Page()
    reader = _Reader(page)
    reader.feed(html)
    reader.close()
    if reader.open:
        page.problems.append(f"never closed: {reader.open}")
    metas = [a for a in page.all("meta") if (a.get("http-equiv") or "").lower() == "content-security-policy"]
    if len(metas) != 1:
        page.problems.append(f"{len(metas)} CSP meta elements")
        return page
    policy = metas[0].get("content") or ""
    nonce = re.search(r"script-src 'nonce-([^']+)'", policy)
    if "default-src 'none'" not in policy or nonce is None or "unsafe-inline" in policy:
        page.problems.append(f"CSP too lax: {policy}")
        return page
    if f"style-src 'nonce-{nonce.group(1)}'" not in policy:
        page.problems.append(f"styles not bound to the nonce: {policy}")
    for tag in ("script", "style"):
        for attrs in page.all(tag):
            if attrs.get("nonce") != nonce.group(1):
                page.problems.append(f"<{tag}> without the page's nonce: {attrs}")
            if attrs.get("src"):
                page.problems.append(f"<{tag} src=...> loads a file: {attrs}")
    for tag, attrs in page.elements:
        for name, value in attrs.items():
            if name.startswith("on"):
                page.problems.append(f"inline handler {name} on <{tag}>")
            if name == "style":
                page.problems.append(f"inline style attribute on <{tag}> (the CSP blocks it)")
            if name in URL_ATTRIBUTES and value and not value.startswith("#"):
                page.problems.append(f"<{tag} {name}={value!r}> refers to something outside the page")
    if re.search(r"(?i)https?://|url\((?!#)", html):
        page.problems.append("an external URL in the page")
    where = next(i for i, (tag, attrs) in enumerate(page.elements) if attrs is metas[0])
    first_code = min([i for i, (tag, _) in enumerate(page.elements) if tag in ("style", "script")] + [10**9])
    if where > first_code:
        page.problems.append("the CSP comes after a style or script it should govern")
    return page
