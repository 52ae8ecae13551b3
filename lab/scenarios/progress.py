"""Failures that print no error line, only numbers in the progress lines (issue 37).

progress.py nan              nanoGPT's `iter N: loss ...` line on every rank; rank 1's batch at
                             iter 40 holds a NaN; DDP spreads it, every rank's loss is nan after
progress.py spike-recovers   Hugging Face Trainer's log dicts on rank 0; the learning rate is
                             50x too high for steps 121-122, then right again
progress.py spike-diverges   the same, but the learning rate stays 50x too high from step 121
progress.py fp16-overflow    Megatron-LM's training_log line (last rank) with fp16 autocast and
                             torch.amp.GradScaler; from iteration 31 the inputs overflow fp16,
                             every step is skipped and the loss scale halves every iteration
progress.py slow-rank        Megatron-LM's training_log line on every rank, and its per-rank
                             timers (--timing-log-option all); from iteration 51 rank 1 is a
                             straggler: 25 ms more per step before its all_reduce
progress.py stall            pytorch/examples imagenet's ProgressMeter line on every rank; rank
                             1's DataLoader worker blocks in __getitem__ at batch 37, rank 0
                             waits in all_reduce; a faulthandler watchdog dumps every rank's
                             stacks 5 s after the last step began
progress.py stall-pyspy      the same, but the watchdog runs `py-spy dump --pid` on its rank and
                             on the rank's DataLoader worker (py-spy next to this Python)

Every run exits 0 unless someone stops it (the stalls are stopped by a SIGTERM to torchrun, the
way a scheduler ends a job that stopped making progress). The lines are the frameworks' own
formats, copied verbatim; each function names the file, repository and version it copies.
"""

from __future__ import annotations

import faulthandler
import math
import multiprocessing
import os
import shutil
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler, TensorDataset

import _lab

RANK, WORLD = _lab.RANK, _lab.WORLD


# --- nanoGPT --------------------------------------------------------------------------------
class Block(nn.Module):
    """nanoGPT's transformer block (model.py), small."""

    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        self.n_head = n_head
        self.ln_1 = nn.LayerNorm(n_embd)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.mlp(self.ln_2(x))


