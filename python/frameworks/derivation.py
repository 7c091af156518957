"""What the framework backend files share in stating their bounds (docs/frameworks.md).

A bound read in one release's source says nothing about another's kernels: each backend file
names the version it was derived for, its backends' summaries carry it, and loading the file
under another version warns (the CLI shows what a file wrote while loading as a warning)."""
import sys


def derived_for(library: str, derived: str, installed: str) -> str:
    """Warns on stderr when `installed` is not `derived`; returns the summaries' suffix."""
    if installed.split("+")[0] != derived:
        print(f"warning: the bounds of these {library} backends were derived for {library} {derived} "
              f"(docs/frameworks.md); this is {library} {installed}: a pass says nothing until they are "
              "re-derived for it", file=sys.stderr)
    return f" [bounds derived for {library} {derived}]"


def in_f32(fmt: str, f32_bound: str = "recursive(f32)") -> str:
    """The bound of a sum accumulated in f32 and stored in `fmt`: the f32 bound itself, or for a
    16-bit format that bound widened by the one rounding to it (docs/bounds.md, `widened`)."""
    return f32_bound if fmt == "f32" else f"widened({f32_bound},{fmt})"
