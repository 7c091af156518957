#!/usr/bin/env python3
"""Does `accucheck characterize` see the same accumulator in a GPU kernel as in its CPU order model?

usage: compare_characterizations.py KERNEL.json MODEL.json
Both files are `characterize --json` output for one backend each (ci/gpu-check.sh: the kernel run
on the GPU, its cuda_model_* on the host). At every length both probed, the recovered order
(class, tree, shape), accumulation bits, rounding, determinism, subnormal handling and derived
bound must be the same; prints one line, exits 1 on a difference. A kernel equal to its model bit
for bit (cuda_backends_test) must pass; what this adds is that the black-box method recovers it.
"""
import json
import sys

KEYS = ("order_class", "order_parents", "shape", "accumulation_bits", "rounding", "determinism",
        "flushes_subnormal_inputs", "flushes_subnormal_results", "compensated", "derived_bound")


def lengths(path):
    backend = json.load(open(path))["backends"][0]
    return backend["backend"], {entry["n"]: entry for entry in backend["lengths"]}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        kernel, kernel_lengths = lengths(sys.argv[1])
        model, model_lengths = lengths(sys.argv[2])
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"characterize did not write a characterization: {e} (its .txt beside the .json says why)")
        return 2
    common = sorted(set(kernel_lengths) & set(model_lengths))
    differences = [f"n = {n}: {key} {kernel_lengths[n].get(key)!r} on the GPU, {model_lengths[n].get(key)!r} in the model"
                   for n in common for key in KEYS if kernel_lengths[n].get(key) != model_lengths[n].get(key)]
    if not common:
        print(f"characterize {kernel} vs {model}: no length probed in both")
        return 1
    if differences:
        print(f"characterize {kernel} vs {model}: {len(differences)} difference(s); first: {differences[0]}")
        return 1
    print(f"characterize {kernel} vs {model}: the same at all {len(common)} lengths probed in both (n = {common[0]} .. {common[-1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
