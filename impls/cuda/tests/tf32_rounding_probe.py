#!/usr/bin/env python3
"""How cuBLAS's TF32 mode rounds its FP32 operands (docs/gpu-results.md, "cuBLAS TF32 operands").

Writes two 64x64x64 product case files: row m of A holds probe m in column 0 and B_0[0][0] = 1
(then C[m][0] is the probe as the tensor core read it), and the same with the probes in B.
Replays them with `accucheck replay --backend 'cuda_cublas_sgemm*'` and prints, per operand
and backend, the probe, what came back, and the rounding that explains it. The probes sit just
above, at and just below the midpoints between TF32 values (11 significant bits), so truncation,
round-to-nearest-even and round-to-nearest-away give different results.
usage: tf32_rounding_probe.py ACCUCHECK   (exit 0 when it ran, 2 when there is no cuBLAS backend)
"""
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

N = 64
# (probe, truncated, nearest-even, nearest-away): TF32 values for each rounding.
PROBES = [
    ("0x1.002002p+0", "0x1p+0", "0x1.004p+0", "0x1.004p+0"),  # above the midpoint 1 + 2^-11
    ("0x1.002p+0", "0x1p+0", "0x1p+0", "0x1.004p+0"),  # the midpoint, even below
    ("0x1.006p+0", "0x1.004p+0", "0x1.008p+0", "0x1.008p+0"),  # a midpoint, odd below
    ("0x1.001ffep+0", "0x1p+0", "0x1p+0", "0x1p+0"),  # below the midpoint
    ("-0x1.002002p+0", "-0x1p+0", "-0x1.004p+0", "-0x1.004p+0"),  # negative
    ("0x1.ffdffep+127", "0x1.ffcp+127", "0x1.ffcp+127", "0x1.ffcp+127"),  # top of the range
    ("0x1.7ffffep+0", "0x1.7fcp+0", "0x1.8p+0", "0x1.8p+0"),
    ("0x1.00bp+0", "0x1.008p+0", "0x1.00cp+0", "0x1.00cp+0"),
]


def case(operand):
    zeros = ["0x0p+0"] * (N * N)
    a, b = list(zeros), list(zeros)
    for i, (probe, *_) in enumerate(PROBES):
        if operand == "a":
            a[i * N] = probe
        else:
            b[i] = probe
    (b if operand == "a" else a)[0] = "0x1p+0"
    return {"accucheck_case": 1, "workload": "product", "format": "f32", "family": "explicit",
            "found_by": "tf32_rounding_probe.py", "rows": N, "cols": N, "batch": N, "steps": 1,
            "initial": "zeros", "a": [a], "b": [b]}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cli = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        for operand in ("a", "b"):
            path = Path(tmp) / f"tf32_{operand}.json"
            path.write_text(json.dumps(case(operand)))
            run = subprocess.run([cli, "replay", str(path), "--backend", "cuda_cublas_sgemm*", "--all", "--json"],
                                 capture_output=True, text=True)
            try:
                backends = json.loads(run.stdout)["backends"]
            except (ValueError, KeyError):
                backends = []
            if not backends:
                print(f"tf32 probe: no cuBLAS backend ran: {run.stderr.strip()[:300]}")
                return 2
            for backend in backends:
                computed = {e["element"]: e["computed"] for e in backend["elements"]}
                for i, (probe, *roundings) in enumerate(PROBES):
                    got = float(computed[i * N if operand == "a" else i])
                    names = [name for name, value in zip(("truncated", "nearest-even", "nearest-away"), roundings)
                             if float.fromhex(value) == got]
                    if got == float.fromhex(probe):
                        names = ["unchanged"] + names
                    print(f"tf32 probe {backend['backend']} {operand.upper()} {probe} -> "
                          f"{got.hex() if math.isfinite(got) else got}: {', '.join(names) or 'none of them'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
