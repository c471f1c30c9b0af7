"""The results file as two dashboards read Google Benchmark's JSON, their parse rules
written down (neither runs offline: github-action-benchmark is a GitHub Action, Bencher a
server):

  - github-action-benchmark, tool `googlecpp`: every entry of `benchmarks` becomes one
    point of a series named by its `name`: value `real_time`, unit `time_unit` + "/iter",
    with `iterations`, `cpu_time` and `threads` in its extra text. An entry without a
    real_time is charted as undefined; two entries of one name are two points of one
    series in one run.
  - Bencher, adapter `cpp_google`: each entry's `name` (a string), `real_time` (a
    number), `time_unit` (ns, us, ms or s) and `iterations` (a whole number) are required,
    and of two entries with one name the last is kept.

    dashboards_check.py VITALS WORK_DIR

Checks that `vitals run --json-layout medians` (with a CUDA case, skipped where there is
no GPU) gives what both want: one entry per measured case, every field present with its
type, a real time above zero equal to the case's median; the unmeasured cases listed in
the context instead. And that the default layout, which keeps every block, does not (so
the docs' advice to feed dashboards the medians layout stands).
"""
import json
import os
import subprocess
import sys

MEASURED = ["relu/32x1024/cpu-f32", "nonzero/1M-10pct/cpu-bool"]
SKIPPED = "relu/32x1024/cuda-f32"  # no GPU here; where there is one, it is measured
UNITS = ("ns", "us", "ms", "s")


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def problems(entries):
    """What the two parsers would trip on, one line each."""
    found = []
    seen = set()
    for e in entries:
        name = e.get("name")
        if not isinstance(name, str) or not name:
            found.append(f"an entry without a name: {e}")
            continue
        if name in seen:
            found.append(f"{name}: a second entry of one name (two points, or one lost)")
        seen.add(name)
        for field, kind in (("real_time", (int, float)), ("cpu_time", (int, float)), ("iterations", int),
                            ("threads", int)):
            if not isinstance(e.get(field), kind) or isinstance(e.get(field), bool):
                found.append(f"{name}: {field} is {e.get(field)!r}")
        if e.get("time_unit") not in UNITS:
            found.append(f"{name}: time_unit is {e.get('time_unit')!r}")
        if isinstance(e.get("real_time"), (int, float)) and not e["real_time"] > 0:
            found.append(f"{name}: real_time {e['real_time']} would be charted")
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: dashboards_check.py VITALS WORK_DIR")
    vitals, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    names = "|".join(MEASURED + [SKIPPED])
    path = os.path.join(work, "medians.json")
    subprocess.run([vitals, "run", "--filter", f"^({names})$", "--min-run-time", "0.05", "--json", path,
                    "--json-layout", "medians"], check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        doc = json.load(f)
    entries = doc["benchmarks"]
    found = problems(entries)
    if found:
        fail("the medians layout is not what googlecpp and cpp_google read:\n  " + "\n  ".join(found))
    listed = {e["name"] for e in entries}
    not_measured = {e["name"] for e in doc["context"].get("vitals_not_measured", [])}
    if not set(MEASURED) <= listed or (listed | not_measured) != set(MEASURED + [SKIPPED]):
        fail(f"measured {sorted(listed)}, not measured {sorted(not_measured)}")

    blocks = os.path.join(work, "blocks.json")
    subprocess.run([vitals, "run", "--filter", f"^({names})$", "--min-run-time", "0.05", "--json", blocks],
                   check=True, stdout=subprocess.DEVNULL)
    with open(blocks) as f:
        if not problems(json.load(f)["benchmarks"]):
            fail("the blocks layout passed the dashboards' rules: the docs' advice would be needless")
    print(f"medians layout: {len(entries)} entries, one per measured case, as googlecpp and cpp_google read them; "
          f"not measured, in the context: {sorted(not_measured) or 'none'}")


if __name__ == "__main__":
    main()
