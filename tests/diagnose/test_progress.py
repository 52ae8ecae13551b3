"""Progress lines read into numbers (generator/diagnose/progress.py), on lines real software
printed: each line is from a public thread or a log of the real-failure benchmark."""

from __future__ import annotations

import io
import math

import pytest

from generator.diagnose.context import END_BYTES, Tail
from generator.diagnose.progress import (
    FULL_BYTES,
    STRIDE_BYTES,
    WINDOW_BYTES,
    ProgressReader,
    Reading,
    read_progress,
)

NAN = math.nan


def reading(**kw: object) -> Reading:
    fields: dict[str, object] = dict.fromkeys(
        ("step", "total", "loss", "eval_loss", "grad_norm", "loss_scale", "iter_ms", "skipped")
    )
    fields["overflow"] = False
    fields.update(kw)
    return Reading(**fields)  # type: ignore[arg-type]


def same(a: Reading | None, b: Reading | None) -> bool:
    """Equal, NaN equal to NaN."""
    if a is None or b is None:
        return a is b
    for name in Reading.__dataclass_fields__:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            continue
        if x != y:
            return False
    return True


REAL_LINES = [
    # Megatron-LM, old format: https://github.com/epfLLM/Megatron-LLM/issues/11
    (
        " iteration      122/  250000 | consumed samples:       124928 | elapsed time per "
        "iteration (ms): 86545.2 | learning rate: 9.150E-06 | global batch size:  1024 | lm loss:"
        " 2.504220E+00 | loss scale: 1.0 | grad norm: 0.231 | number of skipped iterations:   0 |"
        " number of nan iterations:   0 |",
        reading(
            step=122,
            total=250000,
            loss=2.50422,
            grad_norm=0.231,
            loss_scale=1.0,
            iter_ms=86545.2,
            skipped=0,
        ),
    ),
    # Megatron-LM with a timestamp: https://github.com/NVIDIA/Megatron-LM/issues/756
    (
        " [2024-04-06 03:02:12] iteration       71/     100 | consumed samples:         9088 | "
        "elapsed time per iteration (ms): 5361.6 | throughput per GPU (TFLOP/s/GPU): 243.6 | "
        "learning rate: 1.420000E-05 | global batch size:   128 | lm loss: 1.818812E+00 | "
        "load_balancing_loss: 1.013377E+00 | loss scale: 1.0 | grad norm: 1.300 | num zeros: 0.0 "
        "| number of skipped iterations:   0 | number of nan iterations:   0 |",
        reading(
            step=71,
            total=100,
            loss=1.818812,
            grad_norm=1.3,
            loss_scale=1.0,
            iter_ms=5361.6,
            skipped=0,
        ),
    ),
    # Megatron-DeepSpeed leaves the loss out when it is NaN; the grad norm says it:
    # https://github.com/bigscience-workshop/Megatron-DeepSpeed/issues/396
    (
        " iteration     5426/  250000 | consumed samples:        43408 | consumed tokens:     "
        "88899584 | elapsed time per iteration (ms): 4247.9 | learning rate: 2.999E-04 | global "
        "batch size:     8 | loss scale: 1.0 | grad norm: nan | actual seqlen:  2048 | number of "
        "skipped iterations:   0 | number of nan iterations:   0 | samples per second: 1.883 | "
        "TFLOPs: 78.36 |",
        reading(step=5426, total=250000, grad_norm=NAN, loss_scale=1.0, iter_ms=4247.9, skipped=0),
    ),
    # DeepSpeed's progress line (corpus/real/logs/174)
    (
        "[2023-10-27 09:06:36,873] [INFO] [logging.py:96:log_dist] [Rank 0] step=10, skipped=0, "
        "lr=[0.001], mom=[[0.9, 0.999]]",
        reading(step=10, skipped=0),
    ),
    # DeepSpeed's loss scaler, 0.6 and older print [deepscale] (corpus/real/logs/070)
    (
        "[2021-11-27 00:36:54,800] [INFO] [stage2.py:1628:step] [deepscale] OVERFLOW! Rank 0 "
        "Skipping step. Attempted loss scale: 1, reducing to 1",
        reading(loss_scale=1.0, overflow=True),
    ),
    # Apex amp (corpus/real/logs/474), pasted after a backtick
    (
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 131072.0",
        reading(loss_scale=131072.0, overflow=True),
    ),
    # the Hugging Face Trainer's dict (corpus/real/logs/087 and 126)
    (
        "{'loss': 2.011, 'learning_rate': 9.81e-05, 'epoch': 1.85, 'global_step': 2900}",
        reading(step=2900, loss=2.011),
    ),
    (
        "{'eval_loss': nan, 'eval_wer': 100.0, 'eval_runtime': 22.4018, "
        "'eval_samples_per_second': 2.232, 'eval_steps_per_second': 0.312, 'epoch': 1.0}",
        reading(eval_loss=NAN),
    ),
    # nanoGPT (corpus/real/logs/169)
    (
        "2023-03-22 09:32:52 iter 3010: loss nan, time 1019.95ms, mfu 14.12%",
        reading(step=3010, loss=NAN, iter_ms=1019.95),
    ),
    # tqdm, slower than one step a second (corpus/real/logs/465)
    (
        "Training progress:  27%|\u2588\u2588\u2588\u258f        | 8080/30000 [37:14<9:40:37,  "
        "1.59s/it, Loss=0.0666318, Stereo Loss=0.0108869]",
        reading(step=8080, total=30000, loss=0.0666318, iter_ms=1590.0),
    ),
    (
        "Iteration:  19% 967/5070 [00:08<03:03, 22.37it/s] ",
        reading(step=967, total=5070, iter_ms=1000.0 / 22.37),
    ),
]

