"""A survivor's gloo error is collateral of the rank that died, in every release's lab log.

When one rank of a gloo job dies, the ranks waiting on it print gloo's `Connection closed by
peer` (or `Read error ...: Connection reset by peer`) before torchrun reports the death. The line
comes first, so unless the dead rank's entry declares it collateral it would be the root cause
(issue 14: the SIGABRT scenario was diagnosed as collateral of it). These are the complete
diagnoses: every finding with its role and cause, the first failed rank, and no unrecognised line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "lab"))

import verdict as lab  # noqa: E402

from generator.diagnose.engine import LogBytes, diagnose_logs  # noqa: E402

GLOO = "gloo-connection-closed-by-peer"
OMP = ("torchrun-omp-threads-warning", "not-the-cause", ())

# scenario -> (the entry of the rank that died, the rank). A signal leaves only torchrun's report,
# printed after the survivors' lines; a MemoryError is the dead rank's own line, printed first.
DEATHS = {
    "sigkill-one-of-two": ("rank-killed-sigkill", 1),
    "sigkill-one-of-four": ("rank-killed-sigkill", 3),
    "sigsegv-one-of-two": ("rank-segfault-sigsegv", 1),
    "sigsegv-first-of-two": ("rank-segfault-sigsegv", 0),
    "sigabrt-one-of-two": ("rank-abort-sigabrt", 1),
    "sigbus-one-of-two": ("rank-bus-error-sigbus", 1),
    "host-oom-cgroup-kill": ("rank-killed-sigkill", 1),
    "host-oom-rlimit-as-torchrun": ("cpu-allocator-oom", 1),
}
RELEASES = sorted(p.name for p in lab.CORPUS.iterdir() if p.is_dir())
CASES = [(r, n) for r in RELEASES for n in DEATHS]


def _findings(log: Path) -> tuple[list[tuple[str, str, tuple[str, ...]]], int | None, int]:
    diagnosis = diagnose_logs(lab.catalog_index(), [LogBytes(log.name, log.read_bytes())]).diagnosis
    found = [(f.id, f.role, f.caused_by) for f in diagnosis.findings]
    return found, diagnosis.first_failed_rank, len(diagnosis.unrecognized)


@pytest.mark.parametrize(("release", "name"), CASES, ids=[f"{r}/{n}" for r, n in CASES])
def test_the_survivors_gloo_error_is_collateral_of_the_rank_that_died(
    release: str, name: str
) -> None:
    entry, rank = DEATHS[name]
    log = lab.CORPUS / release / f"{name}.log"
    found, first, unrecognized = _findings(log)
    survivors = "Connection closed by peer" in log.read_text() or "Read error" in log.read_text()
    gloo = [(GLOO, "collateral", (entry,))] if survivors else []
    # torchrun's ChildFailedError follows both; its causes are listed earliest first.
    causes = (entry, GLOO) if name == "host-oom-rlimit-as-torchrun" else (GLOO, entry)
    child = ("elastic-child-failed", "collateral", causes if survivors else (entry,))
    assert found == [(entry, "root-cause", ()), *gloo, child, OMP]
    assert (first, unrecognized) == (rank, 0)


@pytest.mark.parametrize("release", RELEASES)
def test_after_an_unknown_exception_the_gloo_error_is_its_collateral(release: str) -> None:
    # A KeyError no entry knows kills rank 1; rank 0's gloo line is collateral of that error.
    log = lab.CORPUS / release / "exception-while-others-wait.log"
    found, first, unrecognized = _findings(log)
    assert found == [
        (GLOO, "collateral", ("unrecognized",)),
        ("elastic-child-failed", "collateral", (GLOO,)),
        OMP,
    ]
    assert (first, unrecognized) == (1, 1)
