#!/usr/bin/env python3
"""sass-spills.py: the spill map of a PTX file, from the machine code ptxas makes of it.

PTX has no spill code: ptxas adds it when a kernel needs more registers than it may use
(__launch_bounds__, -maxrregcount). This script compiles the PTX with ptxas, disassembles the
result with cuobjdump, finds every spill store (STL) and spill reload (LDL) of each kernel, and
places each at the corresponding point of the PTX, writing a map that `warplab run` and
`warplab validate` read beside the PTX (X.ptx -> X.spills; docs/model.md, section 9):

    [kernel]
    frame = BYTES           ; the stack frame ptxas reports (bytes per thread)
    regs = N                ; the registers ptxas gave the kernel (the code the map is of)
    op = stl LINE BYTES OFFSET
    op = ldl LINE BYTES OFFSET [USE]

An op is issued after the PTX instruction at file line LINE (each time that instruction is
issued, by the lanes active there); a reload's result is waited for by the PTX instruction at
line USE. How the points are found, and what it simplifies:
  - The code is cut into regions at the loops (a backward branch and its target), in the SASS
    and in the PTX alike; a kernel whose SASS and PTX have different numbers of loops (ptxas
    unrolled or split one) gets no map, and the script says so.
  - Inside a region, a SASS instruction at fraction f of the region goes to the PTX instruction
    at fraction f of the corresponding region (ptxas keeps the order of the work roughly, and
    a SASS region has 1-3 instructions per PTX one). An op never goes after a branch, barrier,
    exit or return: then after the PTX instruction before it.
  - A reload's USE is the first SASS instruction after it in its region that reads one of the
    registers it wrote, placed the same way (none: no wait).
Needs ptxas (CUDA) and cuobjdump (CUDA, or `pip install nvidia-cuda-cuobjdump
nvidia-cuda-nvdisasm`). Usage: scripts/sass-spills.py FILE.ptx [--arch sm_90] [-o OUT]
With --sass DUMP --info PTXAS_V (a saved `cuobjdump --dump-sass`, plain or .gz, and the saved
stderr of `ptxas -v`) it runs neither tool: the tests check the committed map that way
(tests/data/spills/); --save DIR writes those two files there when a map is written.
"""
import argparse
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

CONTROL = ("bra", "bar", "barrier", "exit", "ret", "call", "brx")


def fail(msg):
    sys.exit("sass-spills: " + msg)


def tool(name):
    p = shutil.which(name)
    if p:
        return p
    try:  # the pip wheels put it in site-packages/nvidia/cu*/bin
        import nvidia  # type: ignore
        for root in nvidia.__path__:
            for sub in sorted(os.listdir(root)):
                c = os.path.join(root, sub, "bin", name)
                if os.access(c, os.X_OK):
                    return c
    except ImportError:
        pass
    fail(f"{name} not found (CUDA's bin, or pip install nvidia-cuda-cuobjdump "
         "nvidia-cuda-nvdisasm)")


def ptx_kernels(path):
    """{kernel: [(line, text)]}: the instructions of each .entry, with their file lines."""
    out, cur, body = {}, None, False
    for n, raw in enumerate(open(path, encoding="utf-8"), 1):
        s = raw.split("//")[0].strip()
        m = re.match(r"\.(?:visible\s+)?(?:weak\s+)?\.entry\s+(\w+)", s) or \
            re.match(r"(?:\.visible\s+|\.weak\s+)*\.entry\s+(\w+)", s)
        if m:
            cur, body = m.group(1), False
            out[cur] = []
            continue
        if cur is None:
            continue
        if s.startswith("{"):
            body = True
            s = s[1:].strip()
        if not body or not s:
            continue
        if s.startswith("}"):
            cur = None
            continue
        if s.endswith(":"):
            out[cur].append((n, s))  # a label: kept for the branch targets
            continue
        if s.startswith(".") or not s.endswith(";"):
            continue
        out[cur].append((n, s))
    return out


def ptx_op(text):
    t = re.sub(r"^@!?%\w+\s+", "", text)
    return t.split()[0].split(".")[0] if t else ""


def ptx_regions(insns):
    """The instruction list without labels, and its loops as (first, last) indices."""
    labels, code = {}, []
    for line, text in insns:
        if text.endswith(":"):
            labels[text[:-1]] = len(code)
        else:
            code.append((line, text))
    loops = []
    for i, (_, text) in enumerate(code):
        if ptx_op(text) == "bra":
            target = text.rstrip(";").split()[-1]
            if target in labels and labels[target] <= i:
                loops.append((labels[target], i))
    return code, loops


