"""The seed's question on a real model: a small transformer trained with gradient accumulation
over 16 and over 32 micro-batches, with bf16 and with fp32 gradients, under
accucheck.torch.watch: per parameter, how far each accumulated .grad is from the exact sum of its
micro-batch gradients, against the bound of the path (recursive in .grad's format), and how many
bits that cost. Writes one results file per configuration and report.html (their plots merged:
per parameter and format, the 16- and the 32-micro-batch windows side by side).

    examples/torch_watch/run.sh [OUT]            # from a fresh clone: environment, build, this
    python examples/torch_watch/transformer.py --out OUT [--optimizer-steps 3] [--sample 64]

docs/python.md, "In a training loop".
"""
import argparse
import os

import torch

import accucheck.torch

VOCAB, D_MODEL, HEADS, FEEDFORWARD, LAYERS, CONTEXT, MICRO_BATCH = 64, 64, 4, 128, 2, 16, 8


class TinyTransformer(torch.nn.Module):
    """Next-token prediction: embedding, two encoder layers (64 x 64 projections: 4,096 weights per
    matrix), a linear head. No dropout: the same steps with and without watching."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, D_MODEL)
        layer = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FEEDFORWARD, dropout=0.0, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.head = torch.nn.Linear(D_MODEL, VOCAB)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)))


def micro_batches(count, seed):
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(0, VOCAB, (MICRO_BATCH, CONTEXT + 1), generator=g) for _ in range(count)]


def train(dtype, accumulation_steps, optimizer_steps, sample, out, findings):
    """Trains a fresh model (seed 0) for optimizer_steps steps of accumulation_steps micro-batches
    each, watched; returns the report (also written as a results file)."""
    torch.manual_seed(0)
    model = TinyTransformer().to(dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = torch.nn.CrossEntropyLoss()
    label = f"{accumulation_steps} micro-batches"
    with accucheck.torch.watch(model, sample=sample, label=label, findings=findings) as watcher:
        for step in range(optimizer_steps):
            for tokens in micro_batches(accumulation_steps, seed=1000 * step + accumulation_steps):
                logits = model(tokens[:, :-1])
                loss = loss_fn(logits.reshape(-1, VOCAB).float(), tokens[:, 1:].reshape(-1)) / accumulation_steps
                loss.backward()
            optimizer.step()
            optimizer.zero_grad()  # set_to_none: the next window starts from the first micro-batch
        report = watcher.report()
    fmt = {torch.bfloat16: "bf16", torch.float32: "f32"}[dtype]
    report.write_json(os.path.join(out, f"torch-watch-{fmt}-{accumulation_steps}.json"))
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="torch-watch-example", help="folder for the results files and report.html")
    parser.add_argument("--optimizer-steps", type=int, default=3)
    parser.add_argument("--sample", type=int, default=64, help="elements watched per parameter")
    parser.add_argument("--steps", type=int, nargs="+", default=[16, 32], help="micro-batches per optimizer step")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    findings = os.path.join(args.out, "findings")
    reports = {}
    for dtype in (torch.bfloat16, torch.float32):
        for steps in args.steps:
            reports[(dtype, steps)] = train(dtype, steps, args.optimizer_steps, args.sample, args.out, findings)
    # Per parameter and format: error/bound and bits lost as the number of micro-batches grows.
    names = [r.name for r in next(iter(reports.values())).rows]
    header = "parameter".ljust(40) + "".join(f"{fmt} {s:>2} steps: ratio  bits  " for fmt in ("bf16", "f32")
                                              for s in args.steps)
    print(header)
    for name in names:
        cells = []
        for dtype in (torch.bfloat16, torch.float32):
            for steps in args.steps:
                row = next(r for r in reports[(dtype, steps)].rows if r.name == name)
                cells.append(f"{row.max_ratio:>17.3g} {row.bits_lost:>5.1f}  ")
        print(name.ljust(40) + "".join(cells))
    violated = [(str(d).replace("torch.", ""), s, r.name) for (d, s), rep in reports.items() for r in rep.rows
                if r.violated]
    print(f"violations: {len(violated)}" + (f" {violated}" if violated else " (every window within its bound)"))
    files = [os.path.join(args.out, f"torch-watch-{f}-{s}.json") for f in ("bf16", "f32") for s in args.steps]
    first = reports[(torch.bfloat16, args.steps[0])]
    first.write_html(os.path.join(args.out, "report.html"), *files[1:])
    print(f"wrote {', '.join(files)} and {os.path.join(args.out, 'report.html')}")


if __name__ == "__main__":
    main()
