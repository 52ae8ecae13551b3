"""The two-sided signature checks: examples name their entry, healthy logs name nothing, and
overlaps between entries are declared."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from generator.checks import signatures
from generator.cli import main
from generator.diagnose.engine import LogBytes
from generator.validation import validate_sources

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "diagnose"))
from catalog import ECC, IB, OOM, PLUGIN, SPECS, WATCHDOG, Spec, sources

REPO = Path(__file__).resolve().parents[2]
BENIGN = [
    LogBytes(p.relative_to(REPO).as_posix(), p.read_bytes())
    for p in sorted((REPO / "corpus" / "benign").glob("*.log"))
]
ECC_LINE = "RuntimeError: CUDA error: uncorrectable ECC error encountered"
OOM_LINE = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."
ASYNC = "CUDA kernel errors might be asynchronously reported at some other API call, so the"


def problems(specs: tuple[Spec, ...], benign: list[LogBytes] | None = BENIGN) -> list[str]:
    return [p.text() for p in validate_sources(sources(specs), benign=benign).problems]


def swap(spec: Spec, **changes: object) -> tuple[Spec, ...]:
    return tuple(dataclasses.replace(s, **changes) if s.id == spec.id else s for s in SPECS)


def test_the_test_catalog_is_clean_against_the_benign_corpus() -> None:
    assert len(BENIGN) == 5
    assert problems(SPECS) == []


def test_an_example_that_matches_no_defining_signature() -> None:
    specs = swap(ECC, examples=(("https://github.com/pytorch/pytorch/issues/1", ASYNC),))
    assert problems(specs) == [
        "entries/gpu-hardware/cuda-ecc-uncorrectable.yaml:60:10: error [example-diagnosis] "
        "examples[0] does not diagnose to this entry: no line matches one of its defining "
        "signatures",
    ]


def test_an_example_whose_earliest_root_cause_is_another_entry() -> None:
    example = f"{OOM_LINE}\n{ECC_LINE}"
    specs = swap(ECC, examples=(("https://github.com/pytorch/pytorch/issues/1", example),))
    assert problems(specs) == [
        "entries/gpu-hardware/cuda-ecc-uncorrectable.yaml:60:10: error [example-diagnosis] "
        "examples[0] diagnoses to 'cuda-out-of-memory' as the top root cause (line 1), "
        "before this entry (line 2)",
        # The two are not related, so the OOM signature firing there is an ambiguity too.
        "entries/memory/cuda-out-of-memory.yaml:31:14: error [signature-ambiguity] this "
        "defining signature also matches 'cuda-ecc-uncorrectable' examples[0] line 1: "
        f"{OOM_LINE!r}; list the entries as related, or make the pattern more specific",
    ]


def test_an_example_where_this_entry_is_collateral() -> None:
    example = f"{OOM_LINE}\n{WATCHDOG.examples[0][1]}"
    specs = swap(WATCHDOG, examples=(("https://github.com/pytorch/pytorch/issues/1", example),))
    assert problems(specs) == [
        "entries/nccl-distributed/nccl-watchdog-timeout.yaml:60:10: error [example-diagnosis] "
        "examples[0] diagnoses to 'cuda-out-of-memory' as the top root cause; this entry "
        "comes out as collateral of cuda-out-of-memory",
    ]


def test_a_signature_that_fires_on_healthy_logs() -> None:
    specs = swap(IB, signatures=(*IB.signatures, ("NCCL INFO Using network IB", "context")))
    assert problems(specs) == [
        "entries/interconnect/nccl-ib-completion-error.yaml:34:14: error [benign-match] "
        "matches healthy log corpus/benign/nccl-startup.log:7 and 7 more line(s): "
        "'gpu-node-01:31200:31261 [0] NCCL INFO Using network IB'",
    ]
    assert problems(specs, benign=None) == []


def test_a_shared_context_line_is_a_warning_unless_the_entries_are_related() -> None:
    example = OOM.examples[0][1] + "\n" + ASYNC
    specs = swap(OOM, examples=(("https://github.com/pytorch/pytorch/issues/1", example),))
    assert problems(specs) == [
        "entries/gpu-hardware/cuda-ecc-uncorrectable.yaml:34:14: warning [signature-ambiguity] "
        "this context signature also matches 'cuda-out-of-memory' examples[0] line 3: "
        f"{ASYNC!r}; list the entries as related, or make the pattern more specific",
    ]
    related = tuple(
        dataclasses.replace(s, related=(*s.related, "cuda-ecc-uncorrectable"))
        if s.id == OOM.id
        else s
        for s in specs
    )
    assert problems(related) == []


def test_entries_with_other_errors_wait_for_those_to_be_fixed() -> None:
    # A broken relation makes the index unreliable for this entry: only unknown-id is said.
    specs = swap(ECC, related=("no-such-entry",), examples=(("https://x.org/1", ASYNC),))
    assert problems(specs) == [
        "entries/gpu-hardware/cuda-ecc-uncorrectable.yaml:56:11: error [unknown-id] related "
        "names unknown entry 'no-such-entry'",
    ]


def test_validate_reads_the_benign_corpus_it_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = swap(IB, signatures=(*IB.signatures, ("NCCL INFO Using network IB", "context")))
    for source in sources(specs):
        (tmp_path / source.path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / source.path).write_bytes(source.raw)
    (tmp_path / "healthy").mkdir()
    (tmp_path / "healthy/ib.log").write_text("node:1:2 [0] NCCL INFO Using network IB\n")
    monkeypatch.chdir(tmp_path)
    assert main(["validate"]) == 0  # no corpus/benign/ here: the check has nothing to read
    assert main(["validate", "--benign", "healthy"]) == 1
    assert main(["validate", "--benign", "nowhere"]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "entries/interconnect/nccl-ib-completion-error.yaml:34:14: error [benign-match] "
        "matches healthy log healthy/ib.log:1: 'node:1:2 [0] NCCL INFO Using network IB'",
    ]
    assert err.splitlines() == [
        "6 file(s) OK",
        "1 problem(s) in 6 file(s)",
        "trainwreck: nowhere: no such directory",
    ]


def test_results_do_not_depend_on_what_was_checked_before() -> None:
    """The compiled index and each example's verdict are kept between runs while the
    signatures and relations stay the same (the preview validates after every save); a run
    must still say exactly what a first run would."""
    broken_example = (("https://github.com/pytorch/pytorch/issues/1", ASYNC),)
    overlapping = (*OOM.signatures, ("CUDA error: uncorrectable ECC error encountered", "context"))
    steps = [
        SPECS,
        swap(ECC, title="Another title", quick_fix="Another fix."),  # prose only: reused
        swap(ECC, title="Another title", examples=broken_example),  # one example re-checked
        SPECS,
        swap(OOM, signatures=overlapping),  # signatures changed: compiled again
        SPECS,
    ]
    warm = [problems(specs) for specs in steps]
    cold = []
    for specs in steps:
        signatures._COMPILED.clear()
        cold.append(problems(specs))
    assert warm == cold
    assert [bool(found) for found in warm] == [False, False, True, False, True, False]


def test_a_harmless_signature_may_match_healthy_logs_and_other_examples() -> None:
    # PLUGIN's line is in corpus/benign/nccl-startup.log; an OOM example that carries it
    # still diagnoses to the OOM entry, with no ambiguity reported against the harmless line.
    plugin_line = (
        "node-01:31200:31200 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), "
        "using internal implementation"
    )
    oom = dataclasses.replace(
        OOM,
        examples=(("https://github.com/pytorch/pytorch/issues/1", f"{plugin_line}\n{OOM_LINE}"),),
    )
    specs = tuple(oom if s.id == OOM.id else s for s in SPECS)
    assert problems((*specs, PLUGIN)) == []


def test_a_harmless_entry_whose_example_lacks_its_line() -> None:
    broken = dataclasses.replace(
        PLUGIN, examples=(("https://github.com/NVIDIA/nccl/issues/1", ASYNC),)
    )
    assert problems((*SPECS, broken)) == [
        "entries/gpu-hardware/cuda-ecc-uncorrectable.yaml:34:14: warning [signature-ambiguity] "
        "this context signature also matches 'nccl-net-plugin-not-found' examples[0] line 1: "
        f"{ASYNC!r}; list the entries as related, or make the pattern more specific",
        "entries/nccl-distributed/nccl-net-plugin-not-found.yaml:57:10: error "
        "[example-diagnosis] examples[0] does not show this entry as not the cause: no line "
        "matches one of its harmless signatures",
    ]