def sass_functions(text):
    """{kernel: [(op, operands)]} from cuobjdump --dump-sass."""
    out = {}
    for part in re.split(r"(?m)^\s*Function : ", text)[1:]:
        name = part.split("\n")[0].strip()
        code, addr = [], {}
        for line in part.split("\n"):
            m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
            if not m:
                continue
            body = re.sub(r"^@!?U?P\w+\s+", "", m.group(2).strip())
            op, _, rest = body.partition(" ")
            addr[int(m.group(1), 16)] = len(code)
            code.append((op, rest.strip()))
        out[name] = (code, addr)
    return out


def sass_loops(code, addr):
    loops = []
    for i, (op, rest) in enumerate(code):
        m = re.match(r"(?:`\(\S+\)\s*)?(0x[0-9a-f]+)", rest) if op.startswith("BRA") else None
        # (a branch to itself is the trap after the last EXIT, not a loop)
        if m and int(m.group(1), 16) in addr and addr[int(m.group(1), 16)] < i:
            loops.append((addr[int(m.group(1), 16)], i))
    return loops


def cuts(loops, n):
    b = {0, n}
    for s, e in loops:
        b.update((s, e + 1))
    return sorted(b)


def region_of(bounds, i):
    for k in range(len(bounds) - 1):
        if bounds[k] <= i < bounds[k + 1]:
            return k
    return len(bounds) - 2


def regs_of(text):
    """R registers named in an operand list (R1.64 counts R1; RZ none)."""
    return [int(x) for x in re.findall(r"\bR(\d+)\b", text)]


def width(op):
    m = re.search(r"\.(64|128)\b", op)
    return int(m.group(1)) // 8 if m else 4


def build(ptx_path, arch):
    ptxas, cuobjdump = tool("ptxas"), tool("cuobjdump")
    with tempfile.TemporaryDirectory() as d:
        cubin = os.path.join(d, "k.cubin")
        r = subprocess.run([ptxas, f"-arch={arch}", "-v", ptx_path, "-o", cubin],
                           capture_output=True, text=True)
        if r.returncode:
            fail("ptxas failed:\n" + r.stderr)
        info = "".join(l + "\n" for l in r.stderr.splitlines()
                       if "Compile time" not in l)  # (varies from run to run)
        env = dict(os.environ)
        env["PATH"] = os.path.dirname(cuobjdump) + os.pathsep + env.get("PATH", "")
        sass = subprocess.run([cuobjdump, "--dump-sass", cubin], capture_output=True, text=True,
                              env=env)
        if sass.returncode:
            fail("cuobjdump failed:\n" + sass.stderr)
    ver = re.search(r"release (\S+),", subprocess.run([ptxas, "--version"], capture_output=True,
                                                       text=True).stdout)
    return ptx_kernels(ptx_path), sass_functions(sass.stdout), report(info), \
        ver.group(1) if ver else "?", sass.stdout, info


def report(info):
    """{kernel: (frame bytes, registers)} from a ptxas -v report."""
    out, cur, frame = {}, None, 0
    for line in info.splitlines():
        m = re.search(r"Function properties for (\w+)", line)
        if m:
            cur, frame = m.group(1), 0
        m = re.search(r"(\d+) bytes stack frame", line)
        if m and cur:
            frame = int(m.group(1))
        m = re.search(r"Used (\d+) registers", line)
        if m and cur:
            out[cur] = (frame, int(m.group(1)))
    return out


def saved(ptx_path, sass_path, info_path, release):
    """build()'s results from a saved SASS dump and ptxas -v report."""
    opener = gzip.open if sass_path.endswith(".gz") else open
    with opener(sass_path, "rt", encoding="utf-8") as f:
        sass = f.read()
    with open(info_path, encoding="utf-8") as f:
        info = f.read()
    return ptx_kernels(ptx_path), sass_functions(sass), report(info), release, None, None


def place(code, lo, hi, f):
    """The PTX instruction after which an op at fraction f of region [lo, hi) goes."""
    j = lo + int(f * (hi - lo))
    j = min(max(j - 1, lo), hi - 1)
    while j > lo and ptx_op(code[j][1]) in CONTROL:
        j -= 1
    while j < hi - 1 and ptx_op(code[j][1]) in CONTROL:
        j += 1
    return None if ptx_op(code[j][1]) in CONTROL else j


