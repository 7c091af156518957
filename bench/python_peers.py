"""CPython's math.fsum and NumPy's sum timed on the benchmark's own inputs (the raw doubles that
accucheck_bench writes with ACCUCHECK_BENCH_DUMP_INPUTS=DIR), in the same ci/bench.sh run.
Writes JSON: {"<method>/<format>/<n>": {"ns": per call, "addends": n}} for bench/report.py.

math.fsum is timed on a Python list of floats (its own cost, not numpy's element access);
numpy.sum on the float64 array (pairwise, not exact: the cost of a vectorized library sum).
Each number is the median of `repetitions` timings, each the mean over enough calls to last
about 0.1 s (one call at least); times are process CPU time, as the benchmark's.

    python3 bench/python_peers.py DIR OUT.json [--repetitions 3]
"""
import argparse
import glob
import json
import math
import os
import statistics
import time

import numpy as np


def timed(fn, min_seconds=0.1):
    calls, start = 0, time.process_time()
    while True:
        fn()
        calls += 1
        elapsed = time.process_time() - start
        if elapsed >= min_seconds:
            return elapsed / calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("inputs")
    parser.add_argument("out")
    parser.add_argument("--repetitions", type=int, default=3)
    args = parser.parse_args()
    results = {}
    for path in sorted(glob.glob(os.path.join(args.inputs, "*.f64"))):
        fmt, n = os.path.basename(path)[:-4].split("_")
        array = np.fromfile(path, dtype="<f8")
        assert array.size == int(n), path
        as_list = array.tolist()
        for method, fn in (("math_fsum", lambda: math.fsum(as_list)), ("numpy_sum", lambda: np.sum(array))):
            ns = statistics.median(timed(fn) for _ in range(args.repetitions)) * 1e9
            results["%s/%s/%s" % (method, fmt, n)] = {"ns": ns, "addends": int(n)}
            print("%s/%s/%s: %.3f ns per addend" % (method, fmt, n, ns / int(n)))
    with open(args.out + ".tmp", "w") as f:
        json.dump({"numpy": np.__version__, "python": ".".join(map(str, __import__("sys").version_info[:3])),
                   "results": results}, f, indent=1)
    os.replace(args.out + ".tmp", args.out)


if __name__ == "__main__":
    main()
