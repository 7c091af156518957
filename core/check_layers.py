#!/usr/bin/env python3
"""core's layers are its folders, each including only itself and the folders before it:

    numerics <- checking <- io <- plugins <- engine <- characterize

A source or header in core/<layer>/ that includes "<later layer>/..." is a layer break: printed
with file and line, exit 1. Tests (*_test.cpp) link all of core and may use a later layer's
helpers (a numerics test judging through checking's exact_sums). Headers are included by folder from core/
("checking/bound.h"); the plugin ABI header "accucheck/plugin.h" (core/include) is below every
layer. ctest core_layers runs it over core/; --selftest checks that it catches a planted break.

    check_layers.py CORE_DIR
    check_layers.py --selftest
"""
import os
import re
import sys
import tempfile

LAYERS = ["numerics", "checking", "io", "plugins", "engine", "characterize"]
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"/]+)/[^"]+"', re.M)
TEST = re.compile(r"_test\.(cpp|cc)$")
SOURCE = re.compile(r"\.(h|hpp|cpp|cc|c|cu|cuh)$")


def breaks(core):
    found = []
    for rank, layer in enumerate(LAYERS):
        folder = os.path.join(core, layer)
        if not os.path.isdir(folder):
            found.append(f"{folder}: missing (a layer is a folder)")
            continue
        for directory, _, files in os.walk(folder):
            for name in sorted(files):
                if not SOURCE.search(name) or TEST.search(name):
                    continue
                path = os.path.join(directory, name)
                text = open(path, encoding="utf-8").read()
                for match in INCLUDE.finditer(text):
                    included = match.group(1)
                    if included in LAYERS and LAYERS.index(included) > rank:
                        line = text.count("\n", 0, match.start()) + 1
                        found.append(f"{path}:{line}: {layer} includes {match.group(0).strip()}: "
                                     f"{included} comes after {layer} ({' <- '.join(LAYERS)})")
    return found


def selftest():
    with tempfile.TemporaryDirectory() as core:
        for layer in LAYERS:
            os.makedirs(os.path.join(core, layer))
        with open(os.path.join(core, "checking", "fine.cpp"), "w") as f:
            f.write('#include "numerics/format.h"\n#include "checking/bound.h"\n#include "accucheck/plugin.h"\n')
        with open(os.path.join(core, "checking", "fine_test.cpp"), "w") as f:
            f.write('#include "engine/findings.h"\n')
        assert breaks(core) == [], breaks(core)
        with open(os.path.join(core, "checking", "broken.h"), "w") as f:
            f.write('#pragma once\n\n#include "io/json.h"\n')
        found = breaks(core)
        assert len(found) == 1 and "broken.h:3: checking includes" in found[0] and "io/json.h" in found[0], found
    print("check_layers: --selftest: a planted break is caught, the allowed includes pass")
    return 0


def main():
    if sys.argv[1:] == ["--selftest"]:
        return selftest()
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    found = breaks(sys.argv[1])
    for line in found:
        print(line)
    print(f"check_layers: {len(found)} layer breaks" if found else "check_layers: every layer includes only itself and those before it")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
