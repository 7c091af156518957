"""What the tests of a user's backend file share (test_cli.py, test_interpreters.py,
test_pytest_plugin.py): the backends several of them write, one text each under each test's own
names (accucheck reports a backend by its function's name), the file written, and the CLI run on
it."""
import os
import subprocess

# acc += g, one micro-batch after another: right for recursive(storage).
LOOP = """\
for row in addends:
    buffer += row"""

# planted: MXNet's ElemwiseSum counted the running sum again with more than four inputs.
COUNTED_TWICE = """\
for t, row in enumerate(addends):
    buffer += row
    if t == 4:
        buffer += row"""

# planted: the first micro-batch is lost.
SKIPS_FIRST = """\
for row in addends[1:]:
    buffer += row"""

# A backend's own failures, never accucheck's (the file imports os and signal for CRASHES).
RAISES = 'raise ValueError("no kernel for this shape")'
CRASHES = "os.kill(os.getpid(), signal.SIGSEGV)"


def backend(name, body, storage="f32", doc=None, **options):
    """The source of a backend `name(addends, buffer)` whose lines are `body`, decorated
    @accucheck.backend(storage=<storage>, bound="recursive(<storage>)", <options>...) and with the
    docstring `doc` (its summary) when given. A blank line first, as between definitions."""
    arguments = [f'storage="{storage}"', f'bound="recursive({storage})"'] + [f'{k}="{v}"' for k, v in options.items()]
    lines = ["", f"@accucheck.backend({', '.join(arguments)})", f"def {name}(addends, buffer):"]
    if doc:
        lines.append(f'    """{doc}"""')
    lines += ["    " + line for line in body.splitlines()]
    return "\n".join(lines) + "\n"


def written(path, text):
    """`text` written to `path` (a pathlib.Path); the path as a string, as the CLI takes it."""
    path.write_text(text)
    return str(path)


def run_cli(*args, env=None, timeout=300):
    """The CLI (ACCUCHECK_CLI) with `args`, in this process's environment plus `env`; its output
    captured as text."""
    return subprocess.run([os.environ["ACCUCHECK_CLI"], *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
