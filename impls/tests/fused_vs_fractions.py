#!/usr/bin/env python3
"""Independent cross-check of the tensor-core models and their bounds with Python's fractions.

Usage: fused_vs_fractions.py PATH/TO/accucheck

For each model (impls/cpu/fused_window.cpp: tc_fusedK_w14_f32, K = 4, 8, 16, 32,
tc_fused32_w14_ncN_f32, N = 32, 128, 512, the per-architecture tc_v100_f16_f32 ..
tc_h100_tf32_f32, whose sums are truncated toward zero, and tc_h100_fp8_nc128_f32, Hopper's FP8
promoted every 128) writes case files of f32 columns (magnitudes spread
over 30 binades so that the 14-bit window cuts, runs just below a quantum, zeros, subnormals,
lengths around the step and chunk boundaries), runs `accucheck replay FILE --json --all`, and
checks every element against what this file computes on its own, in exact rationals:
  - the model's result (docs/bounds.md "Fused multi-term addition", "Truncated results" and
    "Promotion": operands truncated toward zero to multiples of 2^(E-W+1), added exactly, rounded
    once to f32 by this file's own round-to-nearest-even, or truncated to Q bits), bit for bit;
  - the stated bound (fused(K,W,F): gamma(m, v) A + 2m 2^(emin-p); fused_truncated(K,W,Q,F): the
    same with r = 2^(1-Q) for u and 2^(emin-Q+1) for 2^(emin-p); fused_promoted(K,W,N,F):
    (g + L u (1 + g)) A + (1 + L u) 2M 2^(emin-p), and fused_promoted(K,W,N,Q,F) with g and the
    underflow term of fused_truncated), which accucheck must report rounded upward
    to a double: at least the exact value, and less than a relative 2^-40 above it (the
    evaluator's outward-rounded interval; no tolerance on a verdict), or infinite exactly where
    the bound is undefined;
  - the verdict: |result - S| <= bound here too, and accucheck says `ok` (or `bound-vacuous`
    where the bound is undefined or not below A);
  - that the truncated models' bounds are nearly reached: on worst_column (one element per case
    of these models) the error is at least 0.9 of the bound.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
from fractions import Fraction

P, EMIN, EMAX = 24, -126, 127  # f32
U = Fraction(1, 2**P)
SMALLEST = Fraction(1, 2 ** (P - 1 - EMIN))  # 2^-149


def floor_log2(x):
    """floor(log2 x) for a positive Fraction."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    elif Fraction(2) ** (e + 1) <= x:
        e += 1
    return e


def round_f32(x):
    """x rounded to nearest even in f32 (subnormals included; these sums stay finite)."""
    if x == 0:
        return Fraction(0)
    sign = -1 if x < 0 else 1
    a = abs(x)
    e = max(floor_log2(a), EMIN)
    quantum = Fraction(2) ** (e - P + 1)
    q, r = divmod(a, quantum)
    if r * 2 > quantum or (r * 2 == quantum and q % 2 == 1):
        q += 1
    result = q * quantum
    assert result < Fraction(2) ** (EMAX + 1), "beyond f32: the generator keeps sums far from it"
    return sign * result


def truncate(y, quantum):
    """y truncated toward zero to a multiple of quantum."""
    q = abs(y) // quantum
    return (q if y >= 0 else -q) * quantum


def truncate_bits(x, bits):
    """x toward zero to `bits` significant bits on f32's exponent range (these sums stay finite)."""
    if x == 0:
        return Fraction(0)
    return truncate(x, Fraction(2) ** (max(floor_log2(abs(x)), EMIN) - bits + 1))


