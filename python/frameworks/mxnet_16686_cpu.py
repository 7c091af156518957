#!/usr/bin/env python3
"""MXNet issue 16686, CPU reproduction, run on the real MXNet (1.9.1) and compared with accucheck.

Runs the reporter's CPU reproduction (szhengac/Grad_Accumulation, mac/train.py) on the MXNet
that this interpreter imports: HybridSequential(Dense(1000), Activation('relu'), Dense(2)),
parameters from examples/data/mxnet-16686-cpu/*.npy divided by 1e6 in float32 (MXNet's own
`p.data()[:] /= 1e6`, as the reproduction does), the same input twice with labels 0 then 1,
SoftmaxCrossEntropyLoss, two steps, no weight update; once with grad_req='add' and once by hand
(step-1 gradient copied, then `acc[:] += p.grad()`).

Each MXNet setting (MXNET_MKLDNN_ENABLED=1 / 0, which MXNet reads once, at first use) runs in a
child process of this script (the same interpreter, `--worker`), which saves what MXNet
computed; the parent (numpy only) compares, element by element:
  (i)   MXNet 'add' vs MXNet manual (bitwise);
  (ii)  each against accucheck's `scenario mxnet-16686-cpu --dump DIR` tensors
        (add_<tensor>.npy, manual_<tensor>.npy);
  (iii) each against the exact sum of the two per-step gradients MXNet computed (exact rational
        arithmetic): ulps from the correctly rounded float32 sum, and how many are correctly rounded;
  and MXNet's per-step gradients against the scenario's float32 forward/backward model, which
  this script re-implements (the dump holds no per-step tensors) and checks first: the model's
  two paths must give the dumped tensors bit for bit.
Optionally (--reporter DIR: the reporter's grad.params and grad_acc.params, MXNet 1.6 on macOS)
everything is also compared with the reporter's own published outputs.

Needs only numpy and mxnet (not accucheck's Python package). Usage:
  .envs/mxnet/bin/python python/frameworks/mxnet_16686_cpu.py --dump DIR
  .envs/mxnet/bin/python python/frameworks/mxnet_16686_cpu.py --accucheck build/accucheck
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "examples", "data", "mxnet-16686-cpu"))
X = [0.132131, 0.0054324134, -1.05325, 2.042315, 3.342350, -0.552351, 0.00151235, 1.005235, 2.053253, -0.00004234]
TENSORS = ["dense0_weight", "dense0_bias", "dense1_weight", "dense1_bias"]
SHAPES = {"dense0_weight": (1000, 10), "dense0_bias": (1000,), "dense1_weight": (2, 1000), "dense1_bias": (2,)}
FILES = {"dense0_weight": "saved_dense0_weight.npy", "dense0_bias": "saved_dense0_bias.npy",
         "dense1_weight": "saved_dense1_weight.npy", "dense1_bias": "saved_dense1_bias.npy"}


# ----------------------------------------------------------------------------------------------
# worker: runs MXNet (the environment variables are already set by the parent)
# ----------------------------------------------------------------------------------------------
def worker(args):
    import mxnet as mx
    from mxnet.gluon import nn

    out = {}
    saved = {k: np.load(os.path.join(args.data, FILES[k])) for k in TENSORS}
    for k in TENSORS:
        if saved[k].dtype != np.float32 or saved[k].shape != SHAPES[k]:
            raise SystemExit("%s: expected float32 %s" % (FILES[k], SHAPES[k]))

    def build(grad_req):
        model = nn.HybridSequential()
        model.add(nn.Dense(1000, in_units=10))
        model.add(nn.Activation("relu"))
        model.add(nn.Dense(2, in_units=1000))
        model.initialize(init=mx.init.Xavier(magnitude=3.0), ctx=mx.cpu())
        params = {"dense0_weight": model[0].weight, "dense0_bias": model[0].bias,
                  "dense1_weight": model[2].weight, "dense1_bias": model[2].bias}
        for k, p in params.items():
            p.set_data(mx.nd.array(saved[k], dtype="float32"))
        if not args.no_hybridize:
            model.hybridize(static_alloc=True)
        for p in params.values():
            p.grad_req = grad_req
        for p in params.values():  # the reproduction's own division, in MXNet
            p.data()[:] /= 1e6
        return model, params

    loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    if not args.no_hybridize:
        loss.hybridize(static_alloc=True)
    data = [(mx.nd.array(X), mx.nd.array((0,))), (mx.nd.array(X), mx.nd.array((1,)))]

    def step(model, sample, label):
        sample = mx.nd.expand_dims(sample, axis=0)
        label = mx.nd.expand_dims(label, axis=0)
        with mx.autograd.record():
            output = model(sample)
            ls = loss(output, label).sum()
        ls.backward()

    # manual path (grad_req='write'): keep both step gradients
    model, params = build("write")
    for k, p in params.items():
        out["param_" + k] = p.data().asnumpy()
    acc = None
    for t, (sample, label) in enumerate(data):
        step(model, sample, label)
        for k, p in params.items():
            out["step%d_%s" % (t, k)] = p.grad().asnumpy().copy()
        if t == 0:
            acc = {k: p.grad().copy() for k, p in params.items()}
        else:
            for k, p in params.items():
                acc[k][:] += p.grad()
    for k in TENSORS:
        out["manual_" + k] = acc[k].asnumpy()
    # forward values (imperative, outside autograd): the hidden activations and the logits
    xin = mx.nd.expand_dims(data[0][0], axis=0)
    h = model[1](model[0](xin))
    logits = model[2](h)
    out["hidden"] = h.asnumpy().reshape(-1)
    out["logits"] = logits.asnumpy().reshape(-1)
    out["softmax"] = mx.nd.softmax(logits).asnumpy().reshape(-1)

    # 'add' path: a fresh model, grad_req='add'
    model, params = build("add")
    for t, (sample, label) in enumerate(data):
        step(model, sample, label)
        if t == 0:
            for k, p in params.items():
                out["addstep0_" + k] = p.grad().asnumpy().copy()
    for k, p in params.items():
        out["add_" + k] = p.grad().asnumpy()
    mx.nd.waitall()

    if args.reporter:
        for name, path in (("reporter_manual_", "grad.params"), ("reporter_add_", "grad_acc.params")):
            loaded = mx.nd.load(os.path.join(args.reporter, path))
            for k in TENSORS:
                out[name + k] = loaded[k].asnumpy()

    feats = mx.runtime.Features()
    info = {"mxnet": mx.__version__, "numpy": np.__version__,
            "features": [f for f in ("MKLDNN", "BLAS_OPEN", "BLAS_MKL", "BLAS_APPLE", "OPENMP", "CUDA")
                         if feats.is_enabled(f)],
            "MXNET_MKLDNN_ENABLED": os.environ.get("MXNET_MKLDNN_ENABLED"),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
            "hybridized": not args.no_hybridize}
    try:
        import ctypes
        lib = ctypes.CDLL(os.path.join(os.path.dirname(mx.__file__), "libopenblas.so.0"))
        lib.openblas_get_config.restype = ctypes.c_char_p
        lib.openblas_get_corename.restype = ctypes.c_char_p
        info["openblas"] = "%s (core %s)" % (lib.openblas_get_config().decode(), lib.openblas_get_corename().decode())
    except OSError:
        pass
    out["info"] = np.array(json.dumps(info))
    np.savez(args.worker, **out)


# ----------------------------------------------------------------------------------------------
# exact float32 helpers (numpy only)
# ----------------------------------------------------------------------------------------------
def frac(v):
    return Fraction(float(v))


def rn32(q):
    """The float32 nearest to the rational q (ties to even), by exact comparison."""
    x = np.float32(float(q))  # float(q) is correctly rounded to float64; at most one f32 step off
    best = None
    for c in (np.nextafter(x, np.float32(-np.inf)), x, np.nextafter(x, np.float32(np.inf))):
        d = abs(frac(c) - q)
        even = (int(np.array(c, np.float32).view(np.uint32)) & 1) == 0
        if best is None or d < best[0] or (d == best[0] and even):
            best = (d, c)
    return np.float32(best[1])


def ordered(a):
    i = np.asarray(a, np.float32).view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)


def ulps(a, b):
    return np.abs(ordered(a) - ordered(b))


def bits_equal(a, b):
    """Elements with the same bits (-0 and +0 differ)."""
    return int((np.asarray(a, np.float32).view(np.uint32) == np.asarray(b, np.float32).view(np.uint32)).sum())


def value_equal(a, b):
    """Elements with the same value (-0 == +0): the comparisons below use this."""
    return int((np.asarray(a) == np.asarray(b)).sum())


def reporter_metric(manual, add):
    """The reporter's eval.py, in its float32 arithmetic: max fl32(|fl32(manual - add)| / |add|) (in %, 0/0
    elements skipped) and max |fl32(manual - add)|."""
    d = np.abs((manual.astype(np.float32) - add.astype(np.float32)).astype(np.float32))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = (d / np.abs(add.astype(np.float32))).astype(np.float32)
    rel = rel[~np.isnan(rel)]
    return 100 * float(rel.max()) if rel.size else 0.0, float(d.max())


def exact_sum_rounded(a, b):
    """RN32(a + b) elementwise, a and b float32 (the exact sum by rationals)."""
    flat = [rn32(frac(x) + frac(y)) for x, y in zip(a.reshape(-1), b.reshape(-1))]
    return np.array(flat, np.float32).reshape(a.shape)


def fma_rounded(c, p, q):
    """RN32(c + p*q) elementwise, with the product exact (an FMA), shapes broadcast."""
    c, p, q = np.broadcast_arrays(c, p, q)
    flat = [rn32(frac(x) + frac(y) * frac(z)) for x, y, z in zip(c.reshape(-1), p.reshape(-1), q.reshape(-1))]
    return np.array(flat, np.float32).reshape(c.shape)


# ----------------------------------------------------------------------------------------------
# the scenario's model (tools/scenarios/mxnet_16686_cpu.cpp), re-implemented for per-step tensors
# ----------------------------------------------------------------------------------------------
def scenario_model(data_dir, dpre_mode="fma"):
    s = {k: np.load(os.path.join(data_dir, FILES[k])) / np.float32(1e6) for k in TENSORS}
    W0, b0, W1, b1 = s["dense0_weight"], s["dense0_bias"], s["dense1_weight"], s["dense1_bias"]
    x = np.array(X, np.float32)
    xf = [frac(v) for v in x]
    pre = np.array([rn32(sum(frac(W0[i, k]) * xf[k] for k in range(10))) for i in range(1000)], np.float32)
    pre = (pre + b0).astype(np.float32)
    h = np.where(pre > 0, pre, np.float32(0)).astype(np.float32)
    hf = [frac(v) for v in h]
    logit = np.array([rn32(sum(frac(W1[r, j]) * hf[j] for j in range(1000))) for r in range(2)], np.float32)
    logit = (logit + b1).astype(np.float32)
    e1 = np.exp(np.float64(logit[1]) - np.float64(logit[0]))
    p = np.array([1.0 / (1.0 + e1), e1 / (1.0 + e1)]).astype(np.float32)
    g = [np.array([p[0] - np.float32(1), p[1]], np.float32), np.array([p[0], p[1] - np.float32(1)], np.float32)]
    steps = []
    for t in range(2):
        if dpre_mode == "fma":  # fmaf(W1[1,i], g1, W1[0,i]*g0): an FMA chain from 0
            dh = fma_rounded((W1[0] * g[t][0]).astype(np.float32), W1[1], np.float32(g[t][1]))
        else:  # separate multiply and add
            dh = ((W1[0] * g[t][0]).astype(np.float32) + (W1[1] * g[t][1]).astype(np.float32)).astype(np.float32)
        dpre = np.where(pre > 0, dh, np.float32(0)).astype(np.float32)
        steps.append({"dense0_weight": np.outer(dpre, x).astype(np.float32), "dense0_bias": dpre,
                      "dense1_weight": np.outer(g[t], h).astype(np.float32), "dense1_bias": g[t]})
    manual = {k: (steps[0][k] + steps[1][k]).astype(np.float32) for k in TENSORS}
    add = {"dense0_weight": fma_rounded(steps[0]["dense0_weight"], steps[1]["dense0_bias"][:, None], x[None, :]),
           "dense1_weight": fma_rounded(steps[0]["dense1_weight"], g[1][:, None], h[None, :]),
           "dense0_bias": manual["dense0_bias"], "dense1_bias": manual["dense1_bias"]}
    return {"steps": steps, "manual": manual, "add": add, "h": h, "logit": logit, "p": p, "params": s}


# ----------------------------------------------------------------------------------------------
# parent: run the workers, compare, print
# ----------------------------------------------------------------------------------------------
def run_worker(args, mkldnn, path):
    env = dict(os.environ)
    env["MXNET_MKLDNN_ENABLED"] = mkldnn
    if args.omp_threads:
        env["OMP_NUM_THREADS"] = str(args.omp_threads)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", path, "--data", args.data]
    if args.reporter:
        cmd += ["--reporter", args.reporter]
    if args.no_hybridize:
        cmd.append("--no-hybridize")
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout)
        raise SystemExit("worker with MXNET_MKLDNN_ENABLED=%s failed (exit %d)" % (mkldnn, r.returncode))
    z = np.load(path)
    return {k: z[k] for k in z.files}


def get_dump(args):
    if args.dump:
        return args.dump
    if args.accucheck:
        d = tempfile.mkdtemp(prefix="mxnet16686_dump_")
        subprocess.run([args.accucheck, "scenario", "mxnet-16686-cpu", "--dump", d], check=True,
                       stdout=subprocess.DEVNULL)
        return d
    return None


def fmt(v):
    return "%.12g" % v


def table(rows, header):
    w = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)).rstrip()
    return "\n".join([line(header)] + [line(r) for r in rows])


def compare(res, dump, model, args):
    info = json.loads(str(res["info"]))
    lines = ["MXNet %s, MXNET_MKLDNN_ENABLED=%s, features %s, hybridized %s%s" % (
        info["mxnet"], info["MXNET_MKLDNN_ENABLED"], "+".join(info["features"]), info["hybridized"],
        (", " + info["openblas"]) if "openblas" in info else "")]
    summary = {"info": info, "tensors": {}}

    # the parameters after MXNet's division vs numpy's fl32(p / 1e6)
    pdiff = sum(res["param_" + k].size - bits_equal(res["param_" + k], model["params"][k]) for k in TENSORS)
    h, hm = res["hidden"], model["h"]
    lines.append("forward: parameters /1e6 differing from numpy fl32(p/1e6): %d; hidden active %d (model %d), max %s; "
                 "hidden == model %d/1000; logits %s (model %s); softmax %s (model %s)" % (
                     pdiff, int((h > 0).sum()), int((hm > 0).sum()), fmt(h.max()), value_equal(h, hm),
                     " ".join(fmt(v) for v in res["logits"]), " ".join(fmt(v) for v in model["logit"]),
                     " ".join(fmt(v) for v in res["softmax"]), " ".join(fmt(v) for v in model["p"])))
    lines.append("logit gradients (= dense1_bias step gradients): step0 %s, step1 %s; model %s, %s" % (
        " ".join(fmt(v) for v in res["step0_dense1_bias"]), " ".join(fmt(v) for v in res["step1_dense1_bias"]),
        " ".join(fmt(v) for v in model["steps"][0]["dense1_bias"]), " ".join(fmt(v) for v in model["steps"][1]["dense1_bias"])))
    summary["forward"] = {"param_bits_differing": pdiff, "hidden_active": int((h > 0).sum()),
                          "hidden_equal_model": value_equal(h, hm), "logits": res["logits"].tolist(),
                          "softmax": res["softmax"].tolist()}

    rows = []
    for k in TENSORS:
        add, man = res["add_" + k], res["manual_" + k]
        n = add.size
        s0, s1 = res["step0_" + k], res["step1_" + k]
        ex = exact_sum_rounded(s0, s1)
        u_add, u_man = ulps(add, ex), ulps(man, ex)
        rtol, atol = reporter_metric(man, add)
        t = {"n": n, "add_eq_manual_bits": bits_equal(add, man), "add_eq_manual": value_equal(add, man),
             "rtol_percent": rtol, "atol": atol,
             "add_correctly_rounded": int((u_add == 0).sum()), "add_max_ulps": int(u_add.max()),
             "manual_correctly_rounded": int((u_man == 0).sum()), "manual_max_ulps": int(u_man.max()),
             "add_step0_eq_step0": value_equal(res["addstep0_" + k], s0)}
        if dump:
            for path in ("add", "manual"):
                f = os.path.join(dump, "%s_%s.npy" % (path, k))
                if os.path.exists(f):
                    d = np.load(f)
                    t["mx_add_eq_scen_" + path] = value_equal(add, d)
                    t["mx_manual_eq_scen_" + path] = value_equal(man, d)
        # per-step gradients vs the scenario's model
        t["step0_eq_model"] = value_equal(s0, model["steps"][0][k])
        t["step1_eq_model"] = value_equal(s1, model["steps"][1][k])
        # the 1.6 'add' semantics applied to MXNet's own step values: RN(step0 + exact product)
        if k == "dense1_weight":
            fma = fma_rounded(s0, res["step1_dense1_bias"][:, None], res["hidden"][None, :])
            prod = (res["step1_dense1_bias"][:, None] * res["hidden"][None, :]).astype(np.float32)
        elif k == "dense0_weight":
            xv = np.array(X, np.float32)
            fma = fma_rounded(s0, res["step1_dense0_bias"][:, None], xv[None, :])
            prod = (res["step1_dense0_bias"][:, None] * xv[None, :]).astype(np.float32)
        else:
            fma = prod = None
        if fma is not None:
            # the exact sum of the two steps' exact products (MXNet's own factors), as accucheck judges
            f0 = res["step0_dense1_bias" if k == "dense1_weight" else "step0_dense0_bias"]
            f1 = res["step1_dense1_bias" if k == "dense1_weight" else "step1_dense0_bias"]
            other = res["hidden"] if k == "dense1_weight" else np.array(X, np.float32)
            rel = {"add": 0.0, "manual": 0.0}
            for i in range(f0.size):
                for j in range(other.size):
                    e = (frac(f0[i]) + frac(f1[i])) * frac(other[j])
                    if e == 0:
                        continue
                    for path, arr in (("add", add), ("manual", man)):
                        rel[path] = max(rel[path], float(abs(frac(arr[i, j]) - e) / abs(e)))
            t["add_max_rel_err_vs_exact_products"] = rel["add"]
            t["manual_max_rel_err_vs_exact_products"] = rel["manual"]
            t["step1_eq_rounded_product"] = value_equal(s1, prod)
            t["add_eq_fma_model"] = value_equal(add, fma)
            t["manual_eq_fma_model"] = value_equal(man, fma)
        if args.reporter:
            ra, rm = res["reporter_add_" + k], res["reporter_manual_" + k]
            t["mx_add_eq_reporter_add"] = value_equal(add, ra)
            t["mx_manual_eq_reporter_manual"] = value_equal(man, rm)
            t["mx_add_eq_reporter_manual"] = value_equal(add, rm)
            t["reporter_rtol_percent"], t["reporter_atol"] = reporter_metric(rm, ra)
        summary["tensors"][k] = t
        row = [k, n, "%d/%d" % (t["add_eq_manual_bits"], t["add_eq_manual"]), "%.6g%%" % rtol, "%.4g" % atol,
               "%d/%d" % (t["add_correctly_rounded"], t["add_max_ulps"]),
               "%d/%d" % (t["manual_correctly_rounded"], t["manual_max_ulps"])]
        if dump:
            row += ["%s/%s" % (t.get("mx_add_eq_scen_add", "-"), t.get("mx_add_eq_scen_manual", "-")),
                    "%s/%s" % (t.get("mx_manual_eq_scen_manual", "-"), t.get("mx_manual_eq_scen_add", "-"))]
        row += ["%d/%d" % (t["step0_eq_model"], t["step1_eq_model"]),
                t.get("add_eq_fma_model", "-")]
        if args.reporter:
            row += ["%d/%d" % (t["mx_add_eq_reporter_add"], t["mx_manual_eq_reporter_manual"])]
        rows.append(row)
    header = ["tensor", "n", "add==man bits/val", "rtol(man,add)", "atol", "add: CR/maxulp", "man: CR/maxulp"]
    if dump:
        header += ["add==scen add/man", "man==scen man/add"]
    header += ["steps==model s0/s1", "add==RN(s0+exact p1)"]
    if args.reporter:
        header += ["==reporter add/man"]
    lines.append(table(rows, header))
    extra = []
    for k in ("dense0_weight", "dense1_weight"):
        t = summary["tensors"][k]
        extra.append("%s: step-1 grad == fl32(product) %d/%d; add step 0 == manual step 0 %d/%d; largest relative "
                     "error vs the exact sum of the exact products (MXNet's own factors): add %.4g %%, manual %.4g %%" % (
                         k, t["step1_eq_rounded_product"], t["n"], t["add_step0_eq_step0"], t["n"],
                         100 * t["add_max_rel_err_vs_exact_products"], 100 * t["manual_max_rel_err_vs_exact_products"]))
    if args.reporter:
        extra.append("reporter's own files (MXNet 1.6, macOS), eval.py in float32: " + "; ".join(
            "%s rtol %.12g %%, atol %.12g" % (k, summary["tensors"][k]["reporter_rtol_percent"],
                                              summary["tensors"][k]["reporter_atol"]) for k in TENSORS))
    lines += extra
    return "\n".join(lines), summary


def model_check(model, dump):
    """The re-implemented scenario model must give the dumped tensors bit for bit."""
    if not dump:
        return "scenario dump: none given (--dump DIR or --accucheck PATH); the model is unchecked"
    parts = []
    for path in ("add", "manual"):
        for k in TENSORS:
            f = os.path.join(dump, "%s_%s.npy" % (path, k))
            if os.path.exists(f):
                d = np.load(f)
                parts.append("%s %s %d/%d" % (path, k, value_equal(model[path][k], d), d.size))
    return "scenario model re-implemented here vs the dump (value-equal; -0 and +0 count as equal): " + "; ".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", help="a directory written by `accucheck scenario mxnet-16686-cpu --dump DIR`")
    ap.add_argument("--accucheck", help="the accucheck binary: run it to make the dump")
    ap.add_argument("--data", default=DEFAULT_DATA, help="the saved_*.npy parameters (default: %(default)s)")
    ap.add_argument("--mkldnn", choices=["1", "0", "both"], default="both", help="MXNET_MKLDNN_ENABLED (default both)")
    ap.add_argument("--reporter", help="a directory with the reporter's grad.params and grad_acc.params (optional)")
    ap.add_argument("--no-hybridize", action="store_true", help="imperative Gluon (the reproduction hybridizes)")
    ap.add_argument("--omp-threads", type=int, help="OMP_NUM_THREADS for the MXNet runs")
    ap.add_argument("--repeat", type=int, default=1, help="run each setting this many times and check the bits repeat")
    ap.add_argument("--json", help="also write the comparison as JSON to this file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args)
        return
    dump = get_dump(args)
    model = scenario_model(args.data)
    print(model_check(model, dump))
    print("scenario model: hidden active %d, max %s, logits %s, p %s" % (
        int((model["h"] > 0).sum()), fmt(model["h"].max()), " ".join(fmt(v) for v in model["logit"]),
        " ".join(fmt(v) for v in model["p"])))
    settings = ["1", "0"] if args.mkldnn == "both" else [args.mkldnn]
    results, out = {}, {"dump": dump, "settings": {}}
    with tempfile.TemporaryDirectory(prefix="mxnet16686_") as tmp:
        for s in settings:
            runs = [run_worker(args, s, os.path.join(tmp, "mkldnn%s_%d.npz" % (s, i))) for i in range(args.repeat)]
            results[s] = runs[0]
            text, summary = compare(runs[0], dump, model, args)
            if args.repeat > 1:
                same = all(bits_equal(r[k], runs[0][k]) == runs[0][k].size
                           for r in runs[1:] for k in runs[0] if k.startswith(("add_", "manual_", "step")))
                text += "\nrepeat: %d runs, gradients bit-identical across runs: %s" % (args.repeat, same)
                summary["repeat_identical"] = same
            print()
            print(text)
            out["settings"][s] = summary
    if len(settings) == 2:
        print()
        cross = []
        for k in TENSORS:
            a1, a0 = results["1"]["add_" + k], results["0"]["add_" + k]
            m1, m0 = results["1"]["manual_" + k], results["0"]["manual_" + k]
            cross.append([k, a1.size, value_equal(a1, a0), value_equal(m1, m0),
                          value_equal(results["1"]["step0_" + k], results["0"]["step0_" + k]),
                          value_equal(results["1"]["step1_" + k], results["0"]["step1_" + k])])
        print("MKLDNN on vs off (equal elements, -0 == +0):")
        print(table(cross, ["tensor", "n", "add", "manual", "step0", "step1"]))
        out["hidden_on_eq_off"] = value_equal(results["1"]["hidden"], results["0"]["hidden"])
        print("hidden activations on vs off: %d/1000 equal" % out["hidden_on_eq_off"])
    print("\ncolumns: every count is of elements with equal values (-0 == +0), except add==man bits; add==man = "
          "MXNet's two paths; rtol/atol = the reporter's eval.py "
          "(max |man-add|/|add|, max |man-add|, in float32 as it computes them); CR/maxulp = elements equal to RN32(step0 + step1) exactly, and the "
          "largest distance from it in float32 steps; scen = accucheck's dumped tensors; steps==model = MXNet's "
          "per-step gradients equal to the scenario model's; RN(s0+exact p1) = the 'add' of the reporter's MXNet 1.6 "
          "(GEMM beta=1 as one FMA, fl(c + g*h)) applied to MXNet's own step-0 gradient and step-1 factors")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
