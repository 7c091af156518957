#!/usr/bin/env python3
"""Overnight fuzz campaign (ci/fuzz-overnight.sh runs this): resumable, loses nothing when killed.

    fuzzers/campaign.py --hours H [--jobs J] [--state DIR] [--build DIR] [--targets T ...]
                        [--slice SECONDS] [--merge-every N]

Every target gets an equal share of H hours, run in slices (round robin, at most --slice
seconds each) with libFuzzer's -fork=J on J cores (-ignore_crashes, -ignore_timeouts and
-ignore_ooms: a finding does not end the run). Between slices, and at start-up:

  * findings: each new crash-/leak-/timeout-/oom- artifact is minimized (-minimize_crash=1),
    replayed to get its report, summarized in one line, and filed into
    corpora/<target>/regressions/ as a case file (docs/case-format.md) <sha1>.json, its note
    the summary and the dedup key: the workload the target's report printed, or, for a
    sanitizer's crash in a workload target, the input decoded by accucheck_fuzz_tool (from
    --tool-build). Inputs that are no workload (fuzz_oracle, fuzz_inputs, or when no tool is
    built) are filed as <sha1> with <sha1>.summary beside it. A finding whose key (backend and
    verdict, or the sanitizer's SUMMARY line) is already filed goes to DIR/<target>/duplicates/;
  * every --merge-every slices the corpus is minimized (-merge=1) into a new directory that
    replaces the old one by rename, only once the merge has finished;
  * DIR/summary.json and DIR/summary.md: execs, execs/s, corpus size, coverage, findings and
    the worst error/bound per backend (from fuzz_maxerr's records).

State lives on disk (DIR/state.json, written atomically, plus the corpus and artifact
directories): kill the campaign at any moment (SIGKILL included) and run the same command
again; it kills the fuzzers the killed run left behind (by the pids it recorded), repairs an
interrupted corpus swap, files the findings the killed run had not filed yet, and continues
with the time that remains.
"""
import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = ["fuzz_dense", "fuzz_sparse", "fuzz_product", "fuzz_maxerr", "fuzz_oracle", "fuzz_inputs"]
# The workload kind of each workload target's inputs (fuzzers/common/fuzz_input.h), for decoding.
WORKLOAD_KIND = {"fuzz_dense": "dense", "fuzz_maxerr": "dense", "fuzz_sparse": "sparse", "fuzz_product": "product"}
CASE_IN_REPORT = re.compile(r"---- the workload as a case file \(accucheck replay CASE\) ----\n(\{.*?\n\})\n", re.S)
FINDING_PREFIXES = ("crash-", "leak-", "timeout-", "oom-")


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_atomically(path, data):
    """Temporary file in the same directory, fsync, rename: readers never see a partial file."""
    if isinstance(data, str):
        data = data.encode()
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dirfd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    try:
        os.fsync(dirfd)
    finally:
        os.close(dirfd)


def options(target):
    """The key = value lines of fuzzers/options/<target>.options (none for a target without one)."""
    path = os.path.join(ROOT, "fuzzers", "options", target + ".options")
    found = {}
    if os.path.exists(path):
        for line in open(path):
            m = re.match(r"\s*([a-z_]+)\s*=\s*(\S+)", line)
            if m:
                found[m.group(1)] = m.group(2)
    return found


def options_flags(target):
    """The target's libFuzzer options as -key=value flags, but its dictionary (dict_flags)."""
    return ["-%s=%s" % (k, v) for k, v in options(target).items() if k != "dict"]


def dict_flags(target):
    """-dict= the fuzzers/dicts file the target's options name (dict = NAME), if any."""
    name = options(target).get("dict")
    return ["-dict=" + os.path.join(ROOT, "fuzzers", "dicts", name)] if name else []


