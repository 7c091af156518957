"""Judging accumulations recorded in a program: the framework-neutral part of accucheck.torch.watch,
and check_accumulation for gradients summed elsewhere (JAX's explicit accumulation, a framework
without gradient hooks, your own loop).

    report = accucheck.check_accumulation({"w": [g1, g2, g3]}, {"w": accumulated})
    print(report); assert report.ok, report

Each window (one accumulation of one parameter: the buffer's initial value, the terms added in
order, the value the accumulator produced) is judged by core's exact oracle and judge through the
extension (judge_accumulation), at a seeded sample of elements. docs/python.md, "In a training loop".
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import subprocess
import tempfile
import zlib
from typing import Optional

import numpy as np

from . import _core

_MAX_SAMPLES = 400  # judged elements kept per parameter for the report's plots (core's kMaxSamples)
_NUMPY_FORMATS = {"float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16"}  # ml_dtypes' bfloat16 too


@dataclasses.dataclass
class Row:
    """One parameter's result over every window judged so far."""
    name: str
    format: str
    bound: str
    prefix: str = "torch.watch"  # the results file's backend is <prefix>:<name>:<format>
    elements: int = 0           # elements watched per window
    windows: int = 0            # accumulations judged
    max_ratio: float = 0.0      # max error / bound
    max_ulps: int = 0           # max |steps of the format| from the correctly rounded sum
    bits_lost: float = 0.0      # max log2(|error| / |S| / u), at least 0: the relative error in bits of the
    #                             format's precision (u its unit roundoff), as the HTML report plots it
    kappa: float = 1.0          # the condition number A / |S| of the worst element
    verdict: str = "ok"         # the worst verdict
    severity: int = dataclasses.field(default=0, repr=False)  # its rank (core's judge.h: severity)
    worst: dict = dataclasses.field(default_factory=dict)  # window, element, computed, exact, ...
    case_json: str = dataclasses.field(default="", repr=False)  # the worst element, replayable
    # For the results file (io/results.h's schema): terms judged, elements per verdict, windows
    # per violated class, case files written, and up to 400 judged elements (smallest key first).
    addends: int = dataclasses.field(default=0, repr=False)
    verdicts: dict = dataclasses.field(default_factory=dict, repr=False)
    violations: dict = dataclasses.field(default_factory=dict, repr=False)
    findings: list = dataclasses.field(default_factory=list, repr=False)
    sampled_windows: list = dataclasses.field(default_factory=list, repr=False)
    # 16-bit .grad: elements whose error exceeds what fp32 accumulation of the same terms (rounded
    # once to the format) would have had; and the terms of the window to write as a trace: the
    # worst violating one, else the first with such an element (None: nothing to write).
    worse_than_f32: int = 0
    # Every window judged, in order: {window, terms, verdict, max_ratio, max_ulps, bits_lost, worse_than_f32}.
    per_window: list = dataclasses.field(default_factory=list, repr=False)
    trace: Optional[np.ndarray] = dataclasses.field(default=None, repr=False)  # float64, n x elements

    @property
    def samples(self) -> list:
        """The judged elements kept for the report's plots (the results file's `samples`)."""
        out = []
        for key, label, n, elements_json, abs_sums in self.sampled_windows:
            for j, e in enumerate(json.loads(elements_json)):
                out.append({"family": label, "n": n, "error": e["error"], "bound": e["bound"], "ratio": e["ratio"],
                            "kappa": e["kappa"], "exact": e["exact"], "abs_sum": abs_sums[j], "verdict": e["verdict"],
                            "key": zlib.crc32(f"{key}/{j}".encode())})
        return out

    @property
    def violated(self) -> bool:
        return self.verdict not in ("ok", "bound-vacuous", "precondition-not-met")