REAL_LINES += [
    # torchtitan (torchtitan/components/metrics.py; grad_norm from PR #1339):
    # https://github.com/pytorch/torchtitan/pull/2389 and /pull/1287
    (
        "[titan] 2026-02-24 19:46:19,145 - root - INFO - step:  5  loss:  7.07623  grad_norm: "
        "46.5000  memory: 66.91GiB(37.51%)  tps: 10,007  tflops: 313.36  mfu: 13.93%",
        reading(step=5, loss=7.07623, grad_norm=46.5),
    ),
    (
        "[titan] 2025-06-16 22:30:50,322 - root - INFO - step: 200  loss:  6.1384  memory: "
        "49.66GiB(52.28%)  tps: 5,856  tflops: 339.16  mfu: 34.29%",
        reading(step=200, loss=6.1384),
    ),
    # fairseq's simple progress bar: https://github.com/facebookresearch/fairseq/issues/2332
    (
        "2020-07-17 04:08:14 | INFO | train_inner | epoch 001:    100 / 2952087 loss=16.348, "
        "ppl=83437.5, wps=8640.2, ups=4.66, wpb=1854, bsz=2, num_updates=100, lr=1e-06, "
        "gnorm=4.215, loss_scale=128, train_wall=22, wall=120",
        reading(step=100, loss=16.348, grad_norm=4.215, loss_scale=128.0),
    ),
    # Keras 2's Progbar, at an epoch's end and mid-epoch:
    # https://github.com/divamgupta/image-segmentation-keras/issues/50,
    # https://github.com/manishsoni1908/Mobilenet-ssd-keras/issues/21
    (
        "512/512 [==============================] - 127s 247ms/step - loss: nan - acc: nan - "
        "val_loss: nan - val_acc: nan",
        reading(step=512, total=512, loss=NAN, eval_loss=NAN, iter_ms=247.0),
    ),
    (
        "  4/234 [..............................] - ETA: 25:09:00 - loss: inf",
        reading(step=4, total=234, loss=math.inf),
    ),
]

NOT_PROGRESS = [
    # a scaler's notice with no new scale, and Megatron's validation line: no training step
    "[2024-07-02 09:01:52,118] [INFO] [loss_scaler.py:190:update_scale] [deepspeed] OVERFLOW! "
    "Rank 0 Skipping step. Attempted loss scale: 65536, but hysteresis is 2. Reducing hysteresis "
    "to 1",
    " validation loss at iteration 150 on test set | lm loss value: 1.177732E+01 | lm loss PPL: "
    "1.302641E+05 | ",
    # the Trainer's closing summary holds averages, not a step
    "{'train_runtime': 120.5, 'train_samples_per_second': 8.3, 'train_steps_per_second': 1.0, "
    "'train_loss': 1.5123, 'epoch': 3.0}",
    # prose that names a loss
    "I checked and the loss is 3.5 which seems high",
    "Downloading: 100%|##########| 1.2M/1.2M [00:00<00:00, 3.1MB/s]",
]


@pytest.mark.parametrize(("line", "want"), REAL_LINES, ids=[w[0][:40] for w in REAL_LINES])
def test_each_format_is_read_from_a_real_line(line: str, want: Reading) -> None:
    got = read_progress(line.strip())
    assert same(got, want), got


@pytest.mark.parametrize("line", NOT_PROGRESS, ids=[w[:40] for w in NOT_PROGRESS])
def test_lines_that_are_not_progress_give_nothing(line: str) -> None:
    assert read_progress(line.strip()) is None


def test_lightning_prints_a_nan_loss_as_nan_dot_zero() -> None:
    got = read_progress(
        "Epoch 0:  45%|####5     | 450/1000 [00:30<00:36, 15.00it/s, loss=nan.0, v_num=1]"
    )
    assert got is not None and got.loss is not None and math.isnan(got.loss)
    assert (got.step, got.total, got.iter_ms) == (450, 1000, 1000.0 / 15.0)