def pid_is_ours(pid, binary):
    """True if pid is alive and runs `binary` (so a recycled pid is never killed)."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv = f.read().split(b"\0")
        return bool(argv) and os.path.realpath(argv[0].decode(errors="replace")) == os.path.realpath(binary)
    except OSError:
        return False


class Campaign:
    def __init__(self, args):
        self.args = args
        self.state_dir = os.path.abspath(args.state)
        self.build = os.path.abspath(args.build)
        self.corpora_root = os.path.abspath(args.corpora)
        os.makedirs(self.state_dir, exist_ok=True)
        self.state_path = os.path.join(self.state_dir, "state.json")
        self.state = self.load_state()
        self.child = None
        self.failed_starts = 0

    # ---- state -----------------------------------------------------------------------------
    def load_state(self):
        if os.path.exists(self.state_path):
            with open(self.state_path) as f:
                state = json.load(f)
            state["resumes"] = state.get("resumes", 0) + 1
            self.log("resuming campaign started %s (resume %d)" % (state["started"], state["resumes"]))
        else:
            state = {"version": 1, "started": now(), "resumes": 0, "targets": {}}
        state["hours"] = self.args.hours
        state["jobs"] = self.args.jobs
        for t in self.args.targets:
            state["targets"].setdefault(t, {"elapsed": 0.0, "execs": 0, "slices": 0, "cov": 0, "ft": 0,
                                            "processed": [], "findings": [], "duplicates": 0, "children": []})
        return state

    def save_state(self):
        self.state["updated"] = now()
        write_atomically(self.state_path, json.dumps(self.state, indent=1, sort_keys=True))

    def log(self, text):
        line = "[%s] %s" % (now(), text)
        print(line, flush=True)
        with open(os.path.join(self.state_dir, "campaign.log"), "a") as f:
            f.write(line + "\n")

    def tdir(self, target, *parts):
        path = os.path.join(self.state_dir, target, *parts)
        return path

    def binary(self, target):
        return os.path.join(self.build, "fuzzers", target)

    # ---- recovery --------------------------------------------------------------------------
    def recover(self):
        for t in self.args.targets:
            st = self.state["targets"][t]
            for pid in st.get("children", []):
                if pid_is_ours(pid, self.binary(t)):
                    self.log("%s: stopping pid %d left by the killed run" % (t, pid))
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            st["children"] = []
            corpus, old, merging = self.tdir(t, "corpus"), self.tdir(t, "corpus.old"), self.tdir(t, "corpus.merging")
            if not os.path.isdir(corpus) and os.path.isdir(old):
                self.log("%s: finishing an interrupted corpus swap" % t)
                os.rename(old, corpus)
            shutil.rmtree(old, ignore_errors=True)
            shutil.rmtree(merging, ignore_errors=True)
            for sub in ("corpus", "artifacts", "minimized", "duplicates", "logs", "maxerr"):
                os.makedirs(self.tdir(t, sub), exist_ok=True)
        self.save_state()

    # ---- fuzzing ---------------------------------------------------------------------------
    def remaining(self, t):
        share = self.args.hours * 3600.0 / len(self.args.targets)
        return share - self.state["targets"][t]["elapsed"]

    def corpus_dirs(self, t):
        """The campaign's corpus, then the committed seeds and regressions (a *_mutants build
        starts from the seeds of the target it is built from)."""
        dirs = [self.tdir(t, "corpus")]
        base = t[:-len("_mutants")] if t.endswith("_mutants") else t
        for d in (os.path.join(ROOT, "corpora", base, "seed"), self.regressions_dir(base), self.regressions_dir(t)):
            if os.path.isdir(d) and d not in dirs:
                dirs.append(d)
        return dirs

    def regressions_dir(self, t):
        return os.path.join(self.corpora_root, t, "regressions")

    def run_slice(self, t, seconds):
        st = self.state["targets"][t]
        st["slices"] += 1
        log_path = self.tdir(t, "logs", "slice-%04d.log" % st["slices"])
        cmd = [self.binary(t)] + options_flags(t) + dict_flags(t)
        cmd += ["-fork=%d" % self.args.jobs, "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1",
                "-max_total_time=%d" % max(1, int(seconds)), "-rss_limit_mb=2048", "-print_final_stats=1",
                "-artifact_prefix=" + self.tdir(t, "artifacts") + "/"] + self.corpus_dirs(t)
        env = dict(os.environ, ACCUCHECK_MAXERR_DIR=self.tdir(t, "maxerr"))
        self.log("%s: slice %d, %ds on %d job(s)" % (t, st["slices"], seconds, self.args.jobs))
        with open(log_path, "wb") as logf:
            proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, env=env, cwd=self.tdir(t))
        self.child = proc
        st["children"] = [proc.pid]
        self.save_state()
        start = last = time.time()
        while proc.poll() is None:
            time.sleep(min(10, max(1, seconds / 10)))
            t_now = time.time()
            st["elapsed"] += t_now - last  # time is accounted as it passes: a kill loses <= 10 s
            last = t_now
            self.save_state()
        t_now = time.time()
        st["elapsed"] += t_now - last
        st["children"] = []
        self.child = None
        self.absorb_stats(t, log_path)
        self.save_state()
        if proc.returncode != 0 and t_now - start < min(5, seconds):
            self.failed_starts += 1
            self.log("%s: libFuzzer exited at once (exit %d); see %s" % (t, proc.returncode, log_path))
            if self.failed_starts >= 3:
                sys.exit("campaign: %s does not run (last log: %s)" % (t, log_path))
        else:
            self.failed_starts = 0
        return time.time() - start

    def absorb_stats(self, t, log_path):
        st = self.state["targets"][t]
        text = open(log_path, errors="replace").read()
        # Fork mode: "#N: cov: C ft: F corp: K exec/s: E ..."; plain mode: "#N ... cov: C ft: F".
        execs = 0
        for m in re.finditer(r"^#(\d+)[: ].*?cov: (\d+) ft: (\d+)", text, re.M):
            execs = int(m.group(1))
            st["cov"], st["ft"] = max(st["cov"], int(m.group(2))), max(st["ft"], int(m.group(3)))
        m = re.findall(r"stat::number_of_executed_units: (\d+)", text)
        if m:
            execs = max(execs, int(m[-1]))
        st["execs"] += execs

    def merge(self, t):
        corpus, merging, old = self.tdir(t, "corpus"), self.tdir(t, "corpus.merging"), self.tdir(t, "corpus.old")
        shutil.rmtree(merging, ignore_errors=True)
        os.makedirs(merging)
        cmd = [self.binary(t)] + options_flags(t) + ["-merge=1", "-rss_limit_mb=2048",
                                                     "-merge_control_file=" + self.tdir(t, "merge.control"), merging, corpus]
        env = dict(os.environ, ACCUCHECK_MAXERR_DIR=self.tdir(t, "maxerr"))
        with open(self.tdir(t, "logs", "merge.log"), "wb") as logf:
            rc = subprocess.call(cmd, stdout=logf, stderr=subprocess.STDOUT, env=env, cwd=self.tdir(t))
        if rc != 0 or (os.listdir(corpus) and not os.listdir(merging)):
            self.log("%s: corpus merge failed (exit %d); keeping the corpus as it is" % (t, rc))
            shutil.rmtree(merging, ignore_errors=True)
            return
        before, after = len(os.listdir(corpus)), len(os.listdir(merging))
        os.rename(corpus, old)       # killed here: recover() renames corpus.old back
        os.rename(merging, corpus)   # killed here: recover() removes corpus.old
        shutil.rmtree(old, ignore_errors=True)
        self.log("%s: corpus merged, %d -> %d inputs" % (t, before, after))

    # ---- findings --------------------------------------------------------------------------
    def report_of(self, t, path):
        """Replays one input; returns (one-line summary, dedup key, the report text)."""
        env = dict(os.environ, ACCUCHECK_MAXERR_DIR=self.tdir(t, "maxerr"))
        try:
            out = subprocess.run([self.binary(t), "-runs=1", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 env=env, cwd=self.tdir(t), timeout=300).stdout.decode(errors="replace")
        except subprocess.TimeoutExpired:
            return "timeout on replay", "timeout", ""
        m = re.search(r"==== accucheck (\S+): (VIOLATION|DISAGREEMENT|FINDING[^=]*?) ====\n(.*?)(\n---- |\n==== end)", out, re.S)
        if m:
            block = m.group(3)
            lines = [l.strip() for l in block.split("\n") if l.strip()]
            backend = re.search(r"backend (\S+)", block)
            prop = re.search(r"^property (\S+) fails", block, re.M)
            verdict = re.search(r"verdict (\S+)", block)
            what = ("property " + prop.group(1)) if prop else (verdict.group(1) if verdict else (lines[0][:80] if lines else "?"))
            key = "%s %s" % (backend.group(1) if backend else m.group(2).strip(), what)
            return "%s: %s" % (m.group(2).strip(), "; ".join(lines[:3])), key, out
        m = re.search(r"SUMMARY: (.*)", out)
        if m:
            return m.group(1).strip(), m.group(1).strip(), out
        m = re.search(r"(ERROR: libFuzzer: [^\n]*)", out)
        if m:
            return m.group(1), m.group(1), out
        return "does not reproduce on replay (flaky; kept for the record)", "not-reproducible", out

    @staticmethod
    def shown(directory, name):
        path = os.path.join(directory, name)
        return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path

    def filed_keys(self, t):
        """Dedup keys of what is filed: the `key:` line of a case file's note or of a .summary."""
        keys = {}
        d = self.regressions_dir(t)
        if os.path.isdir(d):
            for name in os.listdir(d):
                path = os.path.join(d, name)
                if name.endswith(".json"):
                    try:
                        lines = json.load(open(path, errors="replace")).get("note", "").split("\n")
                    except (ValueError, AttributeError):
                        continue
                elif name.endswith(".summary"):
                    lines = open(path, errors="replace").read().split("\n")
                else:
                    continue
                for line in lines:
                    if line.startswith("key: "):
                        keys[line[5:].strip()] = name
        return keys

    def case_of(self, t, input_path, report):
        """The finding as a case file's JSON object: from the report, else decoded by the tool."""
        m = CASE_IN_REPORT.search(report)
        if m:
            try:
                return json.loads(m.group(1))
            except ValueError:
                pass
        tool = os.path.join(self.args.tool_build, "fuzzers", "accucheck_fuzz_tool")
        kind = WORKLOAD_KIND.get(t.replace("_mutants", ""))
        if not kind or not os.path.exists(tool):
            return None
        out = subprocess.run([tool, "decode", kind, input_path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120)
        try:
            return json.loads(out.stdout.decode()) if out.returncode == 0 else None
        except ValueError:
            return None

    def process_findings(self, t):
        st = self.state["targets"][t]
        art = self.tdir(t, "artifacts")
        for name in sorted(os.listdir(art)):
            if not name.startswith(FINDING_PREFIXES) or ".tmp." in name or name in st["processed"]:
                continue
            src = os.path.join(art, name)
            # Replay first: a finding whose key is already filed is a duplicate and is not
            # minimized (a planted bug can crash thousands of inputs in one slice).
            summary, key, report = self.report_of(t, src)
            filed = self.filed_keys(t)
            if key in filed:
                shutil.copyfile(src, self.tdir(t, "duplicates", name))
                st["duplicates"] += 1
                st["processed"].append(name)
                self.save_state()
                continue
            minimized = self.tdir(t, "minimized", name)
            if not os.path.exists(minimized):
                kind = name.split("-")[0]
                if kind in ("crash", "leak", "timeout"):
                    cmd = [self.binary(t)] + options_flags(t) + ["-minimize_crash=1", "-max_total_time=%d" % self.args.minimize_seconds,
                                                                 "-exact_artifact_path=" + minimized + ".part", src]
                    env = dict(os.environ, ACCUCHECK_MAXERR_DIR=self.tdir(t, "maxerr"))
                    with open(self.tdir(t, "logs", "minimize-" + name + ".log"), "wb") as logf:
                        subprocess.call(cmd, stdout=logf, stderr=subprocess.STDOUT, env=env, cwd=self.tdir(t))
                if os.path.exists(minimized + ".part") and os.path.getsize(minimized + ".part") > 0:
                    os.replace(minimized + ".part", minimized)
                else:
                    shutil.copyfile(src, minimized + ".part")
                    os.replace(minimized + ".part", minimized)
            m_summary, m_key, m_report = self.report_of(t, minimized)
            if m_key == key:  # the minimized input shows the same finding: keep it
                summary, report = m_summary, m_report
            else:             # minimization drifted to another finding (or lost it): keep the original
                shutil.copyfile(src, minimized)
            data = open(minimized, "rb").read()
            sha = hashlib.sha1(data).hexdigest()
            dest_dir = self.regressions_dir(t)
            os.makedirs(dest_dir, exist_ok=True)
            found = "%s by ci/fuzz-overnight.sh (%s, %d bytes minimized from %d)" % (now(), name, len(data), os.path.getsize(src))
            case = self.case_of(t, minimized, report)
            if case is not None:  # the one regression format: a case file (replayed by ctest and libFuzzer)
                filed = sha + ".json"
                case["found_by"] = "%s: %s" % (t, found)
                case["note"] = "%s\nkey: %s\n" % (summary, key)
                write_atomically(os.path.join(dest_dir, filed), json.dumps(case, indent=1) + "\n")
            else:  # an input that is no workload (fuzz_oracle, fuzz_inputs)
                filed = sha
                write_atomically(os.path.join(dest_dir, sha), data)
                write_atomically(os.path.join(dest_dir, sha + ".summary"),
                                 "%s\nkey: %s\nfound: %s\nreplay: build/fuzzers/%s %s\n" %
                                 (summary, key, found, t, self.shown(dest_dir, sha)))
            write_atomically(self.tdir(t, "logs", "report-" + sha + ".txt"), report)
            st["findings"].append({"file": self.shown(dest_dir, filed), "summary": summary, "key": key, "artifact": name})
            st["processed"].append(name)
            self.save_state()
            self.log("%s: FINDING filed as %s: %s" % (t, self.shown(dest_dir, filed), summary))

    # ---- summary ---------------------------------------------------------------------------
    def worst_ratios(self):
        worst = {}
        for t in self.args.targets:
            d = self.tdir(t, "maxerr")
            if not os.path.isdir(d):
                continue
            for name in sorted(os.listdir(d)):
                if not name.endswith(".json"):
                    continue
                try:
                    case = json.load(open(os.path.join(d, name)))
                except (OSError, ValueError):
                    continue
                m = re.search(r"max error/bound ([0-9.eE+-]+)", case.get("note", ""))
                if m:
                    worst[case.get("backend", name[:-5])] = {"ratio": float(m.group(1)), "bound": case.get("bound", ""),
                                                             "case": os.path.join(d, name), "note": case["note"]}
        return worst

    def write_summary(self):
        targets = {}
        total_elapsed = 0.0
        for t in self.args.targets:
            st = self.state["targets"][t]
            corpus = self.tdir(t, "corpus")
            files = os.listdir(corpus) if os.path.isdir(corpus) else []
            size = sum(os.path.getsize(os.path.join(corpus, f)) for f in files)
            total_elapsed += st["elapsed"]
            targets[t] = {"seconds": round(st["elapsed"], 1), "execs": st["execs"],
                          "execs_per_s": round(st["execs"] / st["elapsed"], 1) if st["elapsed"] > 0 else 0,
                          "corpus_files": len(files), "corpus_bytes": size, "cov": st["cov"], "features": st["ft"],
                          "findings": st["findings"], "duplicates": st["duplicates"], "slices": st["slices"]}
        summary = {"started": self.state["started"], "updated": now(), "hours": self.args.hours, "jobs": self.args.jobs,
                   "resumes": self.state["resumes"], "seconds": round(total_elapsed, 1), "targets": targets,
                   "worst_error_over_bound": self.worst_ratios()}
        write_atomically(os.path.join(self.state_dir, "summary.json"), json.dumps(summary, indent=1, sort_keys=True))
        md = ["# Fuzz campaign", "",
              "Started %s, updated %s; %.1f h planned on %d job(s); %.0f s fuzzed; resumed %d time(s)." %
              (summary["started"], summary["updated"], self.args.hours, self.args.jobs, total_elapsed, self.state["resumes"]),
              "", "| target | seconds | execs | execs/s | corpus | bytes | cov | features | findings | duplicates |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for t, s in targets.items():
            md.append("| %s | %.0f | %d | %.0f | %d | %d | %d | %d | %d | %d |" % (
                t, s["seconds"], s["execs"], s["execs_per_s"], s["corpus_files"], s["corpus_bytes"], s["cov"], s["features"],
                len(s["findings"]), s["duplicates"]))
        md += ["", "## Findings", ""]
        any_finding = False
        for t, s in targets.items():
            for f in s["findings"]:
                md.append("- `%s` (%s): %s" % (f["file"], t, f["summary"]))
                any_finding = True
        if not any_finding:
            md.append("None.")
        md += ["", "## Worst error/bound per backend (fuzz_maxerr)", "", "| backend | bound | error/bound | case |",
               "| --- | --- | ---: | --- |"]
        for b, w in sorted(summary["worst_error_over_bound"].items(), key=lambda kv: -kv[1]["ratio"]):
            md.append("| %s | %s | %.6g | %s |" % (b, w["bound"], w["ratio"], os.path.relpath(w["case"], self.state_dir)))
        write_atomically(os.path.join(self.state_dir, "summary.md"), "\n".join(md) + "\n")

    # ---- main loop -------------------------------------------------------------------------
    def run(self):
        for t in self.args.targets:
            if not os.access(self.binary(t), os.X_OK):
                sys.exit("campaign: %s is not built (%s)" % (t, self.binary(t)))
        self.recover()
        for t in self.args.targets:
            self.process_findings(t)
        self.write_summary()
        while True:
            pending = [t for t in self.args.targets if self.remaining(t) > 1]
            if not pending:
                break
            # The target furthest behind its share goes next.
            t = max(pending, key=self.remaining)
            self.run_slice(t, min(self.args.slice, self.remaining(t)))
            self.process_findings(t)
            if self.state["targets"][t]["slices"] % self.args.merge_every == 0:
                self.merge(t)
            self.write_summary()
        self.write_summary()
        total = sum(len(self.state["targets"][t]["findings"]) for t in self.args.targets)
        self.log("campaign finished: %d finding(s); summary in %s" % (total, os.path.join(self.state_dir, "summary.md")))
        return 1 if total else 0


def stop_on_signal(campaign):
    """SIGTERM / SIGINT: stop the running fuzzer and exit; the state on disk is already current."""
    def handler(signum, frame):
        child = getattr(campaign, "child", None)
        if child is not None and child.poll() is None:
            child.kill()
        campaign.log("stopped by signal %d; run the same command again to resume" % signum)
        os._exit(128 + signum)
    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hours", type=float, required=True)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--state", default=os.path.join(ROOT, "build-fuzz", "campaign"))
    p.add_argument("--build", default=os.path.join(ROOT, "build-fuzz"))
    p.add_argument("--tool-build", default=os.path.join(ROOT, "build"),
                   help="an ordinary build with fuzzers/accucheck_fuzz_tool, to file sanitizer crashes as case files")
    p.add_argument("--targets", nargs="+", default=TARGETS)
    p.add_argument("--corpora", default=os.path.join(ROOT, "corpora"),
                   help="where findings are filed (<corpora>/<target>/regressions); default the repository's corpora/")
    p.add_argument("--slice", type=float, default=1800, help="longest single libFuzzer run, seconds")
    p.add_argument("--merge-every", type=int, default=1, help="minimize the corpus every N slices of a target")
    p.add_argument("--minimize-seconds", type=int, default=120)
    args = p.parse_args()
    if args.hours <= 0 or args.jobs < 1:
        p.error("--hours must be positive and --jobs at least 1")
    campaign = Campaign(args)
    stop_on_signal(campaign)
    sys.exit(campaign.run())


if __name__ == "__main__":
    main()
