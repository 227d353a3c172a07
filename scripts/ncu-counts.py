#!/usr/bin/env python3
"""The model's warp instructions (PTX, as simulated) against the H200's (SASS, Nsight Compute's
smsp__inst_executed.sum) for every case of gpu/measured/h200/ncu-counts/ (gpu/harness/
ncu-counts.sh), beside the model's time error from a `warplab validate --json` file:

    scripts/ncu-counts.py VALIDATE.json [--markdown]

How far the PTX's instruction count is from what the hardware executes is one reason a PTX
simulator misses (docs/validation.md); this prints it per case, with the global load and store
instructions apart, and the correlation between the count ratio and the time error."""
import csv
import json
import math
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DIR = os.path.join(ROOT, "gpu", "measured", "h200", "ncu-counts")


def ncu_counts():
    """DIR's run, then each subfolder's (a later run of cases added since: ncu-counts.sh OUT
    CASEFILE); a case counted twice keeps the later count."""
    rows = {}
    subs = sorted(d for d in os.listdir(DIR) if os.path.isdir(os.path.join(DIR, d)))
    for d in [DIR] + [os.path.join(DIR, s) for s in subs]:
        order = [l.strip() for l in open(os.path.join(d, "ncu-order.txt")) if l.strip()]
        run = {}
        with open(os.path.join(d, "ncu-counts.csv")) as f:
            lines = [l for l in f if l.startswith('"')]
        for r in csv.DictReader(lines):
            if not r["ID"].isdigit():
                continue
            i = int(r["ID"])
            v = r["Metric Value"].replace(",", "")
            run.setdefault(order[i], {})[r["Metric Name"]] = float(v)
        rows.update(run)
    return rows


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    md = "--markdown" in sys.argv
    val = {c["case"]: c for c in json.load(open(args[0]))["cases"]}
    hw = ncu_counts()
    out = []
    for name in sorted(hw):
        c, h = val.get(name), hw[name]
        if not c or not c.get("warp_instructions"):
            continue
        sass = h["smsp__inst_executed.sum"]
        ratio = c["warp_instructions"] / sass
        ldst = h["sm__sass_inst_executed_op_global_ld.sum"] + h["sm__sass_inst_executed_op_global_st.sum"]
        out.append((name, c["warp_instructions"], sass, ratio, ldst, c["error"] * 100))
    if md:
        print("| case | model (PTX) warp instructions | H200 (SASS) | model / H200 | H200 global ld+st | time error |")
        print("|---|---:|---:|---:|---:|---:|")
        for n, m, s, r, g, e in out:
            print(f"| {n} | {m:,.0f} | {s:,.0f} | {r:.2f} | {g:,.0f} | {e:+.1f}% |")
    else:
        print(f"{'case':22s} {'model PTX':>12s} {'H200 SASS':>12s} {'ratio':>6s} {'H200 ld+st':>11s} {'time err':>8s}")
        for n, m, s, r, g, e in out:
            print(f"{n:22s} {m:12.0f} {s:12.0f} {r:6.2f} {g:11.0f} {e:+7.1f}%")
    n = len(out)
    if n == 0:
        sys.exit("ncu-counts.py: no case of the validate file has Nsight Compute counts")
    lr = [math.log(r) for _, _, _, r, _, _ in out]
    er = [e for *_, e in out]
    ml, me = sum(lr) / n, sum(er) / n
    cov = sum((a - ml) * (b - me) for a, b in zip(lr, er))
    sl = math.sqrt(sum((a - ml) ** 2 for a in lr))
    se = math.sqrt(sum((b - me) ** 2 for b in er))
    corr = f"{cov / (sl * se):+.2f}" if sl > 0 and se > 0 else "-"
    print(f"\n{n} cases; model/H200 instruction ratio: geometric mean {math.exp(ml):.2f}, "
          f"{min(r for *_, r, _, _ in out):.2f} .. {max(r for *_, r, _, _ in out):.2f}; "
          f"correlation of log ratio with time error: {corr}")


if __name__ == "__main__":
    main()
