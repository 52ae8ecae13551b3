"""Entry pages carry every section, and nothing an author writes becomes markup."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from entry_factory import entry_yaml

from generator.catalog import Catalog
from generator.model.entry import Entry
from generator.render.pages import Renderer

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def entry_from(text: str) -> Entry:
    return Entry.model_validate(yaml.safe_load(text))


def test_entry_page_has_every_section_in_order() -> None:
    entry = entry_from(entry_yaml())
    page = Renderer(TEMPLATES).entry(entry, Catalog.of([entry]))
    assert page.src_uri == "failures/xid-79-gpu-fallen-off-bus/index.md"
    assert [(h.level, h.id) for h in page.toc] == [
        (2, "summary"),
        (2, "observed"),
        (2, "symptoms"),
        (2, "root-cause"),
        (2, "mechanism"),
        (3, "mistaken-for"),
        (3, "actually"),
        (2, "affected"),
        (2, "confirm"),
        (2, "signatures"),
        (2, "fix"),
        (2, "prevention"),
        (2, "codes"),
        (2, "examples"),
        (2, "faq"),
        (3, "faq-can-i-reset-the-gpu-without-rebooting"),
        (3, "faq-is-it-always-hardware"),
        (3, "faq-does-it-corrupt-my-checkpoint"),
        (2, "references"),
        (2, "related"),
    ]


PAYLOAD = "<script>alert(1)</script><img src=x onerror=alert(2)>{{ 7*7 }}{% raw %}"


def test_text_from_an_entry_is_escaped_everywhere() -> None:
    text = entry_yaml()
    for field in ("title", "quick_fix"):
        text = re.sub(rf"^{field}: .*$", f"{field}: '{PAYLOAD}'", text, count=1, flags=re.M)
    text = text.replace("      - scontrol update", f"      - '{PAYLOAD}'\n      - scontrol update")
    text = text.replace(
        '          print("no code', f'          {PAYLOAD}\n          print("no code'
    )
    text = text.replace("  NVRM: Xid (PCI:0000:3b:00): 79, pid=1234", f"  {PAYLOAD}\n  NVRM: Xid")
    text = text.replace("  - q: Is it always hardware?", f"  - q: '{PAYLOAD}'")
    text = text.replace("    a: Almost always;", "    a: '[click](javascript:alert(3)) `<b>`'\n#")
    entry = entry_from(text)
    html = Renderer(TEMPLATES).entry(entry, Catalog.of([entry])).html
    assert "<script" not in html
    assert "<img" not in html
    assert "javascript:" not in html.replace("[click](javascript:alert(3))", "")
    assert "49" not in html  # the template syntax was not evaluated
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 6
    assert "{{ 7*7 }}{% raw %}" in html
    assert "<code>&lt;b&gt;</code>" in html


def test_a_lab_example_names_its_log_and_links_nowhere() -> None:
    url = "  - url: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1\n"
    lab = "  - lab: corpus/lab/2.13.0/sigkill-one-of-two.log\n"
    entry = entry_from(entry_yaml().replace(url, url + "    log: |\n      seen once\n" + lab))
    page = Renderer(TEMPLATES).entry(entry, Catalog.of([entry]))
    captions = re.findall(r"<figcaption>.*?</figcaption>", page.html, flags=re.S)
    assert captions == [
        '<figcaption>From <a href="https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1" '
        'rel="nofollow noopener">https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1'
        "</a></figcaption>",
        "<figcaption>From the failure lab: <code>corpus/lab/2.13.0/sigkill-one-of-two.log</code>"
        "</figcaption>",
    ]
