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
 * hold goes to a table indexed by key (hundreds of entries: slow, cleared per block). nvcc
 * numbers registers in order of definition, so the few writes pending at once (recent
 * instructions' results) rarely collide.
 * Simplified: no limit of six counters, no register-bank conflicts, no operand reuse cache.
 */
#include <stdlib.h>
#include <string.h>

#include "timing_int.h"

_Static_assert(SB_SLOTS <= 32, "sb_t.tokmask has one bit per slot");

void sb_free(sb_t *s)
{
    free(s->ready);
    free(s->kind);
    memset(s, 0, sizeof *s);
}

void sb_clear(sb_t *s)
{
    if (s->overflow) {
        memset(s->ready, 0, s->cap * sizeof *s->ready);
        memset(s->kind, 0, s->cap);
    }
    /* a slot whose cycle is 0 is empty whatever its key and kind say (sb_set takes it,
     * sb_deps finds nothing pending), so only the cycles are cleared */
    memset(s->at, 0, sizeof s->at);
    s->tokmask = 0;
    s->overflow = s->otok = 0;
}

int sb_table_set(sb_t *s, uint32_t key, uint64_t ready, uint8_t kind)
{
    if (key >= s->cap) {
        uint32_t nc = s->cap ? s->cap : 64;
        while (nc <= key)
            nc *= 2;
        uint64_t *r = realloc(s->ready, nc * sizeof *r);
        if (!r)
            return WL_EUSAGE;
        s->ready = r;
        uint8_t *k = realloc(s->kind, nc);
        if (!k)
            return WL_EUSAGE;
        s->kind = k;
        memset(r + s->cap, 0, (nc - s->cap) * sizeof *r);
        memset(k + s->cap, 0, nc - s->cap);
        s->cap = nc;
    }
    s->ready[key] = ready;
    s->kind[key] = kind;
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
        for (uint32_t k = 0; k < s->cap; k++) {
            if (s->ready[k] == token)
                s->ready[k] = cycle;
            left |= s->ready[k] >= MEM_TOKEN;
        }
        s->otok = (uint8_t)left;
    }
}
