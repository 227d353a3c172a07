#!/usr/bin/env python3
"""sched-order.py: the H200's warp issue order against the model's scheduling policies.

gpu/microbench/sched.cu ran the sched_order_* kernels of tests/data/sched on the H200
(gpu/measured/h200/microbench/sched.json): one block of 4, 8, 16 or 32 warps (1, 2, 4 or 8 per
scheduler), each warp 16 segments of FFMAs in 1, 2, 4 or 8 independent chains, with a %clock
stamp before the first segment and after each. This script runs the same PTX in the model
under each policy and prints, as a Markdown table, per configuration:
  - the block's cycles (its last stamp minus its first), H200 and model;
  - the spread of the end times on scheduler 0: the first warp to end over the last (1.00: all
    end together), and which end first: the youngest warp (y), the oldest (o), another (m), or
    = when all end within half a percent;
  - with 4 or more warps per scheduler, how far each warp's progress is from the H200's: every
    stamp of every warp as a fraction of the block's cycles, the mean absolute difference from
    the H200's first launch (0: the same shape; the lower the better).

Usage: scripts/sched-order.py [WARPLAB] [POLICY,POLICY,...]   (default build/warplab lrr,gto,gty)
Run from the repository root (or set WARPLAB_ROOT).
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.environ.get("WARPLAB_ROOT") or os.getcwd()
EXE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "warplab")
POLICIES = (sys.argv[2] if len(sys.argv) > 2 else "lrr,gto,gty").split(",")
PTX = os.path.join(ROOT, "tests", "data", "sched", "sched_kernels.ptx")


def model(case, policy):
    """The model's stamps (per warp, 17 each, minus the block's first) under policy."""
    warps = case["block"] // 32
    with tempfile.TemporaryDirectory() as dump:
        cmd = [EXE, "run", PTX, "--kernel", case["kernel"], "--grid", "1", "--block",
               str(case["block"]), "--arg", "u32[%d]:zeros" % (17 * warps), "--arg",
               "f32[%d]:zeros" % case["block"], "--arg", "f32:1.0001", "--arg", "f32:0.5",
               "--arg", "s32:%d" % case["m"], "--policy", policy, "--dump", dump]
        subprocess.run(cmd, check=True, capture_output=True, env=dict(os.environ, WARPLAB_ROOT=ROOT))
        with open(os.path.join(dump, "arg0.bin"), "rb") as f:
            words = struct.unpack("<%dI" % (17 * warps), f.read())
    stamps = [list(words[17 * w:17 * w + 17]) for w in range(warps)]
    lo = min(s[0] for s in stamps)
    return [[(x - lo) & 0xFFFFFFFF for x in s] for s in stamps]


def cycles(stamps):
    return max(s[16] for s in stamps)


def spread(stamps):
    """First end over last end on scheduler 0, and y/o: which end first."""
    ends = [s[16] for s in stamps[0::4]]
    if len(ends) < 2:
        return "-"
    first = ends.index(min(ends))
    who = "y" if first == len(ends) - 1 else "o" if first == 0 else "m"
    if min(ends) >= 0.995 * max(ends):
        who = "="  # together (within half a percent)
    return "%.2f %s" % (min(ends) / max(ends), who)


def shape(stamps):
    t = cycles(stamps)
    return [[x / t for x in s[1:]] for s in stamps]


def distance(a, b):
    sa, sb = shape(a), shape(b)
    return sum(abs(x - y) for wa, wb in zip(sa, sb) for x, y in zip(wa, wb)) / (16 * len(sa))


def main():
    with open(os.path.join(ROOT, "gpu/measured/h200/microbench/sched.json")) as f:
        measured = json.load(f)
    print("H200: %s, %s (gpu/measured/h200/microbench/sched.json, first of 4 launches)\n"
          % (measured["gpu"]["name"], measured["date"]))
    head = "| kernel | warps per scheduler | H200 cycles | " + " | ".join(
        "%s cycles" % p for p in POLICIES) + " | H200 end spread | " + " | ".join(
        "%s spread" % p for p in POLICIES) + " | " + " | ".join(
        "%s distance" % p for p in POLICIES) + " |"
    print(head)
    print("|" + "---|" * head.count(" | ") + "---|")
    sums = {p: [] for p in POLICIES}
    for key, case in measured["results"].items():
        h = case["stamps"][0]
        runs = {p: model(case, p) for p in POLICIES}
        per = case["block"] // 128
        row = ["sched_order_%s" % key.split("_")[1], str(per), str(cycles(h))]
        row += [str(cycles(runs[p])) for p in POLICIES]
        row += [spread(h)] + [spread(runs[p]) for p in POLICIES]
        for p in POLICIES:
            if per >= 4:
                d = distance(h, runs[p])
                sums[p].append(d)
                row.append("%.3f" % d)
            else:
                row.append("-")
        print("| " + " | ".join(row) + " |")
    print("\nMean distance over the configurations with 4 or more warps per scheduler: " +
          ", ".join("%s %.3f" % (p, sum(v) / len(v)) for p, v in sums.items() if v))


if __name__ == "__main__":
    main()
