#!/usr/bin/env python3
"""The JUnit files of `run`, `run --dry-run`, `compare --fail-on`, `ab` and `run --baseline`,
parsed back with Python's xml.etree as a CI reader would: the layout, the counts, the
outcomes, a well-formed file for names full of what XML forbids, and every file held to
the rules of the common JUnit schema (Jenkins xUnit's junit-10.xsd, written down in
`conforms`).

    junit_check.py BENCH_PROGRAM WORK_DIR

BENCH_PROGRAM is tests/fixture_bench.cpp's program (cases that pass, fail and skip).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET


def run(args, expect):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    if p.returncode != expect:
        sys.exit(f"{' '.join(args)} exited {p.returncode}, not {expect}:\n{p.stdout}\n{p.stderr}")
    return p


# The common JUnit schema's rules (Jenkins xUnit, junit-10.xsd): per element, the
# attributes it may carry, those it must, and the elements it may hold.
RESULT = {"allowed": {"type", "message"}, "required": set(), "children": set()}
RULES = {
    "testsuites": {"allowed": {"name", "time", "tests", "failures", "errors"}, "required": set(),
                   "children": {"testsuite"}},
    "testsuite": {"allowed": {"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp",
                              "hostname", "id", "package", "file", "log", "url"},
                  "required": {"name", "tests", "failures", "errors"},
                  "children": {"testsuite", "properties", "testcase", "system-out", "system-err"}},
    "testcase": {"allowed": {"name", "time", "classname", "group"}, "required": {"name"},
                 "children": {"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure",
                              "flakyError", "system-out", "system-err"}},
    "failure": RESULT, "error": RESULT, "skipped": RESULT,
    "properties": {"allowed": set(), "required": set(), "children": {"property"}},
    "property": {"allowed": {"name", "value"}, "required": {"name", "value"}, "children": set()},
    "system-out": {"allowed": set(), "required": set(), "children": set()},
    "system-err": {"allowed": set(), "required": set(), "children": set()},
}
# Digits (thousands may be separated by commas) with an optional fraction: no exponent.
SCHEMA_TIME = re.compile(r"[0-9,]*(\.[0-9]*)?")


def conforms(element, path="testsuites"):
    rules = RULES.get(element.tag)
    assert rules is not None, f"{path}: <{element.tag}> is no element of the JUnit schema"
    attributes = set(element.attrib)
    assert attributes <= rules["allowed"], f"{path}: attributes {attributes - rules['allowed']} not in the schema"
    assert rules["required"] <= attributes, f"{path}: lacks {rules['required'] - attributes}"
    if element.tag in ("testsuites", "testsuite") and "time" in element.attrib:
        assert SCHEMA_TIME.fullmatch(element.get("time")), f"{path}: time {element.get('time')!r}"
    for child in element:
        assert child.tag in rules["children"], f"{path}: <{child.tag}> may not be inside <{element.tag}>"
        conforms(child, f"{path}/{child.tag}")


def suites(text):
    root = ET.fromstring(text)
    assert root.tag == "testsuites", root.tag
    conforms(root)
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

    # ab: a testcase for the second case against the first.
    ab = os.path.join(work, "ab.xml")
    run([program, "ab", "fixture/sqrt", "fixture/family/1", "--max-run-time", "0.3", "--junit", ab], 0)
    (suite,) = suites(open(ab, "rb").read())
    assert list(check_suite(suite, 1, 0, 0)) == ["fixture/family/1"]

    # run --baseline: the run's suite and the comparison's.
    baseline, joined = os.path.join(work, "baseline.json"), os.path.join(work, "baseline.xml")
    write_results(baseline, [("fixture/sqrt", 50)])
    run([program, "run", "--filter", "^fixture/sqrt$", "--min-run-time", "0.01", "--baseline", baseline,
         "--junit", joined], 0)
    assert len(suites(open(joined, "rb").read())) == 2
    print("junit files parse, keep to the JUnit schema and say what happened")


if __name__ == "__main__":
    main()
