"""JAX's gradient accumulation, judged: per-micro-batch gradient pytrees and the accumulated pytree
(explicit code in JAX: a Python loop, `lax.scan`, optax's MultiSteps) flattened into named leaves
and judged by accucheck.check_accumulation (docs/python.md, "JAX").

    grads = [jax.grad(loss)(params, batch) for batch in micro_batches]      # or lax.scan's stacked grads
    report = accucheck.jax.check_accumulation(grads, accumulated)
    assert report.ok, report

Where accucheck's extension is not built for the interpreter that runs JAX (JAX 0.12 needs Python
3.12+), record there and judge anywhere:

    accucheck.jax.save_accumulation("acc.npz", grads, accumulated)            # needs jax and numpy only
    report = accucheck.check_accumulation(*accucheck.load_accumulation("acc.npz"))

Names are the leaves' key paths as jax.tree_util.keystr writes them (`['dense']['kernel']`).
"""
from __future__ import annotations

from typing import Optional

import jax
import numpy as np

from .accumulation import save_accumulation as _save


def _named_leaves(tree) -> dict:
    leaves, _ = jax.tree_util.tree_flatten_with_path(tree)
    return {jax.tree_util.keystr(path) or "leaf": np.asarray(leaf) for path, leaf in leaves}


def accumulation_terms(per_microbatch, accumulated, *, initial=None, stacked: bool = False):
    """(terms, accumulated, initial) as accucheck.check_accumulation takes them: per leaf name, the
    micro-batch gradients in order, the accumulated array, and the initial buffer (None when the
    accumulation started from the first gradient). per_microbatch: a sequence of pytrees, or with
    stacked=True one pytree whose leaves carry the micro-batches on their leading axis (what
    lax.scan returns). The pytrees must have the accumulated one's structure."""
    result = _named_leaves(accumulated)
    if stacked:
        stack = _named_leaves(per_microbatch)
        terms = {name: list(stack[name]) for name in stack}
    else:
        terms = {name: [] for name in result}
        for tree in per_microbatch:
            for name, leaf in _named_leaves(tree).items():
                terms.setdefault(name, []).append(leaf)
    if set(terms) != set(result):
        raise ValueError(f"accucheck.jax: the micro-batch gradients' leaves {sorted(terms)} are not the accumulated "
                         f"pytree's {sorted(result)}")
    return terms, result, None if initial is None else _named_leaves(initial)


def check_accumulation(per_microbatch, accumulated, *, initial=None, stacked: bool = False, **options):
    """Judges a JAX gradient accumulation; options as accucheck.check_accumulation's (bound, sample,
    seed, label, findings). Returns its Report: one row per leaf."""
    from .accumulation import check_accumulation as check

    terms, result, start = accumulation_terms(per_microbatch, accumulated, initial=initial, stacked=stacked)
    return check(terms, result, initial=start, **options)


def save_accumulation(path: str, per_microbatch, accumulated, *, initial=None, stacked: bool = False) -> None:
    """Writes the accumulation to an .npz that accucheck.load_accumulation reads back (in any
    interpreter with accucheck), bf16 leaves as their bit patterns."""
    terms, result, start = accumulation_terms(per_microbatch, accumulated, initial=initial, stacked=stacked)
    _save(path, terms, result, start)
