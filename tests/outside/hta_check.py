"""Holistic Trace Analysis (Meta's HTA, PyPI holistictraceanalysis) reads vitals traces.

Run by ctest with any python3 (it re-runs itself in the test venv):
    hta_check.py VITALS WORK_DIR VENV_DIR
It first runs scripts/test-venv.sh VENV_DIR (pinned HTA, pandas, numpy from
tests/outside/requirements.txt; a no-op when already made), then:
  - profiles one CPU case twice, as rank 0 and rank 1 of a job of two
    (`vitals profile --trace-dir --rank K --world-size 2`, rank 1 gzipped), and loads the
    folder with HTA's TraceAnalysis: the ranks it sees must be exactly {0, 1}, each from its
    own file, with the scheduled profiler steps as iterations;
  - HTA's per-operator summary of each rank (LabeledTrace.extract_ops + get_ops_summary, what
    TraceDiff.compare_traces groups, for CPU operators over all iterations) must match the
    key_averages table vitals printed for that rank: the same names, `# of Calls` exactly,
    `CPU total` within the table's printed precision;
  - HTA may log no warning or error beyond its usual progress lines.
HTA rounds nanosecond-precision traces to whole microseconds by default (ts up, end down,
for every PyTorch trace since pytorch#122425); the check turns that off
(HTA_DISABLE_NS_ROUNDING=1) so that sums compare to the table's precision.
Exit 77 (skipped) when the venv cannot be made or does not import HTA, unless
VITALS_REQUIRE_OUTSIDE_TOOLS is set (make test sets it): then that fails.
"""
import logging
import os
import re
import shutil
import subprocess
import sys

from venv_support import enter_venv, fail

CASE = "mlp_train_step/32x512/cpu-f32"  # eleven operators, nested, one name long enough to truncate
# Steps 0..4: one skipped, one warm-up, three recorded (ProfilerStep#2..#4), one cycle.
SCHEDULE = ["--steps", "5", "--wait", "1", "--warmup", "1", "--active", "3", "--repeat", "1"]
EXPECTED_STEPS = [2, 3, 4]
WORLD_SIZE = 2
IN_VENV = "VITALS_HTA_CHECK_IN_VENV"
# HTA's progress lines, logged at WARNING level; anything else it warns about fails the check.
BENIGN_HTA_WARNINGS = (
    "Parsed ",
    "Overall parsing of ",
    "leaving ",
    "Rounding down ns resolution traces disabled",
)


def run(argv):
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result.stdout


# -- The key_averages table vitals prints ---------------------------------------------

UNIT_US = {"us": 1.0, "ms": 1e3, "s": 1e6}


def parse_time(text):
    """'16.334ms' -> (16334.0, resolution in us of the printed value)."""
    m = re.fullmatch(r"(-?\d+)(?:\.(\d+))?(us|ms|s)", text)
    if not m:
        raise ValueError(f"not a time: {text!r}")
    decimals = len(m.group(2) or "")
    value = float(f"{m.group(1)}.{m.group(2) or '0'}")
    scale = UNIT_US[m.group(3)]
    return value * scale, scale * 10.0 ** -decimals


def parse_tables(stdout):
    """The tables in `vitals profile` output: [{name: (calls, cpu_total_us, resolution_us)}]."""
    lines = stdout.splitlines()
    tables = []
    i = 0
    while i + 2 < len(lines):
        rule, header = lines[i], lines[i + 1]
        if re.fullmatch(r"-+(\s+-+)*\s*", rule) and "# of Calls" in header and re.match(r"-+", lines[i + 2]):
            spans = [m.span() for m in re.finditer(r"-+", rule)]
            columns = [header[a:b].strip() for a, b in spans]
            for needed in ("Name", "CPU total", "# of Calls"):
                if needed not in columns:
                    fail(f"vitals table has no '{needed}' column: {columns}")
            rows = {}
            i += 3
            while i < len(lines) and not re.match(r"-+", lines[i]):
                cells = dict(zip(columns, (lines[i][a:b].strip() for a, b in spans)))
                total, resolution = parse_time(cells["CPU total"])
                if cells["Name"] in rows:
                    fail(f"vitals table has two rows named {cells['Name']!r}")
                rows[cells["Name"]] = (int(cells["# of Calls"]), total, resolution)
                i += 1
            tables.append(rows)
        i += 1
    return tables


