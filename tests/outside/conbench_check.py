"""Conbench's adapter for Google Benchmark (PyPI benchadapt, GoogleBenchmarkAdapter) runs
vitals and reads its results file.

Run by ctest with any python3 (it re-runs itself in the test venv):
    conbench_check.py VITALS WORK_DIR VENV_DIR
It first runs scripts/test-venv.sh VENV_DIR (pins in tests/outside/requirements.txt), then
gives the adapter the command `vitals run ... --json FILE` and the file, as a Conbench user
does, and checks what it would send: one result per case, its data one value per block
(the adapter reads cpu_time, or bytes_per_second where the case states its bytes), times
in ns, the cases' names split into Conbench's name and params, and a `--json-layout
medians` file read as one value per case. Nothing is sent to a server.
Exit 77 (skipped) when the venv cannot be made or does not import benchadapt, unless
VITALS_REQUIRE_OUTSIDE_TOOLS is set (make test sets it): then that fails.
"""
import json
import os
import sys

from venv_support import enter_venv, fail

CASES = ["relu/32x1024/cpu-f32", "nonzero/1M-10pct/cpu-bool"]
IN_VENV = "VITALS_CONBENCH_CHECK_IN_VENV"


def adapter_results(vitals, path, *layout):
    from benchadapt.adapters import GoogleBenchmarkAdapter

    command = [vitals, "run", "--filter", "^(" + "|".join(CASES) + ")$", "--min-run-time", "0.05",
               "--json", path, *layout]
    adapter = GoogleBenchmarkAdapter(command=command, result_file=path)
    results = adapter.run()
    with open(path) as f:
        entries = json.load(f)["benchmarks"]
    return results, entries


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: conbench_check.py VITALS WORK_DIR VENV_DIR")
    vitals, work, venv = sys.argv[1:]
    if not os.environ.get(IN_VENV):
        enter_venv(venv, __file__, "benchadapt", IN_VENV)
    os.makedirs(work, exist_ok=True)
    # What a Conbench user's CI sets; the adapter refuses results without a repository.
    os.environ.setdefault("CONBENCH_PROJECT_REPOSITORY", "https://github.com/example/vitals-user")
    os.environ.setdefault("CONBENCH_PROJECT_COMMIT", "0123456789abcdef0123456789abcdef01234567")
    os.environ.setdefault("CONBENCH_MACHINE_INFO_NAME", "vitals-test")

    results, entries = adapter_results(vitals, os.path.join(work, "blocks.json"))
    by_case = {f"{r.tags['name']}/{r.tags['params']}": r for r in results}
    if sorted(by_case) != sorted(CASES):
        fail(f"the adapter should give one result per case: {sorted(by_case)}")
    for case in CASES:
        result = by_case[case]
        blocks = [e for e in entries if e["name"] == case and e["run_type"] == "iteration"]
        stats = result.stats
        if stats["iterations"] != len(blocks) or len(stats["data"]) != len(blocks):
            fail(f"{case}: {stats['iterations']} values for {len(blocks)} blocks")
        if stats["time_unit"] != "ns" or any(t <= 0 for t in stats["times"]):
            fail(f"{case}: times {stats['times'][:3]}... in {stats['time_unit']}")
        states_bytes = "bytes_per_second" in blocks[0]
        expected = [b["bytes_per_second"] if states_bytes else b["cpu_time"] for b in blocks]
        if stats["data"] != expected:
            fail(f"{case}: the adapter's data {stats['data'][:3]}... are not the blocks' "
                 f"{'bytes_per_second' if states_bytes else 'cpu_time'} {expected[:3]}...")
        if stats["unit"] != ("B/s" if states_bytes else "ns"):
            fail(f"{case}: unit {stats['unit']}")

    results, entries = adapter_results(vitals, os.path.join(work, "medians.json"), "--json-layout", "medians")
    if sorted(len(r.stats["data"]) for r in results) != [1] * len(CASES) or len(entries) != len(CASES):
        fail(f"a medians file should give one value per case: {[r.stats['data'] for r in results]}")
    print(f"benchadapt's GoogleBenchmarkAdapter ran vitals and read {len(CASES)} cases, one value per block "
          f"({', '.join(str(r.stats['iterations']) for r in by_case.values())} blocks), and a medians file")


if __name__ == "__main__":
    main()
