"""The entry of a CLI test script made of modes (jobs_test.py, options_test.py): --accucheck, --mode
(one of the script's MODES) and the plugins the script takes, then that mode in a temporary
directory of its own; exit 1 with FAIL on a Failure (clitest.main)."""
import argparse
import tempfile

from clitest import main


def run_modes(modes, prefix, plugins):
    """Runs modes[--mode](args, tmp), tmp a new temporary directory named prefix...; `plugins`
    maps each further option (a plugin's path, optional) to its help."""

    def body():
        parser = argparse.ArgumentParser()
        parser.add_argument("--accucheck", required=True)
        parser.add_argument("--mode", choices=sorted(modes), required=True)
        for option, what in plugins.items():
            parser.add_argument(option, help=what)
        args = parser.parse_args()
        with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
            modes[args.mode](args, tmp)

    main(body)
