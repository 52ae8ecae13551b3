"""Cold-start time of `trainwreck diagnose` with the bundled index, against `python -c pass`.

    python bench/startup.py              # 20 runs of each, the text report
    python bench/startup.py --json       # the JSON report (no rich import)

Each run is a new interpreter in a temporary folder with no entries/, so diagnose reads the
public catalog bundled in the package (generator/bundled/signatures.json) and diagnoses a
small two-rank log. The baseline, a bare `python -c pass` of the same interpreter and
environment, runs interleaved with it in the same session. Bytecode is compiled first, as pip
does on install. The first diagnose run starts with an empty prefilter cache (it compiles and
stores the Hyperscan database); the others load it. Prints, for each, the median wall time
and the median CPU time (user + system, which a busy machine disturbs less), and the ratio
of the medians. Target (issue 17): the warm diagnose under 150 ms where it took 230 ms.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LOG = (
    "[rank1]:[E1202 10:00:01.000000000 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, "
    "NumelOut=1, Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n"
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 "
    "has a total capacity of 79.15 GiB of which 1.06 GiB is free.\n"
)


def timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of `command`, in seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="time the JSON report")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="trainwreck-startup-") as tmp:
        work = Path(tmp)
        (work / "job.log").write_text(LOG)
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "TRAINWRECK_CACHE_DIR": str(work / "cache"),
            # Bytecode as an installed wheel has it (pip compiles it), kept out of the tree.
            "PYTHONPYCACHEPREFIX": str(work / "pycache"),
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        diagnose = [sys.executable, "-m", "generator.cli", "diagnose", "job.log"]
        if args.json:
            diagnose.append("--json")
        baseline = [sys.executable, "-c", "pass"]
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(REPO / "generator")], env=env, check=True
        )
        first = timed(diagnose, env, work)
        ours: list[tuple[float, float]] = []
        bare: list[tuple[float, float]] = []
        for _ in range(args.runs):
            bare.append(timed(baseline, env, work))
            ours.append(timed(diagnose, env, work))

    def ms(runs: list[tuple[float, float]], which: int) -> float:
        return statistics.median(r[which] for r in runs) * 1000

    report = "json" if args.json else "text"
    print(f"trainwreck diagnose ({report} report, bundled index), {args.runs} runs each")
    print("                        wall ms   cpu ms")
    print(f"  python -c pass        {ms(bare, 0):7.1f}  {ms(bare, 1):7.1f}")
    print(f"  diagnose, warm cache  {ms(ours, 0):7.1f}  {ms(ours, 1):7.1f}")
    print(f"  diagnose, first run   {first[0] * 1000:7.1f}  {first[1] * 1000:7.1f}")
    print(
        f"  ratio to python -c pass: {ms(ours, 0) / ms(bare, 0):.2f} wall, "
        f"{ms(ours, 1) / ms(bare, 1):.2f} cpu"
    )


if __name__ == "__main__":
    main()
