"""Run the lab's scenarios with the PyTorch of this interpreter and write their logs.

    .lab-venv-2.13.0/bin/python lab/run.py --out corpus/lab/2.13.0 [NAME ...]

`make lab` calls it in a throwaway virtualenv. Each log is the job's stdout and stderr as one
stream (what `torchrun ... 2>&1 | tee` keeps), after a short header: the scenario, the software,
the command, the set-up and the exit code. Then each log is diagnosed with the project's engine
and the verdict is compared with the manifest.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import verdict as lab

REPO = lab.REPO
BIN = Path(sys.executable).parent
BASE_PORT = 29600
CGROUP_ROOT = Path("/sys/fs/cgroup/memory")


def software() -> str:
    import torch

    parts = [f"torch {torch.__version__}", f"python {platform.python_version()}"]
    try:
        import tokenizers

        parts.append(f"tokenizers {tokenizers.__version__}")
    except ImportError:
        pass
    parts.append(f"{platform.system()} {platform.machine()}")
    return ", ".join(parts)


def command(s: dict[str, Any], port: int) -> list[str]:
    script = ["lab/scenarios/" + s["script"].split()[0], *s["script"].split()[1:]]
    if s.get("setup") == "rdzv":
        return [
            "torchrun", "--nnodes", "2", "--nproc-per-node", str(s["nproc"]),
            "--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}",
            "--rdzv-id", "lab", "--rdzv-conf", "join_timeout=3", "--monitor-interval", "2",
            *script,
        ]  # fmt: skip
    if s.get("nproc"):
        # The agent looks at its workers every 2 s (default 0.1 s), so the ranks that survive a
        # fault always print their collateral before it stops them: the same log every run.
        return [
            "torchrun",
            "--nproc-per-node",
            str(s["nproc"]),
            "--master-port",
            str(port),
            "--monitor-interval",
            "2",
            *script,
        ]
    return ["python", *script]


def tmpfs_works() -> bool:
    probe = tempfile.mkdtemp(prefix="lab-probe-")
    try:
        done = subprocess.run(
            ["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=1m lab {probe}"],
            capture_output=True,
        )
        return done.returncode == 0
    except OSError:
        return False
    finally:
        os.rmdir(probe)


def run(s: dict[str, Any], port: int, out: Path, versions: str, tmpfs: bool) -> Path:
    argv = command(s, port)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH", "OMP_", "LAB_"))}
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        PYTHONUNBUFFERED="1",
        LAB_FAULT_RANK=str(s.get("rank", 0)),
        LAB_TIMEOUT="3",
        LAB_PORT=str(port),
        **s.get("env", {}),
    )
    setup = s.get("setup")
    notes, held, cgroup, workdir = [], None, None, None
    real = list(argv)
    real[0] = str(BIN / argv[0])
    if setup in ("tmpfs", "tmpdir"):
        workdir = tempfile.mkdtemp(prefix="lab-disk-")
        env["LAB_DIR"] = workdir
        if setup == "tmpfs" and tmpfs:
            notes.append("a 1 MiB tmpfs (unshare -m; mount -t tmpfs -o size=1m) as LAB_DIR")
            mount = f'mount -t tmpfs -o size=1m lab {workdir} && exec "$@"'
            real = ["unshare", "-m", "sh", "-c", mount, "sh", *real]
        elif setup == "tmpfs":
            notes.append("no tmpfs allowed here: RLIMIT_FSIZE 1 MiB instead")
            real = ["sh", "-c", 'ulimit -f 1024 && exec "$@"', "sh", *real]
    if setup == "port-in-use":
        held = socket.socket()
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind(("0.0.0.0", port))
        held.listen()
        notes.append(f"another process listens on port {port} first")
    if setup == "cgroup":
        cgroup = CGROUP_ROOT / f"trainwreck-lab-{os.getpid()}-{s['name']}"
        try:
            cgroup.mkdir(exist_ok=True)
            (cgroup / "memory.limit_in_bytes").write_text(str(300 << 20))
            env["LAB_CGROUP"] = str(cgroup)
            notes.append("a cgroup v1 memory cgroup, memory.limit_in_bytes 300 MiB, for the rank")
        except OSError as exc:
            notes.append(f"no memory cgroup here ({exc.strerror}): the scenario cannot run")
            cgroup = None
    started = time.monotonic()
    proc = subprocess.Popen(
        real, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    chunks: list[bytes] = []
    seen = threading.Event()
    marker = s.get("when", "").encode()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            chunks.append(line)
            if marker and marker in line:
                seen.set()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    if setup == "sigterm-agent":
        if seen.wait(s.get("timeout", 90)):
            time.sleep(s.get("after", 1))
        proc.send_signal(signal.SIGTERM)
        notes.append(f"SIGTERM to torchrun {s.get('after', 1)} s after it printed {s['when']!r}")
    try:
        proc.wait(timeout=s.get("timeout", 90))
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        notes.append("the lab's own timeout killed the job")
    reader.join(10)
    output = b"".join(chunks)
    took = time.monotonic() - started
    if held is not None:
        held.close()
    if cgroup is not None:
        for _ in range(50):
            try:
                cgroup.rmdir()
                break
            except OSError:
                time.sleep(0.1)
    if workdir is not None:
        shutil.rmtree(workdir, ignore_errors=True)
    header = [
        f"# trainwreck lab scenario: {s['name']} (lab/scenarios.toml)",
        f"# fault: {s['fault']}",
        f"# software: {versions}",
        f"# command: {shlex.join(argv)}",
        *(f"# setup: {n}" for n in notes),
        f"# exit code: {proc.returncode}, {took:.1f} s",
    ]
    path = out / f"{s['name']}.log"
    path.write_bytes("\n".join(header).encode() + b"\n" + output)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("names", nargs="*", help="only these scenarios")
    parser.add_argument(
        "--base-port",
        type=int,
        help="scenario i uses this port + i (default: by release, so releases can run at once)",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    versions = software()
    build = "cpu" if "+cpu" in versions.split(",")[0] else "cuda"
    tmpfs = tmpfs_works()
    minor = int(versions.split()[1].split(".")[1])
    base = args.base_port or BASE_PORT + 100 * (minor % 50)
    all_scenarios = lab.scenarios()
    unknown = set(args.names) - {s["name"] for s in all_scenarios}
    if unknown:
        parser.error(f"no such scenario: {', '.join(sorted(unknown))}")
    bad = 0
    for number, s in enumerate(all_scenarios):
        if args.names and s["name"] not in args.names:
            continue
        path = run(s, base + number, args.out, versions, tmpfs)
        wrong = lab.check(s, lab.diagnose(path), build)
        gap = lab.expectation(s, build).get("gap")
        state = "ok" if not wrong else ("GAP" if gap else "FAIL")
        bad += state == "FAIL"
        print(f"{state:4} {s['name']:36} {'; '.join(wrong)}", flush=True)
    print(f"{bad} scenario(s) did not give their expected verdict", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
