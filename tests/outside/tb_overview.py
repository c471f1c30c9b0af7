"""TensorBoard's profiler plugin (torch-tb-profiler) computes sane totals for our traces.

Run by ctest with any python3 (it re-runs itself in the test venv):
    tb_overview.py PROGRAM CASE WORK_DIR VENV_DIR
PROGRAM is a vitals program whose CASE records no operator of its own (a plain
statement): profiled without steps, its trace holds one annotation and nothing else.
The plugin spans a trace without ProfilerStep#N by its operators alone, so such a
trace once showed `Total: -18446744073709551615us`. Checked here, with the plugin's own
loader: the step total is positive and equals the annotation's duration; and a trace
with steps has positive totals for every step.
Exit 77 (skipped) when the venv cannot be made, unless VITALS_REQUIRE_OUTSIDE_TOOLS is set.
"""
import json
import os
import subprocess
import sys
import tempfile

from venv_support import enter_venv, fail

IN_VENV = "VITALS_TB_CHECK_IN_VENV"


def step_totals(trace):
    from torch_tb_profiler.profiler.data import RunProfileData
    from torch_tb_profiler.profiler.event_parser import ProfileRole
    data = RunProfileData.parse("worker", "span", trace, tempfile.gettempdir())
    return data.steps_names, [c.costs[ProfileRole.Total] for c in data.steps_costs]


def main():
    program, case, work, venv = sys.argv[1:5]
    if not os.environ.get(IN_VENV):
        enter_venv(venv, __file__, "torch_tb_profiler.profiler.data", IN_VENV)
    os.makedirs(work, exist_ok=True)
    plain = os.path.join(work, "no-steps.pt.trace.json")
    subprocess.run([program, "profile", case, "--trace", plain], check=True, capture_output=True)
    with open(plain) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    if not events:
        fail(f"{plain} has no events")
    span = max(e["ts"] + e["dur"] for e in events) - min(e["ts"] for e in events)
    names, totals = step_totals(plain)
    if len(totals) != 1 or not (totals[0] > 0):
        fail(f"the plugin's totals for a trace without steps: {names} {totals}")
    if abs(totals[0] - span) > 1.0:
        fail(f"the plugin's total {totals[0]} us is not the span of the events, {span} us")
    stepped = os.path.join(work, "steps.pt.trace.json")
    subprocess.run([program, "profile", case, "--steps", "3", "--trace", stepped], check=True, capture_output=True)
    names, totals = step_totals(stepped)
    if not totals or any(not (t > 0) for t in totals):
        fail(f"the plugin's step totals for a trace with steps: {names} {totals}")
    print(f"torch-tb-profiler: no steps -> Total {totals and step_totals(plain)[1][0]:.3f} us; steps {names} -> {totals}")


if __name__ == "__main__":
    main()
