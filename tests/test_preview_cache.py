"""The preview's caches: an edit re-renders exactly the pages it can change."""

from __future__ import annotations

from pathlib import Path

from entry_factory import entry_yaml

from generator.catalog import Catalog
from generator.preview_cache import PageCache, PreviewValidator, affected_pages
from generator.render.pages import Renderer
from generator.validation import SourceFile, validate_sources

REPO = Path(__file__).resolve().parents[1]


def _distinct(entry_id: str) -> str:
    """A valid entry whose signature and example are its own (no cross-entry ambiguity)."""
    text = entry_yaml(entry_id)
    text = text.replace('"NVRM: Xid (PCI:{pci}): 79, "', f'"Synthetic failure {entry_id} on GPU"')
    return text.replace(
        "[ 123.456] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
        f"[ 123.456] Synthetic failure {entry_id} on GPU 3",
    )


def _source(entry_id: str, **changes: str) -> SourceFile:
    text = _distinct(entry_id)
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return SourceFile(f"entries/gpu-hardware/{entry_id}.yaml", text.encode())


def _catalog(sources: list[SourceFile]) -> Catalog:
    result = validate_sources(sources)
    assert not result.problems, result.problems
    return Catalog.of(result.entries)


def _sources(edited: str = "") -> list[SourceFile]:
    a = _source("gpu-a", **{"related: []": "related: [gpu-b]"})
    b = _source("gpu-b", **({'title: "Xid 79: GPU': f'title: "{edited}'} if edited else {}))
    c = _source("gpu-c", **{"tags: [xid, pcie]": "tags: [xid, thermals]"})
    return [a, b, c]


SUMMARY = {
    "index.md",
    "categories/index.md",
    "severity/index.md",
    "tags/index.md",
    "xid/index.md",
    "api/index.md",
}


def test_a_title_edit_affects_its_page_category_tags_and_the_pages_linking_to_it() -> None:
    old, new = _catalog(_sources()), _catalog(_sources(edited="Edited"))
    assert affected_pages(old, new) == SUMMARY | {
        "failures/gpu-b/index.md",
        "failures/gpu-a/index.md",  # lists gpu-b as related
        "categories/gpu-hardware/index.md",
        "tags/xid/index.md",
        "tags/pcie/index.md",
    }
    assert affected_pages(new, new) == frozenset()


def test_the_page_cache_re_renders_only_the_affected_pages() -> None:
    renderer = Renderer(REPO / "templates", site_url="http://127.0.0.1:8000/")
    cache = PageCache()
    first, rendered = cache.update(renderer, _catalog(_sources()))
    assert rendered == set(first)
    new = _catalog(_sources(edited="Edited"))
    pages, rendered = cache.update(renderer, new)
    assert rendered == set(affected_pages(_catalog(_sources()), new))
    assert "failures/gpu-c/index.md" not in rendered
    # What is reused is exactly what a full render would give.
    full = {p.src_uri: p for p in renderer.all_pages(new)}
    assert pages == full


def test_the_preview_validator_matches_validate_sources() -> None:
    validator = PreviewValidator()
    broken = [*_sources()[:2], _source("gpu-c", **{"severity: critical": "severity: dire"})]
    for sources in (_sources(), broken, _sources(edited="Edited"), broken):
        assert validator.validate(sources) == validate_sources(sources)


def test_pages_are_reused_only_from_the_same_renderer() -> None:
    """The preview makes a new renderer when a page template changes; then every page of the
    unchanged catalog must be rendered again, not taken from the cache."""
    catalog = _catalog(_sources())
    cache = PageCache()
    first, _ = cache.update(
        Renderer(REPO / "templates", site_url="http://127.0.0.1:8000/"), catalog
    )
    renderer = Renderer(REPO / "templates", site_url="http://127.0.0.1:8000/")
    _, rendered = cache.update(renderer, catalog)
    assert rendered == set(first)
    _, rendered = cache.update(renderer, catalog)
    assert rendered == set()