def kernel_map(name, insns, sass):
    code, ploops = ptx_regions(insns)
    scode, saddr = sass
    if not any(op.startswith(("LDL", "STL")) for op, _ in scode):
        return [], None  # no spill code
    sloops = sass_loops(scode, saddr)
    if len(ploops) != len(sloops):
        return None, f"{len(sloops)} loops in the SASS, {len(ploops)} in the PTX"
    pb, sb = cuts(ploops, len(code)), cuts(sloops, len(scode))
    if len(pb) != len(sb):
        return None, "the loops cut the SASS and the PTX into different numbers of regions"
    ops = []
    for i, (op, rest) in enumerate(scode):
        if not op.startswith(("LDL", "STL")):
            continue
        m = re.search(r"\[R\d+(?:\+(0x[0-9a-f]+|\d+))?\]", rest)
        if not m:
            return None, f"SASS '{op} {rest}' has no [R+offset] operand"
        off = int(m.group(1), 0) if m.group(1) else 0
        k = region_of(sb, i)
        lo, hi, plo, phi = sb[k], sb[k + 1], pb[k], pb[k + 1]
        if phi <= plo:
            return None, f"region {k} of the PTX is empty"
        at = place(code, plo, phi, (i - lo) / (hi - lo))
        if at is None:
            return None, f"region {k} of the PTX has only control instructions"
        use = None
        if op.startswith("LDL"):
            dst = regs_of(rest.split(",")[0])
            w = width(op) // 4
            regs = set(range(dst[0], dst[0] + w)) if dst else set()
            for u in range(i + 1, hi):
                uop, urest = scode[u]
                parts = urest.split(",")
                srcs = urest if uop.startswith(("ST", "RED", "ATOM")) else ",".join(parts[1:])
                if regs & set(regs_of(srcs)):
                    pu = plo + int((u - lo) / (hi - lo) * (phi - plo))
                    use = min(max(pu, at + 1), phi - 1)
                    break
                if not uop.startswith(("ST", "RED")) and regs & set(regs_of(parts[0])):
                    break  # overwritten before any use
        kind = "ldl" if op.startswith("LDL") else "stl"
        ops.append((kind, code[at][0], width(op), off,
                    code[use][0] if use is not None and use > at else None))
    return ops, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ptx")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("-o", "--out", help="default: the PTX's path with .spills")
    ap.add_argument("--sass", help="a saved cuobjdump --dump-sass of the PTX (plain or .gz)")
    ap.add_argument("--info", help="with --sass: the saved stderr of ptxas -v")
    ap.add_argument("--release", default="13.0", help="with --sass: ptxas's release, for the "
                    "header")
    ap.add_argument("--save", metavar="DIR", help="keep the SASS's instruction lines and the "
                    "ptxas -v report in DIR (for the tests)")
    a = ap.parse_args()
    out = a.out or re.sub(r"\.ptx$", "", a.ptx) + ".spills"
    if a.sass and not a.info:
        fail("--sass needs --info")
    kernels, sass, frames, ver, sass_text, info = (saved(a.ptx, a.sass, a.info, a.release)
                                                   if a.sass else build(a.ptx, a.arch))
    lines = [f"; warplab spill map of {os.path.basename(a.ptx)}: generated by "
             f"scripts/sass-spills.py", f"; from ptxas {ver} -arch={a.arch} and cuobjdump "
             "--dump-sass; do not edit (docs/model.md, section 9)",
             "; op = stl AFTER_LINE BYTES OFFSET | ldl AFTER_LINE BYTES OFFSET [USE_LINE]"]
    n = 0
    for name, insns in kernels.items():
        if name not in sass:
            fail(f"kernel {name} is not in the SASS")
        ops, why = kernel_map(name, insns, sass[name])
        if ops is None:
            print(f"sass-spills: {name}: no map ({why})", file=sys.stderr)
            continue
        if not ops:
            continue
        frame, regs = frames.get(name, (0, 0))
        lines += ["", f"[{name}]", f"frame = {frame}", f"regs = {regs}"]
        for kind, at, nb, off, use in ops:
            lines.append(f"op = {kind} {at} {nb} {off}" + (f" {use}" if use else ""))
        print(f"sass-spills: {name}: {sum(o[0] == 'stl' for o in ops)} spill stores, "
              f"{sum(o[0] == 'ldl' for o in ops)} reloads, frame {frame} B, {regs} registers",
              file=sys.stderr)
        n += 1
    if n == 0:
        if os.path.exists(out):  # a map of an older PTX that spilled
            os.remove(out)
            print(f"sass-spills: no kernel of {a.ptx} spills: removed {out}", file=sys.stderr)
        return
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"sass-spills: wrote {out}", file=sys.stderr)
    if a.save and sass_text is not None:
        stem = os.path.join(a.save, re.sub(r"\.ptx$", "", os.path.basename(a.ptx)))
        keep = [re.sub(r"\s*/\* 0x[0-9a-f]+ \*/\s*$", "", l) for l in sass_text.splitlines()
                if re.search(r"Function : |/\*[0-9a-f]{4,}\*/ +[A-Z@]", l)]
        with gzip.GzipFile(stem + ".sass.gz", "wb", mtime=0) as f:  # byte-identical reruns
            f.write(("\n".join(keep) + "\n").encode())
        with open(stem + ".ptxas-v.txt", "w", encoding="utf-8") as f:
            f.write(info)
        print(f"sass-spills: saved {stem}.sass.gz and {stem}.ptxas-v.txt", file=sys.stderr)


if __name__ == "__main__":
    main()
