#!/usr/bin/env python3
"""The JUnit files of `run`, `run --dry-run` and `compare --fail-on`, parsed back with
Python's xml.etree as a CI reader would: the layout, the counts, the outcomes, and a
well-formed file for names full of what XML forbids.

    junit_check.py BENCH_PROGRAM WORK_DIR

BENCH_PROGRAM is tests/fixture_bench.cpp's program (cases that pass, fail and skip).
"""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET


def run(args, expect):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    if p.returncode != expect:
        sys.exit(f"{' '.join(args)} exited {p.returncode}, not {expect}:\n{p.stdout}\n{p.stderr}")
    return p


def suites(text):
    root = ET.fromstring(text)
    assert root.tag == "testsuites", root.tag
    return root.findall("testsuite")


def check_suite(suite, tests, failures, skipped):
    got = {k: int(suite.get(k)) for k in ("tests", "failures", "skipped", "errors")}
    want = {"tests": tests, "failures": failures, "skipped": skipped, "errors": 0}
    assert got == want, f"{suite.get('name')}: {got} != {want}"
    cases = suite.findall("testcase")
    assert len(cases) == tests, len(cases)
    total = sum(float(c.get("time")) for c in cases)
    assert abs(float(suite.get("time")) - total) < 1e-5 * max(1, len(cases)), (suite.get("time"), total)
    return {c.get("name"): c for c in cases}


def outcome(case):
    if case.find("failure") is not None:
        return "failed"
    if case.find("skipped") is not None:
        return "skipped"
    return "passed"


def write_results(path, cases):
    """A results file in Google Benchmark's layout: 20 blocks a case around `ns`."""
    entries = []
    for name, ns in cases:
        for i in range(20):
            entries.append({"name": name, "run_name": name, "run_type": "iteration", "iterations": 1,
                            "real_time": ns * (1 + 0.001 * (i % 5)), "cpu_time": ns, "time_unit": "ns"})
    with open(path, "w") as f:
        json.dump({"context": {}, "benchmarks": entries}, f)


def main():
    program, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    base = os.path.basename(program)

    # A dry run: every case once; the failed case fails the run (exit 1) and its testcase.
    dry = os.path.join(work, "dry.xml")
    run([program, "run", "--dry-run", "--junit", dry], 1)
    (suite,) = suites(open(dry, "rb").read())
    cases = check_suite(suite, 5, 1, 1)
    assert {n: outcome(c) for n, c in cases.items()} == {
        "fixture/sqrt": "passed", "fixture/throws": "failed", "fixture/needs-gpu": "skipped",
        "fixture/family/1": "passed", "fixture/family/2": "passed"}, cases
    assert "the statement broke" in cases["fixture/throws"].find("failure").get("message")
    assert cases["fixture/needs-gpu"].find("skipped").get("message") == "no CUDA device found"
    assert all(c.get("classname") == base + ".run" for c in cases.values())

    # A measured run, the file on standard output (the tables go to standard error).
    p = run([program, "run", "--filter", "^fixture/(sqrt|needs-gpu)$", "--min-run-time", "0.01", "--junit", "-"], 0)
    (suite,) = suites(p.stdout)
    cases = check_suite(suite, 2, 0, 1)
    assert float(cases["fixture/sqrt"].get("time")) > 0
    assert "per call" in cases["fixture/sqrt"].find("system-out").text

    # compare --fail-on slower: exit 3, the slower case failed with its verdict and change;
    # a name full of what XML 1.0 forbids still gives a document that parses.
    odd = 'odd <&"\'>\u0001\u001b\uffff\u202e/x'
    before, after = os.path.join(work, "before.json"), os.path.join(work, "after.json")
    write_results(before, [("k/slow", 100), ("k/same", 100), (odd, 100)])
    write_results(after, [("k/slow", 150), ("k/same", 100), (odd, 100)])
    gate = os.path.join(work, "gate.xml")
    run([program, "compare", before, after, "--fail-on", "slower", "--junit", gate], 3)
    (suite,) = suites(open(gate, "rb").read())
    cases = check_suite(suite, 3, 1, 0)
    failure = cases["k/slow"].find("failure")
    assert failure.get("type") == "slower", failure.attrib
    assert failure.get("message").startswith("slower: +50."), failure.get("message")
    assert "95% intervals" in failure.get("message"), failure.get("message")
    assert outcome(cases["k/same"]) == "passed"
    odd_shown = [n for n in cases if n.startswith("odd <&\"'>")]
    assert odd_shown == ["odd <&\"'>\\x01\\x1b\\uffff\\u202e/x"], list(cases)

    # Without --fail-on nothing fails, and the exit status is 0.
    ungated = os.path.join(work, "ungated.xml")
    run([program, "compare", before, after, "--junit", ungated], 0)
    (suite,) = suites(open(ungated, "rb").read())
    check_suite(suite, 3, 0, 0)
    print("junit files parse and say what happened")


if __name__ == "__main__":
    main()
