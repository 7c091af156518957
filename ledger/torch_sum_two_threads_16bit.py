#!/usr/bin/env python3
"""torch.sum of a 16-bit tensor on two threads rounds its partial sums to 16 bits.

Standalone reproducer (needs only torch). One bfloat16 and one float16 tensor of n = 32769
values, one output each:

    bf16: 256, 1, 0, ..., 0, 1   exact sum 258, a bfloat16 value
    f16:  2048, 1, 0, ..., 0, 1  exact sum 2050, a float16 value

torch.sum accumulates 16-bit inputs in float32 and rounds once, so the result should be the
exact sum, and it is with torch.set_num_threads(1). With 2 threads a one-output reduction of at
least 32768 elements takes the two-pass path of at::native::parallel_reduce
(aten/src/ATen/native/TensorIteratorReduce.cpp, two_pass_reduction), whose per-thread buffer
has the output's dtype: each thread's float32 partial sum is rounded to 16 bits (256 + 1 ties
to 256) and the partials are added and rounded again (256 + 1 ties to 256), giving 256.

Both the 1-D `x.sum()` and the (n, 1) `x.view(n, 1).sum(dim=0)` are one-output reductions.

Exit status: 1 if the defect reproduces (a 2-thread result differs from the exact sum, which the
1-thread result equals), 0 if not, 2 if the script could not run.
"""
import sys

N = 32769  # the first addend, then 32768 more: at least GRAIN_SIZE (32768) elements


def cpu_capability(torch):
    backends_cpu = getattr(torch.backends, "cpu", None)
    if backends_cpu is not None and hasattr(backends_cpu, "get_cpu_capability"):
        return backends_cpu.get_cpu_capability()
    # torch < 2.1 has no torch.backends.cpu.get_cpu_capability; its build summary names it.
    for line in torch.__config__.show().splitlines():
        if "CPU capability usage" in line:
            return line.split(":", 1)[1].strip() + " (from torch.__config__.show())"
    return "unknown"


def main():
    import torch

    print(f"torch {torch.__version__}, CPU capability {cpu_capability(torch)}, "
          f"Python {sys.version.split()[0]}")
    cases = [
        ("bfloat16", torch.bfloat16, 256.0),
        ("float16", torch.float16, 2048.0),
    ]
    reproduced = False
    for name, dtype, big in cases:
        x = torch.zeros(N, dtype=dtype)
        x[0] = big
        x[1] = 1.0
        x[N - 1] = 1.0
        exact = big + 2.0  # the values are small integers: the sum is exact in Python floats
        assert torch.tensor(exact, dtype=dtype).item() == exact, "the exact sum is a value of the dtype"
        print(f"{name}: n = {N}, values {big:g}, 1, 0 x {N - 3}, 1; exact sum {exact:g}")
        for label, reduce in (("x.sum()", lambda t: t.sum()),
                              ("x.view(n, 1).sum(dim=0)", lambda t: t.view(N, 1).sum(dim=0)[0])):
            results = {}
            for threads in (1, 2):
                torch.set_num_threads(threads)
                results[threads] = reduce(x).item()
            one, two = results[1], results[2]
            bad = one == exact and two != exact
            reproduced |= bad
            verdict = ("<- 2 threads differ from the exact sum" if bad else
                       "ok" if one == exact and two == exact else "1 thread differs too: not this defect")
            print(f"  {label:24s} 1 thread: {one:g}   2 threads: {two:g}   {verdict}")
    torch.set_num_threads(1)
    print("REPRODUCES: the 2-thread sum is not the exact sum" if reproduced
          else "does not reproduce: every result equals the exact sum")
    return 1 if reproduced else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001  (an error is "could not run", not "fixed")
        print(f"could not run: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)