class SeriesGPT(nn.Module):
    """A nanoGPT-shaped model that reads a float series (sensor readings) and predicts each next
    value: an input projection in place of the token embedding, MSE in place of cross-entropy."""

    def __init__(self, n_layer: int = 2, n_head: int = 4, n_embd: int = 64, block_size: int = 64):
        super().__init__()
        self.n_layer, self.n_head, self.n_embd, self.block_size = (
            n_layer,
            n_head,
            n_embd,
            block_size,
        )
        self.wte = nn.Linear(1, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList(Block(n_embd, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, 1)

    def forward(
        self, idx: torch.Tensor, targets: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        pos = torch.arange(idx.size(1))
        x = self.wte(idx.unsqueeze(-1)) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        pred = self.lm_head(self.ln_f(x)).squeeze(-1)
        return pred, F.mse_loss(pred, targets)

    def get_num_params(self) -> int:
        return sum(p.numel() for p in self.parameters()) - self.wpe.weight.numel()

    def estimate_mfu(self, fwdbwd_per_iter: int, dt: float) -> float:
        """nanoGPT model.py's estimate, verbatim: MFU against an A100's bfloat16 peak."""
        N = self.get_num_params()
        L, H, Q, T = self.n_layer, self.n_head, self.n_embd // self.n_head, self.block_size
        flops_per_token = 6 * N + 12 * L * H * Q * T
        flops_per_fwdbwd = flops_per_token * T
        flops_per_iter = flops_per_fwdbwd * fwdbwd_per_iter
        flops_achieved = flops_per_iter * (1.0 / dt)
        flops_promised = 312e12
        return flops_achieved / flops_promised


def nanogpt_nan() -> None:
    """karpathy/nanoGPT train.py (commit 3adf61e, 2025-11-12; the repository has no tags): its
    loop and its progress line, printed on every rank (nanoGPT prints on the master only)."""
    nan_iter, max_iters, batch_size, block_size = 40, 60, 16, 64
    gradient_accumulation_steps, grad_clip, log_interval = 1, 1.0, 1
    _lab.init()
    torch.manual_seed(1337)
    model = DDP(SeriesGPT(block_size=block_size))
    raw_model = model.module
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
    # Each rank's shard of the data: a long sensor series, different per rank.
    gen = torch.Generator().manual_seed(1337 + RANK)
    t = torch.arange(200_000, dtype=torch.float32)
    data = (
        torch.sin(t * 0.07)
        + 0.5 * torch.sin(t * 0.013 + RANK)
        + 0.05 * torch.randn(t.shape, generator=gen)
    )
    drawn = 0

    def get_batch() -> tuple[torch.Tensor, torch.Tensor]:
        nonlocal drawn
        ix = torch.randint(len(data) - block_size, (batch_size,), generator=gen)
        x = torch.stack([data[i : i + block_size] for i in ix])
        y = torch.stack([data[i + 1 : i + 1 + block_size] for i in ix])
        if drawn == nan_iter and _lab.faulty():
            x[3, 17] = float("nan")  # a missing reading in this rank's shard
        drawn += 1
        return x, y

    X, Y = get_batch()
    t0 = time.time()
    local_iter_num = 0
    running_mfu = -1.0
    iter_num = 0
    while True:
        for _micro_step in range(gradient_accumulation_steps):
            _logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
            X, Y = get_batch()
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        t1 = time.time()
        dt = t1 - t0
        t0 = t1
        if iter_num % log_interval == 0:
            lossf = loss.item() * gradient_accumulation_steps
            if local_iter_num >= 5:
                mfu = raw_model.estimate_mfu(batch_size * gradient_accumulation_steps, dt)
                running_mfu = mfu if running_mfu == -1.0 else 0.9 * running_mfu + 0.1 * mfu
            print(
                f"iter {iter_num}: loss {lossf:.4f}, time {dt * 1000:.2f}ms, mfu {running_mfu * 100:.2f}%",  # noqa: E501
                flush=True,
            )
        iter_num += 1
        local_iter_num += 1
        if iter_num > max_iters:
            break
    _lab.done()


# --- Hugging Face Trainer -------------------------------------------------------------------
def hf_trainer(diverge: bool) -> None:
    """Hugging Face transformers 4.57.6 (PyPI wheel): Trainer._inner_training_loop and
    _maybe_log_save_evaluate make the dict (loss rounded to 4 places, averaged over the logging
    steps and the ranks; grad_norm of the last step; learning_rate before the scheduler's step;
    epoch), Trainer.log adds the epoch, ProgressCallback.on_log rounds it to 2 places and writes
    str(logs) on the world's process zero. At the end, speed_metrics and train_loss the same way.
    transformers 5.x's ProgressCallback prints floats as strings ('loss': '1.234'): not this.
    """
    fault_step, fault_steps, factor = 120, 2, 50.0
    max_steps, logging_steps, per_device_batch, lr0, max_grad_norm = 240, 5, 32, 2e-3, 1.0
    _lab.init()
    torch.manual_seed(42)
    teacher = nn.Linear(32, 8)
    features = torch.randn(4096, 32)
    with torch.no_grad():
        labels = teacher(features).argmax(1)
    data = TensorDataset(features, labels)
    sampler = DistributedSampler(data, shuffle=True, seed=42)
    loader = DataLoader(data, batch_size=per_device_batch, sampler=sampler, drop_last=True)
    steps_in_epoch = len(loader)
    model = DDP(
        nn.Sequential(
            nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 8)
        )
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr0, weight_decay=0.0)

    def schedule(step: int) -> float:
        # lr_scheduler_type "constant" (get_constant_schedule), times the fault: the learning
        # rate is 50x too high from step 120 on, for 2 steps or for good.
        wrong = step >= fault_step and (diverge or step < fault_step + fault_steps)
        return factor if wrong else 1.0

    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    start_time = time.time()
    tr_loss = torch.tensor(0.0)
    total_loss_scalar, global_step, last_logged, epoch_f = 0.0, 0, 0, 0.0
    zero = RANK == 0

    def log(logs: dict) -> None:
        logs["epoch"] = epoch_f  # Trainer.log
        if zero:  # ProgressCallback.on_log
            shallow_logs = dict(logs)
            shallow_logs.pop("total_flos", None)
            if "epoch" in shallow_logs:
                shallow_logs["epoch"] = round(shallow_logs["epoch"], 2)
            print(str(shallow_logs), flush=True)

    epoch = 0
    while global_step < max_steps:
        sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(loader):
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            tr_loss = tr_loss + loss.detach()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            optimizer.step()
            learning_rate = lr_scheduler.get_last_lr()[0]
            lr_scheduler.step()
            model.zero_grad()
            global_step += 1
            epoch_f = epoch + (step + 1) / steps_in_epoch
            if global_step % logging_steps == 0:
                gathered = [torch.zeros(()) for _ in range(WORLD)]
                dist.all_gather(gathered, tr_loss)  # nested_gather(...).mean()
                tr_loss_scalar = torch.stack(gathered).mean().item()
                tr_loss -= tr_loss
                logs = {"loss": round(tr_loss_scalar / (global_step - last_logged), 4)}
                logs["grad_norm"] = grad_norm.item()
                logs["learning_rate"] = learning_rate
                total_loss_scalar += tr_loss_scalar
                last_logged = global_step
                log(logs)
            if global_step >= max_steps:
                break
        epoch += 1
    total_loss_scalar += tr_loss.item()
    runtime = time.time() - start_time
    metrics = {"train_runtime": round(runtime, 4)}
    metrics["train_samples_per_second"] = round(max_steps * per_device_batch * WORLD / runtime, 3)
    metrics["train_steps_per_second"] = round(max_steps / runtime, 3)
    metrics["total_flos"] = 0.0
    metrics["train_loss"] = total_loss_scalar / max(global_step, 0.001)
    log(metrics)
    _lab.done()


# --- Megatron-LM ----------------------------------------------------------------------------
# NVIDIA/Megatron-LM tag core_v0.19.0, megatron/training/training.py, training_log(): the line
# below is its log_string, field by field, each with its format spec (its .format calls written
# as f-strings; the timestamp came in with core_v0.16.0), with the options these runs use: no
# throughput, energy, MoE, params norm or num zeros; one loss, 'lm loss'. The bookkeeping is
# training_log's own: a skipped iteration adds no loss, counts as a nan iteration when its loss
# is inf or nan, and an interval with no advanced iteration prints 'lm loss: 0.000000E+00';
# grad norm is left out when the optimizer skipped the step (None).
class TrainingLog:
    def __init__(self, train_iters: int, global_batch: int, show: bool) -> None:
        self.train_iters, self.batch_size, self.show = train_iters, global_batch, show
        self.total_loss_dict: dict = {}
        self.consumed_train_samples = 0
        dist.barrier()  # timers('interval-time').start(barrier=True)
        self.interval_start = time.time()

    def __call__(
        self,
        loss_dict: dict,
        learning_rate: float,
        iteration: int,
        loss_scale: float,
        skipped_iter: int,
        grad_norm: float | None,
        log_interval: int,
    ) -> None:
        total_loss_dict = self.total_loss_dict
        advanced_iters_key = "advanced iterations"
        skipped_iters_key = "skipped iterations"
        nan_iters_key = "nan iterations"
        if not skipped_iter:
            total_loss_dict[advanced_iters_key] = total_loss_dict.get(advanced_iters_key, 0) + 1
        elif advanced_iters_key not in total_loss_dict:
            total_loss_dict[advanced_iters_key] = 0
        total_loss_dict[skipped_iters_key] = (
            total_loss_dict.get(skipped_iters_key, 0) + skipped_iter
        )
        got_nan = False
        for key in loss_dict:
            if not skipped_iter:
                total_loss_dict[key] = (
                    total_loss_dict.get(key, torch.tensor([0.0])) + loss_dict[key]
                )
            else:
                value = loss_dict[key].float().sum().item()
                is_nan = value == float("inf") or value == -float("inf") or value != value
                got_nan = got_nan or is_nan
        total_loss_dict[nan_iters_key] = total_loss_dict.get(nan_iters_key, 0) + int(got_nan)
        if iteration % log_interval != 0:
            return
        total_iterations = total_loss_dict[advanced_iters_key] + total_loss_dict[skipped_iters_key]
        dist.barrier()  # timers('interval-time').elapsed(barrier=True)
        now = time.time()
        elapsed_time, self.interval_start = now - self.interval_start, now
        elapsed_time_per_iteration = elapsed_time / total_iterations
        log_string = f" [{datetime.now().strftime('%Y-%m-%d %H:%M:%S.%f')}]"
        log_string += f" iteration {iteration:8d}/{self.train_iters:8d} |"
        log_string += f" consumed samples: {self.consumed_train_samples:12d} |"
        log_string += (
            f" elapsed time per iteration (ms): {elapsed_time_per_iteration * 1000.0:.1f} |"
        )
        log_string += f" learning rate: {learning_rate:.6E} |"
        log_string += f" global batch size: {self.batch_size:5d} |"
        for key in total_loss_dict:
            if key not in [advanced_iters_key, skipped_iters_key, nan_iters_key]:
                avg = total_loss_dict[key].item() / float(
                    max(1, total_loss_dict[advanced_iters_key])
                )
                if avg >= 0.0:
                    log_string += f" {key}: {avg:.6E} |"
                total_loss_dict[key] = torch.tensor([0.0])
        log_string += f" loss scale: {loss_scale:.1f} |"
        if grad_norm is not None:
            log_string += f" grad norm: {grad_norm:.3f} |"
        log_string += f" number of skipped iterations: {total_loss_dict[skipped_iters_key]:3d} |"
        log_string += f" number of nan iterations: {total_loss_dict[nan_iters_key]:3d} |"
        total_loss_dict[advanced_iters_key] = 0
        total_loss_dict[skipped_iters_key] = 0
        total_loss_dict[nan_iters_key] = 0
        if self.show:
            print(log_string, flush=True)


class OptimizerParamScheduler:
    """Megatron's default schedule, linear warm-up then cosine decay to min_lr; it steps only
    after an update that was not skipped (train_step: `if update_successful`)."""

    def __init__(self, optimizer: torch.optim.Optimizer, max_lr: float, min_lr: float,
                 warmup_steps: int, decay_steps: int) -> None:  # fmt: skip
        self.optimizer, self.max_lr, self.min_lr = optimizer, max_lr, min_lr
        self.warmup_steps, self.decay_steps, self.num_steps = warmup_steps, decay_steps, 0
        self.step(0)

    def get_lr(self) -> float:
        if self.warmup_steps > 0 and self.num_steps <= self.warmup_steps:
            return self.max_lr * float(self.num_steps) / float(self.warmup_steps)
        ratio = min(
            1.0, (self.num_steps - self.warmup_steps) / (self.decay_steps - self.warmup_steps)
        )
        coeff = 0.5 * (math.cos(math.pi * ratio) + 1.0)
        return self.min_lr + coeff * (self.max_lr - self.min_lr)

    def step(self, increment: int) -> None:
        self.num_steps += increment
        for group in self.optimizer.param_groups:
            group["lr"] = self.get_lr()


def megatron_fp16_overflow() -> None:
    """Megatron's fp16 loop with torch's GradScaler as the loss scaler (Megatron's own
    DynamicGradScaler starts at 2**32 and stops at min_loss_scale 1.0; GradScaler starts at
    2**16 and has no floor). The run keeps going as Megatron does with
    --no-check-for-nan-in-loss-and-grad; the training_log line is printed by the last rank."""
    overflow_from, train_iters, micro_batch = 31, 60, 32
    _lab.init()
    torch.manual_seed(1234)
    model = DDP(
        nn.Sequential(
            nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1)
        )
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=0.0)
    scheduler = OptimizerParamScheduler(
        optimizer, 3.0e-4, 3.0e-5, warmup_steps=10, decay_steps=train_iters
    )
    scaler = torch.amp.GradScaler("cpu")  # init_scale 2**16, backoff 0.5, growth_interval 2000
    weights = torch.randn(64, 1, generator=torch.Generator().manual_seed(7)) / 8
    gen = torch.Generator().manual_seed(1234 + RANK)
    # print_rank_last: only the last rank prints
    training_log = TrainingLog(train_iters, micro_batch * WORLD, show=RANK == WORLD - 1)
    for iteration in range(1, train_iters + 1):
        x = torch.randn(micro_batch, 64, generator=gen)
        y = x @ weights + 0.1 * torch.randn(micro_batch, 1, generator=gen)
        if iteration >= overflow_from:
            # The fault: from here the data comes in raw units, not normalized; one feature in
            # the tens of thousands is past float16's 65504 once the first layer sums it.
            x = x * 4.0e4
        with torch.autocast("cpu", dtype=torch.float16):
            pred = model(x)
        loss = F.mse_loss(pred.float(), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
        scale_before = scaler.get_scale()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        update_successful = scaler.get_scale() >= scale_before
        if update_successful:
            scheduler.step(increment=1)
            skipped_iter = 0
        else:
            grad_norm, skipped_iter = None, 1
        reported = loss.detach().clone()
        dist.all_reduce(reported)  # average_losses_across_data_parallel_group
        reported /= WORLD
        training_log.consumed_train_samples += micro_batch * WORLD
        lr = optimizer.param_groups[0]["lr"]
        loss_dict = {"lm loss": reported}
        training_log(loss_dict, lr, iteration, scaler.get_scale(), skipped_iter, grad_norm, 1)
    _lab.done()


def megatron_slow_rank() -> None:
    """Megatron's training_log line on every rank (Megatron prints it on the last rank only), each
    with its own elapsed time per iteration (barrier-synchronized, as Megatron's interval timer
    is), and on the last rank the timers of --timing-log-level 1 --timing-log-option all:
    megatron/core/timers.py Timers.log -> _get_all_ranks_time_string, through Megatron's logging
    set-up (training.py: logging.basicConfig(handlers=[CustomHandler()], level=logging.INFO),
    a stdout handler with logging's default format, 'INFO:megatron.core.timers:...')."""
    slow_from, train_iters, log_interval, micro_batch, extra = 51, 100, 5, 64, 0.025
    _lab.init()
    torch.manual_seed(1234)
    model = nn.Sequential(
        nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 1)
    )
    for p in model.parameters():
        dist.broadcast(p.data, 0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.0)
    scheduler = OptimizerParamScheduler(
        optimizer, 3.0e-4, 3.0e-5, warmup_steps=10, decay_steps=train_iters
    )
    weights = torch.randn(512, 1, generator=torch.Generator().manual_seed(7)) / 16
    gen = torch.Generator().manual_seed(1234 + RANK)
    training_log = TrainingLog(train_iters, micro_batch * WORLD, show=True)
    names = ["forward-backward", "all-grads-sync", "optimizer"]
    timers = dict.fromkeys(names, 0.0)
    params = list(model.parameters())
    for iteration in range(1, train_iters + 1):
        x = torch.randn(micro_batch, 512, generator=gen)
        y = x @ weights + 0.1 * torch.randn(micro_batch, 1, generator=gen)
        start = time.time()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        if iteration >= slow_from and _lab.faulty():
            time.sleep(extra)  # the straggler: this rank's step is 25 ms slower, every step
        timers["forward-backward"] += time.time() - start
        start = time.time()
        flat = torch.cat([p.grad.reshape(-1) for p in params])
        dist.all_reduce(flat)
        flat /= WORLD
        offset = 0
        for p in params:
            p.grad.copy_(flat[offset : offset + p.numel()].view_as(p))
            offset += p.numel()
        timers["all-grads-sync"] += time.time() - start
        start = time.time()
        grad_norm = torch.nn.utils.clip_grad_norm_(params, 1.0).item()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        scheduler.step(increment=1)
        timers["optimizer"] += time.time() - start
        reported = loss.detach().clone()
        dist.all_reduce(reported)
        reported /= WORLD
        training_log.consumed_train_samples += micro_batch * WORLD
        lr = optimizer.param_groups[0]["lr"]
        # bf16/fp32 training: Megatron prints a loss scale of 1.0
        training_log({"lm loss": reported}, lr, iteration, 1.0, 0, grad_norm, log_interval)
        if iteration % log_interval == 0:
            mine = torch.tensor([timers[n] for n in names])
            every = [torch.zeros(len(names)) for _ in range(WORLD)]
            dist.all_gather(every, mine)
            timers = dict.fromkeys(names, 0.0)
            if RANK == WORLD - 1:
                output_string = "times across ranks (ms):"
                for i, name in enumerate(names):
                    output_string += f"\n  {name}:"
                    for rank in range(WORLD):
                        ms = every[rank][i].item() * 1000.0 / log_interval
                        output_string += f"\n     rank {rank:2d}: {ms:.2f}"
                print(f"INFO:megatron.core.timers:{output_string}", flush=True)
    _lab.done()


# --- pytorch/examples imagenet, and a stall -------------------------------------------------
# pytorch/examples imagenet/main.py (commit 77f55b9, 2025-08-25; no tags): AverageMeter.__str__
# and ProgressMeter.display, verbatim; it prints on every rank.
class AverageMeter:
    def __init__(self, name: str, fmt: str = ":f") -> None:
        self.name, self.fmt = name, fmt
        self.val = self.avg = self.sum = 0.0
        self.count = 0

    def update(self, val: float, n: int = 1) -> None:
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self) -> str:
        fmtstr = "{name} {val" + self.fmt + "} ({avg" + self.fmt + "})"
        return fmtstr.format(**self.__dict__)


