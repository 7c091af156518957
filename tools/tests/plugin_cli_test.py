#!/usr/bin/env python3
"""Plugins through the CLI.

--mode examples     examples/plugin: the good plugin passes `check` (exit 0); the wrong one is
                    caught (exit 1) with replayable findings (replay exits 1, with --plugin or
                    ACCUCHECK_PLUGINS; without the plugin, exit 2 naming what to load).
--mode out_of_tree  plugins compiled outside the source tree with `cc -shared -fPIC` against a
                    copy of plugin.h alone: new sources written here (C99, and C++), and the
                    examples' sources; correct ones pass, wrong ones are caught.
--mode crash|abort|error|overrun|hang
                    a plugin that misbehaves during a campaign: the campaign goes on, the
                    backend is reported as failed (exit 1), the case is saved and replays (exit 1).
--mode exit_on_load|hang_on_load|print|fast_math|memory|budget
                    what a plugin does to accucheck itself: exit(0) or hang while loading (every
                    command exits 2 naming it, beside other plugins too), print (its output is
                    captured, never accucheck's: JSON stays JSON, no forged FINDING lines, a closed
                    stdout pipe makes no false finding), switch on FTZ/DAZ when loaded (built-in
                    backends unaffected, the user told), allocate past ACCUCHECK_PLUGIN_MEMORY,
                    and slow or hanging calls that must not stretch --minutes.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import tempfile
import time

from clitest import Failure, clean_env, main, require, run

OUTSIDE_GOOD = r"""
/* Written by the test, not in the repository: a pairwise f64 sum (any parenthesization is
 * covered by anyorder(f64)) and an f32 sum carried in f64 and rounded once. */
#include <stdlib.h>
#include "accucheck/plugin.h"

static double pairwise(const double *g, size_t stride, size_t n) {
  if (n == 1) return g[0];
  return pairwise(g, stride, n / 2) + pairwise(g + (n / 2) * stride, stride, n - n / 2);
}

static int sum_f64(const accucheck_dense_problem *p) {
  double *out = (double *)p->buffer;
  size_t j;
  for (j = 0; j < p->elements && p->steps > 0; ++j)
    out[j] = out[j] + pairwise((const double *)p->addends + j, p->elements, p->steps);
  return 0;
}

static int wide_f32(const accucheck_dense_problem *p) {
  const float *g = (const float *)p->addends;
  float *out = (float *)p->buffer;
  size_t t, j;
  for (j = 0; j < p->elements; ++j) {
    double acc = out[j];
    for (t = 0; t < p->steps; ++t) acc += g[t * p->elements + j];
    out[j] = (float)acc;
  }
  return 0;
}

static const accucheck_backend list[] = {
  {"outside.pairwise_f64", ACCUCHECK_F64, ACCUCHECK_F64, "anyorder(f64)", ACCUCHECK_DETERMINISTIC, sum_f64, NULL, 0, NULL},
  {"outside.wide_f32", ACCUCHECK_F32, ACCUCHECK_F64, "widened(recursive(f64),f32)", ACCUCHECK_DETERMINISTIC, wide_f32, NULL, 0, NULL},
};

const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
  if (abi != ACCUCHECK_PLUGIN_ABI) return NULL;
  *count = sizeof list / sizeof list[0];
  return list;
}
"""

OUTSIDE_WRONG = r"""
/* Written by the test: an embedding backward that drops the initial gradient (grad_req
 * 'write' where 'add' was asked), in C++, and a sum that claims to be correctly rounded. */
#include <cstddef>
#include "accucheck/plugin.h"

