"""Probe: does np.add.reduce over a contiguous row follow NumPy's pairwise_sum over the whole row?

An independent Python model of pairwise_sum (numpy/_core/src/umath/loops_utils.h.src: a chain
below 8 values, 8 accumulators up to 128, halving at a multiple of 8 above), each step rounded to
float32, added to the identity 0; f16 rows summed in f32 by the same model and rounded once.
NumPy >= 2.3 (gh-27883) is expected to match at every n; NumPy <= 2.2 cuts a row into buffers of
8192 and mismatches from n = 8193 (docs/frameworks.md, "NumPy 2.5").

    .envs/py313/bin/python python/frameworks/probes/numpy_rows_pairwise.py
"""
import numpy as np
np.seterr(over="ignore")
f32 = np.float32
def pw(a):
    n = len(a)
    if n < 8:
        r = f32(0)
        for v in a: r = f32(r + v)
        return r
    if n <= 128:
        r = [f32(v) for v in a[:8]]
        i = 8
        while i < n - n % 8:
            for j in range(8): r[j] = f32(r[j] + a[i + j])
            i += 8
        res = f32(f32(f32(r[0] + r[1]) + f32(r[2] + r[3])) + f32(f32(r[4] + r[5]) + f32(r[6] + r[7])))
        while i < n:
            res = f32(res + a[i]); i += 1
        return res
    n2 = n // 2; n2 -= n2 % 8
    return f32(pw(a[:n2]) + pw(a[n2:]))
rng = np.random.default_rng(1)
print("numpy", np.__version__)
for n in (100, 8192, 8193, 10001, 16385, 40000, 100000):
    ok = 0; trials = 5
    for t in range(trials):
        x = (rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n))).astype(np.float32)
        got = np.add.reduce(np.ascontiguousarray(x.reshape(1, n)), axis=1)[0]
        ok += got.tobytes() == f32(f32(0) + pw(x)).tobytes()
        h = x.astype(np.float16)
        got16 = np.add.reduce(h.reshape(1, n), axis=1)[0]
        ok += got16.tobytes() == np.float16(f32(0) + pw(h.astype(np.float32))).tobytes()
    print(f"n={n}: {ok}/{2*trials} f32 and f16 rows equal the whole-row pairwise model")