class ProgressMeter:
    def __init__(self, num_batches: int, meters: list, prefix: str = "") -> None:
        self.batch_fmtstr = self._get_batch_fmtstr(num_batches)
        self.meters = meters
        self.prefix = prefix

    def display(self, batch: int) -> None:
        entries = [self.prefix + self.batch_fmtstr.format(batch)]
        entries += [str(meter) for meter in self.meters]
        print("\t".join(entries), flush=True)

    def _get_batch_fmtstr(self, num_batches: int) -> str:
        num_digits = len(str(num_batches // 1))
        fmt = "{:" + str(num_digits) + "d}"
        return "[" + fmt + "/" + fmt.format(num_batches) + "]"


STALL_BATCH, BATCH, WATCHDOG = 37, 16, 5


class Images(Dataset):
    """Synthetic 'images' (flat features) of 10 classes. On the faulty rank, the read of the
    first sample of batch 37 never returns (a file on a mount that stopped answering): the
    worker sleeps for as long as its rank lives."""

    def __init__(self) -> None:
        g = torch.Generator().manual_seed(0)
        self.centers = torch.randn(10, 128, generator=g)
        self.labels = torch.randint(10, (2048,), generator=g)
        self.noise = torch.randn(2048, 128, generator=g)
        self.reads = 0

    def __len__(self) -> int:
        return 2048

    def __getitem__(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        self.reads += 1  # one worker: its reads come in batch order
        if _lab.faulty() and self.reads == (STALL_BATCH - 1) * BATCH + 1:
            parent = os.getppid()
            while os.getppid() == parent:
                time.sleep(0.5)
        return self.centers[self.labels[i]] + 3.0 * self.noise[i], self.labels[i]


def accuracy(output: torch.Tensor, target: torch.Tensor, topk: tuple = (1,)) -> list:
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        return [
            correct[:k].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 / batch_size)
            for k in topk
        ]


def pyspy_watchdog(progress: threading.Event) -> None:
    """No step for WATCHDOG seconds: `py-spy dump --pid` of this rank, then of each of its
    DataLoader workers, as someone at the machine would run it."""
    while progress.wait(WATCHDOG):
        progress.clear()
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if spy is None:
        print("py-spy: not installed", flush=True)
        return
    for pid in [os.getpid(), *sorted(c.pid for c in multiprocessing.active_children())]:
        done = subprocess.run([spy, "dump", "--pid", str(pid)], capture_output=True, text=True)
        print(done.stdout + done.stderr, end="", flush=True)


def imagenet_stall(pyspy: bool) -> None:
    _lab.init()
    torch.manual_seed(0)
    data = Images()
    sampler = DistributedSampler(data, shuffle=True, seed=0)
    train_loader = DataLoader(data, batch_size=BATCH, sampler=sampler, num_workers=1)
    model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10))
    for p in model.parameters():
        dist.broadcast(p.data, 0)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
    batch_time = AverageMeter("Time", ":6.3f")
    data_time = AverageMeter("Data", ":6.3f")
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    top5 = AverageMeter("Acc@5", ":6.2f")
    epoch, print_freq = 0, 5
    progress = ProgressMeter(len(train_loader), [batch_time, data_time, losses, top1, top5],
                             prefix=f"Epoch: [{epoch}]")  # fmt: skip
    moved = threading.Event()
    if pyspy:
        threading.Thread(target=pyspy_watchdog, args=(moved,), daemon=True).start()
    sampler.set_epoch(epoch)
    end = time.time()
    for i, (images, target) in enumerate(train_loader):
        # A hang watchdog: the stacks of every thread if this step is not over in 5 s.
        moved.set()
        if not pyspy:
            faulthandler.dump_traceback_later(WATCHDOG, exit=False)
        data_time.update(time.time() - end)
        output = model(images)
        loss = criterion(output, target)
        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        losses.update(loss.item(), images.size(0))
        top1.update(acc1[0].item(), images.size(0))
        top5.update(acc5[0].item(), images.size(0))
        optimizer.zero_grad()
        loss.backward()
        for p in model.parameters():  # data parallel by hand: average the gradients
            dist.all_reduce(p.grad)
            p.grad /= WORLD
        optimizer.step()
        batch_time.update(time.time() - end)
        end = time.time()
        if i % print_freq == 0:
            progress.display(i + 1)
    faulthandler.cancel_dump_traceback_later()
    _lab.done()


how = sys.argv[1]
if how == "nan":
    nanogpt_nan()
elif how in ("spike-recovers", "spike-diverges"):
    hf_trainer(diverge=how == "spike-diverges")
elif how == "fp16-overflow":
    megatron_fp16_overflow()
elif how == "slow-rank":
    megatron_slow_rank()
elif how in ("stall", "stall-pyspy"):
    imagenet_stall(pyspy=how == "stall-pyspy")
else:
    sys.exit(f"progress.py: unknown scenario {how}")
