"""accucheck from Python: check an accumulator against the exact sum and the bound it states.

    import accucheck, numpy as np

    @accucheck.backend(storage="f32", bound="recursive(f32)")
    def my_sum(addends, buffer):          # addends (T, D), buffer (D,): 'add' semantics
        for row in addends:
            buffer += row

    result = accucheck.check(backends=[my_sum], seconds=5, seed=1)
    print(result.table)                   # the CLI's verdict table
    assert result.ok, result.table

The same campaign engine, verdicts, findings and case files as `accucheck check`; a case file a
campaign writes replays with `accucheck replay CASE --python FILE.py` or accucheck.replay(CASE).
docs/python.md has the whole API.
"""
from __future__ import annotations

import json
import os
import random
import sys
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional, Sequence, Union

from ._backends import BackendFailure, backend, registered
from . import _backends

try:
    import numpy as np

    from ._numpy_arrays import storage_dtype
except ImportError:
    # The CLI's Python worker in an interpreter without numpy (a GPU machine's own PyTorch) runs
    # backends of arrays="torch"; everything else here needs numpy.
    if os.environ.get("ACCUCHECK_IN_LOADER") != "1":
        raise

__all__ = ["backend", "check", "replay", "exact", "families", "workloads", "backends", "load_plugin", "load_accumulation",
           "BackendFailure", "CheckResult", "Finding", "Workload", "storage_dtype"]


def _core():
    from . import _accucheck  # the extension; imported on first use (the CLI's loader needs only _backends)
    return _accucheck


def _refuse_inside_the_loader(what: str) -> None:
    # A file given to `accucheck --python` whose top level calls accucheck.check would start a
    # campaign inside the Python worker: say how to keep it for `python FILE.py` only.
    if os.environ.get("ACCUCHECK_IN_LOADER") == "1":
        raise RuntimeError(f"accucheck.{what}() called while the file is loaded by `accucheck --python`: "
                           "put it under `if __name__ == \"__main__\":`")


def _validate(b) -> None:
    try:
        core = _core()
    except ImportError:
        # An interpreter the extension was not built for (`accucheck --python` runs a backend file
        # in any CPython): the decorator still registers; the CLI validates when it loads the file.
        return
    core.validate_backend(b.name, b.bound, b.origin)


if os.environ.get("ACCUCHECK_IN_LOADER") != "1":  # the CLI's Python worker validates through core's plugin loader
    _backends.validate = _validate


def _sync():
    """Registers every decorated Python backend with the engine (once each)."""
    core = _core()
    for b in registered():
        core.register_backend(b.name, b.storage, b.accumulation, b.bound, b.determinism, b.kind, b.index, b.origin,
                              b.summary)


def _names(selection) -> list[str]:
    if selection is None:
        return []
    if isinstance(selection, str) or callable(selection):
        selection = [selection]
    names = []
    for s in selection:
        if isinstance(s, str):
            names.append(s)
        elif hasattr(s, "accucheck_name"):
            names.append(s.accucheck_name)
        else:
            raise TypeError(f"{s!r} is neither a backend name or glob nor a function decorated with @accucheck.backend")
    return names


@dataclass
class Finding:
    backend: str
    case_file: str
    replay_command: str


@dataclass
class BackendRow:
    name: str
    format: str
    bound: str
    cases: int
    violations: dict
    max_ratio: float
    max_ulps: int
    determinism: str
    origin: str
    findings: list
    failures: list

    @property
    def ok(self) -> bool:
        return not self.violations


@dataclass
class CheckResult:
    """What a campaign found: `table` is the CLI's verdict table, `backends` its rows, `findings`
    the case files written, `results` the results JSON (the schema `accucheck report` reads)."""
    table: str
    violations: int
    backends: list
    findings: list
    results: dict
    seed: int

    @property
    def ok(self) -> bool:
        return self.violations == 0

    def __str__(self) -> str:
        return self.table


