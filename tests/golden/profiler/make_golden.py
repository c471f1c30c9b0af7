# Regenerates the golden profiler tables (table_*.txt, expected_*.json) from Debian's python3-torch 1.13 (/usr/bin/python3).
# The C++ tests read the same streams.json fixtures and compare against the files written here.
# Never needed to build or test the project; run only to refresh the goldens: /usr/bin/python3 make_golden.py
import json
import os
import sys

from torch.autograd import DeviceType
from torch.autograd.profiler_util import EventList, FunctionEvent, _rewrite_name

HERE = os.path.dirname(os.path.abspath(__file__))

# Device events (kineto mode) get this pseudo thread id; it is never used for the CPU tree.
CUDA_STREAM_THREAD = 7


def to_us(ns, fractional):
    # Whole-microsecond streams use ints, exactly like the real profiler (kineto gives int us);
    # a stream with any sub-microsecond timestamp passes floats (ns / 1000.0) everywhere.
    return ns / 1000.0 if fractional else ns // 1000


def memory_for(ev, memory, device):
    # Thread-local, half-open attribution [start, end); includes the children's records.
    return sum(m["bytes"] for m in memory
               if m["device"] == device and m["thread"] == ev["thread"]
               and ev["start_ns"] <= m["ts_ns"] < ev["end_ns"])


def build_events(stream):
    evs = stream["events"]
    mem = stream.get("memory", [])
    mode = stream.get("cuda_mode", "kineto")
    times = [e["start_ns"] for e in evs] + [e["end_ns"] for e in evs]
    times += [k["duration_ns"] for e in evs for k in e.get("cuda_kernels", [])]
    fractional = any(t % 1000 != 0 for t in times)

    out = []
    next_id = 1
    cpu_events = []
    for e in evs:
        fe = FunctionEvent(
            id=next_id,
            name=_rewrite_name(e["name"], with_wildcard=True),   # ProfilerStep#N -> ProfilerStep*
            trace_name=_rewrite_name(e["name"], with_wildcard=False),
            thread=e["thread"],
            start_us=to_us(e["start_ns"], fractional),
            end_us=to_us(e["end_ns"], fractional),
            fwd_thread=e["thread"],
            input_shapes=[list(s) for s in e.get("input_shapes", [])],  # [] when none, as kineto gives
            stack=[],   # must be a list: key_averages() slices evt.stack
            scope=0,
            cpu_memory_usage=memory_for(e, mem, "cpu"),
            cuda_memory_usage=memory_for(e, mem, "cuda"),
            is_async=False,
            sequence_nr=-1,
            device_type=DeviceType.CPU,
            is_legacy=(mode == "legacy"),
        )
        next_id += 1
        out.append(fe)
        cpu_events.append((e, fe))
        if mode == "kineto":
            # kineto style: the launching op gets the kernel via append_kernel, and the kernel is
            # also its own DeviceType.CUDA FunctionEvent (that is what fills the "Self CUDA %"
            # denominator). Kernel k runs after the op ends, back to back.
            t = e["end_ns"]
            for k in e.get("cuda_kernels", []):
                dur = to_us(k["duration_ns"], fractional)
                fe.append_kernel(k["name"], 0, dur)
                ke = FunctionEvent(
                    id=next_id, name=k["name"], trace_name=k["name"], thread=CUDA_STREAM_THREAD,
                    start_us=to_us(t, fractional), end_us=to_us(t + k["duration_ns"], fractional),
                    fwd_thread=0, input_shapes=[], stack=[], scope=0,
                    cpu_memory_usage=0, cuda_memory_usage=0, is_async=False, sequence_nr=-1,
                    device_type=DeviceType.CUDA, device_index=0)
                next_id += 1
                out.append(ke)
                t += k["duration_ns"]

    # Memory records in no event of their thread become "[memory]" events of no duration,
    # as torch's parser outputs its top-level memory events (with our attribution rule).
    for m in mem:
        inside = any(e["thread"] == m["thread"] and e["start_ns"] <= m["ts_ns"] < e["end_ns"] for e in evs)
        if inside:
            continue
        ts = to_us(m["ts_ns"], fractional)
        out.append(FunctionEvent(
            id=next_id, name="[memory]", trace_name=None, thread=m["thread"], start_us=ts, end_us=ts,
            fwd_thread=m["thread"], input_shapes=[], stack=[], scope=0,
            cpu_memory_usage=m["bytes"] if m["device"] == "cpu" else 0,
            cuda_memory_usage=m["bytes"] if m["device"] == "cuda" else 0,
            is_async=False, sequence_nr=-1, device_type=DeviceType.CPU, device_index=0))
        next_id += 1

    # Both real parsers (kineto and legacy) sort like this before building the EventList.
    out.sort(key=lambda evt: [evt.time_range.start, -evt.time_range.end])
    el = EventList(out, use_cuda=True, profile_memory=stream["profile_memory"])
    n_before = len(el)
    el._build_tree()
    assert len(el) == n_before, "fixture triggered _remove_dup_nodes (same-name only child)"

    if mode == "legacy":
        # legacy style: every CPU event is_legacy, and the op carries ONE kernel whose duration is
        # the inclusive device time (own kernels + all same-thread descendants'), like
        # start.cuda_elapsed_us(record); self CUDA then comes out as the op's own kernels.
        def own(fe_e):
            return sum(k["duration_ns"] for k in fe_e.get("cuda_kernels", []))
        by_fe = {id(fe): e for e, fe in cpu_events}

        def inclusive_ns(fe):
            return own(by_fe[id(fe)]) + sum(inclusive_ns(c) for c in fe.cpu_children)
        for e, fe in cpu_events:
            d = inclusive_ns(fe)
            if d > 0:
                fe.append_kernel(fe.name, 0, to_us(d, fractional))

    # sanity: self time = parent minus direct same-thread children
    for fe in el:
        if fe.device_type == DeviceType.CPU:
            assert all(c.thread == fe.thread for c in fe.cpu_children)
            assert fe.self_cpu_time_total == fe.cpu_time_total - sum(c.cpu_time_total for c in fe.cpu_children)
    return el


def main():
    with open(os.path.join(HERE, "streams.json")) as f:
        streams = json.load(f)["streams"]
    for s in streams:
        el = build_events(s)
        for t in s["tables"]:
            ka = el.key_averages(group_by_input_shapes=t["group_by_input_shape"])
            txt = ka.table(sort_by=t["sort_by"], row_limit=t["row_limit"])
            path = os.path.join(HERE, "table_%s_%s.txt" % (s["id"], t["id"]))
            with open(path, "w", newline="") as f:
                f.write(txt)
        rows = []
        for r in el.key_averages(group_by_input_shapes=False):
            rows.append({
                "key": r.key,
                "device_type": "cuda" if r.device_type == DeviceType.CUDA else "cpu",
                "count": r.count,
                "cpu_time_total": r.cpu_time_total,
                "self_cpu_time_total": r.self_cpu_time_total,
                "cpu_time": r.cpu_time,
                "cpu_memory_usage": r.cpu_memory_usage,
                "self_cpu_memory_usage": r.self_cpu_memory_usage,
                "cuda_time_total": r.cuda_time_total,
                "self_cuda_time_total": r.self_cuda_time_total,
                "cuda_memory_usage": r.cuda_memory_usage,
                "self_cuda_memory_usage": r.self_cuda_memory_usage,
            })
        with open(os.path.join(HERE, "expected_%s.json" % s["id"]), "w") as f:
            json.dump({"stream": s["id"], "rows": rows,
                       "self_cpu_time_total": el.self_cpu_time_total}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