static int drops_initial(const accucheck_sparse_problem *p) {
  float *table = static_cast<float *>(p->table);
  const float *values = static_cast<const float *>(p->row_values);
  bool touched[4096] = {};
  if (p->rows > 4096) return 1;
  for (std::size_t q = 0; q < p->step_offsets[p->steps]; ++q) {
    const std::size_t r = p->row_index[q];
    if (!touched[r]) {
      for (std::size_t d = 0; d < p->dim; ++d) table[r * p->dim + d] = 0.0f;
      touched[r] = true;
    }
    for (std::size_t d = 0; d < p->dim; ++d) table[r * p->dim + d] += values[q * p->dim + d];
  }
  return 0;
}

static int claims_exact(const accucheck_dense_problem *p) {
  const double *g = static_cast<const double *>(p->addends);
  double *out = static_cast<double *>(p->buffer);
  for (std::size_t t = 0; t < p->steps; ++t)
    for (std::size_t j = 0; j < p->elements; ++j) out[j] += g[t * p->elements + j];
  return 0;
}

static const accucheck_backend list[] = {
  {"outside_wrong.embedding_f32", ACCUCHECK_F32, ACCUCHECK_F32, "recursive(f32)", ACCUCHECK_DETERMINISTIC, nullptr, drops_initial, 0, nullptr},
  {"outside_wrong.claims_exact_f64", ACCUCHECK_F64, ACCUCHECK_F64, "correctly_rounded", ACCUCHECK_ORDER_INDEPENDENT, claims_exact, nullptr, 0, nullptr},
};