def table_key(name, table_names):
    """The table row an event name is counted in: key_averages merges ProfilerStep#N into
    ProfilerStep* and cuts long names to fit the Name column ('...')."""
    if re.fullmatch(r"ProfilerStep#\d+", name):
        return "ProfilerStep*"
    if name in table_names:
        return name
    for t in table_names:
        if t.endswith("...") and name.startswith(t[:-3]):
            return t
    return name


# -- HTA -------------------------------------------------------------------------------

class CapturedOutput:
    """Sends fds 1 and 2 to a file: HTA logs to stdout, also from its parser's worker
    processes, which a logging handler in this process would not see."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.saved = (os.dup(1), os.dup(2))
        self.file = open(self.path, "w")
        os.dup2(self.file.fileno(), 1)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        for fd in self.saved:
            os.close(fd)
        self.file.close()
        with open(self.path) as f:
            self.text = f.read()
        return False


def hta_problems(log_text):
    """HTA's WARNING/ERROR/CRITICAL log lines other than its progress lines."""
    problems = []
    for line in log_text.splitlines():
        # Our handler's format, or the one of HTA's logging.config should HTA load it.
        m = re.search(r"(?:^HTA-LOG | - )(WARNING|ERROR|CRITICAL)(?: | - )(.*)", line)
        if m and not m.group(2).startswith(BENIGN_HTA_WARNINGS):
            problems.append(f"{m.group(1)}: {m.group(2)}")
        elif "Traceback" in line:
            problems.append(line)
    return problems


