# Regenerates the golden files in this folder from Debian's python3-torch (1.13.1) torch.utils.benchmark.
# The C++ tests read the same fixtures.json and compare against the files written here.
# Run with /usr/bin/python3 make_golden.py; it is never needed to build or test the C++ project.
import json
import os

import numpy
from torch.utils.benchmark import Compare
from torch.utils.benchmark.utils import common

HERE = os.path.dirname(os.path.abspath(__file__))


def build_measurement(f):
    return common.Measurement(
        number_per_run=f["number_per_run"],
        raw_times=list(f["raw_times"]),
        task_spec=common.TaskSpec(
            stmt=f["stmt"],
            setup=f["setup"],
            global_setup=f["global_setup"],
            label=f["label"],
            sub_label=f["sub_label"],
            description=f["description"],
            env=f["env"],
            num_threads=f["num_threads"],
        ),
    )


def write_text(name, text):
    with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text + "\n")


def main():
    with open(os.path.join(HERE, "fixtures.json"), encoding="utf-8") as fh:
        fixtures = json.load(fh)

    expected = {"measurements": {}, "quantile_vectors": [], "trim_sigfig": [], "select_unit": []}

    # Fresh Measurement objects everywhere: Measurement caches its statistics lazily.
    by_id = {f["id"]: f for f in fixtures["measurements"]}
    for f in fixtures["measurements"]:
        m = build_measurement(f)
        lines = repr(m).split("\n")
        assert lines[0].startswith("<") and "Measurement object at 0x" in lines[0], lines[0]
        write_text(f"measurement_{f['id']}.txt", "\n".join(lines[1:]))

        m = build_measurement(f)
        expected["measurements"][f["id"]] = {
            "median": m.median,
            "mean": m.mean,
            "p25": m._p25,
            "p75": m._p75,
            "iqr": m.iqr,
            "significant_figures": m.significant_figures,
            "has_warnings": m.has_warnings,
            "meets_confidence_0_1": m.meets_confidence(0.1),
            "warnings": list(m._warnings),
            "title": m.title,
            "as_row_name": m.as_row_name,
            "times": m.times,
        }

    for c in fixtures["compares"]:
        compare = Compare([build_measurement(by_id[i]) for i in c["measurements"]])
        if c["trim_significant_figures"]:
            compare.trim_significant_figures()
        if c["colorize"] is not None:
            assert c["colorize"] in ("columnwise", "rowwise")
            compare.colorize(rowwise=(c["colorize"] == "rowwise"))
        if c["highlight_warnings"]:
            compare.highlight_warnings()
        write_text(f"compare_{c['id']}.txt", str(compare))

    for v in fixtures["quantile_vectors"]:
        a = numpy.array(v, dtype=numpy.float64)
        entry = {"input": v}
        if a.size == 0:
            entry["quantiles"] = None
            entry["mean"] = None
        else:
            entry["quantiles"] = [float(numpy.quantile(a, q)) for q in (0.0, 0.25, 0.5, 0.75, 1.0)]
            entry["mean"] = float(numpy.mean(a))
        entry["quantile_points"] = [0.0, 0.25, 0.5, 0.75, 1.0]
        entry["std_ddof0"] = float(numpy.std(a, ddof=0)) if a.size >= 1 else None
        entry["std_ddof1"] = float(numpy.std(a, ddof=1)) if a.size >= 2 else None
        expected["quantile_vectors"].append(entry)

    for x, n in fixtures["trim_sigfig_cases"]:
        expected["trim_sigfig"].append({"x": x, "n": n, "result": common.trim_sigfig(x, n)})

    for t in fixtures["select_unit_cases"]:
        unit, scale = common.select_unit(t)
        expected["select_unit"].append({"t": t, "unit": unit, "scale": float(scale)})

    with open(os.path.join(HERE, "expected.json"), "w", encoding="utf-8", newline="\n") as fh:
        json.dump(expected, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
