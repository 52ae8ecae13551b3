"""Prose fields rendered to HTML that cannot carry markup from the author.

The parser runs with raw HTML, headings and images disabled, so whatever an author writes
comes out as escaped text, and links are kept only when they point at an http(s) URL or at
another entry, which is rewritten to that entry's page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup

from generator.model.entry import ID_RE
from generator.model.inline import INLINE

_ENTRY_LINK = re.compile(ID_RE.rstrip("$") + r"(?:#[a-z0-9-]+)?$")
_WEB_LINK = re.compile(r"^https?://[^\s]+$")


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.disable(["heading", "lheading", "html_block", "html_inline", "image"])
    return md


_MD = _parser()


def render_markdown(text: str, root: str, *, inline: bool = False) -> Markup:
    """Markdown to safe HTML. `root` is the relative path from the page to the site root."""
    (html,) = render_markdown_at(text, (root,), inline=inline)
    return html


def render_markdown_at(text: str, roots: Sequence[str], *, inline: bool = False) -> list[Markup]:
    """`render_markdown(text, root)` for each of `roots`, from one parse: an entry page shows
    each FAQ answer with its links relative and its JSON-LD holds it with them absolute."""
    env: dict[str, object] = {}
    tokens = _MD.parseInline(text, env) if inline else _MD.parse(text, env)
    entry_links = []
    for token in tokens:
        for child in [token, *(token.children or ())]:
            if child.type != "link_open":
                continue
            href = str(child.attrs.get("href", ""))
            if _WEB_LINK.match(href):
                child.attrs["rel"] = "nofollow noopener"
            elif _ENTRY_LINK.match(href):
                entry_id, _, anchor = href.partition("#")
                entry_links.append(
                    (child, f"failures/{entry_id}/" + (f"#{anchor}" if anchor else ""))
                )
            else:
                # Validation rejects such links; the renderer still never emits them.
                child.attrs["href"] = "#"
    out = []
    for root in roots:
        for child, page in entry_links:
            child.attrs["href"] = root + page
        html = _MD.renderer.render(tokens, _MD.options, env)
        # Backticks survive HTML escaping; encode them so no later Markdown pass can see a fence.
        out.append(Markup(html.replace("`", "&#96;")))
    return out


@lru_cache(maxsize=1 << 14)
def render_inline_marks(text: str) -> Markup:
    """A one-line field to safe HTML: code spans and emphasis, everything else as written."""
    html = INLINE.renderInline(text)
    return Markup(html.replace("`", "&#96;"))


# Memoised: listing pages, the feed and the JSON-LD reduce the same summaries again on every
# preview save. Bounded to a few texts per entry of a large catalog.
@lru_cache(maxsize=1 << 14)
def plain_text(text: str) -> str:
    """Markdown reduced to its text, for meta descriptions and the signature index."""
    env: dict[str, object] = {}
    out: list[str] = []
    for token in _MD.parse(text, env):
        for child in token.children or ():
            if child.type in ("text", "code_inline"):
                out.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                out.append(" ")
        if token.type == "paragraph_close":
            out.append(" ")
    return re.sub(r"\s+", " ", "".join(out)).strip()
