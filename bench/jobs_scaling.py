"""check --jobs scaling: the same campaign (same seed, every built-in backend, the same time
budget) with --jobs 1, 2, ... up to the CPUs this process may use; the throughput of each is
the cases per format x workload stream it judged in that time. Writes the section
"## check --jobs scaling" of docs/performance.md in place (bench/report.py keeps it when it
rewrites the page).

    python3 bench/jobs_scaling.py --accucheck build/accucheck [--seconds 60] [--page docs/performance.md]
"""
import argparse
import datetime
import json
import os
import resource
import subprocess
import tempfile
import time

TITLE = "## check --jobs scaling"


def campaign(accucheck, jobs, seconds, seed, scratch, backends=()):
    results = os.path.join(scratch, "jobs%d-%d.json" % (jobs, len(backends)))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run([accucheck, "check", "--seed", str(seed), "--minutes", repr(seconds / 60.0), "--jobs", str(jobs),
                           "--quiet", "--json", results, "--findings", os.path.join(scratch, "findings%d" % jobs)]
                          + [arg for name in backends for arg in ("--backend", name)],
                          capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit("accucheck check --jobs %d: exit %d\n%s" % (jobs, proc.returncode, proc.stderr))
    with open(results) as f:
        data = json.load(f)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"jobs": jobs, "cases_per_stream": data["cases_per_stream"], "wall": wall, "cpu": cpu,
            "backends": len(data["backends"]), "violations": data["violations"]}


def without_mpi(accucheck):
    """Every built-in backend but the real Open MPI ones (mpi_allreduce_*)."""
    listing = subprocess.run([accucheck, "list"], capture_output=True, text=True, check=True).stdout.splitlines()
    names = [line.split()[0] for line in listing[1:] if len(line.split()) > 1 and line.split()[1] in ("cpu", "cuda")]
    return [n for n in names if not n.startswith("mpi_allreduce_")]


def table(rows):
    base = rows[0]["cases_per_stream"]
    lines = ["| jobs | cases per stream | throughput vs 1 job | wall s | CPU s (all processes) | violations |",
             "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append("| %d | %d | %.2fx | %.1f | %.1f | %d |" % (r["jobs"], r["cases_per_stream"], r["cases_per_stream"] / base,
                                                            r["wall"], r["cpu"], r["violations"]))
    return lines


def section(rows, rows_without_mpi, seconds, seed, cpus, build):
    base = rows[0]["cases_per_stream"]
    lines = [TITLE, "",
             "Written by `bench/jobs_scaling.py` (run by `ci/bench.sh`). The same campaign, `accucheck check --seed %d"
             " --minutes %g` over every built-in backend (%d), with `--jobs` from 1 to the %d CPUs this process may use;"
             " throughput = cases per format x workload stream judged in the time budget, as a ratio to one job"
             " in the same run. Build: %s; date %s; load average before: %s."
             % (seed, seconds / 60.0, rows[0]["backends"], cpus, build,
                datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="minutes"),
                ", ".join("%.2f" % x for x in os.getloadavg())),
             ""] + table(rows)
    two = next((r for r in rows if r["jobs"] == 2), None)
    if two:
        ratio = two["cases_per_stream"] / base
        lines += ["", "Target: 2 jobs >= 1.8x one job: %.2fx, %s." % (ratio, "met" if ratio >= 1.8 else "**missed**")]
    if rows_without_mpi:
        lines += ["",
                  "The same without the real Open MPI backends (`mpi_allreduce_*`, %d backends). Each of their cases"
                  " is a request to an `mpirun` world whose ranks spin while they reduce; each process keeps its worlds"
                  " on one CPU of its own (its home, impls/thirdparty/openmpi.cpp), where its harness waits blocked"
                  " meanwhile, so the jobs' worlds do not take the cores the other jobs judge on. When the two tables"
                  " scale alike, the MPI backends cost the jobs nothing more than their own time:"
                  % rows_without_mpi[0]["backends"], ""] + table(rows_without_mpi)
    lines += ["",
              "Cases are numbered per stream and generated from (seed, format, case number) alone; job J of N runs the",
              "numbers c with c mod N = J in a process of its own (tools/campaign_jobs.h) and the parent merges the",
              "results (merge_results, core/io/results.h). With `--cases` the table, the JSON and the",
              "findings are the same whatever N is (tools/tests/jobs_test.py; not under `--maximize`, whose climb each",
              "job runs from its own cases); with `--minutes` each job judges what it",
              "can in the time, so N jobs judge more of the same sequence (each up to its own case number: not exactly",
              "a prefix of it).",
              "",
              "**Over many machines.** `check --shard K/M` runs share K of M of the same seed's cases (within it,",
              "`--jobs` splits further); each machine writes `--json`, and `accucheck merge shard*.json --json all.json`",
              "gives the table and results of the whole campaign (a shard missing or given twice is named). The fuzz",
              "targets (docs/fuzzing.md) spread the way libFuzzer targets do: ClusterFuzzLite in CI, or OSS-Fuzz",
              "(continuous, many machines, corpus shared and minimized, crashes deduplicated and reported), each",
              "built from the fuzz preset with its replay main; `-jobs=N -workers=N` on one machine.",
              ""]
    return lines


def write_section(page, lines):
    """Replaces the section titled lines[0] in `page` with `lines` (appends it when absent)."""
    title = lines[0].strip()
    try:
        with open(page) as f:
            old = f.read().splitlines()
    except OSError:
        old = []
    out, skipping, placed = [], False, False
    for line in old:
        if line.startswith("## "):
            skipping = line.strip() == title
            if skipping and not placed:
                out += lines
                placed = True
        if not skipping:
            out.append(line)
    if not placed:
        out += [""] + lines if out and out[-1] else lines
    with open(page + ".tmp", "w") as f:
        f.write("\n".join(out).rstrip("\n") + "\n")
    os.replace(page + ".tmp", page)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accucheck", required=True)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--page", default="docs/performance.md")
    parser.add_argument("--build", default="build type as configured", help="how the CLI was built, for the page")
    args = parser.parse_args()
    cpus = len(os.sched_getaffinity(0))
    rows, rows_without_mpi = [], []
    no_mpi = without_mpi(args.accucheck)
    with tempfile.TemporaryDirectory(prefix="accucheck_jobs_scaling_") as scratch:
        for jobs in sorted({1, 2, cpus}):
            if jobs > cpus and jobs != 2:
                continue
            rows.append(campaign(args.accucheck, jobs, args.seconds, args.seed, scratch))
            print("jobs %(jobs)d: %(cases_per_stream)d cases per stream, %(wall).1f s wall, %(cpu).1f s CPU" % rows[-1])
            if len(no_mpi) < rows[-1]["backends"]:
                rows_without_mpi.append(campaign(args.accucheck, jobs, args.seconds, args.seed, scratch, no_mpi))
                print("  without MPI: %(cases_per_stream)d cases per stream, %(wall).1f s wall, %(cpu).1f s CPU" % rows_without_mpi[-1])
    write_section(args.page, section(rows, rows_without_mpi, args.seconds, args.seed, cpus, args.build))
    print("wrote the section '%s' of %s" % (TITLE, args.page))


if __name__ == "__main__":
    main()