def _json_number(x):
    """A number as core's JSON writer writes it: inf and nan as strings."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


class Report:
    """What report() returns: prints as the table; `.rows` per parameter; `.ok` when no window of
    any parameter violated its bound (a test asserts `report.ok, report`). to_json() is a results
    file (the schema of `accucheck check --json`, docs/report.md): `accucheck report --json FILE
    --html report.html` draws it, merged with others by backend name."""

    def __init__(self, rows: list, seconds: float = 0.0, tool: str = "accucheck.torch.watch"):
        self.rows = rows
        self.seconds = seconds
        self.tool = tool

    def to_json(self) -> str:
        backends = []
        for r in self.rows:
            backends.append({
                "name": f"{r.prefix}:{r.name}:{r.format}", "device": "cpu", "storage": r.format,
                "accumulation": r.format, "bound": r.bound, "determinism": "bitwise-deterministic",
                "origin": self.tool, "cases": r.windows, "addends": r.addends,
                "max_ratio": _json_number(r.max_ratio), "max_ulps": r.max_ulps, "verdicts": r.verdicts,
                "violations": r.violations, "findings": r.findings,
                "samples": [{k: _json_number(v) for k, v in s.items()} for s in sorted(r.samples, key=lambda s: s["key"])],
            })
        text = json.dumps({"tool": self.tool, "format_version": 1, "seconds": self.seconds,
                           "notes": [], "backends": backends})
        return _core().canonical_results_json(text)

    def write_json(self, path: str) -> None:
        with open(path, "w") as f:
            f.write(self.to_json())

    def write_html(self, path: str, *more_results: str) -> None:
        """The HTML report of these results (and of `more_results`, other results files, merged),
        drawn by the CLI's `accucheck report`: the one built beside this package, $ACCUCHECK_CLI,
        or `accucheck` on PATH (`pip install .` builds no CLI)."""
        cli = os.environ.get("ACCUCHECK_CLI") or _core().cli_binary() or shutil.which("accucheck")
        if not cli:
            raise RuntimeError("Report.write_html needs the accucheck CLI (a build tree, or ACCUCHECK_CLI=...); "
                               "write_json(FILE) and run `accucheck report --json FILE --html " + path + "`")
        with tempfile.TemporaryDirectory() as scratch:
            mine = os.path.join(scratch, "results.json")
            self.write_json(mine)
            r = subprocess.run([cli, "report", "--html", path, "--json", mine, *more_results], capture_output=True,
                               text=True)
        if r.returncode != 0:
            raise RuntimeError(f"accucheck report failed ({r.returncode}): {r.stderr.strip()}")

    @property
    def ok(self) -> bool:
        return not any(r.violated for r in self.rows)

    def __str__(self) -> str:
        width = max([len("parameter")] + [len(r.name) for r in self.rows])
        lines = [f"{'parameter':<{width}}  format  {'bound':<22} elements  windows  max err/bound  max ulps  "
                 f"bits lost     kappa  > f32  verdict"]
        for r in self.rows:
            worse = str(r.worse_than_f32) if r.format in ("f16", "bf16") else "-"
            lines.append(f"{r.name:<{width}}  {r.format:<6}  {r.bound:<22} {r.elements:>8}  {r.windows:>7}  "
                         f"{r.max_ratio:>13.4g}  {r.max_ulps:>8}  {r.bits_lost:>9.2f}  {r.kappa:>8.3g}  {worse:>5}  "
                         f"{r.verdict}")
        return "\n".join(lines)

    __repr__ = __str__




def sample_index(n: int, sample: int, seed: int, name: str) -> np.ndarray:
    """The elements watched of a tensor of n: all of them up to `sample`, else `sample` of them drawn
    with a seed of (seed, name), so that a rerun watches the same ones; sorted."""
    if n <= sample:
        return np.arange(n)
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    return np.sort(rng.choice(n, size=sample, replace=False))


def judge_window(row: Row, index: np.ndarray, label: str, initial, terms, computed, first_is_buffer: bool) -> None:
    """Judges one window of row's parameter at the watched elements `index` and adds it to row.
    initial, terms[t], computed: float64 arrays over those elements; first_is_buffer: the buffer
    started as the first term (a cleared .grad), `initial` is then terms' first."""
    window = np.stack(([] if first_is_buffer else [initial]) + list(terms))  # every term in order
    addends = window[1:].reshape(-1).tolist()
    # The report's samples: whole windows, those of smallest hash of (parameter, window) that hold
    # at most 400 elements together (one at least); only those are asked for every element.
    key = zlib.crc32(f"{row.name}/{row.windows + 1}".encode())
    kept = row.sampled_windows
    sampled = len(index) * (len(kept) + 1) <= _MAX_SAMPLES or not kept or key < kept[-1][0]
    result = _core().judge_accumulation(f"{row.prefix}:{row.name}", row.format, row.bound, window[0].tolist(), addends,
                                        np.asarray(computed, dtype=np.float64).tolist(), sampled)
    row.elements = len(index)
    row.windows += 1
    n = len(window)
    row.worse_than_f32 += len(result["worse_than_f32"])
    if result["worse_than_f32"] and row.trace is None:
        row.trace = window
    if result["worst_json"] and (result["severity"], result["max_ratio"]) > (row.severity, row.max_ratio):
        if result["violated"]:
            row.trace = window
        worst = json.loads(result["worst_json"])
        row.verdict, row.severity, row.kappa = result["verdict"], result["severity"], worst["kappa"]
        row.worst = {**worst, "window": row.windows, "element": int(index[result["worst_element"]]), "terms": n}
        row.case_json = result["case_json"]
    row.addends += row.elements * n
    if result["violated"]:
        row.violations[result["verdict"]] = row.violations.get(result["verdict"], 0) + 1
    for verdict, count in result["verdict_counts"].items():
        row.verdicts[verdict] = row.verdicts.get(verdict, 0) + count
    row.max_ratio = max(row.max_ratio, result["max_ratio"])
    row.max_ulps = max(row.max_ulps, result["max_ulps"])
    row.bits_lost = max(row.bits_lost, result["bits_lost"])
    row.per_window.append({"window": row.windows, "terms": n, "verdict": result["verdict"],
                           "max_ratio": result["max_ratio"], "max_ulps": result["max_ulps"],
                           "bits_lost": result["bits_lost"], "worse_than_f32": len(result["worse_than_f32"])})
    if sampled:  # read from their JSON only by to_json
        kept.append((key, label, n, result["elements_json"], result["abs_sums"]))
        kept.sort(key=lambda w: w[0])
        while len(kept) > 1 and row.elements * len(kept) > _MAX_SAMPLES:
            kept.pop()


