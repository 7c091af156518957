#!/usr/bin/env python3
"""Bad input through the accucheck CLI: each case makes one malformed file (case file, .npy,
results JSON), names one broken plugin, or passes one bad option, runs the CLI and asserts
exit status 2, no crash, and exactly one line on stderr that names the file (or option) and
what is wrong. One ctest per case (tools/tests/CMakeLists.txt); stdlib only.

usage: bad_inputs.py --accucheck BIN --test-plugins DIR --case NAME
       bad_inputs.py --list
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile


def npy(path, descr, shape, data=b"", fortran=False, magic=b"\x93NUMPY", version=(1, 0), header=None):
    """Writes a .npy file byte by byte (no numpy needed), optionally malformed."""
    if header is None:
        shape_text = "(%d,)" % shape[0] if len(shape) == 1 else "(" + ", ".join(str(d) for d in shape) + ")"
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, "True" if fortran else "False", shape_text)
    prefix = 10 if version[0] == 1 else 12
    while (prefix + len(header) + 1) % 64:
        header += " "
    header += "\n"
    length = struct.pack("<H", len(header)) if version[0] == 1 else struct.pack("<I", len(header))
    with open(path, "wb") as f:
        f.write(magic + bytes(version) + length + header.encode("latin1") + data)
    return path


def floats(values, code="<f"):
    return struct.pack(code[0] + code[1] * len(values), *values)


GOOD_CASE = """{
  "accucheck_case": 1,
  "workload": "dense",
  "format": "f32",
  "elements": 1,
  "steps": 2,
  "initial": ["0x1p+0"],
  "addends": [["0x1p-1"], ["0x1p-2"]]
}
"""


GOOD_SPARSE_CASE = """{
  "accucheck_case": 1,
  "workload": "sparse",
  "format": "f32",
  "rows": 4,
  "dim": 1,
  "steps": 1,
  "initial": "zeros",
  "pairs": [[{"row": 1, "values": ["0x1p-1"]}]]
}
"""


def cases(tmp, plugins):
    """name -> (argv after the binary, extra environment, substrings the error line must hold)."""
    p = lambda variant: os.path.join(plugins, "libtest_plugin_%s.so" % variant)
    t = lambda name: os.path.join(tmp, name)

    def write(name, text):
        with open(t(name), "w") as f:
            f.write(text)
        return t(name)

    def raw(name, data):
        with open(t(name), "wb") as f:
            f.write(data)
        return t(name)

    def dense_trace(name, **kw):
        return npy(t(name), "<f4", (4, 3), floats([0.5] * 12), **kw)

    c = {}
    # ---- case files (replay) ------------------------------------------------------------
    c["case_missing_file"] = lambda: (["replay", t("nothing.json")], {}, [t("nothing.json"), "cannot open"])
    c["case_not_json"] = lambda: (["replay", write("c.json", "{\"accucheck_case\": 1,")], {}, [t("c.json"), "not valid JSON"])
    c["case_missing_field"] = lambda: (["replay", write("c.json", GOOD_CASE.replace('"format": "f32",\n', ""))], {},
                                       [t("c.json"), "format", "missing"])
    c["case_bad_version"] = lambda: (["replay", write("c.json", GOOD_CASE.replace('"accucheck_case": 1', '"accucheck_case": 9'))], {},
                                     [t("c.json"), "accucheck_case", "version 9"])
    c["case_not_representable"] = lambda: (["replay", write("c.json", GOOD_CASE.replace('"0x1p-2"', '"0.1"'))], {},
                                           [t("c.json"), "addends", "0.1"])
    c["case_wrong_count"] = lambda: (["replay", write("c.json", GOOD_CASE.replace('"steps": 2', '"steps": 3'))], {},
                                     [t("c.json"), "addends"])
    c["case_duplicate_key"] = lambda: (["replay", write("c.json", GOOD_CASE.replace('"steps": 2', '"steps": 2, "steps": 3'))], {},
                                       [t("c.json"), 'duplicate key "steps" in the top-level object'])
    c["case_duplicate_pair_key"] = lambda: (["replay", write("c.json", GOOD_SPARSE_CASE.replace('"row": 1,', '"row": 1, "row": 5,'))], {},
                                            [t("c.json"), 'duplicate key "row" in pairs[0][0]'])
    c["case_bad_bound"] = lambda: (["replay", write("c.json", GOOD_CASE.replace('"steps": 2', '"bound": "recursive(f33)", "steps": 2'))], {},
                                   [t("c.json"), "bound:", "f33"])
    c["case_bad_verdict"] = lambda: (["replay", write("c.json", GOOD_CASE.replace('"steps": 2', '"verdict": "meh", "steps": 2'))], {},
                                     [t("c.json"), "verdict: 'meh' is not a verdict"])
    c["case_seed_too_large"] = lambda: (["replay", write("c.json", GOOD_CASE.replace('"steps": 2', '"seed": 18446744073709551616, "steps": 2'))], {},
                                        [t("c.json"), "seed: '18446744073709551616' is too large", "18446744073709551615"])
    c["case_absurd_size"] = lambda: (["replay", write("c.json", GOOD_CASE.replace('"elements": 1', '"elements": 99999999999999'))], {},
                                     [t("c.json"), "elements", "too large"])
    c["case_is_a_directory"] = lambda: (["replay", tmp], {}, [tmp, "is a directory, not a file"])
    # ---- .npy traces ----------------------------------------------------------------------
    c["npy_missing_file"] = lambda: (["trace", t("none.npy")], {}, [t("none.npy"), "cannot open"])
    c["npy_wrong_magic"] = lambda: (["trace", dense_trace("g.npy", magic=b"\x93NUMPX")], {}, [t("g.npy"), "magic string"])
    c["npy_text_file"] = lambda: (["trace", write("g.npy", "step,value\n0,1.5\n1,2.5\n")], {}, [t("g.npy"), "not a .npy file"])
    c["npy_version"] = lambda: (["trace", dense_trace("g.npy", version=(7, 0))], {}, [t("g.npy"), "format version 7.0"])
    c["npy_dtype_complex"] = lambda: (["trace", npy(t("g.npy"), "<c8", (2, 2), b"\0" * 32)], {}, [t("g.npy"), "dtype '<c8' is not supported"])
    c["npy_dtype_int"] = lambda: (["trace", npy(t("g.npy"), "<i4", (2, 2), b"\0" * 16)], {}, [t("g.npy"), "'<i4' is an integer type"])
    c["npy_u16_without_bf16"] = lambda: (["trace", npy(t("g.npy"), "<u2", (2, 2), b"\0" * 8)], {}, [t("g.npy"), "--bf16"])
    c["npy_big_endian"] = lambda: (["trace", npy(t("g.npy"), ">f4", (2, 2), b"\0" * 16)], {}, [t("g.npy"), "big-endian"])
    c["npy_fortran_order"] = lambda: (["trace", dense_trace("g.npy", fortran=True)], {}, [t("g.npy"), "fortran_order is True"])
    c["npy_truncated"] = lambda: (["trace", npy(t("g.npy"), "<f4", (4, 3), floats([1.0] * 11))], {},
                                  [t("g.npy"), "truncated", "needs 48 bytes, the file has 44"])
    c["npy_trailing_bytes"] = lambda: (["trace", npy(t("g.npy"), "<f4", (4, 3), floats([1.0] * 13))], {},
                                       [t("g.npy"), "4 bytes after the end of the array"])
    c["npy_absurd_shape"] = lambda: (["trace", npy(t("g.npy"), "<f8", (1 << 32, 1 << 10), b"\0" * 8)], {},
                                     [t("g.npy"), "more than the limit"])
    c["npy_overflowing_shape"] = lambda: (["trace", npy(t("g.npy"), "<f8", (1 << 62, 1 << 62, 4), b"\0" * 8)], {},
                                          [t("g.npy"), "absurdly large"])
    c["npy_header_garbage"] = lambda: (["trace", npy(t("g.npy"), "", (), b"", header="{'descr': '<f4' 'shape': (1,)}")], {},
                                       [t("g.npy"), "header:"])
    c["npy_header_length"] = lambda: (["trace", raw("g.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", 0x7FFFFFFF) + b"{}\n")], {},
                                      [t("g.npy"), "header: length 2147483647 is absurd"])
    c["npy_scalar"] = lambda: (["trace", npy(t("g.npy"), "<f4", (), floats([1.0]))], {}, [t("g.npy"), "shape () is a scalar"])
    c["npy_no_steps"] = lambda: (["trace", npy(t("g.npy"), "<f4", (0, 5), b"")], {}, [t("g.npy"), "no steps"])
    # --as rounds (RNE); a finite value beyond the target format's range would become inf.
    c["npy_as_beyond_range"] = lambda: (["trace", npy(t("g.npy"), "<f4", (2, 3), floats([0.5, 1.0, 70000.0, 2.0, -1e5, 3.0])), "--as", "f16"], {},
                                        [t("g.npy"), "2 of 6 values do not fit in f16", "65504", "the first is 70000 at index (0, 2)"])
    c["sparse_rows_as_beyond_range"] = lambda: (["trace", "--as", "bf16", "--indices", npy(t("i.npy"), "<i4", (2,), struct.pack("<2i", 0, 1)),
                                                 "--rows", npy(t("r.npy"), "<f8", (2, 2), floats([1.0, 2.0, 3.0, 1e300], "<d"))], {},
                                                [t("r.npy"), "1 of 4 values do not fit in bf16", "the first is 1.0000000000000001e+300 at index (1, 1)"])
    c["sparse_indices_float"] = lambda: (["trace", "--indices", npy(t("i.npy"), "<f4", (4,), floats([0.0] * 4)), "--rows",
                                          npy(t("r.npy"), "<f4", (4, 2), floats([1.0] * 8))], {},
                                         [t("i.npy"), "indices must be int32 or int64"])
    c["sparse_negative_index"] = lambda: (["trace", "--indices", npy(t("i.npy"), "<i8", (4,), struct.pack("<4q", 0, 3, -1, 2)), "--rows",
                                           npy(t("r.npy"), "<f4", (4, 2), floats([1.0] * 8))], {},
                                          [t("i.npy"), "index -1 at position 2 is negative"])
    c["sparse_index_outside_vocab"] = lambda: (["trace", "--vocab", "3", "--indices", npy(t("i.npy"), "<i4", (2, 2), struct.pack("<4i", 0, 1, 2, 3)),
                                                "--rows", npy(t("r.npy"), "<f4", (2, 2, 2), floats([1.0] * 8))], {},
                                               [t("i.npy"), "index 3 is outside the table of --vocab 3 rows"])
    c["sparse_shape_mismatch"] = lambda: (["trace", "--indices", npy(t("i.npy"), "<i4", (2, 3), struct.pack("<6i", *range(6))), "--rows",
                                           npy(t("r.npy"), "<f4", (5, 2), floats([1.0] * 10))], {},
                                          [t("r.npy"), "shape (5, 2) does not match the indices (2, 3)", "expected (2, 3, dim) or (6, dim)"])
    c["sparse_rows_missing"] = lambda: (["trace", "--indices", npy(t("i.npy"), "<i4", (2,), struct.pack("<2i", 0, 1))], {},
                                        ["--indices", "--rows"])
    # ---- plugins --------------------------------------------------------------------------
    plugin_cases = {
        "missing_symbol": "does not export accucheck_plugin_backends",
        "wrong_abi": "returned NULL for ABI versions 4 to 1",
        "null_functions": "accumulate_dense, accumulate_sparse and accumulate_product are all NULL",
        "duplicate_name": "backend 'test.same': name is used by two backends of this plugin",
        "invalid_name": "backend #0: name 'bad name!' is invalid",
        "null_name": "backend #0: name is NULL",
        "builtin_name": "backend 'naive_f32': name is already registered (a built-in backend)",
        "unknown_bound": "stated_bound 'recursive(f33)' is not a bound expression",
        "null_bound": "stated_bound is NULL",
        "storage_range": "storage is 7, not a format",
        "accumulation_range": "accumulation is -1, not a format",
        "determinism_range": "determinism is 5, not a class",
        "zero_count": "returned no backends",
        "load_crash": "crashed with SIGSEGV (Segmentation fault) while loading",
    }
    commands = [["check", "--cases", "1"], ["list"], ["replay", write("ok.json", GOOD_CASE)], ["trace", dense_trace("ok.npy")]]
    for i, (variant, message) in enumerate(sorted(plugin_cases.items())):
        command = commands[i % len(commands)]
        c["plugin_" + variant] = (lambda v=variant, m=message, cmd=command: (cmd + ["--plugin", p(v)], {}, [p(v), m]))
    c["plugin_missing_file"] = lambda: (["check", "--plugin", t("libnothing.so")], {}, [t("libnothing.so"), "no such file"])
    c["plugin_not_a_library"] = lambda: (["list", "--plugin", write("libtext.so", "not ELF\n")], {}, [t("libtext.so"), "cannot load"])
    c["plugin_env_wrong_abi"] = lambda: (["check", "--cases", "1"], {"ACCUCHECK_PLUGINS": p("wrong_abi")},
                                         ["ACCUCHECK_PLUGINS", p("wrong_abi"), "returned NULL for ABI versions 4 to 1"])
    c["plugin_env_isolation"] = lambda: (["list", "--plugin", p("good")], {"ACCUCHECK_PLUGIN_ISOLATION": "sometimes"},
                                         ["ACCUCHECK_PLUGIN_ISOLATION", "sometimes"])
    c["plugin_env_timeout"] = lambda: (["list", "--plugin", p("good")], {"ACCUCHECK_PLUGIN_TIMEOUT": "soon"},
                                       ["ACCUCHECK_PLUGIN_TIMEOUT", "soon"])
    # ---- options ----------------------------------------------------------------------------
    c["option_unknown"] = lambda: (["check", "--cases", "1", "--colour"], {}, ["unknown option --colour"])
    c["option_cases_not_a_number"] = lambda: (["check", "--cases", "ten"], {}, ["--cases", "'ten'"])
    c["option_seed_too_large"] = lambda: (["check", "--cases", "1", "--seed", "18446744073709551616"], {},
                                          ["--seed 18446744073709551616 is too large", "18446744073709551615"])
    c["option_compare_seed_too_large"] = lambda: (["compare", "--seed", "99999999999999999999"], {},
                                                  ["--seed 99999999999999999999 is too large", "18446744073709551615"])
    # A single-valued option given twice is refused (never "the last one wins"), in every command.
    twice = {
        "check_seed": ["check", "--cases", "1", "--seed", "1", "--seed=2"],
        "check_json": ["check", "--cases", "1", "--json", t("a.json"), "--json", t("b.json")],
        "compare_cases": ["compare", "--cases", "1", "--cases", "2"],
        "exact_format": ["exact", "--format", "f32", "--format", "f64", write("n.txt", "1\n")],
        "trace_as": ["trace", dense_trace("g.npy"), "--as", "f16", "--as", "bf16"],
        "report_html": ["report", "--html", t("a.html"), "--html", t("b.html"), write("r.json", "{}")],
        "scenario_dump": ["scenario", "bf16-stagnation", "--dump", t("a"), "--dump", t("b")],
    }
    for name, argv in twice.items():
        option = next(a.split("=")[0] for a in argv if a.startswith("--") and sum(b.split("=")[0] == a.split("=")[0] for b in argv) > 1)
        c["option_twice_" + name] = (lambda argv=argv, option=option: (argv, {}, [option + " given twice"]))
    c["option_cases_zero"] = lambda: (["check", "--cases", "0"], {}, ["--cases must be at least 1, got 0"])
    for limit in ("max-steps", "max-long-steps", "max-elements"):
        c["option_%s_zero" % limit.replace("-", "_")] = (lambda limit=limit: (["check", "--cases", "1", "--" + limit, "0"], {},
                                                                               ["--%s must be at least 1, got 0" % limit]))
    c["option_max_steps_too_large"] = lambda: (["check", "--cases", "1", "--max-steps", "1000000000000"], {},
                                               ["--max-steps 1000000000000", "exceed the 2^28 = 268435456 values a case may hold"])
    c["option_max_elements_too_large"] = lambda: (["check", "--cases", "1", "--max-elements", "100000", "--max-long-steps", "5000"], {},
                                                  ["--max-elements 100000 x (--max-long-steps 5000 + 1)", "2^28"])
    c["option_minutes_too_large"] = lambda: (["check", "--minutes", "1e9"], {}, ["--minutes", "above 0 and at most 100000", "'1e9'"])
    c["option_trace_bf16_on_floats"] = lambda: (["trace", dense_trace("g.npy"), "--bf16"], {}, [t("g.npy"), "'<f4'", "--bf16"])
    c["option_trace_vocab_without_indices"] = lambda: (["trace", dense_trace("g.npy"), "--vocab", "5"], {}, ["--vocab", "needs --indices"])
    c["option_trace_chunk_without_dense"] = lambda: (["trace", "--chunk", "5", "--indices", npy(t("i.npy"), "<i4", (2,), struct.pack("<2i", 0, 1)),
                                                      "--rows", npy(t("r.npy"), "<f4", (2, 2), floats([1.0] * 4))], {},
                                                     ["--chunk", "none is given"])
    c["option_minutes_and_cases"] = lambda: (["check", "--cases", "1", "--minutes", "1"], {}, ["--minutes", "--cases"])
    c["option_minutes_negative"] = lambda: (["check", "--minutes", "-1"], {}, ["--minutes", "'-1'"])
    c["option_format_unknown"] = lambda: (["check", "--cases", "1", "--format", "f8"], {}, ["unknown format 'f8'"])
    c["option_family_unknown"] = lambda: (["check", "--cases", "1", "--family", "nope"], {}, ["unknown family 'nope'"])
    c["option_backend_no_match"] = lambda: (["check", "--cases", "1", "--backend", "zzz*"], {}, ["--backend 'zzz*' matches no backend"])
    c["option_value_missing"] = lambda: (["check", "--cases"], {}, ["--cases needs a value"])
    c["option_json_directory_missing"] = lambda: (["check", "--cases", "1", "--json", t("no/such/dir/r.json")], {},
                                                  ["--json", t("no/such/dir"), "does not exist"])
    # Output directories are checked before the run: a directory, or missing in one that exists.
    c["output_findings_is_a_file"] = lambda: (["check", "--cases", "1", "--backend", "naive_f32", "--findings", write("f.txt", "")], {},
                                              ["--findings", t("f.txt"), "exists and is not a directory"])
    c["output_trace_findings_is_a_file"] = lambda: (["trace", dense_trace("g.npy"), "--findings", write("f.txt", "")], {},
                                                    ["--findings", t("f.txt"), "exists and is not a directory"])
    c["output_findings_parent_missing"] = lambda: (["check", "--cases", "1", "--findings", t("no/such/f")], {},
                                                   ["--findings", t("no/such"), "does not exist"])
    c["output_dump_parent_missing"] = lambda: (["scenario", "bf16-stagnation", "--dump", t("no/such/dir")], {},
                                               ["--dump", t("no/such"), "does not exist"])
    c["option_trace_as_unknown"] = lambda: (["trace", dense_trace("g.npy"), "--as", "f128"], {}, ["--as", "'f128'"])
    c["option_trace_nothing"] = lambda: (["trace"], {}, ["trace needs FILE.npy"])
    c["option_trace_chunk_zero"] = lambda: (["trace", dense_trace("g.npy"), "--chunk", "0"], {}, ["--chunk", "got 0"])
    c["option_trace_no_backend"] = lambda: (["trace", dense_trace("g.npy"), "--backend", "naive_f64"], {},
                                            ["no selected backend runs dense f32"])
    # replay's one rule: a backend of another storage format than the case's is refused, named by
    # the case or by --backend.
    c["replay_case_backend_other_format"] = lambda: (["replay", write("c.json", GOOD_CASE.replace('"steps": 2', '"backend": "naive_f64", "steps": 2'))], {},
                                                     [t("c.json"), "backend: 'naive_f64' stores f64, but the case's format is f32"])
    c["replay_option_backend_other_format"] = lambda: (["replay", write("c.json", GOOD_CASE), "--backend", "naive_f64"], {},
                                                       [t("c.json"), "the case's format is f32", "naive_f64 (f64)"])
    c["option_replay_two_files"] = lambda: (["replay", "a.json", "b.json"], {}, ["replay takes one CASE file"])
    c["option_unknown_command"] = lambda: (["frobnicate"], {}, ["unknown command 'frobnicate'"])
    # ---- number files (exact) ----------------------------------------------------------------
    # What is refused is echoed visibly: a NUL escaped (it cut the message short), a byte order
    # mark inside the file named, a long token cut with its length.
    c["exact_nul_byte"] = lambda: (["exact", "--format", "f32", raw("n.txt", b"1 2\x003 4\n")], {},
                                   [t("n.txt") + ":1: '2\\x003' is not a number", "unexpected character '\\x00'"])
    c["exact_bom_inside"] = lambda: (["exact", "--format", "f32", raw("n.txt", b"1\n\xef\xbb\xbf2\n")], {},
                                     [t("n.txt") + ":2:", "byte order mark"])
    c["exact_long_token"] = lambda: (["exact", "--format", "f64", write("n.txt", "1" * 1000000 + "\n")], {},
                                     [t("n.txt") + ":1: '" + "1" * 40 + "...' (1000000 characters) is not a number",
                                      "too many significant digits"])
    c["case_nul_in_value"] = lambda: (["replay", write("c.json", GOOD_CASE.replace('"0x1p-2"', '"0.2\\u00005"'))], {},
                                      [t("c.json"), "addends[1][0]: '0.2\\x005' is not a number", "unexpected character '\\x00'"])
    # ---- report inputs ------------------------------------------------------------------------
    c["report_no_html"] = lambda: (["report", write("r.json", "{}")], {}, ["--html"])
    c["report_no_inputs"] = lambda: (["report", "--html", t("r.html")], {}, ["at least one results file"])
    c["report_input_is_a_directory"] = lambda: (["report", "--html", t("r.html"), tmp], {}, [tmp, "is a directory, not a file"])
    c["exact_is_a_directory"] = lambda: (["exact", "--format", "f32", tmp], {}, [tmp, "is a directory, not a file"])
    c["report_not_json"] = lambda: (["report", "--html", t("r.html"), write("r.json", "[1, 2")], {}, [t("r.json"), "not valid JSON"])
    c["report_not_results"] = lambda: (["report", "--html", t("r.html"), write("r.json", '{"tool": "other", "backends": []}')], {},
                                       [t("r.json"), "tool", "'other' is not an accucheck results file"])
    c["report_field_type"] = lambda: (["report", "--html", t("r.html"), write("r.json",
                                      '{"tool": "accucheck check", "backends": [{"name": "x", "storage": "f32", "bound": "recursive(f32)",'
                                      ' "cases": 1, "max_ratio": 0.5, "samples": [{"family": "f", "n": "many"}]}]}')], {},
                                      [t("r.json"), "backends[0].samples[0].n", "must be a number"])
    c["report_max_ulps_not_integer"] = lambda: (["report", "--html", t("r.html"), write("r.json",
                                               '{"tool": "accucheck check", "backends": [{"name": "x", "storage": "f64", "bound": "recursive(f64)",'
                                               ' "cases": 1, "max_ratio": 0.5, "max_ulps": 9223372036854775808}]}')], {},
                                               [t("r.json"), "backends[0].max_ulps", "must be an integer of 64 bits", "9223372036854775808"])
    c["report_field_missing"] = lambda: (["report", "--html", t("r.html"), write("r.json",
                                        '{"tool": "accucheck check", "backends": [{"storage": "f32"}]}')], {},
                                        [t("r.json"), "backends[0].name", "missing"])
    return c


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accucheck")
    parser.add_argument("--test-plugins")
    parser.add_argument("--case")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if args.list:
        print("\n".join(sorted(cases("/tmp", "/plugins"))))
        return 0
    with tempfile.TemporaryDirectory(prefix="accucheck_bad_input_") as tmp:
        all_cases = cases(tmp, os.path.abspath(args.test_plugins))
        if args.case not in all_cases:
            print("unknown case %s" % args.case, file=sys.stderr)
            return 1
        argv, env_extra, expected = all_cases[args.case]()
        env = dict(os.environ)
        for k in ("ACCUCHECK_PLUGINS", "ACCUCHECK_PLUGIN_ISOLATION", "ACCUCHECK_PLUGIN_TIMEOUT"):
            env.pop(k, None)
        env.update(env_extra)
        proc = subprocess.run([args.accucheck] + argv, cwd=tmp, env=env, capture_output=True, text=True, timeout=120)
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        print("$ accucheck %s\nexit %d\nstderr:\n%s" % (" ".join(argv), proc.returncode, proc.stderr))
        problems = []
        if proc.returncode < 0:
            problems.append("crashed with signal %d" % -proc.returncode)
        elif proc.returncode != 2:
            problems.append("exit status %d, expected 2" % proc.returncode)
        # The usage text after an unknown command is not an error message of its own.
        if args.case != "option_unknown_command" and len(lines) != 1:
            problems.append("expected exactly one line on stderr, got %d" % len(lines))
        message = lines[0] if lines else ""
        for text in expected:
            if text not in message:
                problems.append("the error does not say %r" % text)
        if problems:
            print("FAIL: " + "; ".join(problems))
            return 1
        print("ok")
        return 0


if __name__ == "__main__":
    sys.exit(main())
