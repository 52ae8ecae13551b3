"""What progress lines' numbers show (generator/diagnose/trends.py, trend_findings.py), on real
logs: the real-failure benchmark's, a training chronicle's, and the lab's; and nothing on the
healthy ones."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from generator.diagnose.engine import LogBytes, diagnose_logs, log_trends
from generator.diagnose.index import SignatureIndex
from generator.diagnose.trend_words import sparkline, trend_data
from realeval.cases import read_cases
from realeval.engines import catalog_index

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "corpus" / "real"
# BLOOM-176B's chronicle, "2022-04-12 First lm loss spike" (Megatron-DeepSpeed, rank 7's lines):
# https://github.com/bigscience-workshop/bigscience/blob/master/train/tr11-176B-ml/chronicles.md
BLOOM_SPIKE = REPO / "tests" / "fixtures" / "progress" / "bloom-176b-lm-loss-spike.log"


def _log(path: Path) -> LogBytes:
    return LogBytes(path.name, path.read_bytes())


def test_nanogpt_loss_going_nan_is_named_at_its_first_step() -> None:
    path = next((REAL / "logs").glob("169-*"))
    [t] = log_trends(_log(path))
    data = trend_data(t, "nan-loss")
    assert data == {
        "kind": "non-finite",
        "entry": "nan-loss",
        "metric": "loss",
        "says": "the loss became nan at step 3010 (it was 4.249 before)",
        "file": path.name,
        "line": 23,
        "rank": None,
        "ranks": [],
        "step": 3010,
        "time": "2023-03-22T09:32:52",
        "text": "2023-03-22 09:32:52 iter 3010: loss nan, time 1019.95ms, mfu 14.12%",
        "before": 4.249,
        "after": "nan",
        "recovered_after": None,
        "series": data["series"],
    }
    steps = [s for s, _ in data["series"]]
    assert steps[0] == 2920 and steps[-1] == 3070 and len(steps) == 17
    assert sparkline(t).endswith("\u00d7" * 7)


def test_a_deepspeed_scale_stuck_at_one_is_a_collapse_and_a_bf16_scale_of_one_is_not() -> None:
    path = next((REAL / "logs").glob("070-*"))
    [t] = log_trends(_log(path))
    assert (t.kind, t.metric, t.point.line, t.before, t.after) == (
        "loss-scale-collapse",
        "loss_scale",
        1,
        1.0,
        1.0,
    )
    bf16 = "".join(
        f" iteration {n:8d}/  250000 | elapsed time per iteration (ms): 900.0 | lm loss: "
        f"2.5{n % 7}0000E+00 | loss scale: 1.0 | grad norm: 0.231 |\n"
        for n in range(1, 40)
    )
    assert log_trends(LogBytes("bf16.log", bf16.encode())) == []


def test_the_bloom_spike_is_found_and_its_recovery_counted() -> None:
    [t] = log_trends(_log(BLOOM_SPIKE))
    assert (t.kind, t.rank, t.point.step, t.recovered_after) == ("spike", 7, 31219, 31)
    assert math.isclose(t.after or 0, 5.098124)
    assert trend_data(t, "loss-spike")["says"] == (
        "the loss jumped from about 2.242 to 5.098 at step 31219; back 31 steps later"
    )


@pytest.fixture(scope="module")
def index() -> SignatureIndex:
    return SignatureIndex(catalog_index())


def test_a_trend_is_the_root_cause_only_when_no_line_states_an_error(
    index: SignatureIndex,
) -> None:
    path = next((REAL / "logs").glob("169-*"))
    run = diagnose_logs(index, [_log(path)])
    [root] = run.diagnosis.root_causes
    assert (root.id, root.first.line, root.from_trend) == ("nan-loss", 23, True)
    crashed = (
        path.read_bytes() + b"Traceback (most recent call last):\n  File \"t.py\"\nKeyError: 'x'\n"
    )
    run = diagnose_logs(index, [LogBytes(path.name, crashed)])
    assert run.diagnosis.root_causes == ()
    assert [u.kind for u in run.diagnosis.unrecognized] == ["python-exception"]
    assert [t.kind for t in run.diagnosis.trends] == ["non-finite"]


HEALTHY = sorted(
    [REAL / c.file for c in read_cases() if c.group == "negative"]
    + list((REPO / "corpus" / "benign").glob("*.log"))
)


@pytest.mark.parametrize("path", HEALTHY, ids=[p.name for p in HEALTHY])
def test_healthy_logs_show_no_trend(path: Path) -> None:
    assert log_trends(_log(path)) == []


LAB = REPO / "corpus" / "lab" / "2.13.0"
# (scenario, kind, metric, series rank, ranks, step, line): the lab's runs of each kind on
# real PyTorch (lab/scenarios/progress.py), where the fault's step and rank are known.
LAB_TRENDS = [
    ("nan-at-step-one-rank", "non-finite", "loss", 1, (0, 1), 40, 91),
    ("loss-spike-recovers", "spike", "loss", None, (), None, 34),
    ("loss-spike-diverges", "divergence", "loss", None, (), None, 34),
    ("fp16-overflow-skips", "loss-scale-collapse", "loss_scale", None, (), 46, 55),
    ("slow-rank", "slowdown", "rank_ms", 1, (0, 1), 55, 134),
    ("stall-dataloader-one-rank", "stall", "stacks", 1, (1,), None, 54),
    ("stall-dataloader-pyspy", "stall", "stacks", 1, (1,), None, 59),
]


@pytest.mark.parametrize("case", LAB_TRENDS, ids=[c[0] for c in LAB_TRENDS])
def test_each_kind_is_found_where_the_lab_put_it(case: tuple[object, ...]) -> None:
    name, *want = case
    [t] = log_trends(_log(LAB / f"{name}.log"))
    assert [t.kind, t.metric, t.rank, t.ranks, t.point.step, t.point.line] == want


def test_a_spike_without_steps_counts_its_recovery_in_lines() -> None:
    [t] = log_trends(_log(LAB / "loss-spike-recovers.log"))
    assert trend_data(t, "loss-spike")["says"] == (
        "the loss jumped from about 0.3994 to 4.208; back 8 progress lines later"
    )


def test_the_stacks_name_the_rank_the_others_wait_for_and_take_the_root_from_the_kill(
    index: SignatureIndex,
) -> None:
    path = LAB / "stall-dataloader-pyspy.log"
    [t] = log_trends(_log(path))
    assert trend_data(t, None)["stacks"] == [
        {
            "where": "_MultiProcessingDataLoaderIter._try_get_data "
            "(torch/utils/data/dataloader.py)",
            "ranks": [1],
        },
        {"where": "all_reduce (torch/distributed/distributed_c10d.py)", "ranks": [0]},
    ]
    d = diagnose_logs(index, [_log(path)]).diagnosis
    assert [(f.id, f.role) for f in d.findings if f.role != "not-the-cause"] == [
        ("training-stall-no-progress", "root-cause"),
        ("elastic-agent-death-signal", "collateral"),
    ]
    assert d.first_failed_rank == 1 and d.findings[1].caused_by == ("training-stall-no-progress",)


def test_a_slow_rank_is_named_by_its_own_compute_time_not_the_time_every_rank_waits() -> None:
    [t] = log_trends(_log(LAB / "slow-rank.log"))
    assert trend_data(t, None)["says"] == (
        "a rank's own compute time (Megatron's timers) rose from 12.06 ms to 38.97 ms (+223%) "
        "at step 55 on rank 1, and stayed up"
    )


# Each new entry's example is a real log the kind was tuned on (BigScience's chronicles):
# (entry, kind, step, what the report says).
CHRONICLES = [
    ("loss-spike", "spike", 31219,
     "the loss jumped from about 2.242 to 5.098 at step 31219; back 31 steps later"),
    ("loss-divergence", "divergence", 6910,
     "the loss climbed from about 6.366 to 10.24 at step 6910 and stayed up"),
    ("training-slowdown-straggler", "slowdown", 42783,
     "the time per iteration rose from 105170 ms to 110655 ms (+5%) at step 42783, and stayed up"),
    ("training-stall-no-progress", "stall", 45000,
     "progress stopped at step 45000: the log goes on 7207 s after the last progress line "
     "(they came every 111 s)"),
]  # fmt: skip


@pytest.mark.parametrize("case", CHRONICLES, ids=[c[0] for c in CHRONICLES])
def test_each_kind_is_found_on_the_real_log_its_entry_shows(
    case: tuple[str, str, int, str], index: SignatureIndex
) -> None:
    entry_id, kind, step, says = case
    [path] = (REPO / "entries").glob(f"*/{entry_id}.yaml")
    log = yaml.safe_load(path.read_text())["examples"][0]["log"].encode()
    [t] = log_trends(LogBytes(entry_id, log))
    assert (t.kind, t.point.step, trend_data(t, entry_id)["says"]) == (kind, step, says)
    root = diagnose_logs(index, [LogBytes(entry_id, log)])
    assert [f.id for f in root.diagnosis.root_causes] == [entry_id]


# Pein2017/CoordExp's provenance record of an 8-rank smoke run (docs, "W8 owner-bridge smoke",
# 2026-08-10), its per-rank stderr lines quoted verbatim: six ranks time out in SeqNum=78
# BROADCAST, ranks 0 and 4 (stuck in a Gloo all_gather, last NCCL work 77) never do, and print
# `Received a dump signal ... from  rank 1`, naming a rank that only waited.
WATCHDOG_SPLIT = REPO / "tests" / "fixtures" / "progress" / "coordexp-w8-watchdog-2v6.log"


def test_ranks_without_a_timeout_of_their_own_are_the_ones_the_others_waited_for(
    index: SignatureIndex,
) -> None:
    [t] = log_trends(_log(WATCHDOG_SPLIT))
    assert (t.kind, t.metric, t.ranks, t.point.line) == ("stall", "watchdog", (0, 4), 2)
    assert trend_data(t, None)["says"] == (
        "ranks 0, 4 printed no watchdog timeout of their own while ranks 1, 2, 3, 5, 6, 7 timed "
        "out waiting in BROADCAST: the collective waited for them"
    )
    d = diagnose_logs(index, [_log(WATCHDOG_SPLIT)]).diagnosis
    assert d.first_failed_rank == 0
    assert [(f.id, f.role) for f in d.findings] == [
        ("training-stall-no-progress", "root-cause"),
        ("nccl-watchdog-timeout", "collateral"),
        ("gloo-connection-closed-by-peer", "collateral"),
    ]


def test_a_crash_on_the_quiet_rank_stays_the_root_cause_and_the_split_goes_unsaid(
    index: SignatureIndex,
) -> None:
    # tests/fixtures/logs/per-rank: rank 1's ECC error, ranks 0, 2, 3 time out ten minutes on.
    logs = sorted((REPO / "tests" / "fixtures" / "logs" / "per-rank").glob("*.log"))
    d = diagnose_logs(index, [LogBytes(f"per-rank/{p.name}", p.read_bytes()) for p in logs])
    assert d.diagnosis.root_causes[0].id == "cuda-ecc-uncorrectable"
    assert [t.metric for t in d.diagnosis.trends] == ["progress"]
