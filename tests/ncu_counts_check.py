#!/usr/bin/env python3
"""scripts/ncu-counts.py reads the committed Nsight Compute counts (gpu/measured/h200/ncu-counts/)
right: every case of gpu/cases.txt has its counts, each matched to its launch through
ncu-order.txt (known values of three cases, by hand from ncu-counts.csv), and the ratio and
the markdown row are what they should be. Runs no CUDA tool."""
import json
import os
import subprocess
import sys
import tempfile

root = os.environ.get("WARPLAB_ROOT", os.path.join(os.path.dirname(__file__), ".."))
script = os.path.join(root, "scripts/ncu-counts.py")
names = [l.split()[0] for l in open(os.path.join(root, "gpu/cases.txt"))
         if l.strip() and not l.startswith("#")]
# model counts: co_stride1 as the H200's, bk_double1 and ws_plain as the model gives them
model = {"co_stride1": 10485760, "bk_double1": 54920448, "ws_plain": 20904576}
cases = [{"case": n, "warp_instructions": model.get(n, 1000), "error": 0.01 * (i % 7 - 3)}
         for i, n in enumerate(names)]
cases.append({"case": "not_measured", "warp_instructions": 5, "error": 0.0})


def run(*extra):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"cases": cases}, f)
    r = subprocess.run([sys.executable, script, f.name, *extra], capture_output=True, text=True)
    os.unlink(f.name)
    if r.returncode:
        sys.exit("ncu-counts.py failed:\n" + r.stderr)
    return r.stdout


text = run()
if f"\n{len(names)} cases;" not in text or len(names) != 53:  # 51 of 2026-12-03, the two tc_ of 2026-12-04 (a subfolder)
    sys.exit(f"wanted all {len(names)} cases of gpu/cases.txt counted:\n{text}")
rows = {l.split()[0]: l.split() for l in text.splitlines()[1:] if l and l.split()[0] in model}
# H200 SASS counts: co_stride1 10,485,760; bk_double1 46,244,352; ws_plain 27,658,752
want = {"co_stride1": ("10485760", "1.00"), "bk_double1": ("46244352", "1.19"),
        "ws_plain": ("27658752", "0.76")}
for n, (sass, ratio) in want.items():
    if n not in rows or rows[n][2] != sass or rows[n][3] != ratio:
        sys.exit(f"{n}: got {rows.get(n)}, wanted SASS {sass}, ratio {ratio}")
if "not_measured" in text:
    sys.exit("a case without counts was printed")
md = run("--markdown")
if "| ws_plain | 20,904,576 | 27,658,752 | 0.76 | 1,081,344 |" not in md:
    sys.exit("markdown row of ws_plain:\n" + md)
print(f"ncu-counts.py: {len(names)} cases, known counts and ratios")
