#!/usr/bin/env python3
"""The seed's GPU scenario (MXNet issue 16686, GPU path; ../shared/INCIDENTS.md) run in PyTorch on
the GPU: an Embedding(13, 512) whose gradient is accumulated over 16 and over 32 micro-batches of
token batches (2, 14) with repeated tokens, by PyTorch's own path (.grad accumulates across
backward() calls: AccumulateGrad) and by hand (each micro-batch's .grad added into a buffer), with
use_deterministic_algorithms off and on. Each result is judged element by element against the
exact sum of every upstream gradient that reached the row (exact integer arithmetic in units of
2^-149), as accucheck's scenario `mxnet-16686-embedding` does for MXNet's orders.

The batches follow that scenario's shapes: one token up to 7 times per batch (7 in every fourth),
the rest from a vocabulary window that leaves rows out; upstream gradients of magnitude 2^-37 to
2^-24, either sign (the report's 1e-11 to 1e-7). Drawn by Python's random with seed 16686, so the
first 16 batches of the 32-step run are the 16-step run's.

Needs only torch (no numpy, not accucheck's package): it runs in the GPU machine's own Python.
    python3 python/frameworks/torch_16686_gpu.py [STEPS...]   (default 16 32; ACCUCHECK_TORCH_DEVICE=cpu: on the CPU)
Prints one line per (steps, path, deterministic): max ulps from the correctly rounded f32 sum,
elements not correctly rounded, max err/bound for recursive(f32), and whether 'add' and by-hand
gave the same bits; exits 1 if any element exceeds its bound.
"""
import math
import os
import random
import struct
import sys
from fractions import Fraction

import torch

VOCABULARY, DIM, BATCH, LENGTH = 13, 512, 2, 14
DEVICE = os.environ.get("ACCUCHECK_TORCH_DEVICE", "cuda")
U32 = Fraction(1, 2 ** 24)  # f32's unit roundoff
SCALE = 149  # every f32 is an integer multiple of 2^-149


def token_batches(steps):
    r = random.Random(16686)
    batches = []
    for t in range(steps):
        repeated = r.randrange(VOCABULARY - 1)
        repeats = 7 if t % 4 == 0 else 1 + r.randrange(6)
        window = 6 + r.randrange(VOCABULARY - 6)
        first = r.randrange(VOCABULARY - window + 1)
        tokens = [repeated if i < repeats else first + r.randrange(window) for i in range(BATCH * LENGTH)]
        r.shuffle(tokens)
        upstream = [math.ldexp(r.choice((-1, 1)) * r.getrandbits(24) / 2 ** 24, r.randrange(-36, -23))
                    for _ in range(BATCH * LENGTH * DIM)]
        batches.append((tokens, upstream))
    return batches


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def f32_bits(x):
    return struct.unpack("I", struct.pack("f", x))[0]


def from_bits(b):
    return struct.unpack("f", struct.pack("I", b))[0]


def exact_units(x):
    """An f32 value as an exact integer number of 2^-149."""
    return int(Fraction(x) * 2 ** SCALE)


def round_f32(units):
    """The f32 nearest to units * 2^-149, ties to even (no overflow at these magnitudes)."""
    exact = Fraction(units, 2 ** SCALE)
    guess = f32(float(exact))  # within one f32 ulp of the answer
    best = None
    for c in (guess, next_f32(guess, 1), next_f32(guess, -1)):
        d = abs(Fraction(c) - exact)
        if best is None or d < best[0] or (d == best[0] and f32_bits(c) % 2 == 0):
            best = (d, c)
    return best[1]


def next_f32(x, direction):
    if x == 0:
        return from_bits(1) if direction > 0 else -from_bits(1)
    b = f32_bits(x)
    up = (x > 0) == (direction > 0)
    return from_bits(b + 1 if up else b - 1)


def ulp_f32(x):
    x = abs(x)
    return next_f32(x, 1) - x if x < 3.4e38 else next_f32(x, -1)