def check(backends=None, *, seconds: Optional[float] = None, minutes: Optional[float] = None, cases: Optional[int] = None,
          seed: Optional[int] = None, format: Optional[str] = None, families: Sequence[str] = (),
          findings: str = "findings", maximize: bool = False, fail_fast: bool = False, quiet: bool = True,
          max_steps: int = 0, max_elements: int = 0, max_long_steps: int = 0,
          timeout: Optional[float] = 60.0, isolate: bool = False, jobs: Optional[int] = 1) -> CheckResult:
    """Runs a campaign over the selected backends (names, globs or decorated functions; default:
    every registered backend) for `cases` cases per format x workload stream, or for `seconds`
    (default 10 s). Findings are minimized and written to `findings` as case files.
    max_steps, max_elements, max_long_steps: the CLI's --max-steps, --max-elements and
    --max-long-steps (0: the defaults, 64, 4 and 10000).
    `timeout`: seconds one call of a Python backend may run (its Python code) before it is that
    backend's failure; None for no limit.
    `isolate`: run the campaign in the CLI (`accucheck check --python FILE.py` for each selected
    backend's file), whose plugin worker also contains a backend that crashes the interpreter or
    hangs in C code; needs the CLI (ACCUCHECK_CLI, or the build tree's) and backends defined in files.
    `jobs`: processes for the campaign (the CLI's --jobs; None: one per CPU). 1 runs it here;
    more run it in the CLI as `isolate` does, each worker process loading the backends' files.
    With `cases`, the results are the same whatever `jobs` is (not with `maximize`)."""
    _refuse_inside_the_loader("check")
    _sync()
    if minutes is not None:
        seconds = 60.0 * minutes
    if seconds is None:
        seconds = 10.0
    if seed is None:
        seed = random.getrandbits(64)
    globs = _names(backends)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 1024):
        raise ValueError(f"jobs: {jobs!r} is not a number of processes from 1 to 1024 (or None: one per CPU)")
    if isolate or jobs != 1:
        table, results = _check_in_the_cli(globs, format, families, cases, seconds, seed, findings, maximize, fail_fast,
                                           max_steps, max_elements, max_long_steps, timeout, jobs)
        return _check_result(table, results, int(seed))
    _backends.call_timeout = timeout
    try:
        results_json, table, violations = _core().check(globs, format, list(families), cases, float(seconds), int(seed),
                                                        findings, maximize, fail_fast, quiet, max_steps, max_elements,
                                                        max_long_steps)
    finally:
        _backends.call_timeout = None
    return _check_result(table, json.loads(results_json), int(seed))


def _cli_binary() -> str:
    path = os.environ.get("ACCUCHECK_CLI") or _core().cli_binary()
    if not path or not os.path.exists(path):
        raise RuntimeError("isolate=True and jobs > 1 run the accucheck CLI, and none was found: set ACCUCHECK_CLI to build/accucheck "
                           "(a pip-installed package has no CLI)")
    return path


def _check_in_the_cli(globs, format, families, cases, seconds, seed, findings, maximize, fail_fast, max_steps,
                      max_elements, max_long_steps, timeout, jobs):
    """The same campaign through `accucheck check --python FILE.py`: the plugin worker runs the
    Python backends, so a crash or a hang in C code is that backend's failure here too."""
    import fnmatch
    import subprocess
    import tempfile

    selected = set()
    for glob in globs or ["*"]:
        selected.update(b.name for b in registered() if fnmatch.fnmatchcase(b.name, glob))
    selected = [b for b in registered() if b.name in selected]
    files = sorted({b.origin for b in selected})
    if "" in files:
        names = ", ".join(sorted(b.name for b in selected if not b.origin))
        raise ValueError(f"isolate=True and jobs > 1 load each backend's file in the CLI, and {names} has none (defined in "
                         "python -c or a notebook)")
    os.makedirs(os.path.dirname(os.path.abspath(findings)), exist_ok=True)  # as the engine does in-process
    args = [_cli_binary(), "check", "--seed", str(seed), "--findings", findings, "--quiet"]
    for f in files:
        args += ["--python", f]
    for g in globs:
        args += ["--backend", g]
    args += ["--cases", str(cases)] if cases is not None else ["--minutes", repr(seconds / 60.0)]
    if format:
        args += ["--format", format]
    for f in families:
        args += ["--family", f]
    for option, value in (("--max-steps", max_steps), ("--max-elements", max_elements), ("--max-long-steps", max_long_steps)):
        if value:
            args += [option, str(value)]
    if maximize:
        args.append("--maximize")
    if fail_fast:
        args.append("--fail-fast")
    if jobs is not None:
        args += ["--jobs", str(jobs)]
    env = dict(os.environ)
    env.setdefault("ACCUCHECK_PYTHON", sys.executable)  # the CLI's Python workers run this interpreter
    if timeout is not None:
        env["ACCUCHECK_PLUGIN_TIMEOUT"] = repr(float(timeout))
    with tempfile.TemporaryDirectory() as scratch:
        results_path = os.path.join(scratch, "results.json")
        run = subprocess.run(args + ["--json", results_path], capture_output=True, text=True, env=env)
        if run.returncode not in (0, 1) or not os.path.exists(results_path):
            raise ValueError(f"accucheck check failed (exit {run.returncode}): {run.stderr.strip()}")
        with open(results_path) as f:
            return run.stdout, json.load(f)


