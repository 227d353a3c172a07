#!/usr/bin/env python3
"""The model's side of gpu/microbench/blocklife.cu: runs its PTX (gpu/microbench/blocklife.ptx,
nvcc -ptx of the same source) through `warplab run` at the H200 launch (65536 blocks of 256),
dumps the stamp records and prints the statistics the CUDA program prints (with the pair
statistics load_corr and load_absdiff_median of the newer runs, blocklife-pairs*.json), as JSON:

    scripts/blocklife-model.py [BUILD_DIR] [--vec 1|2|4] [-- extra warplab run options]

--vec 2 or 4 runs bl_copy2 or bl_copy4 (2 or 4 floats per thread: blocklife-v2.json,
blocklife-v4.json, the DRAM nearer saturation).

%clock64 in the model reads the simulated cycle, %smid the simulated SM, so the figures compare
one to one with gpu/measured/h200/microbench/blocklife.json (docs/validation.md)."""
import json
import os
import struct
import subprocess
import sys
import tempfile

BLOCKS, THREADS, RESIDENT = 65536, 256, 8


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else 0.0


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    vec = 1
    if "--vec" in args:
        i = args.index("--vec")
        vec = int(args[i + 1])
        args = args[:i] + args[i + 2:]
        if vec not in (1, 2, 4):
            sys.exit("blocklife-model.py: --vec takes 1, 2 or 4")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = args[0] if args else os.path.join(root, "build")
    warps = BLOCKS * THREADS // 32
    n = BLOCKS * THREADS * vec  # floats
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [os.path.join(build, "warplab"), "run", os.path.join(root, "gpu/microbench/blocklife.ptx"),
               "--kernel", "bl_copy" + ("" if vec == 1 else str(vec)), "--grid", str(BLOCKS), "--block", str(THREADS),
               "--arg", "f32[%d]:random(0,1,3)" % n, "--arg", "f32[%d]:zeros" % n,
               "--arg", "u64[%d]:zeros" % (warps * 4), "--json", "--dump", tmp] + extra
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        run = json.loads(out)
        with open(os.path.join(tmp, "arg2.bin"), "rb") as f:
            raw = f.read()
    rec = struct.unpack("<%dQ" % (warps * 4), raw)
    ltu, st, life = [], [], []
    starts, ends = {}, {}
    wpb = THREADS // 32
    w_start, w_end = [[] for _ in range(wpb)], [[] for _ in range(wpb)]
    bmax, bspread = [], []
    for b in range(BLOCKS):
        b0, b2, sm = None, 0, 0
        for w in range(wpb):
            k = (b * wpb + w) * 4
            sm, t0, t1, t2 = rec[k], rec[k + 1], rec[k + 2], rec[k + 3]
            ltu.append(t1 - t0)
            st.append(t2 - t1)
            b0 = t0 if b0 is None else min(b0, t0)
            b2 = max(b2, t2)
        lat = []
        for w in range(wpb):
            k = (b * wpb + w) * 4
            w_start[w].append(rec[k + 1] - b0)
            w_end[w].append(rec[k + 3] - b0)
            lat.append(rec[k + 2] - rec[k + 1])
        bmax.append(max(lat))
        bspread.append(max(lat) - min(lat))
        life.append(b2 - b0)
        starts.setdefault(sm, []).append(b0)
        ends.setdefault(sm, []).append(b2)
    gaps, span = [], []
    for sm in starts:
        s, e = sorted(starts[sm]), sorted(ends[sm])
        gaps += [s[k + RESIDENT] - e[k] for k in range(len(s) - RESIDENT)]
        span.append(e[-1] - s[0])
    # per pair of warp indices: correlation over the blocks of their load-to-use times, and the
    # median of their difference (blocklife.cu's load_corr, load_absdiff_median)
    by_w = [ltu[w::wpb] for w in range(wpb)]
    corr, absdiff = [], []
    for a in range(wpb):
        crow, drow = [], []
        for c in range(wpb):
            x, y = by_w[a], by_w[c]
            nb = len(x)
            mx, my = sum(x) / nb, sum(y) / nb
            va = sum(v * v for v in x) / nb - mx * mx
            vc = sum(v * v for v in y) / nb - my * my
            cv = sum(p * q for p, q in zip(x, y)) / nb - mx * my
            crow.append(round(cv / (va * vc) ** 0.5, 3) if va > 0 and vc > 0 else 0.0)
            drow.append(median([abs(p - q) for p, q in zip(x, y)]))
        corr.append(crow)
        absdiff.append(drow)
    ls = sorted(ltu)
    res = {
        "launch": {"blocks": BLOCKS, "threads": THREADS, "kernel_us": run["time_us"],
                   "cycles": run["cycles"]},
        "warps": {"count": len(ltu), "load_to_use_median": median(ltu),
                  "load_to_use_mean": sum(ltu) / len(ltu), "load_to_use_p10": ls[len(ls) // 10],
                  "load_to_use_p90": ls[len(ls) * 9 // 10], "store_issue_median": median(st)},
        "blocks": {"life_median": median(life), "life_mean": sum(life) / len(life),
                   "slot_gap_median": median(gaps), "slot_gap_mean": sum(gaps) / len(gaps),
                   "sm_span_median": median(span), "per_sm_blocks_median": BLOCKS / len(starts)},
        "warp_in_block": {"start_offset_median": [median(v) for v in w_start],
                          "end_offset_median": [median(v) for v in w_end],
                          "slowest_load_median": median(bmax),
                          "load_spread_median": median(bspread),
                          "load_corr": corr, "load_absdiff_median": absdiff},
        "stalls": {k: v for k, v in run["stalls"].items() if v},
    }
    json.dump(res, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
