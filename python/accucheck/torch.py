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

import time
from typing import Optional

import torch

from .accumulation import Report, Row, judge_window, sample_index, write_findings

_FORMATS = {torch.float64: "f64", torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}


def _gathered(t: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """A copy of the elements at `index` of t (converted to doubles once per window): one op, as a
    hook runs it for every parameter and micro-batch (a gradient in a hook needs no detach)."""
    return torch.take(t, index)


class _Watched:
    """One parameter: its sample, the hooks' state and the open window."""

    def __init__(self, name: str, parameter: torch.nn.Parameter, sample: int, seed: int, bound: Optional[str],
                 label: str):
        self.name = name
        self.label = label
        self.parameter = parameter
        self.index_array = sample_index(parameter.numel(), sample, seed, name)
        self.index = torch.as_tensor(self.index_array, dtype=torch.long, device=parameter.device)
        self.bound = bound
        self.row: Optional[Row] = None
        self.initial: Optional[torch.Tensor] = None  # the window's buffer before its first term (None: no window)
        self.terms: list = []
        self.computed: Optional[torch.Tensor] = None  # .grad after the last accumulation
        self.version: Optional[int] = None          # .grad's version counter then
        self.format: Optional[str] = None           # .grad's format

    def before_accumulation(self, grad: torch.Tensor) -> None:
        """The gradient hook (it returns None: the gradient passes unchanged)."""
        current = self.parameter.grad
        if current is None:
            self.close()  # a cleared buffer: AccumulateGrad stores this term as it is
        elif self.version is None or current._version != self.version or self.computed is None:
            # zeroed, or changed by something else than the accumulation: a new window from it
            self.close()
            self.initial = _gathered(current, self.index)
        if not self.terms:
            self.format = _FORMATS.get(grad.dtype)
        self.terms.append(_gathered(grad, self.index))

    def after_accumulation(self, parameter: torch.Tensor) -> None:
        self.computed = _gathered(parameter.grad, self.index)
        self.version = parameter.grad._version

    def close(self) -> None:
        """Judges the open window, if any, and starts none."""
        if self.terms and self.computed is not None and self.format is not None:
            self._judge()
        self.initial, self.terms, self.computed, self.version = None, [], None, None

    def _judge(self) -> None:
        if self.row is None:
            self.row = Row(self.name, self.format, (self.bound or "recursive({F})").replace("{F}", self.format))
        doubles = lambda t: t.to(torch.float64).cpu().numpy()  # noqa: E731 (exact: f64/f32/f16/bf16 values are doubles)
        judge_window(self.row, self.index_array, self.label, None if self.initial is None else doubles(self.initial),
                     [doubles(t) for t in self.terms], doubles(self.computed), first_is_buffer=self.initial is None)


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
            self._handles.append(w.parameter.register_hook(w.before_accumulation))
            self._handles.append(w.parameter.register_post_accumulate_grad_hook(w.after_accumulation))
        return self

    def __exit__(self, *exc):
        for h in self._handles:
            h.remove()
        self._handles = []
        return False

    def report(self) -> Report:
        """Judges the open windows and returns every parameter's result so far."""
        for w in self._watched:
            w.close()
        rows = [w.row for w in self._watched if w.row is not None]
        if self._findings:
            write_findings(rows, self._findings)
        return Report(rows, time.monotonic() - self._started)