def _check_result(table: str, results: dict, seed: int) -> CheckResult:
    rows, found = [], []
    for b in results.get("backends", []):
        row = BackendRow(b.get("name", ""), b.get("storage", ""), b.get("bound", ""), b.get("cases", 0),
                         b.get("violations", {}), b.get("max_ratio", 0.0), b.get("max_ulps", 0), b.get("determinism", ""),
                         b.get("origin", ""), b.get("findings", []), b.get("failures", []))
        rows.append(row)
        for f in row.findings:
            found.append(Finding(row.name, f, "accucheck replay " + f + _core().origin_option(row.origin)))
    violations = results.get("violations", sum(sum(b.violations.values()) for b in rows))
    return CheckResult(table, int(violations), rows, found, results, seed)


def replay(case_file: str, backends=None) -> list:
    """Re-runs a case file on the backend it names (or the selected backends of its format);
    returns one dict per backend: verdict, violated, worst_element, max_ratio, failure, counts,
    and the most severe elements."""
    _refuse_inside_the_loader("replay")
    _sync()
    return _core().replay(os.fspath(case_file), _names(backends))


def exact(values: Iterable[float], format: str = "f64") -> dict:
    """The exact sum of values of `format`: `sum` correctly rounded to the format, `exact_hex`
    the exact value, `kappa` the condition number (as `accucheck exact --json`). `format` may be
    an OCP fp8 format, "e4m3" or "e5m2" (ml-dtypes' float8_e4m3fn, float8_e5m2 arrays)."""
    return _core().exact([float(v) for v in np.asarray(list(values) if not isinstance(values, np.ndarray) else values,
                                                         dtype=np.float64).ravel()], format)


def check_accumulation(terms: dict, accumulated: dict, initial: Optional[dict] = None, **options):
    """Judges accumulations made elsewhere (JAX's explicit accumulation, your own loop): per
    parameter name the terms added in order, the accumulated array and (optionally) the buffer
    they were added to; returns a report as accucheck.torch.watch's
    (accucheck.accumulation.check_accumulation says the options)."""
    from .accumulation import check_accumulation as check
    return check(terms, accumulated, initial=initial, **options)


def load_accumulation(path: str):
    """(terms, accumulated, initial) from an .npz that accucheck.jax.save_accumulation (or
    accucheck.accumulation.save_accumulation) wrote: `check_accumulation(*load_accumulation(path))`
    judges in this interpreter an accumulation recorded in another."""
    from .accumulation import load_accumulation as load
    return load(path)


def families() -> list:
    """The generator families: (name, kind, summary, adversarial)."""
    return list(_core().families())


@dataclass
class Workload:
    """One generated workload; arrays are float64 (every value is a value of `format`), `as_storage`
    gives them in the storage dtype."""
    kind: str
    format: str
    family: str
    fields: dict = field(repr=False)
    case_json: str = field(repr=False)

    def __getattr__(self, name):
        fields = self.__dict__.get("fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(name)

    def as_storage(self, name: str) -> np.ndarray:
        return np.asarray(self.fields[name], dtype=np.float64).astype(storage_dtype(self.format))

    def save(self, path: str) -> None:
        """Writes it as a case file (docs/case-format.md)."""
        with open(path, "w") as f:
            f.write(self.case_json)


def workloads(family: Optional[str] = None, *, format: str = "f32", kind: str = "dense", seed: int = 0,
              count: Optional[int] = None, max_steps: int = 0, max_elements: int = 0) -> Iterator[Workload]:
    """The workloads a family generates (or the kind's adversarial mix), from `seed` on: an
    endless iterable unless `count` is given. Case i is the one seed + i regenerates."""
    i = 0
    while count is None or i < count:
        batch = 64 if count is None else min(64, count - i)
        for d in _core().generate(family, format, kind, seed + i, batch, max_steps, max_elements):
            fields = dict(d)
            kind_, fmt, fam, case_json = fields.pop("kind"), fields.pop("format"), fields.pop("family"), fields.pop("case_json")
            for key in ("initial", "addends", "values", "a", "b"):
                if key in fields:
                    fields[key] = np.asarray(fields[key], dtype=np.float64)
            if kind_ == "dense":
                fields["addends"] = fields["addends"].reshape(fields["steps"], fields["elements"])
            elif kind_ == "sparse":
                fields["initial"] = fields["initial"].reshape(fields["rows"], fields["dim"])
                fields["values"] = fields["values"].reshape(-1, fields["dim"])
            yield Workload(kind_, fmt, fam, fields, case_json)
        i += batch


def backends() -> list:
    """Every registered backend (built-in, plugin, Python) as dicts: name, storage, bound, ..."""
    _sync()
    return list(_core().backends())


def load_plugin(path: str) -> list:
    """Loads a C plugin (accucheck/plugin.h) into the registry; returns the names it registered."""
    return list(_core().load_plugin(os.fspath(path)))
