"""Benchmark `trainwreck diagnose` against GNU `grep -F -f` on a synthetic multi-rank log.

    python bench/diagnose.py                    # 1 GiB log, the catalog in entries/
    python bench/diagnose.py --size-mb 256      # a quicker run
    python bench/diagnose.py --index site/signatures.json

The log is torchrun-style (`[rankN]:` prefixes, 64 ranks) built from realistic healthy lines
(NCCL INFO start-up, loss lines, DeepSpeed and Megatron progress, tqdm redraws, warnings),
with timestamps that move forward, and injected failures taken from the catalog's own examples:
one root cause on one rank early on, other failures later, and a watchdog storm at the end.

Both tools run in the same session on the same file with a warm page cache: `LC_ALL=C grep -c
-F -f anchors.txt` over each signature's anchor (its longest literal fragment, the text our
prefilter looks for), and `trainwreck diagnose --json --index`. Each runs --repeat times and
the fastest run counts. Peak RSS is each child's own high-water mark (VmHWM in /proc); the
diagnosis is also run on an eighth of the log to show that its memory does not grow with the
log. Prints throughput, the ratio, peak RSS, and checks that the diagnosis names the injected
root cause and rank. Targets (issue 3): ratio >= 0.25, peak RSS < 200 MB.

Then storms (issue 15), each against a few-match log of the same size cut from the synthetic
log above, in the same session: a million identical OOM lines (130 MB), 20,000 lines from 1,000
interleaved rank prefixes, and a watchdog storm in which 1,000 ranks each print the watchdog
line with their own time and rank (so no two lines are alike), and 200,000 lines each from a
rank of its own (every line a new stream). Prints each one's time against
its baseline's (target <= 2x), and the peak RSS of 8,000 ranks of one 64 KiB OOM line each
(512 MB; target < 200 MB). `--no-storms` skips them; `--storms-only` skips the grep race.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from generator.cli import SCAN_FULL_PASS_AFTER  # noqa: E402
from generator.diagnose.engine import LogBytes, scan_log  # noqa: E402
from generator.diagnose.index import SignatureIndex, build_index, index_json  # noqa: E402
from generator.diagnose.scan import Scanner, ScanStats, Settled  # noqa: E402
from generator.diagnose.triage import Tally, triage  # noqa: E402

TS = "@@TS@@"
NOISE = [
    "[rank{r}]:[{ts}] INFO trainer.py:412 step {n} | loss {f:.4f} | lr {lr:.3e} "
    "| grad_norm {g:.3f}",
    "[rank{r}]:gpu-node-{h:02d}:{pid}:{tid} [{d}] NCCL INFO Channel {c:02d}/0 : "
    "{r} -> {r2} via P2P/IPC/read",
    "[rank{r}]:gpu-node-{h:02d}:{pid}:{tid} [{d}] NCCL INFO comm 0x{x:x} rank {r} "
    "nRanks 64 nNodes 8 localRanks 8 localRank {d} MNNVL 0",
    "[rank{r}]:gpu-node-{h:02d}:{pid}:{tid} [{d}] NCCL INFO Using network IB",
    "[rank{r}]:{{'loss': {f:.4f}, 'grad_norm': {g:.4f}, 'learning_rate': {lr:.3e}, "
    "'epoch': {e:.2f}}}",
    "[rank{r}]:[{ts}] [INFO] [logging.py:96:log_dist] [Rank {r}] step={n}, skipped=0, "
    "lr=[{lr:.6e}], mom=[(0.9, 0.95)]",
    "[rank{r}]: iteration {n:>8}/  500000 | consumed samples: {m:>12} | elapsed time per "
    "iteration (ms): {t:.1f} | learning rate: {lr:.6E} | global batch size:   512 | "
    "lm loss: {f:.6E} | loss scale: 65536.0 | grad norm: {g:.3f} | "
    "number of skipped iterations:   0 |",
    "[rank{r}]: {p:3d}%|████████▍ | {n}/100000 [12:{s:02d}<31:{s:02d},  {it:.2f}it/s]",
    "[rank{r}]:[W{md} {clock} ProcessGroupNCCL.cpp:4561] Warning: "
    "TORCH_NCCL_AVOID_RECORD_STREAMS is the default now",
    "[rank{r}]:/usr/lib/python3/dist-packages/torch/utils/checkpoint.py:91: UserWarning: "
    "None of the inputs have requires_grad=True. Gradients will be None",
]


def noise_pool(rng: random.Random, size: int = 20000) -> list[str]:
    pool = []
    for _ in range(size):
        r = rng.randrange(64)
        pool.append(
            rng.choice(NOISE).format(
                r=r,
                r2=rng.randrange(64),
                ts=TS,
                n=rng.randrange(100000),
                m=rng.randrange(10**9),
                f=rng.random() * 4,
                lr=rng.random() * 1e-3,
                g=rng.random() * 3,
                e=rng.random() * 3,
                h=r // 8,
                pid=rng.randrange(10**5),
                tid=rng.randrange(10**5),
                d=r % 8,
                c=rng.randrange(32),
                x=rng.getrandbits(48),
                t=rng.uniform(800, 1200),
                p=rng.randrange(100),
                s=rng.randrange(60),
                it=rng.random() * 5,
                md="0626",
                clock="06:00:00.000000000",
            )
        )
    return pool


def failure_lines(index: SignatureIndex, examples: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Per entry, the lines of its examples that match one of its defining signatures."""
    lines: dict[str, list[str]] = {}
    scanner = Scanner(index)
    for entry_id, example in examples:
        for m in scan_log(scanner, LogBytes("example", example.encode())):
            sigs = [index.signatures[n] for n in m.signatures]
            if any(s.entry == entry_id and s.role == "defining" for s in sigs):
                text = m.text
                while text.startswith("[rank") and "]:" in text[:12]:
                    text = text.split("]:", 1)[1]
                lines.setdefault(entry_id, []).append(text.strip())
    return lines


