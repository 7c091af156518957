#!/usr/bin/env python3
"""gloo's float16 sum keeps the old value when the new one equals the old bits read as an integer.

Standalone reproducer (needs only torch with torch.distributed and gloo). Two processes on this
machine join a gloo process group (init through a file:// store in a temporary directory) and run
torch.distributed.all_reduce(SUM) on float16 tensors of three elements:

    lost addend:    rank 0 = [0, 0, 1],     rank 1 = [0, 0, 2^-24]  exact element 2: 1 + 2^-24, in f16 1
    normal values:  rank 0 = [0, 0, 15360], rank 1 = [0, 0, 1]      exact element 2: 15361, in f16 15360

In the ring reduce-scatter the rank that reduces element 2 computes `c[i] = a[i] + b[i]` with
gloo::float16 (gloo/math.h, gloo::sum). The sum is right (1.0, resp. 15360), but
gloo::float16::operator=(const float16&) writes only `if (rhs != *this)`, and operator!= compares
with half(the raw bits of the old value read as an integer) (gloo/types.h): 2^-24 has bits 0x0001
and half(1) = 1.0; 1.0 has bits 0x3C00 = 15360 and half(15360) = 15360. The write is skipped and
the old value (2^-24, resp. 1) is what every rank gets.

Usage: python gloo_float16_sum.py   (it starts its two ranks itself)
Exit status: 1 if an all-reduce returns something other than the float16 rounding of the exact sum
(the lost addend reproduces), 0 if every element is right, 2 if the script could not run.
"""
import json
import os
import subprocess
import sys
import tempfile

CASES = [
    # name, rank 0's values, rank 1's values, the float16 rounding of the exact sums
    ("lost addend", [0.0, 0.0, 1.0], [0.0, 0.0, 2.0**-24], [0.0, 0.0, 1.0]),
    ("normal values", [0.0, 0.0, 15360.0], [0.0, 0.0, 1.0], [0.0, 0.0, 15360.0]),
]
WORLD = 2
TIMEOUT_S = 180


def rank_main(rank, directory):
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method="file://" + os.path.join(directory, "store"),
                            rank=rank, world_size=WORLD)
    results = {}
    for name, rank0, rank1, _ in CASES:
        local = torch.tensor(rank0 if rank == 0 else rank1, dtype=torch.float16)
        dist.all_reduce(local, op=dist.ReduceOp.SUM)
        results[name] = [float(v) for v in local.tolist()]
    dist.destroy_process_group()
    with open(os.path.join(directory, f"rank{rank}.json"), "w") as f:
        json.dump(results, f)


def fmt(v):
    return "2^-24" if v == 2.0**-24 else f"{v:.17g}"


def fmt_list(values):
    return "[" + ", ".join(fmt(v) for v in values) + "]"


def main():
    import torch

    print(f"torch {torch.__version__}, gloo available: {torch.distributed.is_gloo_available()}, "
          f"Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="gloo-f16-") as directory:
        ranks = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--rank", str(r), directory],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for r in range(WORLD)]
        failed = False
        for r, p in enumerate(ranks):
            try:
                out, _ = p.communicate(timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                for q in ranks:
                    q.kill()
                out, _ = p.communicate()
                out += f"\n(rank {r} timed out after {TIMEOUT_S} s)"
            if p.returncode != 0:
                failed = True
                print(f"rank {r} failed (exit {p.returncode}):\n{out.strip()}", file=sys.stderr)
        if failed:
            return 2
        got = []
        for r in range(WORLD):
            with open(os.path.join(directory, f"rank{r}.json")) as f:
                got.append(json.load(f))
    reproduced = False
    for name, rank0, rank1, expected in CASES:
        print(f"{name}: rank 0 = {fmt_list(rank0)}, rank 1 = {fmt_list(rank1)}")
        print(f"  expected (f16 rounding of the exact sums): {fmt_list(expected)}")
        for r in range(WORLD):
            values = got[r][name]
            wrong = [i for i, (v, e) in enumerate(zip(values, expected)) if v != e]
            reproduced |= bool(wrong)
            note = f"   <- element(s) {wrong} wrong" if wrong else "   ok"
            print(f"  rank {r} got {fmt_list(values)}{note}")
    print("REPRODUCES: an addend is lost" if reproduced else "does not reproduce: every element is right")
    return 1 if reproduced else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--rank":
        rank_main(int(sys.argv[2]), sys.argv[3])
        sys.exit(0)
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001  (an error is "could not run", not "fixed")
        print(f"could not run: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)
