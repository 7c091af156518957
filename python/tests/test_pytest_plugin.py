"""The pytest plugin: a test file of a few lines checks a backend; a violation fails the test with
the verdict table and the replay command, a correct backend passes."""
import os
import subprocess
import sys

from user_backends import LOOP, SKIPS_FIRST, backend

USER_TESTS = ("\nimport accucheck\n" + backend("plugin_loop_f32", LOOP) + backend("plugin_skips_first_f32", SKIPS_FIRST) + '''
def test_right(accucheck_check):
    accucheck_check(plugin_loop_f32, cases=100, seed=2)

def test_wrong(accucheck_check):
    accucheck_check(plugin_skips_first_f32, cases=100, seed=2)
''')


def test_the_fixture_fails_with_the_table_and_the_replay_command(tmp_path):
    path = tmp_path / "test_user_backend.py"
    path.write_text(USER_TESTS)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "accucheck.pytest_plugin", "-p", "no:cacheprovider",
                        str(path)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    assert "accucheck: " in out and "violation(s), seed 2" in out
    assert "plugin_skips_first_f32 f32    recursive(f32)" in out  # the verdict table's row
    assert "replay: accucheck replay " in out and "--python " + str(path) in out
    assert "plugin_loop_f32" not in out.split("FAILED")[-1] or "test_right" not in out.split("FAILED")[-1]