def analyze(trace_dir, log_path):
    os.environ["HTA_DISABLE_NS_ROUNDING"] = "1"
    import hta
    from hta.common.types import DeviceType
    from hta.trace_analysis import TraceAnalysis
    from hta.trace_diff import LabeledTrace

    # HTA's logger has no handler of its own: Python's last resort prints its warnings
    # without their level. Ours writes the level, to stderr, also in the parser's forked
    # worker processes.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("HTA-LOG %(levelname)s %(message)s"))
    logging.getLogger("hta").addHandler(handler)
    with CapturedOutput(log_path) as captured:
        try:
            analyzer = TraceAnalysis(trace_dir=trace_dir, include_last_profiler_step=True)
            ranks = analyzer.t.get_ranks()
            files = {r: os.path.basename(f) for r, f in analyzer.t.trace_files.items()}
            iterations = {r: [int(i) for i in analyzer.t.get_iterations(r)] for r in ranks}
            # What TraceDiff.compare_traces sums per operator: CPU events of the given steps.
            labeled = LabeledTrace(label="vitals", t=analyzer.t)
            summaries = {}
            for r in ranks:
                ops = labeled.extract_ops(rank=r, iteration=labeled.iterations(), device_type=DeviceType.CPU)
                summary = labeled.get_ops_summary(ops)
                summaries[r] = {row.name: (int(row.counts), float(row.total_duration))
                                for row in summary.itertuples()}
            # Every event of the trace, in or out of a step: the table counts them all.
            everything = {}
            table = labeled.s_tab
            for r in ranks:
                df = labeled.t.get_trace(r)
                grouped = df.groupby("name")["dur"].agg(["count", "sum"])
                everything[r] = {table[i]: (int(c), float(s)) for i, (c, s) in grouped.iterrows()}
                negative = df[df["dur"] < 0]
                if len(negative):
                    names = sorted({table[i] for i in negative["name"]})
                    print(f"HTA-CHECK negative durations on rank {r}: {names}")
        except Exception:
            import traceback
            traceback.print_exc()
            raised = True
        else:
            raised = False
    log = captured.text
    if raised:
        fail(f"HTA raised loading {trace_dir}; its output:\n{log}")
    problems = hta_problems(log) + [l for l in log.splitlines() if l.startswith("HTA-CHECK ")]
    version = getattr(hta, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version
        version = dist_version("holistictraceanalysis")
    return version, ranks, files, iterations, summaries, everything, problems


def compare(rank, what, hta_ops, table):
    """HTA's {event name: (count, total us)} against a vitals table; returns mismatches."""
    merged = {}
    for name, (count, total) in hta_ops.items():
        key = table_key(name, table)
        c, t = merged.get(key, (0, 0.0))
        merged[key] = (c + count, t + total)
    errors = []
    for key in sorted(set(merged) | set(table)):
        if key not in table:
            errors.append(f"rank {rank}: HTA's {what} has {key!r} ({merged[key][0]} calls), the vitals table does not")
            continue
        if key not in merged:
            errors.append(f"rank {rank}: the vitals table has {key!r} ({table[key][0]} calls), HTA's {what} does not")
            continue
        (count, total), (calls, cpu_total, resolution) = merged[key], table[key]
        if count != calls:
            errors.append(f"rank {rank}: {key!r}: HTA's {what} counts {count}, the table {calls} calls")
        # The table rounds to its printed digits; HTA sums the trace's nanosecond-exact
        # durations in float64.
        tolerance = resolution / 2 + 1e-6 * cpu_total + 1e-3
        if abs(total - cpu_total) > tolerance:
            errors.append(f"rank {rank}: {key!r}: HTA's {what} totals {total:.3f}us, the table's CPU total "
                          f"is {cpu_total:.3f}us (tolerance {tolerance:.3f}us)")
    return errors


def main():
    if len(sys.argv) != 4:
        print(f"usage: {sys.argv[0]} VITALS WORK_DIR VENV_DIR", file=sys.stderr)
        sys.exit(2)
    vitals, work, venv = sys.argv[1:4]
    venv = os.path.abspath(venv)
    if os.environ.get(IN_VENV) != "1":
        enter_venv(venv, __file__, "hta, pandas", IN_VENV)

    trace_dir = os.path.join(work, "traces")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(trace_dir)

    tables = {}
    for rank in range(WORLD_SIZE):
        argv = [vitals, "profile", CASE, "--trace-dir", trace_dir, "--worker", "trainer",
                "--rank", str(rank), "--world-size", str(WORLD_SIZE), "--record-shapes", *SCHEDULE]
        if rank == 1:
            argv.append("--gzip")  # HTA reads .json.gz too: its rank look-up scans the gzip stream
        stdout = run(argv)
        parsed = parse_tables(stdout)
        if len(parsed) != 1:
            fail(f"expected one table from {' '.join(argv)}, found {len(parsed)}:\n{stdout}")
        tables[rank] = parsed[0]
    files = sorted(os.listdir(trace_dir))
    if len(files) != WORLD_SIZE:
        fail(f"expected {WORLD_SIZE} trace files in {trace_dir}, found {files}")

    version, ranks, hta_files, iterations, summaries, everything, problems = analyze(
        trace_dir, os.path.join(work, "hta.log"))

    errors = []
    if ranks != list(range(WORLD_SIZE)):
        errors.append(f"HTA sees ranks {ranks} in {files}, expected {list(range(WORLD_SIZE))} "
                      "(it takes the rank from the first '\"rank\": N' in each file, a space after the colon)")
    for rank, name in sorted(hta_files.items()):
        if not name.startswith(f"trainer_rank{rank}."):  # --worker NAME keeps the rank: NAME_rank<K>
            errors.append(f"HTA reads rank {rank} from {name}")
    for rank in ranks:
        if iterations[rank] != EXPECTED_STEPS:
            errors.append(f"rank {rank}: HTA's iterations are {iterations[rank]}, expected {EXPECTED_STEPS}")
    for rank in ranks:
        if rank in tables:
            errors += compare(rank, "ops summary", summaries[rank], tables[rank])
            errors += compare(rank, "trace", everything[rank], tables[rank])
    errors += [f"HTA {p}" for p in problems]
    if errors:
        fail(f"HTA {version} reading {trace_dir}:\n  " + "\n  ".join(errors) +
             f"\nHTA's log: {os.path.join(work, 'hta.log')}")

    operators = len(tables[0])
    calls = sum(c for c, _, _ in tables[0].values())
    print(f"PASS: HTA {version} loads ranks {ranks} of {CASE} (rank 1 gzipped), steps {EXPECTED_STEPS}; "
          f"its CPU ops summary matches the vitals tables: {operators} rows, {calls} calls per rank, "
          "counts exact, totals to the printed precision")


if __name__ == "__main__":
    main()
