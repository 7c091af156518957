"""What a call of a Python backend costs: a trivial dense f64 backend (buffer += addends.sum(0)) in
campaigns of N1 and N2 cases, through the CLI's any-interpreter worker (`accucheck check --python`)
and in-process (`accucheck.check`), beside the built-in naive_f64 on the same cases. The slope
(seconds per case between N1 and N2) takes out start-up; the backend counts its own calls, so the
page gives microseconds per call: the Python path's slope minus naive_f64's, divided by the calls
per case. Writes the section "## Python backends: the cost of a call" of docs/performance.md in
place (run by ci/bench.sh; bench/report.py keeps it when it rewrites the page).

    PYTHONPATH=build/python .venv/bin/python3 bench/python_call_overhead.py --accucheck build/accucheck [--page docs/performance.md]
"""
import argparse
import datetime
import os
import subprocess
import sys
import tempfile
import time

from jobs_scaling import write_section

TITLE = "## Python backends: the cost of a call"

BACKEND = '''
import os
import warnings
import accucheck

warnings.filterwarnings("ignore", category=RuntimeWarning)  # the workloads' overflows to inf are its result

calls = [0]
# The worker is stopped, not left to exit: the count is written at every call (one pwrite).
_fd = os.open(os.environ["CALLS_FILE"], os.O_WRONLY | os.O_CREAT, 0o644) if os.environ.get("CALLS_FILE") else -1

@accucheck.backend(name="trivial_python_f64", storage="f64", bound="recursive(f64)")
def trivial_python_f64(addends, buffer):
    calls[0] += 1
    if _fd >= 0:
        os.pwrite(_fd, b"%20d" % calls[0], 0)
    buffer += addends.sum(axis=0)   # numpy's pairwise sum: within recursive(f64)
'''


def cli_campaign(accucheck, backend_file, backend, cases, seed, scratch, calls_file):
    args = [accucheck, "check", "--backend", backend, "--format", "f64", "--cases", str(cases), "--seed", str(seed),
            "--jobs", "1", "--quiet", "--findings", os.path.join(scratch, "findings")]
    if backend_file:
        args += ["--python", backend_file]
    start = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, env={**os.environ, "CALLS_FILE": calls_file})
    if proc.returncode != 0:
        raise SystemExit("%s: exit %d\n%s%s" % (" ".join(args), proc.returncode, proc.stdout, proc.stderr))
    return time.perf_counter() - start


def in_process_campaign(backend, cases, seed):
    import accucheck
    start = time.perf_counter()
    result = accucheck.check(backends=[backend], cases=cases, seed=seed, format="f64", jobs=1)
    if not result.ok:
        raise SystemExit("accucheck.check(%r): %s" % (backend, result.table))
    return time.perf_counter() - start


def total_calls(calls_file):
    with open(calls_file) as f:
        return int(f.read().strip() or 0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accucheck", required=True)
    parser.add_argument("--cases", type=int, nargs=2, default=[1000, 5000], metavar=("N1", "N2"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--page", default="docs/performance.md")
    args = parser.parse_args()
    n1, n2 = args.cases
    with tempfile.TemporaryDirectory(prefix="accucheck_python_calls_") as scratch:
        backend_file = os.path.join(scratch, "trivial_backend.py")
        with open(backend_file, "w") as f:
            f.write(BACKEND)
        rows = {}
        # Through the CLI: the worker in this interpreter (ACCUCHECK_PYTHON), and naive_f64 alone.
        os.environ.setdefault("ACCUCHECK_PYTHON", sys.executable)
        for name, file, backend in (("worker", backend_file, "trivial_python_f64"), ("cli naive", None, "naive_f64")):
            counts = os.path.join(scratch, "calls-" + name.replace(" ", "_"))
            times = [cli_campaign(args.accucheck, file, backend, n, args.seed, scratch, counts + str(n)) for n in (n1, n2)]
            calls = [total_calls(counts + str(n)) if file else 0 for n in (n1, n2)]
            rows[name] = (times, calls)
        # In-process: the same file imported here, then naive_f64 through the same API.
        sys.path.insert(0, scratch)
        os.environ["CALLS_FILE"] = ""
        import trivial_backend
        times, calls = [], []
        for n in (n1, n2):
            before = trivial_backend.calls[0]
            times.append(in_process_campaign(trivial_backend.trivial_python_f64, n, args.seed))
            calls.append(trivial_backend.calls[0] - before)
        rows["in-process"] = (times, calls)
        rows["in-process naive"] = ([in_process_campaign("naive_f64", n, args.seed) for n in (n1, n2)], [0, 0])

    def slope(name):
        (t1, t2), _ = rows[name]
        return (t2 - t1) / (n2 - n1)

    def calls_per_case(name):
        _, (c1, c2) = rows[name]
        return (c2 - c1) / (n2 - n1)

    worker_us = (slope("worker") - slope("cli naive")) / calls_per_case("worker") * 1e6
    in_process_us = (slope("in-process") - slope("in-process naive")) / calls_per_case("in-process") * 1e6
    worker_vs_in_process_us = (slope("worker") - slope("in-process")) / calls_per_case("worker") * 1e6
    lines = [TITLE, "",
             "Written by `bench/python_call_overhead.py` (run by `ci/bench.sh`). A trivial dense f64 Python backend"
             " (`buffer += addends.sum(axis=0)`, counting its calls) in campaigns of %d and %d cases per stream"
             " (`--format f64`, seed %d, one job), through the CLI's worker (`accucheck check --python`, the"
             " interpreter %s) and in-process (`accucheck.check`), each beside the built-in `naive_f64` on the same"
             " cases through the same path. The slope between the two sizes takes out start-up; a call's cost is"
             " the Python path's slope minus naive_f64's, per call (the campaign calls a backend more than once per"
             " case: the determinism re-runs). Date %s; load average before: %s."
             % (n1, n2, args.seed, sys.version.split()[0],
                datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="minutes"),
                ", ".join("%.2f" % x for x in os.getloadavg())),
             "",
             "| path | s per case (trivial Python backend) | s per case (naive_f64) | calls per case | us per call over naive_f64 |",
             "| --- | ---: | ---: | ---: | ---: |",
             "| worker (`--python`) | %.3g | %.3g | %.2f | %.0f |" % (slope("worker"), slope("cli naive"),
                                                                   calls_per_case("worker"), worker_us),
             "| in-process (`accucheck.check`) | %.3g | %.3g | %.2f | %.0f |" % (slope("in-process"),
                                                                              slope("in-process naive"),
                                                                              calls_per_case("in-process"),
                                                                              in_process_us),
             "",
             "The worker's call over the in-process one: %.0f us per call. The worker's call crosses a socket and a"
             " shared-memory region (docs/python.md, \"The worker protocol\"); the in-process call copies the arrays"
             " through the extension. Both include the backend's own numpy sum."
             % worker_vs_in_process_us,
             ""]
    for name, ((t1, t2), (c1, c2)) in rows.items():
        print("%-17s %d cases %.2f s, %d cases %.2f s, calls %d / %d" % (name, n1, t1, n2, t2, c1, c2))
    print("worker: %.0f us per call over naive_f64; in-process: %.0f us" % (worker_us, in_process_us))
    write_section(args.page, lines)
    print("wrote the section '%s' of %s" % (TITLE, args.page))


if __name__ == "__main__":
    main()
