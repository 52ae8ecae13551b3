"""Property tests: whatever bytes an editor (or an attacker) commits, the loader and the
validator answer with an entry or with placed problems, never with an exception."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator.loading.yaml_source import YamlProblem, load_yaml
from generator.validation import SourceFile, validate_sources

# Fragments that steer generated text into YAML's corners: indentation, flow collections,
# anchors, tags, block scalars, documents, quotes and keys of the entry schema.
FRAGMENTS = st.sampled_from(
    [
        "\n",
        "  ",
        "\t",
        "- ",
        ": ",
        "? ",
        "{",
        "}",
        "[",
        "]",
        ",",
        "&a ",
        "*a",
        "!!python/object ",
        "!tag ",
        "|\n",
        ">-\n",
        "---\n",
        "...\n",
        "'",
        '"',
        "#",
        "\\",
        "%YAML 1.2\n",
        "id",
        "title",
        "signatures",
        "pattern",
        "{int}",
        "{*}",
        "faq",
        "q",
        "a",
        "2026-11-29",
        "0x1f",
        "\x00",
        "\ufeff",
        "é",
        "\r",
        "null",
        "~",
        "true",
        "<<: ",
    ]
)
YAMLISH = st.lists(FRAGMENTS | st.text(max_size=8), max_size=60).map("".join)


def assert_placed(problems: tuple[object, ...]) -> None:
    for p in problems:
        assert p.line >= 1 and p.col >= 1, p  # type: ignore[attr-defined]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(YAMLISH)
def test_loader_never_raises_anything_but_a_placed_problem(text: str) -> None:
    try:
        loaded = load_yaml(text.encode("utf-8", "surrogatepass"))
    except YamlProblem as exc:
        assert exc.line >= 1 and exc.col >= 1
    else:
        assert isinstance(loaded.data, dict)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400) | YAMLISH.map(lambda t: t.encode("utf-8", "surrogatepass")))
# Found by this test: characters YAML refuses made PyYAML's reader raise before parsing.
@example(b"\x01")
@example(b"\xc2\x80")
@example("id: a\ntitle: \ud7ff\ufffe".encode("utf-8", "surrogatepass"))
def test_validation_of_any_bytes_gives_entries_or_problems(raw: bytes) -> None:
    result = validate_sources([SourceFile("entries/x/fuzz.yaml", raw)])
    assert result.docs or result.problems
    assert_placed(result.problems)