def load_catalog(args: argparse.Namespace) -> tuple[SignatureIndex, list[tuple[str, str]]]:
    """The index to benchmark, and (entry id, example log) pairs to take failures from."""
    from generator.diagnose.index import load_index
    from generator.loading.discovery import find_entry_files, read_sources
    from generator.validation import loadable_entries

    sources, _ = read_sources(find_entry_files(Path(args.entries)), REPO)
    entries, _ = loadable_entries(sources)
    examples = [(e.id, x.log) for e in entries for x in e.examples]
    index = (
        load_index(Path(args.index).read_bytes())
        if args.index
        else SignatureIndex(build_index(entries))
    )
    if not index.signatures or not examples:
        sys.exit("bench: no signatures or no examples in the catalog; pass --entries DIR")
    return index, examples


def stamp(seconds: float) -> str:
    t = time.gmtime(1719381600 + seconds)  # from 2024-06-26 06:00:00 UTC
    return time.strftime("%Y-%m-%d %H:%M:%S", t) + f",{int(seconds * 1000) % 1000:03d}"


ROOT_RANK = 17


def plan_failures(
    rng: random.Random, index: SignatureIndex, examples: list[tuple[str, str]], batches: int
) -> tuple[str, dict[int, list[tuple[int, str]]], list[str]]:
    """Which failure lines go into which batch: one root cause on ROOT_RANK early on, and 100
    later failures none of which would make it collateral. Returns the root cause's id, the
    plan by batch number, and the watchdog-storm lines (empty if the catalog has none)."""
    failures = failure_lines(index, examples)
    root = "cuda-out-of-memory" if "cuda-out-of-memory" in failures else sorted(failures)[0]
    others = [
        e
        for e in sorted(failures)
        if e not in (root, "nccl-watchdog-timeout") and root not in index.entries[e].collateral
    ]
    injected = {int(batches * 0.3): [(ROOT_RANK, failures[root][0])]}
    for _ in range(100):
        b = rng.randrange(int(batches * 0.5), max(int(batches * 0.5) + 1, int(batches * 0.85)))
        entry = rng.choice(others) if others else root
        injected.setdefault(b, []).append((rng.randrange(64), rng.choice(failures[entry])))
    return root, injected, failures.get("nccl-watchdog-timeout", [])


