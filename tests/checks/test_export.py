"""Issue 39, defect 1: a defining signature whose exported query a log engine that backtracks
could not run in linear time is refused (`signature-export`); every other shape, with any
number of `{*}`, passes (its atomic form is linear: tests/fleet/test_backtracking.py)."""

from __future__ import annotations

from entry_factory import entry_yaml

from generator.validation import SourceFile, validate_sources

PATH = "entries/gpu-hardware/xid-79-gpu-fallen-off-bus.yaml"
SIGNATURE = """\
  - pattern: "NVRM: Xid (PCI:{pci}): 79, "
    role: defining
    seen_in: https://github.com/NVIDIA/open-gpu-kernel-modules
"""


def problems(*signatures: tuple[str, str]) -> list[str]:
    extra = "".join(
        f'  - pattern: "{pattern}"\n    role: {role}\n'
        "    seen_in: https://github.com/NVIDIA/open-gpu-kernel-modules\n"
        for pattern, role in signatures
    )
    text = entry_yaml().replace(SIGNATURE, SIGNATURE + extra)
    return [p.text() for p in validate_sources([SourceFile(PATH, text.encode())]).problems]


def test_shapes_with_no_linear_query_are_refused() -> None:
    assert problems(
        ("NVRM: GPU at {int}{word} lost", "defining"),
        ("NVRM: Xid {int}ab{token}: lost", "defining"),
        ("NVRM: Xid on {token}'{int}", "defining"),
        # Only defining signatures are exported.
        ("NVRM: Xid on {token}'{int}", "context"),
    ) == [
        f"{PATH}:34:14: error [signature-export] {{int}}{{word}}: two placeholders in a row "
        "can split a line in many ways, which a log engine that backtracks tries one by one; "
        "put literal text between them",
        f"{PATH}:37:14: error [signature-export] {{token}} follows 'ab', whose every character "
        "{token} also takes, after another placeholder: a log engine that backtracks would "
        "read the rest of the line again from each place it could start; add a character "
        "{token} does not take (a space, say) to that text",
        f'{PATH}:40:14: error [signature-export] {{token}} is followed by "\'", whose every '
        "character {token} also takes, and more: a log engine that backtracks would try every "
        "place {token} could end; add a character {token} does not take (a space, say) to "
        "that text, or end the pattern or put {*} right after it",
    ]


def test_gaps_and_placeholders_between_text_pass() -> None:
    assert (
        problems(
            # Issue 39's ten gaps, and ninety.
            ("zzqx redos" + "{*}a" * 10 + "{*}END", "defining"),
            ("zzqx redos" + "{*}a" * 90 + "{*}END", "defining"),
            # A literal inside the class opens the pattern, or follows {*}.
            ("pdsh@{token}: {token}: ssh exited with exit code {int}", "defining"),
            ("NVRM: Xid{*}pdsh@{token}: lost", "defining"),
            # The next literal inside the class ends the pattern, or comes before {*}.
            ("NVRM: Xid on '{token}'", "defining"),
            ("NVRM: Xid on '{token}'{*} lost", "defining"),
            # Placeholders next to {*} or at the end are one character of their class.
            ("NVRM: Xid {int}{*}{word}{*}{hex}", "defining"),
        )
        == []
    )