class Model:
    """K addends per fused step, W window bits, and the sum's rounding: to nearest in f32
    (result_bits None) or toward zero to result_bits; promoted every `period` addends."""

    def __init__(self, k, window=14, result_bits=None, period=None):
        self.k, self.window, self.result_bits, self.period = k, window, result_bits, period

    def step(self, c, group):
        operands = [c] + group
        largest = max(abs(y) for y in operands)
        if largest == 0:
            return Fraction(0)
        quantum = Fraction(2) ** (floor_log2(largest) - self.window + 1)
        s = sum(truncate(y, quantum) for y in operands)
        return truncate_bits(s, self.result_bits) if self.result_bits else round_f32(s)

    def run(self, column):
        if self.period is None:
            c = column[0]
            for i in range(1, len(column), self.k):
                c = self.step(c, column[i:i + self.k])
            return c
        accumulator = column[0]
        for start in range(1, len(column), self.period):
            chunk = column[start:start + self.period]
            partial = Fraction(0)
            for i in range(0, len(chunk), self.k):
                partial = self.step(partial, chunk[i:i + self.k])
            accumulator = round_f32(accumulator + partial)
        return accumulator

    def bound(self, column, abs_sum):
        """The stated bound (docs/bounds.md) in exact rationals; None where it is undefined."""
        k, period = self.k, self.period
        n = len(column)
        addends = n - 1
        chain = min(addends, period) if period else addends
        m = ceil_div(chain, k)
        r = Fraction(2) ** (1 - self.result_bits) if self.result_bits else U
        underflow = Fraction(2) ** (EMIN - self.result_bits + 1) if self.result_bits else Fraction(2) ** (EMIN - P)
        rho = (k + 1) * Fraction(2) ** (1 - self.window)
        if m * (rho + 2 * r) > Fraction(1, 2):
            return None
        eta = rho / (1 + rho)
        v = (1 + eta) * (1 + r) - 1
        if self.result_bits:
            # "Truncated results", the tighter step: where every value has at most W significant
            # bits (and Q <= W), the largest operand is cut without loss, so K operands lose,
            # and the truncated sum, a multiple of the cut, loses at most its grid minus the cut.
            cut = Fraction(2) ** (1 - self.window)
            bits = max(significant_bits(x) for x in column)
            losing = k if 0 < bits <= self.window and self.result_bits <= self.window else k + 1
            rho_losing = losing * cut
            v = min(v, max(rho_losing / (1 + rho_losing), (losing - 1) * cut + max(cut, r)))
        g = m * v / (1 - m * v)
        if period is None:
            return g * abs_sum + 2 * m * underflow
        chunks = ceil_div(addends, period)
        steps = ceil_div(addends, k)
        lu = chunks * U
        return (g + lu * (1 + g)) * abs_sum + (1 + lu) * 2 * steps * underflow


def significant_bits(x):
    """Bits from the leading one to the lowest one of a dyadic rational (0 for 0)."""
    numerator = abs(x.numerator)
    if numerator == 0:
        return 0
    return numerator.bit_length() - ((numerator & -numerator).bit_length() - 1)


