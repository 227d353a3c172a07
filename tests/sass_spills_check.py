#!/usr/bin/env python3
"""The committed spill map (gpu/ptx/occupancy_regs.spills) is what scripts/sass-spills.py makes of
the committed PTX and the SASS that ptxas 13.0 made of it (tests/data/spills/: the instruction
lines of `cuobjdump --dump-sass` and the report of `ptxas -v`), so neither can drift from the
other; and a kernel without spill code (or_regs_free) gets no entry. Runs no CUDA tool."""
import os
import subprocess
import sys
import tempfile

root = os.environ.get("WARPLAB_ROOT", os.path.join(os.path.dirname(__file__), ".."))
ptx = os.path.join(root, "gpu/ptx/occupancy_regs.ptx")
data = os.path.join(root, "tests/data/spills")
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "made.spills")
    r = subprocess.run([sys.executable, os.path.join(root, "scripts/sass-spills.py"), ptx,
                        "--sass", os.path.join(data, "occupancy_regs.sass.gz"),
                        "--info", os.path.join(data, "occupancy_regs.ptxas-v.txt"), "-o", out],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit("sass-spills.py failed:\n" + r.stderr)
    made = open(out, encoding="utf-8").read()
committed = open(os.path.join(root, "gpu/ptx/occupancy_regs.spills"), encoding="utf-8").read()
if made != committed:
    sys.exit("gpu/ptx/occupancy_regs.spills differs from what scripts/sass-spills.py makes of the "
             "saved SASS: regenerate it (gpu/regen-ptx.sh) or fix the script")
for want in ("[or_regs_lb4]", "[or_regs_lb8]", "frame = 520"):
    if want not in made:
        sys.exit(f"the map lacks '{want}'")
if "[or_regs_free]" in made:
    sys.exit("or_regs_free has no spill code but got a map entry")
ops = sum(1 for line in made.splitlines() if line.startswith("op = "))
print(f"sass_spills_check: the committed map ({ops} ops) is the script's output")
