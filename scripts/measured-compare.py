#!/usr/bin/env python3
"""measured-compare.py: two sets of harness measurements of the same cases, side by side.

    python3 scripts/measured-compare.py OLD_DIR NEW_DIR [OUT.json]

OLD_DIR, NEW_DIR: folders of <case>.json as gpu/harness/measure.sh writes them (e.g.
gpu/measured/h200 and a re-run unpacked from measured-h200.tar.gz). For every case in both:
the dates, Nsight Compute's kernel duration (gpu__time_duration.sum, us), the CUDA-event
median, 10th and 90th percentiles (us), and the relative change of each. Prints a summary
(how far apart the two runs are) and, with OUT.json, writes the table. Nothing is typed in:
every number is read from the two folders.
"""
import json
import os
import statistics
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def ncu_us(d):
    v = d.get("ncu", {}).get("metrics", {}).get("gpu__time_duration.sum", {}).get("value")
    return v / 1e3 if v else None


def change(a, b):
    return (b - a) / a if a and b else None


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    rows = []
    for name in sorted(os.listdir(new)):
        if not name.endswith(".json") or not os.path.exists(os.path.join(old, name)):
            continue
        a, b = load(os.path.join(old, name)), load(os.path.join(new, name))
        ta, tb = a.get("timing", {}), b.get("timing", {})
        row = {
            "case": name[:-5],
            "old_date": a.get("date"),
            "new_date": b.get("date"),
            "old_ncu_us": ncu_us(a),
            "new_ncu_us": ncu_us(b),
            "old_event_median_us": ta.get("median_us"),
            "new_event_median_us": tb.get("median_us"),
            "old_event_p10_us": ta.get("p10_us"),
            "new_event_p10_us": tb.get("p10_us"),
            "old_event_p90_us": ta.get("p90_us"),
            "new_event_p90_us": tb.get("p90_us"),
        }
        row["ncu_change"] = change(row["old_ncu_us"], row["new_ncu_us"])
        row["event_median_change"] = change(row["old_event_median_us"], row["new_event_median_us"])
        rows.append(row)
    if not rows:
        sys.exit("measured-compare: no case in both folders")
    summary = {}
    for key in ("ncu_change", "event_median_change"):
        ab = sorted(abs(r[key]) for r in rows if r[key] is not None)
        worst = max((r for r in rows if r[key] is not None), key=lambda r: abs(r[key]))
        summary[key] = {
            "cases": len(ab),
            "median_abs": statistics.median(ab),
            "mean_abs": statistics.mean(ab),
            "max_abs": ab[-1],
            "worst_case": worst["case"],
            "within_1pct": sum(1 for x in ab if x <= 0.01),
            "within_3pct": sum(1 for x in ab if x <= 0.03),
        }
        s = summary[key]
        print("%s over %d cases: median %.2f %%, mean %.2f %%, max %.2f %% (%s); within 1 %%: %d, "
              "within 3 %%: %d" % (key, s["cases"], 100 * s["median_abs"], 100 * s["mean_abs"],
                                   100 * s["max_abs"], s["worst_case"], s["within_1pct"],
                                   s["within_3pct"]))
    if len(sys.argv) == 4:
        with open(sys.argv[3], "w") as f:
            json.dump({"old": old, "new": new, "summary": summary, "cases": rows}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
