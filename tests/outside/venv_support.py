"""What the checks run in the test venv share: failing, skipping, and re-running a
check script inside the venv that scripts/test-venv.sh makes."""
import os
import subprocess
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def skip_or_fail(reason):
    """Exit 77 (skipped), or fail when VITALS_REQUIRE_OUTSIDE_TOOLS is set (make test sets it)."""
    if os.environ.get("VITALS_REQUIRE_OUTSIDE_TOOLS"):
        fail(reason + " (VITALS_REQUIRE_OUTSIDE_TOOLS is set)")
    print("SKIPPED: " + reason)
    sys.exit(77)


def enter_venv(venv, script, module, marker):
    """Makes the venv (idempotent), checks that it imports `module`, and re-runs `script`
    in it with the environment variable `marker` set, so that the re-run stays there."""
    maker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "test-venv.sh")
    made = subprocess.run(["bash", maker, venv], capture_output=True, text=True)
    if made.returncode != 0:
        skip_or_fail(f"scripts/test-venv.sh {venv} exited {made.returncode}:\n{made.stdout}{made.stderr}".rstrip())
    python = os.path.join(venv, "bin", "python")
    probe = subprocess.run([python, "-c", f"import {module}"], capture_output=True, text=True)
    if probe.returncode != 0:
        skip_or_fail(f"the venv {venv} does not import {module}:\n{probe.stderr.strip()}")
    os.environ[marker] = "1"
    sys.stdout.flush()
    os.execv(python, [python, os.path.abspath(script), *sys.argv[1:]])
