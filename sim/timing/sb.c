/* sb: the per-warp scoreboard of pending register writes.
 *
 * Hardware: Volta and later track fixed-latency results with a per-warp stall counter set by
 * the compiler and variable-latency results (memory, MUFU, shuffles) with six dependence
 * counters ([HUERTA]); a warp whose next instruction reads (or overwrites) a register still
 * being produced cannot issue.
 * Model: one entry per register (key = function * kstride + register, tctx.kstride), holding the
 * cycle its value is available and what kind of producer it was: fixed latency (the `wait`
 * reason), MIO (`short_scoreboard`) or L1TEX (`long_scoreboard`). Read-after-write waits;
 * write-after-write waits only on variable-latency producers (fixed-latency results retire in
 * order, as the compiler's stall counts assume); write-after-read never (operands are read at
 * issue).
 * Storage: SB_SLOTS (16) slots inline in the warp; a key may sit in two of them (key % 16, and
 * that slot + 8 mod 16), so two registers one instruction writes (shfl's d|p, whose indices
 * often differ by 32) both stay inline; a write whose two slots other registers' pending writes
 * hold goes to an overflow list (searched by key; an entry leaves it when the key gets an
 * inline slot again, or when a later listing finds it ready). nvcc numbers registers in order of
 * definition, so the few writes pending at once (recent instructions' results) rarely collide;
 * a kernel with hundreds of registers and dozens of loads in flight (gpu/kernels/
 * occupancy_regs.cu) lists a few dozen. (Until the nineteenth session the overflow was a table
 * indexed by key, as large as the function's registers, per warp, and each memory answer
 * scanned all of it: occ_regs_lb8 spent a third of its time there, docs/performance.md.)
 * Simplified: no limit of six counters, no register-bank conflicts, no operand reuse cache.
 */
#include <stdlib.h>
#include <string.h>

#include "timing_int.h"

_Static_assert(SB_SLOTS <= 32, "sb_t.tokmask has one bit per slot");

void sb_free(sb_t *s)
{
    free(s->ov);
    memset(s, 0, sizeof *s);
}

void sb_clear(sb_t *s)
{
    /* a slot whose cycle is 0 is empty whatever its key and kind say (sb_set takes it,
     * sb_deps finds nothing pending), so only the cycles are cleared */
    memset(s->at, 0, sizeof s->at);
    s->tokmask = 0;
    s->nov = 0;
    s->otok = 0;
    s->ovkeys = 0;
}

int sb_table_set(sb_t *s, uint32_t key, uint64_t ready, uint8_t kind, uint64_t now)
{
    /* entries ready by now are found by no later call (their `now` is no earlier): dropped,
     * and the key's own entry updated */
    uint32_t o = 0;
    int found = 0;
    uint16_t bits = 0;
    for (uint32_t i = 0; i < s->nov; i++) {
        sb_ov e = s->ov[i];
        if (e.key == key) {
            e.ready = ready;
            e.kind = kind;
            found = 1;
        } else if (e.ready <= now) {
            continue;
        }
        bits |= (uint16_t)(1u << SB_OV_BIT(e.key));
        s->ov[o++] = e;
    }
    s->nov = o;
    s->ovkeys = bits;
    if (found)
        return 0;
    if (s->nov == s->capov) {
        uint32_t nc = s->capov ? s->capov * 2 : 16;
        sb_ov *v = realloc(s->ov, nc * sizeof *v);
        if (!v)
            return WL_EUSAGE;
        s->ov = v;
        s->capov = nc;
    }
    s->ov[s->nov++] = (sb_ov){.ready = ready, .key = key, .kind = kind};
    s->ovkeys |= (uint16_t)(1u << SB_OV_BIT(key));
    return 0;
}

void sb_resolve(sb_t *s, uint64_t token, uint64_t cycle)
{
    for (uint32_t m = s->tokmask; m; m &= m - 1) {
        int h = __builtin_ctz(m);
        if (s->at[h] == token) {
            s->at[h] = cycle;
            s->tokmask &= ~(1u << h);
        }
    }
    if (s->otok) {
        int left = 0;
        for (uint32_t i = 0; i < s->nov; i++) {
            if (s->ov[i].ready == token)
                s->ov[i].ready = cycle;
            left |= s->ov[i].ready >= MEM_TOKEN;
        }
        s->otok = (uint8_t)left;
    }
}
