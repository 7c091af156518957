"""accucheck characterize through the CLI (docs/characterize.md): the JSON keys and the revealed
orders (checked against trees written here, not by accucheck), the HTML report, plugins whose
structure contradicts their stated bound (no campaign needed), fused nodes and their window,
the campaign with the derived bounds, replay --bound, and bad input (exit 2).

    characterize_test.py --accucheck BUILD/accucheck --structures LIB.so --wrong LIB.so --mode MODE
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Failure, main, require, run  # noqa: E402


def text(tree):
    """A tree of nested lists as characterize writes it: "((0 1) 2)"."""
    if isinstance(tree, int):
        return str(tree)
    return "(" + " ".join(text(child) for child in tree) + ")"


def chain(n):
    """The left-to-right tree over leaves 0..n-1 as nested lists."""
    tree = 0
    for i in range(1, n):
        tree = [tree, i]
    return tree


def lanes(n, width):
    """width interleaved chains, combined by halving (lane i takes leaves i, i+width, ...)."""
    chains = []
    for lane in range(width):
        leaves = list(range(lane, n, width))
        if not leaves:
            continue
        t = leaves[0]
        for leaf in leaves[1:]:
            t = [t, leaf]
        chains.append(t)

    def halve(items):
        if len(items) == 1:
            return items[0]
        mid = (len(items) + 1) // 2 if len(items) & (len(items) - 1) else len(items) // 2
        return [halve(items[:mid]), halve(items[mid:])]

    return halve(chains)


def by_n(backend):
    return {r["n"]: r for r in backend["lengths"]}


def characterize(a, args, expect, tmp):
    out = os.path.join(tmp, "c.json")
    proc = run(a.accucheck, ["characterize"] + args + ["--json", out, "--findings", os.path.join(tmp, "findings"), "--quiet"],
               expect)
    with open(out) as f:
        return proc, json.load(f)


KEYS = ["n", "stated_bound", "derived_bound", "relation", "order", "accumulation_bits", "determinism", "calls", "seconds"]


def mode_builtin(a, tmp):
    proc, data = characterize(a, ["naive_f32", "lanes8_f64", "kahan_f32", "--n", "5", "--n", "17", "--html",
                                  os.path.join(tmp, "c.html")], 0, tmp)
    require(data["tool"] == "accucheck characterize", "tool")
    backends = {b["backend"]: b for b in data["backends"]}
    require(set(backends) == {"naive_f32", "lanes8_f64", "kahan_f32"}, "backends: %s" % list(backends))
    for b in backends.values():
        for r in b["lengths"]:
            missing = [k for k in KEYS if k not in r]
            require(not missing, "%s n=%d lacks %s" % (b["backend"], r["n"], missing))
            require(r["calls"] > 0 and r["seconds"] >= 0, "calls and seconds")
    naive = by_n(backends["naive_f32"])
    for n in (5, 17):
        require(naive[n]["order"] == text(chain(n)), "naive_f32 n=%d order %s" % (n, naive[n]["order"]))
        require(naive[n]["accumulation_bits"] == 24, "naive_f32 bits %s" % naive[n]["accumulation_bits"])
        require(naive[n]["rounding"] == "nearest-even", "rounding %s" % naive[n]["rounding"])
        require(naive[n]["determinism"] == "bitwise-deterministic", naive[n]["determinism"])
    require(backends["naive_f32"]["derived_bound"] == "depths(sequential,f32)", backends["naive_f32"]["derived_bound"])
    require(backends["naive_f32"]["relation"] == "tighter", backends["naive_f32"]["relation"])
    lanes8 = by_n(backends["lanes8_f64"])
    require(lanes8[17]["order"] == text(lanes(17, 8)), "lanes8_f64 n=17 order %s" % lanes8[17]["order"])
    require(lanes8[17]["accumulation_bits"] == 53, "lanes8 bits")
    require(backends["lanes8_f64"]["derived_bound"] == "depths(lanes:8,f64)", backends["lanes8_f64"]["derived_bound"])
    kahan = backends["kahan_f32"]
    require(kahan["derived_bound"] == "kahan(f32)" and kahan["relation"] == "equal", "kahan: %s %s" % (kahan["derived_bound"], kahan["relation"]))
    require(all(r["order"] is None and r["order_class"] == "data-dependent" and r["compensated"] == "kahan" for r in kahan["lengths"]
                if r["n"] > 2), "kahan is reported as a compensated sum, not forced into a tree")
    # The derived expressions are ones accucheck parses: list them back through replay --bound.
    for b in backends.values():
        case = os.path.join(tmp, "one.json")
        with open(case, "w") as f:
            fmt = b["storage"]
            json.dump({"accucheck_case": 1, "workload": "dense", "format": fmt, "elements": 1, "steps": 2, "initial": ["1"],
                       "addends": [["0.5"], ["0.25"]]}, f)
        replayed = run(a.accucheck, ["replay", case, "--backend", b["backend"], "--bound", b["derived_bound"]], 0)
        require("stated bound " + b["derived_bound"] in replayed.stdout, "replay --bound shows the derived bound:\n" + replayed.stdout)
    # A chain of 4,097 leaves (height 4,096) in a file that Python's json reads with its default
    # recursion limit (1,000): trees are written flat (the bracket text and the parent list).
    _, deep = characterize(a, ["naive_f32", "--n", "4097"], 0, tmp)
    r = deep["backends"][0]["lengths"][0]
    deep_chain = "0"  # text(chain(4097)) would recurse past Python's limit, as nested JSON did
    for leaf in range(1, 4097):
        deep_chain = "(%s %d)" % (deep_chain, leaf)
    require(r["order"] == deep_chain, "the deep chain's order text: %s..." % (r["order"] or "")[:80])
    parents = r["order_parents"]
    require(len(parents) == 2 * 4097 - 1 and parents[0] == 4097 and parents[-1] == -1, "order_parents of the chain")
    # The terminal: the table, the tree drawn for n <= 16.
    require("order at n = 5: ((((0 1) 2) 3) 4)" in proc.stdout, "the small tree in the terminal:\n" + proc.stdout[-3000:])
    with open(os.path.join(tmp, "c.html")) as f:
        html = f.read()
    require(html.count("<svg") >= 4 and "leaf depth against position" in html and "summation tree over 17 leaves" in html,
            "the HTML report draws the trees and the depth plots")


def mode_plugin(a, tmp):
    # A plugin whose order cannot satisfy its stated bound: contradicted by a witness, no campaign.
    proc, data = characterize(a, ["--plugin", a.structures, "structures.chain_claims_pairwise_f32", "--n", "3", "--n", "9"], 1, tmp)
    b = data["backends"][0]
    require(b["relation"] == "contradicted", "chain claiming pairwise: %s" % b["relation"])
    require("deepest leaf" in b["relation_reason"], b["relation_reason"])
    n9 = by_n(b)[9]
    require(n9["order"] == text(chain(9)) and n9["relation"] == "contradicted" and n9["witness"], "n = 9: %s" % n9)
    require("campaign" not in proc.stdout, "no campaign ran")
    run(a.accucheck, ["replay", n9["witness"], "--plugin", a.structures], 1)
    # The example's wrong plugin: claims Kahan for a plain loop.
    _, data = characterize(a, ["--plugin", a.wrong, "example_wrong.claims_kahan_f32", "--n", "8"], 1, tmp)
    require(data["backends"][0]["relation"] == "contradicted", "claims_kahan: %s" % data["backends"][0]["relation"])
    # A right plugin: lanes of f64, recognised as lanes:4.
    _, data = characterize(a, ["--plugin", a.structures, "structures.lanes4_f64", "--n", "7", "--n", "16"], 0, tmp)
    b = data["backends"][0]
    require(by_n(b)[7]["order"] == text(lanes(7, 4)) and by_n(b)[16]["order"] == text(lanes(16, 4)), "lanes4 orders: %s" % b["lengths"])
    require(b["derived_bound"] == "depths(lanes:4,f64)" and b["relation"] == "tighter", "%s %s" % (b["derived_bound"], b["relation"]))


def mode_fused(a, tmp):
    # Fused nodes of 4 children with a 12-bit window: revealed as such, the window measured, and
    # the stated anyorder(f32) contradicted.
    _, data = characterize(a, ["--plugin", a.structures, "structures.fused4_window12_f32", "--n", "8", "--n", "16"], 1, tmp)
    b = data["backends"][0]
    n16 = by_n(b)[16]
    require(n16["order"] == text([[[[0, 1, 2, 3], [4, 5, 6, 7]], [8, 9, 10, 11]], [12, 13, 14, 15]]),
            "fused order: %s" % n16["order"])
    require(n16["max_arity"] == 4, "max_arity %s" % n16["max_arity"])
    require(n16["fused_window_bits"] == 12, "window %s (%s)" % (n16["fused_window_bits"], n16["accumulation_note"]))
    require(n16["accumulation_bits"] == 24, "bits of the chain over the groups: %s" % n16["accumulation_bits"])
    require(b["relation"] == "contradicted", b["relation"])
    require(n16["derived_bound"] == "" and "window" in n16["derived_note"], n16["derived_note"])


def mode_campaign(a, tmp):
    # characterize, then a campaign that judges the derived bounds at the probed lengths.
    proc = run(a.accucheck, ["characterize", "naive_f32", "pairwise_f16", "--n", "9", "--n", "33", "--minutes", "0.05", "--seed", "3",
                             "--quiet", "--findings", os.path.join(tmp, "findings")], 0)
    require("campaign with the derived bounds" in proc.stdout, proc.stdout[-2000:])
    require("depths(sequential,f32)" in proc.stdout.split("campaign with the derived bounds")[1], "the table states the derived bound")
    require("no violations" in proc.stdout, proc.stdout[-2000:])


def mode_bad_input(a, tmp):
    for args, needle in ([["characterize"], "BACKEND"],
                         [["characterize", "no_such_backend_*"], "matches no backend"],
                         [["characterize", "naive_f32", "--n", "1"], "--n"],
                         [["characterize", "naive_f32", "--workload", "bogus"], "workload"],
                         [["characterize", "naive_f32", "--workload", "sparse"], "does not run sparse"],
                         [["characterize", "naive_f32", "--minutes", "0"], "--minutes"],
                         [["characterize", "naive_f32", "--json", os.path.join(tmp, "no_dir", "x.json")], "does not exist"],
                         [["characterize", "naive_f32", "--plugin", os.path.join(tmp, "missing.so")], "missing.so"],
                         [["replay", "x.json", "--bound", "depths(pairwise,f32)"], "--bound"]):
        proc = run(a.accucheck, args, 2)
        require(needle in proc.stderr, "%s: stderr %r lacks %r" % (args, proc.stderr, needle))


def body():
    p = argparse.ArgumentParser()
    p.add_argument("--accucheck", required=True)
    p.add_argument("--structures", required=True)
    p.add_argument("--wrong", required=True)
    p.add_argument("--mode", required=True)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        globals()["mode_" + a.mode](a, tmp)


if __name__ == "__main__":
    main(body)
