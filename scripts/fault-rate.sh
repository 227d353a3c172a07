#!/bin/bash
# fault-rate.sh: how fast this machine hands a process fresh memory, with 2 MB (transparent huge)
# pages and with 4 KB pages: maps SIZE GB, touches one byte per 4 KB, prints GB/s. On the
# project's build VMs (Firecracker, virtio-balloon free page reporting) memory that was freed and
# reported to the host costs a host fault on its next first touch: fresh 2 MB pages came in at
# 0.4-0.6 GB/s there, and at 5-7 GB/s once the host had backed them again; 4 KB pages at
# 2.4 GB/s either way (docs/performance.md, fifteenth session). The simulator maps 70-100 MB
# of 2 MB pages per full-size run (its L2 and L1 records and its pooled blocks, hugemem.h), so
# the first state can cost it a tenth of a run or more.
# Usage: scripts/fault-rate.sh [SIZE_GB] [ROUNDS]   (default 1 GB, 3 rounds of huge then small)
set -euo pipefail
gb=${1:-1}
rounds=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/touch.c" <<'EOF'
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t gb = strtoull(argv[1], NULL, 10), n = gb << 30;
    int huge = atoi(argv[2]);
    double t0 = now();
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    madvise(p, n, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 1;
    double dt = now() - t0;
    printf("%zu GB of %s pages touched in %.2f s: %.2f GB/s\n", gb, huge ? "2 MB" : "4 KB", dt,
           (double)gb / dt);
    return 0;
}
EOF
cc -std=c17 -O2 -o "$tmp/touch" "$tmp/touch.c"
for _ in $(seq "$rounds"); do
    "$tmp/touch" "$gb" 1
    "$tmp/touch" "$gb" 0
done
