"""accucheck in a PyTorch training loop: the exact error of every accumulated gradient.

    with accucheck.torch.watch(model) as watcher:
        for micro_batch in batches:          # gradient accumulation: backward() per micro-batch
            loss_fn(model(micro_batch)).backward()
        print(watcher.report())               # per parameter: error/bound, ulps, bits lost
        optimizer.step()
        optimizer.zero_grad()

For each parameter, a seeded sample of its elements (all of them for a small tensor) is watched:
a gradient hook sees each micro-batch's contribution before AccumulateGrad adds it to `.grad`,
a post-accumulate hook reads what `.grad` became. A window is one accumulation: it begins where
`.grad` is cleared (set to None, zeroed, or changed by anything but the accumulation: the buffer
then is the window's initial value) and ends at the next clear or at report(). Each window is
judged by accucheck's exact oracle and judge (the same as `accucheck check`) against the bound of
the path that accumulated it: `recursive(<dtype of .grad>)` unless `bound=` says otherwise.

The hooks read and never write: `.grad` has the same bits with and without watching. Memory: per
parameter and window, sample x (micro-batches + 1) doubles.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import subprocess
import tempfile
import time
import zlib
from typing import Optional

import numpy as np
import torch

from . import _core

_FORMATS = {torch.float64: "f64", torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}


def _gathered(t: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """A copy of the elements at `index` of t (converted to doubles once per window: _doubles)."""
    return t.detach().reshape(-1)[index]


def _doubles(t: torch.Tensor) -> list:
    """As float64 (exact: every f64/f32/f16/bf16 value is a double), for the binding."""
    return t.to(torch.float64).cpu().reshape(-1).tolist()


@dataclasses.dataclass
class Row:
    """One parameter's result over every window judged so far."""
    name: str
    format: str
    bound: str
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
    trace: Optional[torch.Tensor] = dataclasses.field(default=None, repr=False)

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


