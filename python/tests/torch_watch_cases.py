"""Training loops with gradient accumulation under accucheck.torch.watch, run in the torch
environment by test_torch_watch.py: each case prints one JSON line.

    python torch_watch_cases.py CASE [FINDINGS]
"""
import json
import sys

import torch

import accucheck.torch


def make_model(dtype=torch.float32):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(48, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4)).to(dtype)


def micro_batches(count, dtype=torch.float32):
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(8, 48, generator=g).to(dtype), torch.randn(8, 4, generator=g).to(dtype)) for _ in range(count)]


def accumulate(model, batches, scaler=None, autocast=False):
    for x, y in batches:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = ((model(x) - y) ** 2).mean()
        (scaler.scale(loss) if scaler else loss).backward()


def grads(model):
    """Every .grad's bits, by parameter name."""
    return {n: p.grad.detach().clone() for n, p in model.named_parameters()}


def same_bits(a, b):
    return all(torch.equal(a[n].view(torch.int16 if a[n].element_size() == 2 else torch.int32)
                           if a[n].dtype != torch.float64 else a[n].view(torch.int64),
                           b[n].view(torch.int16 if b[n].element_size() == 2 else torch.int32)
                           if b[n].dtype != torch.float64 else b[n].view(torch.int64)) for n in a)


def two_steps(model, batches, watcher=None, **kw):
    """Two optimizer steps of len(batches) micro-batches each; the grads of each step."""
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    out = []
    for step in range(2):
        accumulate(model, batches, **kw)
        out.append(grads(model))
        if kw.get("scaler"):  # unscale_ changes .grad in place: the watcher's window ends there
            kw["scaler"].step(opt)
            kw["scaler"].update()
        else:
            opt.step()
        opt.zero_grad(set_to_none=step == 1)  # both kinds of clearing: zeros first, then None
    return out


def case_bits(mode):
    """The same .grad bits with and without the watcher: eager, torch.compile, AMP's GradScaler."""
    def run(watched):
        model = make_model()
        compiled = torch.compile(model) if mode == "compile" else model
        kw = {"scaler": torch.amp.GradScaler("cpu", init_scale=1024.0), "autocast": True} if mode == "amp" else {}
        if not watched:
            return two_steps(compiled, micro_batches(6), **kw), None
        with accucheck.torch.watch(model, sample=16) as w:
            result = two_steps(compiled, micro_batches(6), **kw)
            return result, w.report()
    plain, _ = run(False)
    watched, report = run(True)
    return {"same": all(same_bits(a, b) for a, b in zip(plain, watched)), "ok": report.ok,
            "windows": [r.windows for r in report.rows], "terms": [[w["terms"] for w in r.per_window] for r in report.rows],
            "table": str(report)}


def case_report():
    model = make_model()
    with accucheck.torch.watch(model, sample=16) as w:
        accumulate(model, micro_batches(16))
        report = w.report()
    return {"ok": report.ok, "names": [r.name for r in report.rows],
            "rows": [{k: getattr(r, k) for k in ("name", "elements", "windows", "max_ratio", "max_ulps", "bits_lost",
                                                 "kappa", "violated")} for r in report.rows],
            "expected_names": [n for n, _ in model.named_parameters()], "table": str(report)}


def case_dropped(findings):
    """A training loop whose hook drops micro-batch 3's gradient of one parameter (a bug)."""
    model = make_model()
    weight = dict(model.named_parameters())["0.weight"]
    with accucheck.torch.watch(model, sample=16, findings=findings) as w:
        seen = {"count": 0}

        def drop_third(grad):
            seen["count"] += 1
            return torch.zeros_like(grad) if seen["count"] == 3 else None
        handle = weight.register_hook(drop_third)  # after the watcher's: it sees the true gradient
        accumulate(model, micro_batches(8))
        handle.remove()
        report = w.report()
    return {"ok": report.ok, "violated": [r.name for r in report.rows if r.violated], "table": str(report)}


def case_bf16_claims_f32(findings):
    """bf16 parameters and .grad (bf16 accumulation) stated as recursive(f32), and as they are."""
    out = {}
    for bound in ("recursive(f32)", None):
        model = make_model(torch.bfloat16)
        with accucheck.torch.watch(model, sample=16, bound=bound, findings=findings if bound else None) as w:
            accumulate(model, micro_batches(16, torch.bfloat16))
            report = w.report()
        out[bound or "default"] = {"ok": report.ok, "verdicts": [r.verdict for r in report.rows],
                                   "bounds": [r.bound for r in report.rows], "max_ulps": [r.max_ulps for r in report.rows],
                                   "worse_than_f32": [r.worse_than_f32 for r in report.rows], "table": str(report)}
    return out


if __name__ == "__main__":
    name = sys.argv[1]
    findings = sys.argv[2] if len(sys.argv) > 2 else None
    if name.startswith("bits-"):
        result = case_bits(name[len("bits-"):])
    elif name == "report":
        result = case_report()
    elif name == "dropped":
        result = case_dropped(findings)
    else:
        result = case_bf16_claims_f32(findings)
    print(json.dumps(result))