def write_findings(rows: list, findings: str) -> None:
    """For each row that violated its bound or has elements worse than fp32 accumulation: its worst
    element's case file <findings>/<prefix>-<name>.json (no backend named: `accucheck replay` runs
    every one of its format) and the terms of its trace window as .npy (watched elements as
    columns, in the format's dtype; bfloat16 as its bit patterns: `accucheck trace FILE --bf16`)."""
    os.makedirs(findings, exist_ok=True)
    for r in rows:
        if not ((r.violated or r.worse_than_f32) and r.case_json):
            continue
        safe = os.path.join(findings, r.prefix.replace(".", "-") + "-" +
                            "".join(c if c.isalnum() or c in "._-" else "_" for c in r.name))
        with open(safe + ".json", "w") as f:
            f.write(r.case_json)
        if r.trace is not None:
            values = r.trace
            if r.format == "bf16":  # bf16 values are f32 values whose low 16 bits are zero
                array = (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            else:
                array = values.astype({"f64": np.float64, "f32": np.float32, "f16": np.float16}[r.format])
            np.save(safe + ".npy", array)
        for path in (safe + ".json", safe + ".npy"):
            if os.path.exists(path) and path not in r.findings:
                r.findings.append(path)


def _format_of(array: np.ndarray) -> str:
    fmt = _NUMPY_FORMATS.get(array.dtype.name)
    if fmt is None:
        raise ValueError(f"accucheck.check_accumulation: dtype {array.dtype} is not f64, f32, f16 or bfloat16")
    return fmt


def check_accumulation(terms: dict, accumulated: dict, *, initial: Optional[dict] = None, bound=None,
                       sample: int = 64, seed: int = 0, label: str = "accumulation",
                       findings: Optional[str] = None) -> Report:
    """Judges accumulations made elsewhere: per parameter name, terms[name] the gradients added
    in order (arrays of one shape and dtype: float64, float32, float16 or ml_dtypes' bfloat16) and
    accumulated[name] what the accumulation gave (its dtype is the format judged). initial[name],
    when given, is the buffer they were added to (else the first term was the buffer). bound,
    sample, seed, label, findings: as accucheck.torch.watch's. One window per name."""
    rows = []
    for name, result in accumulated.items():
        result = np.asarray(result)
        fmt = _format_of(result)
        steps = [np.asarray(t) for t in terms[name]]
        if not steps:
            raise ValueError(f"accucheck.check_accumulation: no terms for {name!r}")
        if any(t.shape != result.shape for t in steps):
            raise ValueError(f"accucheck.check_accumulation: the terms of {name!r} are not all of shape {result.shape}")
        index = sample_index(result.size, sample, seed, name)
        doubles = lambda a: np.asarray(a).reshape(-1)[index].astype(np.float64)  # noqa: E731 (exact)
        b = bound.get(name) if isinstance(bound, dict) else bound
        row = Row(name, fmt, (b or "recursive({F})").replace("{F}", fmt), prefix="accumulation")
        first = initial is None or name not in initial
        judge_window(row, index, label, None if first else doubles(initial[name]), [doubles(t) for t in steps],
                     doubles(result), first_is_buffer=first)
        rows.append(row)
    if findings:
        write_findings(rows, findings)
    return Report(rows, tool="accucheck.check_accumulation")


# An accumulation saved where it ran (save_accumulation) and judged elsewhere (load_accumulation):
# an .npz with a JSON manifest (names, steps, bf16 leaves) and one array per leaf and term; bf16
# as its bit patterns (uint16), which every numpy reads.
def _storable(a: np.ndarray):
    a = np.ascontiguousarray(a)
    return (a.view(np.uint16), True) if a.dtype.name == "bfloat16" else (a, False)


def save_accumulation(path: str, terms: dict, accumulated: dict, initial: Optional[dict] = None) -> None:
    """Writes what check_accumulation takes to `path` (.npz); load_accumulation reads it back."""
    arrays, bf16, leaves = {}, [], []
    for name, result in accumulated.items():
        has_initial = bool(initial and name in initial)
        leaves.append({"name": name, "first": len(arrays), "terms": len(terms[name]), "initial": has_initial})
        for a in [result, *terms[name], *([initial[name]] if has_initial else [])]:
            key = f"array/{len(arrays)}"  # the arrays in manifest order: accumulated, terms, initial
            arrays[key], is_bf16 = _storable(np.asarray(a))
            if is_bf16:
                bf16.append(key)
    manifest = {"accucheck_accumulation": 1, "leaves": leaves, "bf16": bf16}
    np.savez(path, manifest=np.array(json.dumps(manifest)), **arrays)


def load_accumulation(path: str):
    """(terms, accumulated, initial) from an .npz that save_accumulation (or accucheck.jax's) wrote:
    pass them to check_accumulation. A file it did not write is a ValueError naming it."""
    try:
        data = np.load(path, allow_pickle=False)
        if not hasattr(data, "files"):
            raise ValueError("an array, not an .npz that save_accumulation wrote")
        with data:
            manifest = json.loads(str(data["manifest"]))
            if manifest.get("accucheck_accumulation") != 1:
                raise ValueError("not an accumulation saved by accucheck")
            keys = sorted((k for k in data.files if k != "manifest"), key=lambda k: int(k.rsplit("/", 1)[1]))
            arrays = []
            for k in keys:
                a = data[k]
                if k in manifest["bf16"]:
                    import ml_dtypes
                    a = a.view(ml_dtypes.bfloat16)
                arrays.append(a)
    except (OSError, KeyError, ValueError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: cannot read an accumulation from it ({e})") from None
    terms, accumulated, initial = {}, {}, {}
    for leaf in manifest["leaves"]:
        first, n = leaf["first"], leaf["terms"]
        accumulated[leaf["name"]] = arrays[first]
        terms[leaf["name"]] = arrays[first + 1:first + 1 + n]
        if leaf["initial"]:
            initial[leaf["name"]] = arrays[first + 1 + n]
    return terms, accumulated, initial or None
