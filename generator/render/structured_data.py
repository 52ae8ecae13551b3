"""JSON-LD for entry pages: a schema.org TechArticle, and an FAQPage built from the entry's FAQ.

Everything here comes from an entry an untrusted author wrote, and it lands inside a
`<script type="application/ld+json">` element, where HTML escaping does not apply. `script_json`
therefore encodes `<`, `>` and `&` as JSON `\\u` escapes: the text stays the same JSON value, and
no `</script>` or `<!--` can appear in the element. FAQ answers are Markdown rendered by
`render_markdown` (raw HTML off, links checked), with links made absolute.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from generator.model.categories import CATEGORY_BY_ID
from generator.model.entry import Entry
from generator.model.inline import inline_plain
from generator.render.markdown import plain_text, render_markdown

SITE_NAME = "Trainwreck"
SOCIAL_IMAGE = "images/social-card.png"  # under templates/static, so at the site root
HEADLINE_LIMIT = 110  # Google's limit for an article headline


def script_json(data: object) -> Markup:
    """JSON that is safe as the whole text of a <script> element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


def _headline(title: str) -> str:
    if len(title) <= HEADLINE_LIMIT:
        return title
    return title[: HEADLINE_LIMIT - 1].rstrip() + "…"


def entry_structured_data(
    entry: Entry,
    site_url: str,
    faq_ids: Sequence[str],
    section: str | None = None,
    answers: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """The TechArticle and the FAQPage of one entry; `faq_ids` are the questions' anchors.
    `answers`: the FAQ answers already rendered with `site_url` as their root."""
    if answers is None:
        answers = [render_markdown(item.a, site_url) for item in entry.faq]
    page_url = f"{site_url}failures/{entry.id}/"
    publisher = {"@type": "Organization", "name": SITE_NAME, "url": site_url}
    # The category's title; `section` names one that a private catalog declares.
    category = section or CATEGORY_BY_ID[entry.category].title
    article = {
        "@context": "https://schema.org",
        "@type": "TechArticle",
        "@id": f"{page_url}#article",
        "headline": _headline(entry.title),
        "name": entry.title,
        "description": plain_text(entry.summary),
        "url": page_url,
        "mainEntityOfPage": page_url,
        "image": site_url + SOCIAL_IMAGE,
        "dateModified": entry.last_reviewed.isoformat(),
        "inLanguage": "en",
        "articleSection": category,
        "keywords": ", ".join(entry.tags),
        "author": {"@type": "Organization", "name": f"{SITE_NAME} contributors", "url": site_url},
        "publisher": publisher,
        "isPartOf": {"@type": "WebSite", "name": SITE_NAME, "url": site_url},
        "citation": [ref.url for ref in entry.references],
    }
    faq = {
        "@context": "https://schema.org",
        "@type": "FAQPage",
        "@id": f"{page_url}#faq",
        "url": f"{page_url}#faq",
        "name": f"{entry.title}: FAQ",
        "inLanguage": "en",
        "isPartOf": {"@id": f"{page_url}#article"},
        "mainEntity": [
            {
                "@type": "Question",
                "@id": f"{page_url}#{anchor}",
                "url": f"{page_url}#{anchor}",
                "name": inline_plain(item.q),
                "acceptedAnswer": {
                    "@type": "Answer",
                    "text": str(answer).strip(),
                },
            }
            for item, anchor, answer in zip(entry.faq, faq_ids, answers, strict=True)
        ],
    }
    return [article, faq]