extern "C" const accucheck_backend *accucheck_plugin_backends(int abi, size_t *count) {
  if (abi != ACCUCHECK_PLUGIN_ABI) return nullptr;
  *count = sizeof list / sizeof list[0];
  return list;
}
"""


def findings_in(directory):
    return sorted(glob.glob(os.path.join(directory, "*.json")))


def check_caught(a, plugin, globs, tmp, label, cases=300, names=None):
    """check exits 1 with findings for every backend in `names`; each finding replays (exit 1)."""
    findings_dir = os.path.join(tmp, "findings_" + label)
    args = ["check", "--plugin", plugin, "--cases", cases, "--seed", 1, "--findings", findings_dir, "--quiet"]
    for g in globs:
        args += ["--backend", g]
    proc = run(a, args, 1)
    found = findings_in(findings_dir)
    require(found, "no finding written to " + findings_dir)
    for name in names or []:
        require(any(os.path.basename(f).startswith(name + "_") for f in found), "no finding for " + name + ": " + str(found))
        require(name in proc.stdout, name + " missing from the table")
    require("replay: accucheck replay " in proc.stderr and "--plugin " + os.path.abspath(plugin) in proc.stderr,
            "the replay command (with --plugin) is not printed")
    for f in found:
        case = json.load(open(f))
        require(not names or case["backend"] in names, "unexpected backend in " + f)
        replay = run(a, ["replay", f, "--plugin", plugin], 1)
        require("VIOLATED" in replay.stdout, "replay does not say VIOLATED")
    return found


def check_passes(a, plugin, globs, tmp, label, cases=300):
    findings_dir = os.path.join(tmp, "findings_" + label)
    args = ["check", "--plugin", plugin, "--cases", cases, "--seed", 1, "--findings", findings_dir]
    for g in globs:
        args += ["--backend", g]
    proc = run(a, args, 0)
    require(not findings_in(findings_dir), "findings written for a correct plugin")
    require("no violations" in proc.stdout, "the summary line does not say 'no violations'")
    return proc


def mode_examples(args, tmp):
    a, good, wrong = args.accucheck, args.good, args.wrong
    listing = run(a, ["list", "--plugin", good], 0).stdout
    for name in ("example.naive_f64", "example.kahan_f32", "example.widened_bf16", "example.widened_f16"):
        require(name in listing, name + " not listed")
    require("[plugin " + os.path.abspath(good) + "]" in listing, "plugin backends are not marked as plugins in list")
    listed = json.loads(run(a, ["list", "--json", "--plugin", good], 0).stdout)
    origins = {b["name"]: b["origin"] for b in listed["backends"]}
    require(origins["example.kahan_f32"] == os.path.abspath(good) and origins["naive_f32"] == "builtin", "origins in list --json")
    strides = {b["name"]: b["accepts_strides"] for b in listed["backends"]}
    require(strides["example.kahan_f32"] and not strides["example.widened_f16"] and not strides["naive_f32"],
            "accepts_strides in list --json: " + str(strides))
    require(any("example.naive_f64" in line and "[strides]" in line for line in listing.splitlines()) and
            not any("example.widened_bf16" in line and "[strides]" in line for line in listing.splitlines()),
            "list does not mark the backends that accept strides")

    proc = check_passes(a, good, ["example.*"], tmp, "good", cases=500)
    for name in ("example.naive_f64", "example.kahan_f32", "example.widened_bf16", "example.widened_f16"):
        require(name in proc.stdout, name + " missing from the table")
    require("[plugin " in proc.stdout, "the table does not mark plugin backends")
    # Mixed with built-in backends, through the environment variable.
    run(a, ["check", "--cases", 60, "--seed", 2, "--backend", "example.*", "--backend", "naive_*", "--backend", "kahan_*",
            "--findings", os.path.join(tmp, "f_mixed"), "--quiet"], 0, env={"ACCUCHECK_PLUGINS": good})

    found = check_caught(a, wrong, ["example_wrong.*"], tmp, "wrong",
                         names=["example_wrong.elemwise_sum_f32", "example_wrong.claims_kahan_f32",
                                "example_wrong.ignores_strides_f32"])
    # The same finding through ACCUCHECK_PLUGINS; without the plugin, a clear usage error.
    run(a, ["replay", found[0]], 1, env={"ACCUCHECK_PLUGINS": wrong})
    missing = run(a, ["replay", found[0]], 2)
    require("not registered" in missing.stderr and "--plugin" in missing.stderr, "replay without the plugin: " + missing.stderr)
    # The good plugin's backends on a finding of the same format: replay --backend picks them.
    run(a, ["replay", found[0], "--plugin", good, "--backend", "example.kahan_f32"], 0)


def compile_plugin(compiler, source_text, name, tmp, include, cxx=False, extra_sources=()):
    src = os.path.join(tmp, name + (".cpp" if cxx else ".c"))
    if source_text is not None:
        with open(src, "w") as f:
            f.write(source_text)
    else:
        src = extra_sources[0]
    out = os.path.join(tmp, "lib%s.so" % name)
    std = ["-std=c++17"] if cxx else ["-std=c99", "-pedantic"]
    cmd = [compiler] + std + ["-Wall", "-Wextra", "-Werror", "-O2", "-ffp-contract=off", "-shared", "-fPIC", "-I", include,
                              src, "-o", out, "-lm"]
    print("$ " + " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise Failure("compiling %s failed:\n%s" % (name, proc.stderr))
    return out


def mode_out_of_tree(args, tmp):
    a = args.accucheck
    # Nothing but plugin.h, copied into a directory of its own.
    include = os.path.join(tmp, "include")
    os.makedirs(os.path.join(include, "accucheck"))
    shutil.copy(os.path.join(args.source, "core", "include", "accucheck", "plugin.h"), os.path.join(include, "accucheck"))
    cc = shutil.which("cc") or args.cc
    cxx = shutil.which("c++") or args.cxx
    good = compile_plugin(cc, OUTSIDE_GOOD, "outside_good", tmp, include)
    wrong = compile_plugin(cxx, OUTSIDE_WRONG, "outside_wrong", tmp, include, cxx=True)
    check_passes(a, good, ["outside.*"], tmp, "outside_good", cases=400)
    check_caught(a, wrong, ["outside_wrong.*"], tmp, "outside_wrong",
                 names=["outside_wrong.embedding_f32", "outside_wrong.claims_exact_f64"])
    # The examples' sources, copied out of the tree and built the same way.
    examples = os.path.join(args.source, "examples", "plugin")
    for f in ("good_plugin.c", "wrong_plugin.c", "float16.h"):
        shutil.copy(os.path.join(examples, f), tmp)
    ex_good = compile_plugin(cc, None, "ex_good", tmp, include, extra_sources=[os.path.join(tmp, "good_plugin.c")])
    ex_wrong = compile_plugin(cc, None, "ex_wrong", tmp, include, extra_sources=[os.path.join(tmp, "wrong_plugin.c")])
    check_passes(a, ex_good, ["example.*"], tmp, "ex_good", cases=300)
    check_caught(a, ex_wrong, ["example_wrong.*"], tmp, "ex_wrong",
                 names=["example_wrong.elemwise_sum_f32", "example_wrong.claims_kahan_f32",
                                "example_wrong.ignores_strides_f32"])


MISBEHAVIOUR = {
    "crash": ("crash", "crashed with SIGSEGV", {}),
    "abort": ("abort", "crashed with SIGABRT", {}),
    "error": ("error", "returned 7 (an error)", {}),
    "overrun": ("overrun", "wrote past the end of its result buffer", {}),
    "hang": ("hang", "timed out after 1 s", {"ACCUCHECK_PLUGIN_TIMEOUT": "1"}),
}


def mode_misbehaving(args, tmp, mode):
    a = args.accucheck
    variant, message, env = MISBEHAVIOUR[mode]
    plugin = os.path.join(args.test_plugins, "libtest_plugin_%s.so" % variant)
    findings_dir = os.path.join(tmp, "findings")
    json_path = os.path.join(tmp, "results.json")
    junit_path = os.path.join(tmp, "results.xml")
    cases = 6 if mode == "hang" else 40
    proc = run(a, ["check", "--plugin", plugin, "--backend", "test.variant", "--backend", "naive_f32", "--format", "f32", "--cases", cases,
                   "--seed", 3, "--findings", findings_dir, "--json", json_path, "--junit", junit_path, "--quiet"], 1, env=env)
    require(message in proc.stdout + proc.stderr, "the failure is not reported as %r" % message)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("test.variant ") or l.startswith("naive_f32 ")]
    require(len(lines) == 2, "the table lacks a row: " + proc.stdout)
    require("backend-failed" in lines[0] or "backend-failed" in lines[1], "the table does not show backend-failed")
    results = json.load(open(json_path))
    by_name = {b["name"]: b for b in results["backends"]}
    require(by_name["naive_f32"]["cases"] >= cases and by_name["test.variant"]["cases"] >= cases,
            "the campaign did not go on: %s" % {n: b["cases"] for n, b in by_name.items()})
    require(not by_name["naive_f32"]["violations"], "naive_f32 was blamed")
    require(by_name["test.variant"]["violations"].get("backend-failed", 0) > 0, "no backend-failed count in the JSON")
    require("<failure" in open(junit_path).read(), "JUnit has no failure")
    found = [f for f in findings_in(findings_dir) if "test.variant_backend-failed" in f]
    require(found, "the failing case was not saved")
    case = json.load(open(found[0]))
    require(case["verdict"] == "backend-failed" and message in case["note"], "the case file does not record the failure")
    if mode != "hang":
        require(case["steps"] == 4, "the case was not shrunk to the smallest failing one (4 steps): %s" % case["steps"])
    replay = run(a, ["replay", found[0], "--plugin", plugin], 1, env=env)
    require("backend failed" in replay.stdout and message in replay.stdout, "replay does not show the failure")


GOOD_CASE = """{"accucheck_case": 1, "workload": "dense", "format": "f32", "elements": 1, "steps": 5,
 "initial": ["0x1p+0"], "addends": [["0x1p-1"], ["0x1p-2"], ["0x1p-3"], ["0x1p-4"], ["0x1p-5"]]}
