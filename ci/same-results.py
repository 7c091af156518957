#!/usr/bin/env python3
"""Whether two `accucheck check --json` results are the same campaign's (issue 44: moving code must
not change what a seed gives): equal apart from wall times (keys with "seconds") and, for backends
whose determinism class admits run-to-run differences, their samples, max_ratio and max_ulps (a
threaded sum's result depends on the scheduling). Prints each difference; exit 0 same, 1 not.

    ci/same-results.py BEFORE.json AFTER.json
"""
import json
import sys

RUN_DEPENDENT = {"run-to-run-nondeterministic"}
VARYING = {"samples", "max_ratio", "max_ulps"}


def without_times(value):
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def comparable(results):
    results = without_times(results)
    for backend in results.get("backends", []):
        if backend.get("determinism") in RUN_DEPENDENT:
            for key in VARYING:
                backend.pop(key, None)
    return results


def differences(a, b, path="$"):
    if type(a) is not type(b):
        yield f"{path}: {a!r:.120} != {b!r:.120}"
    elif isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                yield f"{path}.{key}: only in {'after' if key not in a else 'before'}"
            else:
                yield from differences(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        if len(a) != len(b):
            yield f"{path}: {len(a)} entries != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            yield from differences(x, y, f"{path}[{i}]")
    elif a != b:
        yield f"{path}: {a!r:.120} != {b!r:.120}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = (comparable(json.load(open(p))) for p in sys.argv[1:])
    found = list(differences(before, after))
    for line in found[:50]:
        print(line)
    print(f"same-results: {'the same campaign' if not found else f'{len(found)} differences'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