_MAX_SAMPLES = 400  # judged elements kept per parameter for the report's plots (core's kMaxSamples)


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

    def __init__(self, rows: list, seconds: float = 0.0):
        self.rows = rows
        self.seconds = seconds

    def to_json(self) -> str:
        backends = []
        for r in self.rows:
            backends.append({
                "name": f"torch.watch:{r.name}:{r.format}", "device": "cpu", "storage": r.format,
                "accumulation": r.format, "bound": r.bound, "determinism": "bitwise-deterministic",
                "origin": "accucheck.torch.watch", "cases": r.windows, "addends": r.addends,
                "max_ratio": _json_number(r.max_ratio), "max_ulps": r.max_ulps, "verdicts": r.verdicts,
                "violations": r.violations, "findings": r.findings,
                "samples": [{k: _json_number(v) for k, v in s.items()} for s in sorted(r.samples, key=lambda s: s["key"])],
            })
        text = json.dumps({"tool": "accucheck.torch.watch", "format_version": 1, "seconds": self.seconds,
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
            mine = os.path.join(scratch, "torch-watch.json")
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


class _Watched:
    """One parameter: its sample, the hooks' state and the open window."""

    def __init__(self, name: str, parameter: torch.nn.Parameter, sample: int, seed: int, bound: Optional[str],
                 label: str):
        self.name = name
        self.label = label
        self.parameter = parameter
        n = parameter.numel()
        if n <= sample:
            index = np.arange(n)
        else:  # seeded per parameter name, so that a rerun watches the same elements
            rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
            index = np.sort(rng.choice(n, size=sample, replace=False))
        self.index = torch.as_tensor(index, dtype=torch.long, device=parameter.device)
        self.bound = bound
        self.row: Optional[Row] = None
        self.initial: Optional[torch.Tensor] = None  # the window's buffer before its first term (None: no window)
        self.terms: list = []
        self.computed: Optional[torch.Tensor] = None  # .grad after the last accumulation
        self.version: Optional[int] = None          # .grad's version counter then
        self.format: Optional[str] = None           # .grad's format

    def before_accumulation(self, grad: torch.Tensor) -> None:
        current = self.parameter.grad
        if current is None:
            self.close()  # a cleared buffer: AccumulateGrad stores this term as it is
        elif self.version is None or current._version != self.version or self.computed is None:
            # zeroed, or changed by something else than the accumulation: a new window from it
            self.close()
            self.initial = _gathered(current, self.index)
        self.terms.append(_gathered(grad, self.index))
        self.format = _FORMATS.get(grad.dtype)

    def after_accumulation(self, parameter: torch.Tensor) -> None:
        self.computed = _gathered(parameter.grad, self.index)
        self.version = parameter.grad._version

    def close(self) -> None:
        """Judges the open window, if any, and starts none."""
        if self.terms and self.computed is not None and self.format is not None:
            self._judge()
        self.initial, self.terms, self.computed, self.version = None, [], None, None

    def _judge(self) -> None:
        fmt = self.format
        bound = (self.bound or "recursive({F})").replace("{F}", fmt)
        if self.initial is None:  # .grad was None: the first term became the buffer
            initial, terms = self.terms[0], self.terms[1:]
        else:
            initial, terms = self.initial, self.terms
        addends = _doubles(torch.stack(terms)) if terms else []
        result = _core().judge_accumulation(f"torch.watch:{self.name}", fmt, bound, _doubles(initial), addends,
                                            _doubles(self.computed))
        if self.row is None:
            self.row = Row(self.name, fmt, bound)
        row = self.row
        row.elements = len(self.index)
        row.windows += 1
        n = len(terms) + 1
        window_terms = ([] if self.initial is None else [self.initial]) + self.terms
        row.worse_than_f32 += len(result["worse_than_f32"])
        if result["worse_than_f32"] and row.trace is None:
            row.trace = torch.stack(window_terms)
        if result["elements_json"] != "[]" and (result["severity"], result["max_ratio"]) > (row.severity, row.max_ratio):
            if result["violated"]:
                row.trace = torch.stack(window_terms)
            worst = json.loads(result["elements_json"])[result["worst_element"]]
            row.verdict, row.severity, row.kappa = result["verdict"], result["severity"], worst["kappa"]
            row.worst = {**worst, "window": row.windows, "element": int(self.index[result["worst_element"]]), "terms": n}
            row.case_json = result["case_json"]
        row.addends += row.elements * n
        if result["violated"]:
            row.violations[result["verdict"]] = row.violations.get(result["verdict"], 0) + 1
        for verdict, count in result["verdict_counts"].items():
            row.verdicts[verdict] = row.verdicts.get(verdict, 0) + count
        row.max_ratio = max(row.max_ratio, result["max_ratio"])
        row.max_ulps = max(row.max_ulps, result["max_ulps"])
        row.bits_lost = max(row.bits_lost, result["bits_lost"])
        # The report's samples: whole windows, those of smallest hash of (parameter, window) that
        # hold at most 400 elements together (one at least); read from their JSON only by to_json.
        key = zlib.crc32(f"{self.name}/{row.windows}".encode())
        row.sampled_windows.append((key, self.label, n, result["elements_json"], result["abs_sums"]))
        row.sampled_windows.sort(key=lambda w: w[0])
        while len(row.sampled_windows) > 1 and row.elements * len(row.sampled_windows) > _MAX_SAMPLES:
            row.sampled_windows.pop()


class watch:
    """Watches every parameter of `model` that requires a gradient (or `parameters`, a dict of
    name -> tensor). sample: elements watched per parameter (all of a smaller one); seed: which;
    bound: the stated bound of the accumulation path, "{F}" standing for .grad's format (default
    "recursive({F})"), or a dict of parameter name -> bound; findings: a folder for the case file
    of each violating parameter's worst element (`accucheck replay` runs it on every backend);
    label: names this run's elements in the results file (the report's rows by family, e.g.
    "32 micro-batches")."""

    def __init__(self, model: Optional[torch.nn.Module] = None, *, parameters: Optional[dict] = None,
                 sample: int = 64, seed: int = 0, bound=None, findings: Optional[str] = None,
                 label: str = "torch.watch"):
        if (model is None) == (parameters is None):
            raise ValueError("accucheck.torch.watch: give a model or parameters=, not both")
        named = dict(model.named_parameters()) if model is not None else dict(parameters)
        if sample < 1:
            raise ValueError("accucheck.torch.watch: sample must be at least 1")
        self._watched = []
        for name, p in named.items():
            if not p.requires_grad:
                continue
            b = bound.get(name) if isinstance(bound, dict) else bound
            self._watched.append(_Watched(name, p, sample, seed, b, label))
        self._findings = findings
        self._handles = []
        self._started = time.monotonic()

    def __enter__(self):
        for w in self._watched:
            self._handles.append(w.parameter.register_hook(self._before(w)))
            self._handles.append(w.parameter.register_post_accumulate_grad_hook(w.after_accumulation))
        return self

    def __exit__(self, *exc):
        for h in self._handles:
            h.remove()
        self._handles = []
        return False

    @staticmethod
    def _before(w: _Watched):
        def hook(grad):
            w.before_accumulation(grad)
            return None  # the gradient passes unchanged
        return hook

    def report(self) -> Report:
        """Judges the open windows and returns every parameter's result so far."""
        for w in self._watched:
            w.close()
        rows = [w.row for w in self._watched if w.row is not None]
        if self._findings:
            os.makedirs(self._findings, exist_ok=True)
            for r in rows:
                if (r.violated or r.worse_than_f32) and r.case_json:
                    safe = os.path.join(self._findings, "torch-watch-" +
                                        "".join(c if c.isalnum() or c in "._-" else "_" for c in r.name))
                    with open(safe + ".json", "w") as f:
                        f.write(r.case_json)
                    if r.trace is not None:  # accucheck trace FILE.npy (--bf16 for bfloat16's bit patterns)
                        t = r.trace.cpu()
                        np.save(safe + ".npy", t.view(torch.int16).numpy().view(np.uint16)
                                if t.dtype == torch.bfloat16 else t.numpy())
                    for path in (safe + ".json", safe + ".npy"):
                        if os.path.exists(path) and path not in r.findings:
                            r.findings.append(path)
        return Report(rows, time.monotonic() - self._started)