def ceil_div(a, b):
    return -(-a // b)


def f32_value(rng, top):
    """An f32 value within 30 binades below 2^top, often just below a window's quantum."""
    kind = rng.random()
    if kind < 0.08:
        return Fraction(0)
    if kind < 0.12:
        return rng.choice((-1, 1)) * rng.randrange(1, 2**10) * SMALLEST  # subnormal
    e = top - rng.randrange(0, 31)
    if kind < 0.35:
        significand = 2**P - rng.randrange(1, 4)  # just below a power of two: a run of ones
    else:
        significand = rng.randrange(2 ** (P - 1), 2**P)
    return rng.choice((-1, 1)) * significand * Fraction(2) ** (e - P)


def hex_text(x):
    return float(x).hex()


def write_case(path, backend, columns):
    steps = len(columns[0]) - 1
    case = {
        "accucheck_case": 1,
        "workload": "dense",
        "format": "f32",
        "backend": backend,
        "elements": len(columns),
        "steps": steps,
        "initial": [hex_text(c[0]) for c in columns],
        "addends": [[hex_text(c[t + 1]) for c in columns] for t in range(steps)],
    }
    with open(path, "w") as f:
        json.dump(case, f)


def below(x):
    """The f32 value just below a power of two x."""
    return x - x / 2**P


def worst_column(model, steps):
    """1, then in each step K - 1 addends just below the cut q = 2^(1-W) (cut to zero) and one just
    below the sum's grid at 1, max(q, 2^(1-Q)): the window keeps all of it but less than q, the
    truncation of 1 + that the rest, so each step loses nearly (K - 1) q + grid, the tighter
    per-step bound of docs/bounds.md "Truncated results", and the accumulator stays 1."""
    cut = Fraction(2) ** (1 - model.window)
    grid = max(cut, Fraction(2) ** (1 - model.result_bits))
    return [Fraction(1)] + [below(grid) if i % model.k == model.k - 1 else below(cut) for i in range(steps)]


def main():
    accucheck = sys.argv[1]
    rng = random.Random(20261203)
    models = [(f"tc_fused{k}_w14_f32", Model(k)) for k in (4, 8, 16, 32)]
    models += [(f"tc_fused32_w14_nc{n}_f32", Model(32, period=n)) for n in (32, 128, 512)]
    models += [("tc_v100_f16_f32", Model(4, 24, 24)), ("tc_a100_f16_f32", Model(8, 25, 24)),
               ("tc_h100_f16_f32", Model(16, 26, 24)), ("tc_h100_fp8_f32", Model(32, 14, 14)),
               ("tc_b200_fp8_f32", Model(32, 26, 24)), ("tc_ada_fp8_f32", Model(16, 14, 14)),
               ("tc_a100_tf32_f32", Model(4, 25, 24)), ("tc_h100_tf32_f32", Model(8, 26, 24)),
               ("tc_h100_fp8_nc128_f32", Model(32, 14, 14, period=128))]
    failures = 0
    checked = 0
    reach = {}  # the truncated models: the largest error / bound on worst_column
    with tempfile.TemporaryDirectory() as directory:
        for backend, model in models:
            k, period = model.k, model.period
            lengths = [1, 2, k, k + 1, k + 2, 3 * k + 1, 100]
            if period:
                lengths += [period, period + 1, period + k + 1, 2 * period + 3]
            lengths += [4000]  # past fused(32,14,f32)'s domain (3,968 addends); promoted stays defined
            for steps in lengths:
                elements = 12 if steps < 1000 else 3
                columns = []
                for _ in range(elements):
                    top = rng.randrange(-60, 60)
                    columns.append([f32_value(rng, top) for _ in range(steps + 1)])
                worst = model.result_bits is not None and period is None and steps >= k
                if worst:
                    columns[-1] = worst_column(model, steps)
                path = os.path.join(directory, f"{backend}_{steps}.json")
                write_case(path, backend, columns)
                run = subprocess.run([accucheck, "replay", path, "--json", "--all"], capture_output=True, text=True)
                if run.returncode not in (0, 1):
                    print(f"FAIL {backend} T={steps}: replay exited {run.returncode}: {run.stderr.strip()}")
                    failures += 1
                    continue
                report = json.loads(run.stdout)
                (result,) = [b for b in report["backends"] if b["backend"] == backend]
                for index, (element, column) in enumerate(zip(result["elements"], columns)):
                    checked += 1
                    where = f"{backend} T={steps} element {element['element']}"
                    result_here = model.run(column)
                    if Fraction(element["computed"]) != result_here:
                        print(f"FAIL {where}: accucheck computed {element['computed']!r}, the model here {float(result_here)!r}")
                        failures += 1
                    exact = sum(column, Fraction(0))
                    abs_sum = sum((abs(x) for x in column), Fraction(0))
                    bound = model.bound(column, abs_sum)
                    reported = element["bound"]  # a number, or "inf" (JSON has no infinity)
                    reported = float(reported) if isinstance(reported, str) else reported
                    if bound is None:
                        if reported is not None and reported != float("inf"):
                            print(f"FAIL {where}: bound undefined here, accucheck reports {reported!r}")
                            failures += 1
                        continue
                    if reported is None or reported == float("inf"):
                        print(f"FAIL {where}: bound {float(bound)!r} here, accucheck reports it undefined")
                        failures += 1
                        continue
                    if not (bound <= Fraction(reported) <= bound * (1 + Fraction(1, 2**40))):
                        print(f"FAIL {where}: bound {float(bound)!r} here, accucheck reports {reported!r}")
                        failures += 1
                    error = abs(result_here - exact)
                    if worst and index == len(columns) - 1:
                        reach[backend] = max(reach.get(backend, 0), error / bound)
                    if error > bound:
                        print(f"FAIL {where}: the model errs by {float(error)!r} > its bound {float(bound)!r}")
                        failures += 1
                    expected = "bound-vacuous" if abs_sum != 0 and bound >= abs_sum else "ok"
                    if element["verdict"] != expected:
                        print(f"FAIL {where}: verdict {element['verdict']}, expected {expected}")
                        failures += 1
    for backend, ratio in sorted(reach.items()):
        # docs/bounds.md "Truncated results": the bound is nearly reached (issue: >= 0.9).
        print(f"{backend}: the worst column reaches {float(ratio):.4f} of the bound")
        if ratio < Fraction(9, 10):
            print(f"FAIL {backend}: the worst column reaches only {float(ratio):.4f} of the bound")
            failures += 1
    print(f"{checked} elements checked, {failures} failures")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
