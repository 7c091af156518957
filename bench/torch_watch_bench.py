#!/usr/bin/env python3
"""The cost of accucheck.torch.watch: one optimizer step of the example transformer
(examples/torch_watch/transformer.py, 16 micro-batches, fp32 and bf16) with and without the
watcher (default sample: 64 elements per parameter), as a ratio in one run: the two alternate,
REPEATS times each after a warm-up; the median of each, process CPU time and wall time.

    PYTHONPATH=build/python .envs/torch/bin/python bench/torch_watch_bench.py [REPEATS]
"""
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples", "torch_watch"))
import accucheck.torch  # noqa: E402
from transformer import VOCAB, TinyTransformer, micro_batches  # noqa: E402


def one_step(model, optimizer, batches, watcher=None):
    loss_fn = torch.nn.CrossEntropyLoss()
    for tokens in batches:
        logits = model(tokens[:, :-1])
        (loss_fn(logits.reshape(-1, VOCAB).float(), tokens[:, 1:].reshape(-1)) / len(batches)).backward()
    if watcher is not None:
        watcher.report()  # judging the window is part of the cost
    optimizer.step()
    optimizer.zero_grad()


def timed(f):
    wall, cpu = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - wall, time.process_time() - cpu


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    torch.set_num_threads(1)  # one core: the ratio is not the scheduler's
    print(f"torch {torch.__version__}, 1 thread, {repeats} repetitions after a warm-up; median seconds per optimizer step")
    print(f"{'format':<6} {'plain wall':>11} {'watched wall':>13} {'ratio':>6} {'plain cpu':>10} {'watched cpu':>12} {'ratio':>6}")
    for dtype in (torch.float32, torch.bfloat16):
        torch.manual_seed(0)
        model = TinyTransformer().to(dtype)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # the same model every step
        batches = micro_batches(16, seed=1)
        watcher = accucheck.torch.watch(model)
        plain, watched = [], []
        one_step(model, optimizer, batches)
        with watcher:
            one_step(model, optimizer, batches, watcher)
        for _ in range(repeats):
            plain.append(timed(lambda: one_step(model, optimizer, batches)))
            with watcher:
                watched.append(timed(lambda: one_step(model, optimizer, batches, watcher)))
        pw, pc = (statistics.median(t[i] for t in plain) for i in (0, 1))
        ww, wc = (statistics.median(t[i] for t in watched) for i in (0, 1))
        name = {torch.float32: "f32", torch.bfloat16: "bf16"}[dtype]
        print(f"{name:<6} {pw:>11.4f} {ww:>13.4f} {ww / pw:>6.3f} {pc:>10.4f} {wc:>12.4f} {wc / pc:>6.3f}")


if __name__ == "__main__":
    main()