def accumulate(batches, by_hand, deterministic):
    """The embedding gradient after every batch's backward: PyTorch's own accumulation into .grad,
    or by hand (grad cleared, each micro-batch's gradient added into a buffer)."""
    torch.use_deterministic_algorithms(deterministic)
    embedding = torch.nn.Embedding(VOCABULARY, DIM).to(DEVICE)
    buffer = None
    for tokens, upstream in batches:
        index = torch.tensor(tokens, device=DEVICE).reshape(BATCH, LENGTH)
        grad_out = torch.tensor(upstream, dtype=torch.float32, device=DEVICE).reshape(BATCH, LENGTH, DIM)
        if by_hand:
            embedding.weight.grad = None
        embedding(index).backward(grad_out)
        if by_hand:
            buffer = embedding.weight.grad.clone() if buffer is None else buffer.add_(embedding.weight.grad)
    torch.use_deterministic_algorithms(False)
    result = buffer if by_hand else embedding.weight.grad
    return result.cpu().reshape(-1).tolist()


def exact_sums(batches):
    """Per element: the exact sum (in units of 2^-149), the sum of magnitudes, and the number of terms."""
    total, magnitude, terms = [0] * (VOCABULARY * DIM), [0] * (VOCABULARY * DIM), [0] * (VOCABULARY * DIM)
    for tokens, upstream in batches:
        for position, token in enumerate(tokens):
            for d in range(DIM):
                units = exact_units(upstream[position * DIM + d])
                k = token * DIM + d
                total[k] += units
                magnitude[k] += abs(units)
                terms[k] += 1
    return total, magnitude, terms


def judge(computed, exact):
    total, magnitude, terms = exact
    worst_ulps, wrong, worst_ratio = 0.0, 0, Fraction(0)
    for k, c in enumerate(computed):
        if terms[k] == 0:
            continue
        correct = round_f32(total[k])
        if c != correct:
            wrong += 1
            worst_ulps = max(worst_ulps, abs(c - correct) / ulp_f32(correct))
        n = terms[k] + 1  # the zero the gradient starts from counted too: a larger n, a looser bound
        gamma = n * U32 / (1 - n * U32)  # recursive(f32): gamma_{n-1} sum|x| <= gamma_n sum|x|
        bound = gamma * Fraction(magnitude[k], 2 ** SCALE)
        err = abs(Fraction(c) - Fraction(total[k], 2 ** SCALE))
        if bound:
            worst_ratio = max(worst_ratio, err / bound)
        elif err:
            worst_ratio = Fraction(10 ** 9)
    return worst_ulps, wrong, float(worst_ratio)


def main(argv):
    steps_list = [int(a) for a in argv] or [16, 32]  # the micro-batch counts to run (default: the report's)
    if DEVICE == "cuda" and not torch.cuda.is_available():
        print(f"torch_16686_gpu.py: torch {torch.__version__} sees no CUDA device (ACCUCHECK_TORCH_DEVICE=cpu)",
              file=sys.stderr)
        return 2
    where = torch.cuda.get_device_name() if DEVICE == "cuda" else "CPU"
    print(f"mxnet-16686 GPU scenario in PyTorch {torch.__version__} on {where}: Embedding({VOCABULARY}, {DIM}), "
          f"token batches ({BATCH}, {LENGTH}), f32")
    print(f"{'steps':>5} {'path':<8} {'deterministic':<13} {'max ulps':>9} {'not CR':>7} {'err/bound':>10}  add == by hand")
    exceeded = False
    for steps in steps_list:
        batches = token_batches(steps)
        exact = exact_sums(batches)
        for deterministic in (False, True):
            results = {path: accumulate(batches, path == "by hand", deterministic) for path in ("add", "by hand")}
            same = results["add"] == results["by hand"]
            for path, computed in results.items():
                ulps, wrong, ratio = judge(computed, exact)
                exceeded |= ratio > 1
                print(f"{steps:>5} {path:<8} {str(deterministic):<13} {ulps:>9.3g} {wrong:>7} {ratio:>10.4g}  "
                      f"{'same bits' if same else 'DIFFER'}")
    print("every element within recursive(f32)" if not exceeded else "BOUND EXCEEDED: see err/bound above")
    return 1 if exceeded else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