"""

SUBNORMAL_F64_CASE = """{"accucheck_case": 1, "workload": "dense", "format": "f64", "backend": "naive_f64", "elements": 1,
 "steps": 2, "initial": ["0x1p-1070"], "addends": [["0x1p-1074"], ["-0x1p-1073"]]}
"""


def test_plugin(args, variant):
    return os.path.join(args.test_plugins, "libtest_plugin_%s.so" % variant)


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def every_command(args, tmp):
    """One run of each command that loads plugins."""
    case = write(tmp, "good.json", GOOD_CASE)
    trace = os.path.join(args.source, "examples", "traces", "softmax_weight_grad_f32.npy")
    return [["list"], ["check", "--cases", 1, "--findings", os.path.join(tmp, "f")], ["replay", case], ["trace", trace, "--quiet"]]


def mode_exit_on_load(args, tmp):
    # exit(0) in a constructor or in accucheck_plugin_backends: before, every command exited 0
    # with no output (a green CI job that checked nothing).
    for variant in ("exit_on_load", "exit_in_backends"):
        plugin = test_plugin(args, variant)
        for command in every_command(args, tmp):
            for plugins in ([plugin], [args.good, plugin]):
                options = [x for p in plugins for x in ("--plugin", p)]
                proc = run(args.accucheck, command + options, 2)
                require(plugin in proc.stderr and "exited the process (status 0) while loading" in proc.stderr,
                        "%s: the exit is not reported: %r" % (command[0], proc.stderr))
        proc = run(args.accucheck, ["list"], 2, env={"ACCUCHECK_PLUGINS": plugin})
        require("ACCUCHECK_PLUGINS" in proc.stderr and plugin in proc.stderr, proc.stderr)


def mode_hang_on_load(args, tmp):
    plugin = test_plugin(args, "hang_on_load")
    for command in every_command(args, tmp):
        start = time.monotonic()
        proc = run(args.accucheck, command + ["--plugin", plugin], 2, env={"ACCUCHECK_PLUGIN_TIMEOUT": "3"}, timeout=60)
        took = time.monotonic() - start
        require("did not finish loading within 3 s" in proc.stderr and plugin in proc.stderr, proc.stderr)
        require(took < 20, "%s took %.1f s with a 3 s time-out" % (command[0], took))


def mode_print(args, tmp):
    a = args.accucheck
    plugin = test_plugin(args, "print")
    case = write(tmp, "good.json", GOOD_CASE)
    replay = run(a, ["replay", case, "--json", "--plugin", plugin, "--backend", "test.variant"], 0)
    parsed = json.loads(replay.stdout)  # the plugin printed '{"not": json' on every call
    require(parsed["backends"][0]["backend"] == "test.variant", "replay --json: %s" % replay.stdout[:200])
    require("test plugin: loaded\\n" in replay.stderr and "warning" in replay.stderr,
            "what it printed while loading is not shown (escaped): %r" % replay.stderr)
    findings = os.path.join(tmp, "findings")
    proc = run(a, ["check", "--plugin", plugin, "--backend", "test.variant", "--cases", 400, "--seed", 5, "--findings", findings],
               1)
    for line in (proc.stdout + proc.stderr).splitlines():
        require(not line.startswith("FINDING naive_f32"), "a plugin forged a finding line: " + line)
    found = [f for f in findings_in(findings) if "test.variant_bound-exceeded" in f]
    require(found, "the wrong result (7 steps) was not found: %s" % findings_in(findings))
    note = json.load(open(found[0]))["note"]
    require("the backend wrote to its output: 'FINDING naive_f32: bound-exceeded\\n" in note,
            "the finding does not show what the backend printed: " + note)
    # `check | head`: before, the worker shared accucheck's stdout, died of SIGPIPE when the
    # reader went away and a false backend-failed finding was saved.
    piped = os.path.join(tmp, "piped")
    reader_gone = subprocess.Popen([a, "check", "--plugin", plugin, "--backend", "test.variant", "--cases", "300", "--seed", "6",
                                    "--findings", piped, "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   env=clean_env())
    reader_gone.stdout.close()
    reader_gone.wait(timeout=240)
    false = [f for f in findings_in(piped) if "backend-failed" in f or "nondeterministic" in f]
    require(not false, "a closed stdout made findings: %s" % false)


def mode_fast_math(args, tmp):
    a = args.accucheck
    plugin = test_plugin(args, "fast_math")
    results = os.path.join(tmp, "r.json")
    proc = run(a, ["check", "--plugin", plugin, "--backend", "naive_f32", "--backend", "kahan_f32", "--family", "subnormal_only",
                   "--cases", 3000, "--seed", 1, "--json", results, "--findings", os.path.join(tmp, "f"), "--quiet"], 0)
    require("libtest_plugin_fast_math.so changed the floating-point environment while loading: flush-to-zero and "
            "denormals-are-zero switched on" in proc.stderr, "the user is not told: %r" % proc.stderr)
    report = json.load(open(results))
    require(any("flush-to-zero" in n for n in report["notes"]), "the results JSON has no note: %s" % report["notes"])
    samples = [s for b in report["backends"] for s in b["samples"]]
    nonzero = [s for s in samples if s["exact"] != 0]
    require(len(nonzero) > len(samples) // 2, "subnormal_only made zeros: %d of %d exact sums non-zero" % (len(nonzero), len(samples)))
    case = write(tmp, "subnormal.json", SUBNORMAL_F64_CASE)
    run(a, ["replay", case, "--plugin", plugin], 0)


def mode_memory(args, tmp):
    proc = run(args.accucheck, ["check", "--plugin", test_plugin(args, "allocate"), "--backend", "test.variant", "--cases", 20,
                                "--seed", 2, "--findings", os.path.join(tmp, "f"), "--quiet"], 1,
               env={"ACCUCHECK_PLUGIN_MEMORY": "1G"})
    require("out of memory" in proc.stdout and "backend failed: test.variant: accumulate_dense" in proc.stdout,
            "the allocation past the limit is not that backend's failure: " + proc.stdout[-2000:])


def mode_budget(args, tmp):
    # 2 s per call; a call that never returns (60 s default time-out). Before the fix --minutes 0.1
    # took 26 s (slow) and 60 s (hang). The margin (12 s over the 6 s budget) is generous so that a
    # loaded machine's slower start-up cannot fail it (it once failed at 4 s under ctest -j2), and
    # still below what the bug took.
    for variant, minutes in (("slow", 0.1), ("hang", 0.1)):
        start = time.monotonic()
        proc = run(args.accucheck, ["check", "--plugin", test_plugin(args, variant), "--backend", "test.variant", "--backend",
                                    "naive_f32", "--minutes", minutes, "--findings", os.path.join(tmp, variant)], 0, timeout=120)
        took = time.monotonic() - start
        require(took < 60 * minutes + 12, "%s: --minutes %g took %.1f s" % (variant, minutes, took))
        require("time budget ended during a call of test.variant" in proc.stdout, "the cut call is not noted: " + proc.stdout)


def body():
    parser = argparse.ArgumentParser()
    for option in ("--accucheck", "--source", "--test-plugins", "--good", "--wrong", "--cc", "--cxx", "--mode"):
        parser.add_argument(option)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="accucheck_plugin_test_") as tmp:
        if args.mode == "examples":
            mode_examples(args, tmp)
        elif args.mode == "out_of_tree":
            mode_out_of_tree(args, tmp)
        elif args.mode in ("exit_on_load", "hang_on_load", "print", "fast_math", "memory", "budget"):
            globals()["mode_" + args.mode](args, tmp)
        else:
            mode_misbehaving(args, tmp, args.mode)


if __name__ == "__main__":
    main(body)