def write_log(
    path: Path, size: int, index: SignatureIndex, examples: list[tuple[str, str]], seed: int
) -> dict[str, object]:
    """Write the synthetic log; return what a correct diagnosis must say."""
    rng = random.Random(seed)
    pool = noise_pool(rng)
    batch = 50000
    batches = max(1, size // (batch * 150))
    root, injected, storm = plan_failures(rng, index, examples, batches)
    if storm:
        injected.setdefault(max(0, batches - 1), []).extend(
            (r, storm[0]) for r in range(64) if r != ROOT_RANK
        )
    written = 0
    number = 0
    with path.open("wb") as out:
        while written < size:
            seconds = number * 2.0
            lines = rng.choices(pool, k=batch)
            for rank, text in injected.get(number, []):
                lines.insert(rng.randrange(len(lines)), f"[rank{rank}]:[{TS}] ERROR {text}")
            data = ("\n".join(lines) + "\n").replace(TS, stamp(seconds)).encode()
            out.write(data)
            written += len(data)
            number += 1
    return {"root": root, "rank": ROOT_RANK}


def peak_rss(pid: int) -> int:
    """The process's own high-water RSS (VmHWM), in bytes; 0 once it has exited."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def measure(cmd: list[str], out: Path) -> tuple[float, int, int]:
    """Wall seconds, peak RSS in bytes and exit code of one child process.

    Peak RSS is the child's VmHWM, polled every 5 ms. (wait4's ru_maxrss would not do: Linux
    carries the parent's RSS into a child's maxrss across fork and exec.)
    """
    env = {**os.environ, "LC_ALL": "C"}
    with out.open("wb") as sink:
        started = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL, env=env)
        peak = 0
        while True:
            peak = max(peak, peak_rss(child.pid))
            pid, status, _ = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            time.sleep(0.005)
        elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, peak, child.returncode


OOM_LINE = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5 has a "
    "total capacity of 79.15 GiB of which 12.33 GiB is free."
)
WATCHDOG_LINE = (
    "[rank{r}]:[E626 06:{m:02d}:{s:02d}.{us:06d}000 ProcessGroupNCCL.cpp:616] [Rank {r}] "
    "Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, "
    "NumelIn={n}, NumelOut={n}, Timeout(ms)=600000) ran for {ms} milliseconds before timing out."
)


def storm_logs(work: Path, rng: random.Random) -> list[tuple[str, Path]]:
    """The storms of issue 15, each written to `work`."""
    storms = []
    path = work / "storm-oom.log"
    path.write_bytes((OOM_LINE + "\n").encode() * 1_000_000)
    storms.append(("1,000,000 identical OOM lines", path))
    path = work / "storm-interleaved.log"
    path.write_bytes("".join(f"[rank{i % 1000}]: {OOM_LINE}\n" for i in range(20_000)).encode())
    storms.append(("20,000 lines, 1,000 interleaved ranks", path))
    path = work / "storm-watchdog.log"
    with path.open("w") as out:
        for i in range(200_000):
            t = i * 0.003
            out.write(
                WATCHDOG_LINE.format(
                    r=i % 1000,
                    m=int(t // 60) % 60,
                    s=int(t) % 60,
                    us=rng.randrange(10**6),
                    seq=46 + i // 1000,
                    n=rng.randrange(1, 10**6),
                    ms=600000 + rng.randrange(100),
                )
                + "\n"
            )
    storms.append(("200,000 watchdog lines, 1,000 ranks, all different", path))
    path = work / "storm-ranks.log"
    # Every line its own stream: what the scan and the tally keep grows with the streams.
    path.write_bytes("".join(f"[rank{r}]: {OOM_LINE}\n" for r in range(200_000)).encode())
    storms.append(("200,000 lines, each from its own rank", path))
    return storms


def baseline_of(log: Path, size: int, out: Path) -> Path:
    """The first `size` bytes of the few-match log, cut at a line break (repeated if short)."""
    with log.open("rb") as src, out.open("wb") as dst:
        written = 0
        while written < size:
            chunk = src.read(min(size - written, 16 << 20))
            if not chunk:
                src.seek(0)
                continue
            if written + len(chunk) >= size:
                chunk = chunk[: chunk.rfind(b"\n") + 1] or chunk
            dst.write(chunk)
            written += len(chunk)
    return out


def scan_cpu(index: SignatureIndex, path: Path) -> float:
    """CPU seconds of the scan and tally alone, in this process: no start-up, and on a shared
    machine steadier than the wall clock (other work delays a process more than it slows it).
    The garbage collector runs as the command runs it during a scan (cli._collect): what this
    process made before is frozen, and a full pass waits SCAN_FULL_PASS_AFTER middle ones. With
    Python's defaults, the storm of one line per rank took 3.8-5.0 s here, against 2.4-2.7 s
    with the command's settings: full passes walked all the bench itself holds."""
    raw = path.read_bytes()
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(thresholds[0], thresholds[1], SCAN_FULL_PASS_AFTER)
    try:
        started = time.process_time()
        tally, settled = Tally(index), Settled()
        tally.add_all(
            Scanner(index).scan(
                io.BytesIO(raw).read, path.name, 0, ScanStats(), [], settled=settled
            ),
            settled,
        )
        tally.add_settled(settled)
        triage(tally)
        return time.process_time() - started
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def run_storms(
    ours: list[str], index: SignatureIndex, log: Path, work: Path, repeat: int, seed: int
) -> bool:
    """Each storm against a few-match log of its size; and the 8,000 wide lines' peak RSS."""
    ok = True
    print("storms         time against a few-match log of the same size (target <= 2x)")
    print("               whole command (wall, best of runs); scan alone (CPU, in process)")
    for name, path in storm_logs(work, random.Random(seed)):
        size = path.stat().st_size
        base = baseline_of(log, size, work / "storm-baseline.log")
        best = {path: float("inf"), base: float("inf")}
        cpu = {path: float("inf"), base: float("inf")}
        for _ in range(repeat):
            for target in (base, path):
                t, _, code = measure([*ours, str(target)], work / "storm.json")
                if code != 0:
                    sys.exit(f"bench: trainwreck diagnose exited {code} on {target}")
                best[target] = min(best[target], t)
                cpu[target] = min(cpu[target], scan_cpu(index, target))
        ratio = best[path] / best[base]
        cpu_ratio = cpu[path] / cpu[base]
        ok = ok and ratio <= 2
        print(
            f"  {name:<52} {size / 1e6:6.1f} MB  {best[path]:6.2f} s vs {best[base]:5.2f} s  "
            f"{ratio:4.2f}x  ({'met' if ratio <= 2 else 'MISSED'}); scan {cpu[path]:6.2f} s vs "
            f"{cpu[base]:5.2f} s  {cpu_ratio:5.2f}x"
        )
        path.unlink()
    wide = work / "storm-wide.log"
    with wide.open("w") as out:
        for rank in range(8000):
            head = f"[rank{rank}]: {OOM_LINE} "
            out.write(head + "x" * ((1 << 16) - len(head) - 1) + "\n")
    _, rss, code = measure([*ours, str(wide)], work / "storm.json")
    report = json.loads((work / "storm.json").read_text())
    right = code == 0 and [(f["id"], f["count"]) for f in report["findings"]] == [
        ("cuda-out-of-memory", 8000)
    ]
    ok = ok and right and rss < 200e6
    print(
        f"  8,000 ranks x one 64 KiB OOM line ({wide.stat().st_size / 1e6:.0f} MB): peak RSS "
        f"{rss / 1e6:.1f} MB ({'under' if rss < 200e6 else 'OVER'} 200 MB), diagnosis "
        f"{'correct' if right else 'WRONG'}"
    )
    wide.unlink()
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024, help="log size (default 1024)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool; the best counts")
    parser.add_argument("--entries", default=str(REPO / "entries"), help="catalog (default)")
    parser.add_argument("--index", help="a compiled signatures.json instead of --entries")
    parser.add_argument("--workdir", help="where to write the log (default: a temp folder)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--no-storms", action="store_true", help="skip the storms (issue 15)")
    parser.add_argument("--storms-only", action="store_true", help="skip the race with grep")
    args = parser.parse_args()
    if shutil.which("grep") is None:
        sys.exit("bench: GNU grep is needed for the baseline")
    index, examples = load_catalog(args)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="trainwreck-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    size = args.size_mb << 20
    log, small = work / f"bench-{args.size_mb}MB.log", work / "bench-eighth.log"
    print(f"writing {size:,} bytes of synthetic multi-rank log to {log} ...", flush=True)
    expect = write_log(log, size, index, examples, args.seed)
    with log.open("rb") as src, small.open("wb") as dst:
        chunk = src.read(log.stat().st_size // 8)
        dst.write(chunk[: chunk.rfind(b"\n") + 1])
    (work / "signatures.json").write_text(index_json(index.data))
    (work / "anchors.txt").write_bytes(b"\n".join(index.anchors) + b"\n")
    with log.open("rb") as warm:
        while warm.read(16 << 20):
            pass
    grep = ["grep", "-c", "-F", "-f", str(work / "anchors.txt"), str(log)]
    ours = [sys.executable, "-m", "generator.cli", "diagnose", "--json", "--no-progress"]
    ours += ["--index", str(work / "signatures.json")]
    if args.storms_only:
        ok = run_storms(ours, index, log, work, args.repeat, args.seed)
        if not args.workdir:
            shutil.rmtree(work)
        return 0 if ok else 1
    g_best = d_best = float("inf")
    g_rss = d_rss = 0
    for _ in range(args.repeat):
        t, rss, _ = measure(grep, work / "grep.out")
        g_best, g_rss = min(g_best, t), max(g_rss, rss)
        t, rss, code = measure([*ours, str(log)], work / "diagnosis.json")
        if code != 0:
            sys.exit(f"bench: trainwreck diagnose exited {code}")
        d_best, d_rss = min(d_best, t), max(d_rss, rss)
    _, small_rss, _ = measure([*ours, str(small)], work / "small.json")
    report = json.loads((work / "diagnosis.json").read_text())
    mb = log.stat().st_size / 1e6
    ratio = (mb / d_best) / (mb / g_best)
    top = report["findings"][0] if report["findings"] else {}
    ok = top.get("id") == expect["root"] and report["first_failed_rank"] == expect["rank"]
    lines = int((work / "grep.out").read_text().strip() or 0)
    print(
        f"log            {log.stat().st_size:,} bytes, 64 ranks; {len(index.signatures)} "
        f"signatures, {len(index.anchors)} anchors; {lines:,} lines hold an anchor"
    )
    print(
        f"grep -F -f     {g_best:6.2f} s  {mb / g_best:7.1f} MB/s  peak RSS {g_rss / 1e6:6.1f} MB"
    )
    print(
        f"diagnose       {d_best:6.2f} s  {mb / d_best:7.1f} MB/s  peak RSS {d_rss / 1e6:6.1f} MB"
        f"  (on 1/8 of the log: {small_rss / 1e6:.1f} MB)"
    )
    verdict = "met" if ratio >= 0.25 else "MISSED"
    print(f"ratio          {ratio:.2f}x grep's throughput (target >= 0.25x: {verdict})")
    print(f"peak RSS       {'under' if d_rss < 200e6 else 'OVER'} 200 MB")
    print(
        f"diagnosis      {top.get('id')} first on rank {report['first_failed_rank']} "
        f"(injected: {expect['root']} on rank {expect['rank']}): {'correct' if ok else 'WRONG'}"
    )
    storms_ok = args.no_storms or run_storms(ours, index, log, work, args.repeat, args.seed)
    if not args.workdir:
        shutil.rmtree(work)
    return 0 if ok and storms_ok and ratio >= 0.25 and d_rss < 200e6 else 1


if __name__ == "__main__":
    sys.exit(main())
