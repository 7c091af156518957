#!/usr/bin/env python3
"""Writes the example gradient traces of examples/traces/ (committed; rerun to regenerate).

The gradients are those a training loop accumulates over micro-batches before one optimizer
step (gradient accumulation, grad_req 'add'): every micro-batch is run with the same weights
and its gradient is saved, so `accucheck trace` sees exactly the addends an accumulator sums.

  softmax_weight_grad_f32.npy  float32 (16, 8, 4): the weight gradient of a softmax regression
                               (8 features of magnitudes 1e-3 .. 1e2, 4 classes) over 16
                               micro-batches of 8 samples; signs cancel across micro-batches.
  softmax_weight_grad_f16.npy  the same gradients in float16 ('<f2').
  softmax_weight_grad_bf16.npy the same gradients in bfloat16, stored as uint16 bit patterns
                               ('<u2'): pass --bf16.
  embedding_indices.npy        int64 (16, 6): the tokens of 16 micro-batches of 6, Zipf-like
                               (a few tokens repeat often, most of the 20-row vocabulary is rare).
  embedding_rows.npy           float32 (16, 6, 4): the gradient row of each token.

Run:  python3 examples/traces/make_traces.py [OUTDIR]     (default: this script's directory)
Uses numpy.save when numpy is installed and writes the same bytes with the struct module when it
is not: the values are computed in Python floats (binary64) either way and rounded once to the
storage format (struct's 'f' and 'e' formats round to nearest even; bf16 is rounded here).
"""
import math
import os
import random
import struct
import sys

T, BATCH, FEATURES, CLASSES = 16, 8, 8, 4
VOCAB, TOKENS, DIM = 20, 6, 4


def softmax_gradients(rng):
    scale = [10.0 ** e for e in (-3, -2, -1, 0, 0, 1, 1, 2)]
    weights = [[rng.gauss(0, 0.1) for _ in range(CLASSES)] for _ in range(FEATURES)]
    grads = []  # T x FEATURES x CLASSES
    for _ in range(T):
        g = [[0.0] * CLASSES for _ in range(FEATURES)]
        for _ in range(BATCH):
            x = [rng.gauss(0, 1) * s for s in scale]
            label = rng.randrange(CLASSES)
            logits = [sum(x[i] * weights[i][c] for i in range(FEATURES)) for c in range(CLASSES)]
            top = max(logits)
            e = [math.exp(l - top) for l in logits]
            total = sum(e)
            for c in range(CLASSES):
                d = e[c] / total - (1.0 if c == label else 0.0)
                for i in range(FEATURES):
                    g[i][c] += x[i] * d / BATCH
        grads.append(g)
    return grads


def embedding(rng):
    weights = [1.0 / (k + 1) ** 1.2 for k in range(VOCAB)]
    indices = [[rng.choices(range(VOCAB), weights)[0] for _ in range(TOKENS)] for _ in range(T)]
    rows = [[[rng.gauss(0, 1e-2) for _ in range(DIM)] for _ in range(TOKENS)] for _ in range(T)]
    return indices, rows


def flatten(nested):
    if isinstance(nested, list):
        return [v for item in nested for v in flatten(item)]
    return [nested]


def bf16_bits(x):
    (bits,) = struct.unpack("<I", struct.pack("<f", x))  # round to f32 first, as a bf16 cast of an f32 tensor does
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
        return (bits >> 16) | 0x40
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def npy_bytes(descr, shape, payload):
    shape_text = "(%d,)" % shape[0] if len(shape) == 1 else "(" + ", ".join(str(d) for d in shape) + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + payload


def save(path, descr, shape, values):
    code = {"<f4": "f", "<f2": "e", "<u2": "H", "<i8": "q"}[descr]
    payload = struct.pack("<%d%s" % (len(values), code), *values)
    try:
        import numpy
        array = numpy.frombuffer(payload, dtype=numpy.dtype(descr)).reshape(shape)
        numpy.save(path, array)
    except ImportError:
        with open(path, "wb") as f:
            f.write(npy_bytes(descr, shape, payload))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rng = random.Random(16686)
    grads = flatten(softmax_gradients(rng))
    shape = (T, FEATURES, CLASSES)
    save(os.path.join(out, "softmax_weight_grad_f32.npy"), "<f4", shape, grads)
    save(os.path.join(out, "softmax_weight_grad_f16.npy"), "<f2", shape, grads)
    save(os.path.join(out, "softmax_weight_grad_bf16.npy"), "<u2", shape, [bf16_bits(g) for g in grads])
    indices, rows = embedding(rng)
    save(os.path.join(out, "embedding_indices.npy"), "<i8", (T, TOKENS), flatten(indices))
    save(os.path.join(out, "embedding_rows.npy"), "<f4", (T, TOKENS, DIM), flatten(rows))
    print("wrote 5 traces to " + out)


if __name__ == "__main__":
    main()
