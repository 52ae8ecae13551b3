"""One line, one root cause: an entry that `refines` another takes the lines both match.

The case is the catalog's own: cuda-oom-fragmentation refines cuda-out-of-memory, and an OOM
message whose tail says `... GiB is reserved by PyTorch but unallocated.` matches a defining
signature of each. The `refines` check is asserted with its exact problems.
"""

from __future__ import annotations

import dataclasses

from catalog import OOM, SPECS, Spec, render

from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.index import SignatureIndex, build_index
from generator.diagnose.report import to_json
from generator.validation import SourceFile, validate_sources

OOM_LINE = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 388.00 MiB. GPU 0 has a total "
    "capacity of 9.68 GiB of which 95.75 MiB is free. Including non-PyTorch memory, this process "
    "has 9.54 GiB memory in use. Of the allocated memory 6.61 GiB is allocated by PyTorch, and "
    "2.57 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is "
    "large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
)
PLAIN_OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5 has a total "
    "capacity of 79.15 GiB of which 12.33 GiB is free."
)
FRAG = Spec(
    "cuda-oom-fragmentation",
    "memory",
    "CUDA OOM with GiBs reserved by PyTorch but unallocated (allocator fragmentation)",
    "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True and restart.",
    (("and {num} GiB is reserved by PyTorch but unallocated.", "defining"),),
    (("https://github.com/pytorch/pytorch/issues/130330", OOM_LINE),),
    related=("cuda-out-of-memory",),
)


def source(spec: Spec, refines: str | None) -> SourceFile:
    text = render(spec)
    if refines is not None:
        text = text.replace("\nexamples:\n", f"\nrefines: {refines}\nexamples:\n", 1)
    return SourceFile(spec.path, text.encode())


def validate(refines: str | None, spec: Spec = FRAG) -> tuple[list[str], SignatureIndex]:
    others = [SourceFile(s.path, render(s).encode()) for s in SPECS]
    result = validate_sources([*others, source(spec, refines)])
    return [p.text() for p in result.problems], SignatureIndex(build_index(result.entries))


def test_the_specific_entry_takes_the_line_and_the_general_is_folded_into_it() -> None:
    problems, index = validate("cuda-out-of-memory")
    assert problems == []
    assert index.entries["cuda-oom-fragmentation"].refines == "cuda-out-of-memory"
    got = to_json(
        diagnose_logs(index, [LogBytes("rank3.log", (OOM_LINE + "\n").encode())]).diagnosis
    )
    assert [(f["id"], f["role"], f["count"], f["ranks"]) for f in got["findings"]] == [
        ("cuda-oom-fragmentation", "root-cause", 1, [3])
    ]
    assert got["first_failed_rank"] == 3


def test_without_refines_one_line_is_two_root_causes() -> None:
    _, index = validate(None)
    got = to_json(diagnose_logs(index, [LogBytes("rank3.log", OOM_LINE.encode())]).diagnosis)
    assert [(f["id"], f["role"]) for f in got["findings"]] == [
        ("cuda-oom-fragmentation", "root-cause"),
        ("cuda-out-of-memory", "root-cause"),
    ]


def test_a_line_only_the_general_entry_matches_still_counts_for_it() -> None:
    _, index = validate("cuda-out-of-memory")
    log = f"[rank3]: {OOM_LINE}\n[rank5]: {PLAIN_OOM}\n".encode()
    got = to_json(diagnose_logs(index, [LogBytes("job.log", log)]).diagnosis)
    assert [(f["id"], f["count"], f["ranks"]) for f in got["findings"]] == [
        ("cuda-oom-fragmentation", 1, [3]),
        ("cuda-out-of-memory", 1, [5]),
    ]


def test_the_refines_check_names_each_mistake() -> None:
    where = f"{FRAG.path}:"
    unknown, _ = validate("no-such-entry")
    assert [p for p in unknown if "[refines]" in p] == [
        f"{where}55:10: error [refines] refines names unknown entry 'no-such-entry'"
    ]
    itself, _ = validate("cuda-oom-fragmentation")
    assert [p for p in itself if "[refines]" in p] == [
        f"{where}55:10: error [refines] refines names the entry itself"
    ]
    unrelated, _ = validate("nccl-watchdog-timeout")
    assert [p for p in unrelated if "[refines]" in p] == [
        f"{where}55:10: error [refines] no line of this entry's examples is matched by a "
        "defining signature of both this entry and 'nccl-watchdog-timeout', which it refines; "
        "add an example with the line they share, or drop refines"
    ]


def test_a_cycle_of_refinements_is_named() -> None:
    general = dataclasses.replace(OOM)
    others = [SourceFile(s.path, render(s).encode()) for s in SPECS if s is not OOM]
    result = validate_sources(
        [*others, source(general, "cuda-oom-fragmentation"), source(FRAG, "cuda-out-of-memory")]
    )
    assert sorted(p.text() for p in result.problems if p.check == "refines") == [
        f"{FRAG.path}:55:10: error [refines] refines makes a cycle: "
        "cuda-oom-fragmentation -> cuda-out-of-memory -> cuda-oom-fragmentation",
        f"{OOM.path}:58:10: error [refines] refines makes a cycle: "
        "cuda-out-of-memory -> cuda-oom-fragmentation -> cuda-out-of-memory",
    ]