def _read_all(raw: bytes, block: int) -> ProgressReader:
    reader = ProgressReader(Tail(io.BytesIO(raw).read, END_BYTES), "x.log", 0, None)
    while reader.read(block):
        pass
    return reader


def _megatron(step: int) -> bytes:
    return (
        f" iteration {step:8d}/  500000 | elapsed time per iteration (ms): 900.0 | "
        f"lm loss: 3.000000E+00 | loss scale: 65536.0 |\n"
    ).encode()


def test_a_small_log_is_read_whole_in_any_block_size_and_its_last_line_too() -> None:
    raw = b"".join(_megatron(n) for n in range(1, 41)).rstrip(b"\n")
    for block in (7, 64, 4096, 1 << 20):
        reader = _read_all(raw, block)
        loss = reader.log.series[(None, "loss")]
        assert [p.step for p in loss.points] == list(range(1, 41))
        assert [p.line for p in loss.points] == list(range(1, 41))
        assert reader.log.series[(None, "iter_ms/500000")].points[0].value == 900.0


def test_a_large_log_is_read_in_windows_that_depend_on_the_offset_not_the_blocks() -> None:
    filler = b"NCCL INFO Channel 00/0 : 0 -> 1 via P2P/IPC/read" + b" " * 50 + b"\n"
    parts, size, step = [], 0, 0
    while size < 3 * STRIDE_BYTES:
        line = _megatron(step) if step % 2 else filler
        parts.append(line)
        size += len(line)
        step += 1
    raw = b"".join(parts)
    seen = []
    for block in (1000, 4 << 20):
        reader = _read_all(raw, block)
        points = reader.log.series[(None, "loss")].points
        seen.append([(p.step, p.line, p.offset) for p in points])
        for p in points:
            in_full = p.offset < FULL_BYTES
            k = p.offset // STRIDE_BYTES
            in_window = k >= 1 and p.offset < k * STRIDE_BYTES + WINDOW_BYTES
            assert in_full or in_window
            assert raw[p.offset : p.offset + 20] == _megatron(p.step or 0)[:20]
            assert raw.count(b"\n", 0, p.offset) + 1 == p.line
    assert seen[0] == seen[1]
    assert len(seen[0]) < 2 * (FULL_BYTES + 2 * WINDOW_BYTES) // 90


def test_a_long_series_is_thinned_to_every_other_point_and_keeps_its_first_nan() -> None:
    lines = [_megatron(n) for n in range(1, 2001)]
    lines[1000] = lines[1000].replace(b"3.000000E+00", b"NAN")  # within the first 128 KiB
    reader = _read_all(b"".join(lines), 1 << 20)
    series = reader.log.series[(None, "loss")]
    assert len(series.points) <= 512
    assert series.first_nonfinite is not None and series.first_nonfinite.step == 1001
    steps = [p.step for p in series.points]
    assert steps == sorted(steps) and steps[0] == 1


def test_the_imagenet_examples_progress_meter_gives_its_step() -> None:
    # lab/scenarios/progress.py prints pytorch/examples' imagenet/main.py ProgressMeter line
    got = read_progress(
        "Epoch: [0][36/64]\tTime  0.012 ( 0.015)\tData  0.001 ( 0.003)\tLoss 7.9928e-02 "
        "(8.8792e-01)\tAcc@1  93.75 ( 69.79)\tAcc@5 100.00 ( 92.71)"
    )
    assert same(got, reading(step=36, total=64, loss=0.079928))


def test_megatrons_timers_give_each_ranks_own_compute_time_at_the_last_step() -> None:
    log = (
        b"[default1]: [2026-12-07 23:22:22.808240] iteration       10/     100 | consumed samples:"
        b"         1280 | elapsed time per iteration (ms): 56.1 |\n"
        b"[default1]:INFO:megatron.core.timers:times across ranks (ms):\n"
        b"[default1]:  forward-backward:\n"
        b"[default1]:     rank  0: 14.82\n"
        b"[default1]:     rank  1: 13.05\n"
        b"[default1]:  all-grads-sync:\n"
        b"[default1]:     rank  0: 17.47\n"
        b"[default1]:     rank  1: 18.29\n"
        b"[default1]: [2026-12-07 23:22:23.099478] iteration       15/     100 |\n"
    )
    series = _read_all(log, 1 << 20).log.series
    own = {k: [(p.step, p.value, p.line) for p in s.points] for k, s in series.items()}
    assert own == {
        (1, "iter_ms/100"): [(10, 56.1, 1)],
        (0, "rank_ms/forward-backward"): [(10, 14.82, 4)],
        (1, "rank_ms/forward-backward"): [(10, 13.05, 5)],
    }
