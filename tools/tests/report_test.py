#!/usr/bin/env python3
"""The HTML report opens in headless Chromium and shows every backend with its plots.

Builds a report from a campaign over every backend (with the good example plugin, so plugin
backends are covered) and a trace, merged by `accucheck report`, and the one `check --html`
writes; checks that the file is self-contained (no scripts, no external URLs); renders it with
headless Chromium (--dump-dom: every backend's name and plots are in the rendered DOM;
--screenshot: a non-trivial PNG). Exits 77 (ctest: skipped) with a message only when Chromium
cannot run at all (ci/install-deps.sh installs Debian's chromium).
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from clitest import Failure, main, require, run

SKIP = 77


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(binary, profile, *args, timeout=180):
    cmd = [binary, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-dev-shm-usage",
           "--user-data-dir=" + profile] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def body():
    parser = argparse.ArgumentParser()
    for option in ("--accucheck", "--source", "--good"):
        parser.add_argument(option)
    args = parser.parse_args()
    a = args.accucheck
    binary = chromium_binary()
    if not binary:
        print("SKIPPED: no chromium binary on PATH (ci/install-deps.sh installs Debian's chromium)")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory(prefix="accucheck_report_test_") as tmp:
        profile = os.path.join(tmp, "profile")
        probe = os.path.join(tmp, "probe.html")
        with open(probe, "w") as f:
            f.write("<!DOCTYPE html><p id=probe>chromium runs</p>")
        try:
            p = chromium(binary, profile, "--dump-dom", "file://" + probe, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            print("SKIPPED: chromium cannot run at all: %s" % e)
            sys.exit(SKIP)
        if "chromium runs" not in p.stdout:
            print("SKIPPED: chromium cannot run at all (exit %d): %s" % (p.returncode, p.stderr[-2000:]))
            sys.exit(SKIP)

        check_json = os.path.join(tmp, "check.json")
        direct_html = os.path.join(tmp, "direct.html")
        run(a, ["check", "--cases", 60, "--seed", 5, "--plugin", args.good, "--findings", os.path.join(tmp, "f"), "--quiet",
                "--json", check_json, "--html", direct_html], 0)
        trace_json = os.path.join(tmp, "trace.json")
        run(a, ["trace", os.path.join(args.source, "examples", "traces", "softmax_weight_grad_f32.npy"), "--json", trace_json], 0)
        html = os.path.join(tmp, "report.html")
        out = run(a, ["report", "--html", html, "--json", check_json, trace_json], 0).stdout
        require("from 2 results file(s)" in out, out)
        names = [b["name"] for b in json.load(open(check_json))["backends"]]
        require(any(n.startswith("example.") for n in names) and "naive_f32" in names, "backends: %s" % names)

        for path in (html, direct_html):
            text = open(path, encoding="utf-8").read()
            require("<script" not in text.lower(), "the report has scripts")
            external = [u for u in re.findall(r'(?:href|src)="([^"#][^"]*)"', text)]
            require(not external, "the report references external resources: %s" % external[:5])
            dom = chromium(binary, profile, "--dump-dom", "file://" + path).stdout
            require("accucheck report" in dom, "%s: the rendered DOM lacks the title" % path)
            for name in names:
                require('id="b-%s"' % re.sub(r"[^A-Za-z0-9_-]", "_", name) in dom and ">%s</h3>" % name in dom,
                        "%s: backend %s is not in the rendered page" % (path, name))
            svgs = dom.count("<svg")
            require(svgs >= 2 * len(names) + 1, "%s: %d plots for %d backends" % (path, svgs, len(names)))
            for plot in ("error vs number of addends", "bits lost vs condition number", "error/bound by generator family"):
                require(plot in dom, "%s: no plot %r" % (path, plot))
            require(dom.count("<circle") > 1000, "%s: the plots have too few points" % path)
            require("<polyline" in dom, "%s: no bound line" % path)
        # The merged report also has the trace's family.
        require("trace:softmax_weight_grad_f32.npy" in open(html).read(), "the trace's samples are not in the report")

        png = os.path.join(tmp, "report.png")
        shot = chromium(binary, profile, "--screenshot=" + png, "--window-size=1400,3000", "file://" + html)
        require(os.path.exists(png), "no screenshot: " + shot.stderr[-2000:])
        with open(png, "rb") as f:
            head = f.read(24)
        require(head[:8] == b"\x89PNG\r\n\x1a\n", "the screenshot is not a PNG")
        width, height = struct.unpack(">II", head[16:24])
        require((width, height) == (1400, 3000), "screenshot size %dx%d" % (width, height))
        # A blank page compresses to a few kilobytes; the report's tables and plots do not.
        require(os.path.getsize(png) > 100000, "the screenshot looks empty (%d bytes)" % os.path.getsize(png))
        print("rendered %s: %d backends, %d bytes of PNG" % (html, len(names), os.path.getsize(png)))


if __name__ == "__main__":
    main(body)
