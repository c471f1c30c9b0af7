"""Google Benchmark's own tools/compare.py reads vitals results files.

Run by ctest with Debian's python3 (compare.py needs its numpy and scipy):
    gbench_compare.py VITALS GBENCH_SAMPLE WORK_DIR
Checks, in each of compare.py's modes:
  - two vitals files (`benchmarks`): every case pairs, and compare.py's U-test p-value
    is the one `vitals compare --json` gives for the same blocks;
  - two aggregates-only vitals files: one row per aggregate, none per block, and
    vitals compare, report and merge read them (a Google Benchmark aggregates-only file
    too);
  - `filters`: two cases of one vitals file (f32 against f64);
  - `benchmarksfiltered`: a vitals case written with --time-unit us against a Google
    Benchmark entry in microseconds pairs (compare.py pairs entries of one unit only);
  - two `--json-layout medians` files: one row per case, none per block or aggregate,
    and vitals compare reads them as medians (untested).
Exit 77 (skipped) when compare.py is not installed, unless VITALS_REQUIRE_OUTSIDE_TOOLS
is set (make test sets it, after installing libbenchmark-tools).
"""
import json
import os
import subprocess
import sys

COMPARE_PY = "/usr/share/benchmark/compare.py"
CASE = "relu/32x1024/cpu-f32"


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(argv, **kwargs):
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        fail(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def compare_py(mode, *args, dump):
    run([sys.executable, COMPARE_PY, "--no-color", "-d", dump, mode, *args])
    with open(dump) as f:
        return json.load(f)


def main():
    vitals, gbench_sample, work = sys.argv[1:4]
    try:
        import numpy, scipy  # noqa: F401  (compare.py's imports)
        have_tools = os.path.exists(COMPARE_PY)
    except ImportError:
        have_tools = False
    if not have_tools:
        why = f"{COMPARE_PY} with python3-numpy and python3-scipy is not installed (make test-deps installs them)"
        if os.environ.get("VITALS_REQUIRE_OUTSIDE_TOOLS"):
            fail(why)
        print("SKIPPED: " + why)
        sys.exit(77)
    os.makedirs(work, exist_ok=True)
    path = lambda name: os.path.join(work, name)
    measure = ["--filter", "^relu/32x1024/cpu-f(32|64)$", "--min-run-time", "0.05"]

    # 1. Two vitals files, every block: the pairs and the p-values.
    run([vitals, "run", *measure, "--json", path("before.json")])
    run([vitals, "run", *measure, "--json", path("after.json")])
    rows = compare_py("benchmarks", path("before.json"), path("after.json"), dump=path("both.json"))
    ours = json.loads(run([vitals, "compare", path("before.json"), path("after.json"), "--json", "-"]))
    for case in ours["cases"]:
        row = next((r for r in rows if r["name"] == case["name"] and r["run_type"] == "iteration"), None)
        if row is None:
            fail(f"compare.py did not pair {case['name']}: {[r['name'] for r in rows]}")
        theirs = row["utest"]["time_pvalue"]
        if abs(theirs - case["p_value"]) > 1e-9 + 1e-6 * theirs:
            fail(f"{case['name']}: compare.py's p-value {theirs} but vitals compare says {case['p_value']}")
        if row["time_unit"] != "ns":
            fail(f"{case['name']} was written in {row['time_unit']}, not in ns, the default")

    # 2. Aggregates only: one row per aggregate, read back by every command.
    run([vitals, "run", *measure, "--json", path("agg_before.json"), "--json-aggregates-only"])
    run([vitals, "run", *measure, "--json", path("agg_after.json"), "--json-aggregates-only"])
    with open(path("agg_before.json")) as f:
        entries = json.load(f)["benchmarks"]
    measured = [e for e in entries if not e.get("error_occurred")]
    if any(e["run_type"] != "aggregate" for e in measured) or len(measured) != 2 * 7:
        fail(f"an aggregates-only file should hold 7 aggregates for each of 2 cases: {[e['name'] for e in measured]}")
    rows = compare_py("benchmarks", path("agg_before.json"), path("agg_after.json"), dump=path("agg.json"))
    medians = [r for r in rows if r["name"] == CASE + "_median"]
    if len(medians) != 1 or not medians[0]["measurements"]:
        fail(f"compare.py did not pair the median of {CASE}: {[r['name'] for r in rows]}")
    text = run([vitals, "compare", path("agg_before.json"), path("agg_after.json")])
    if "aggregates only" not in text or CASE not in text:
        fail("vitals compare of aggregates-only files:\n" + text)
    gb_aggregates = path("gbench_agg.json")
    run([gbench_sample, "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true",
         "--benchmark_min_time=0.01", f"--benchmark_out={gb_aggregates}", "--benchmark_out_format=json"])
    run([vitals, "merge", path("agg_before.json"), gb_aggregates, "-o", path("merged.json")])
    text = run([vitals, "compare", path("merged.json"), path("agg_after.json")])
    if CASE not in text or "only in" not in text or "BM_Sum" not in text:
        fail("vitals compare of a merge of aggregates-only files:\n" + text)
    text = run([vitals, "compare", gb_aggregates, gb_aggregates])
    if "BM_Sum" not in text or "aggregates only" not in text:
        fail("vitals compare of a Google Benchmark aggregates-only file:\n" + text)
    markdown = run([vitals, "report", gb_aggregates, "--markdown", "-"])
    if "`BM_Sum`" not in markdown:
        fail("vitals report --markdown of a Google Benchmark aggregates-only file has no row:\n" + markdown)

    # 3a. `filters`: two cases of one vitals file, f32 against f64, paired under one name.
    rows = compare_py("filters", path("before.json"), "cpu-f32", "cpu-f64", dump=path("filters.json"))
    pairs = [r for r in rows if r["run_type"] == "iteration" and r["measurements"]]
    if len(pairs) != 1 or len(pairs[0]["measurements"]) < 2:
        fail(f"compare.py filters should pair the f32 case's blocks with the f64 case's: {rows}")

    # 3b. A vitals case against a Google Benchmark entry in microseconds.
    run([vitals, "run", *measure, "--json", path("before_us.json"), "--time-unit", "us"])
    gb_file = path("gbench.json")
    run([gbench_sample, "--benchmark_repetitions=9", "--benchmark_min_time=0.01", f"--benchmark_out={gb_file}",
         "--benchmark_out_format=json"])
    rows = compare_py("benchmarksfiltered", path("before_us.json"), "^" + CASE + "$", gb_file, "^BM_Sum$",
                      dump=path("filtered.json"))
    paired = [r for r in rows if r["run_type"] == "iteration" and r["measurements"]]
    if not paired:
        fail(f"compare.py dropped the pairing of {CASE} with BM_Sum (time units differ?): {rows}")

    # 4. One entry per case (--json-layout medians), as dashboards want it.
    run([vitals, "run", *measure, "--json", path("med_before.json"), "--json-layout", "medians"])
    run([vitals, "run", *measure, "--json", path("med_after.json"), "--json-layout", "medians"])
    with open(path("med_before.json")) as f:
        entries = json.load(f)["benchmarks"]
    names = [e["name"] for e in entries]
    if len(names) != 2 or len(set(names)) != 2 or any(e["real_time"] <= 0 or e["run_type"] != "iteration" for e in entries):
        fail(f"a medians file should hold one timed entry per case: {entries}")
    rows = compare_py("benchmarks", path("med_before.json"), path("med_after.json"), dump=path("med.json"))
    if sorted(r["name"] for r in rows if r["run_type"] == "iteration") != sorted(names):
        fail(f"compare.py should pair each case of two medians files once: {[r['name'] for r in rows]}")
    text = run([vitals, "compare", path("med_before.json"), path("med_after.json")])
    if "aggregates only" not in text or CASE not in text:
        fail("vitals compare of medians files:\n" + text)
    print(f"compare.py: {len(ours['cases'])} cases paired with p-values equal to ours; aggregates-only files read; "
          f"{CASE} paired with BM_Sum in {paired[0]['time_unit']}; medians files pair once per case")


if __name__ == "__main__":
    main()
