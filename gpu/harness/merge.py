#!/usr/bin/env python3
"""Folds the probe run and Nsight Compute's numbers into each case's JSON.

    merge.py DIR [NCUDIR]

DIR holds NAME.json (wl-harness) and NAME.probe.json (wl-harness-probe). NCUDIR (optional) holds
pairs ncu-K.csv / ncu-K.order: ncu's CSV log for one chunk of cases and the case names in launch
order (ncu's "ID" column counts launches from 0 within its process). Never edits a measured
number: it copies values, converting ncu's text to numbers (thousands separators removed).
Python 3 standard library only.
"""
import csv
import glob
import json
import os
import re
import sys

STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
NAMED = {
    "gpu__time_duration.sum": "gpu_time",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occupancy_pct",
    "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue_active_pct",
    "sm__inst_executed.avg.per_cycle_active": "ipc",
    "smsp__thread_inst_executed_per_inst_executed.ratio": "threads_per_inst",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum": "shared_bank_conflicts",
    "dram__bytes.sum": "dram_bytes",
    "sm__cycles_elapsed.avg.per_second": "sm_clock",
}


def number(text):
    t = text.replace(",", "").strip()
    try:
        return float(t)
    except ValueError:
        return None


def add_metric(rec, name, unit, text):
    value = number(text)
    rec["metrics"][name] = {"value": value, "unit": unit}
    m = STALL.match(name)
    if m and value is not None:
        rec["stalls"][m.group(1)] = value
    if name in NAMED and value is not None:
        key = NAMED[name]
        if key == "gpu_time":
            scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0,
                     "msecond": 1e3, "ms": 1e3}.get(unit.lower())
            if scale is not None:
                rec["gpu_time_us"] = value * scale
        elif key == "sm_clock":
            scale = {"hz": 1e-6, "cycle/second": 1e-6, "khz": 1e-3, "mhz": 1.0,
                     "ghz": 1e3, "cycle/nsecond": 1e3, "cycle/usecond": 1.0}.get(unit.lower())
            if scale is not None:
                rec["sm_clock_mhz"] = value * scale
        else:
            rec[key] = value


FIXED = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
         "Block Size", "Grid Size", "Device", "CC", "Section Name", "Kernel Time", "Invocations"}


def read_ncu(ncudir):
    """case name -> {"metrics": {...}, "stalls": {...}, named values}.

    Reads ncu's long CSV (one row per metric: "Metric Name", "Metric Unit", "Metric Value") and
    the wide one of --page raw (one row per launch, one column per metric, units in the row
    after the header)."""
    out = {}
    for order_path in sorted(glob.glob(os.path.join(ncudir, "ncu-*.order"))):
        csv_path = order_path[:-len(".order")] + ".csv"
        names = [l.strip() for l in open(order_path) if l.strip()]
        if not os.path.exists(csv_path):
            continue
        lines = [l for l in open(csv_path, errors="replace") if l.startswith('"')]
        rows = list(csv.reader(lines))
        if not rows:
            continue
        header, units = rows[0], {}
        long_form = "Metric Name" in header
        for r in rows[1:]:
            row = dict(zip(header, r))
            try:
                i = int(row.get("ID", ""))
            except ValueError:
                if not long_form:
                    units = row
                continue
            if i >= len(names):
                continue
            rec = out.setdefault(names[i], {"kernel": row.get("Kernel Name"), "metrics": {},
                                            "stalls": {}})
            if long_form:
                add_metric(rec, row.get("Metric Name", ""), row.get("Metric Unit", ""),
                           row.get("Metric Value", ""))
            else:
                for name, text in row.items():
                    if name not in FIXED:
                        add_metric(rec, name, units.get(name, ""), text)
    return out


def write_case(f, case):
    """Indented JSON, but one line per block / warp record (they are most of the bytes)."""
    f.write("{\n")
    items = list(case.items())
    for k, (key, value) in enumerate(items):
        f.write(f" {json.dumps(key)}: ")
        if key in ("blocks", "warps") and isinstance(value, list) and value:
            f.write("[\n  " + ",\n  ".join(json.dumps(r, separators=(",", ":")) for r in value)
                    + "\n ]")
        else:
            f.write(json.dumps(value, indent=1).replace("\n", "\n "))
        f.write(",\n" if k + 1 < len(items) else "\n")
    f.write("}\n")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: merge.py DIR [NCUDIR]")
    d = sys.argv[1]
    ncu = read_ncu(sys.argv[2]) if len(sys.argv) > 2 else {}
    merged = 0
    for path in sorted(glob.glob(os.path.join(d, "*.json"))):
        if path.endswith(".probe.json"):
            continue
        name = os.path.basename(path)[:-len(".json")]
        with open(path) as f:
            case = json.load(f)
        probe_path = os.path.join(d, name + ".probe.json")
        if os.path.exists(probe_path):
            with open(probe_path) as f:
                probe = json.load(f)
            for key in ("probe", "blocks", "warps"):
                if key in probe:
                    case[key] = probe[key]
            if probe.get("status") != "ok":
                case["probe_status"] = probe.get("status")
            os.remove(probe_path)
        if name in ncu:
            case["ncu"] = dict(ncu[name], clock_control="none")
        elif len(sys.argv) > 2:
            case["ncu"] = None
        with open(path, "w") as f:
            write_case(f, case)
        merged += 1
    print(f"merged {merged} case files ({len(ncu)} with ncu data)")


if __name__ == "__main__":
    main()
