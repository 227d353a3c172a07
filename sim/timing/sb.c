/* sb: the per-warp scoreboard of pending register writes.
 *
 * Hardware: Volta and later track fixed-latency results with a per-warp stall counter set by
 * the compiler and variable-latency results (memory, MUFU, shuffles) with six dependence
 * counters ([HUERTA]); a warp whose next instruction reads (or overwrites) a register still
 * being produced cannot issue.
 * Model: one entry per register (key = register slot * functions + function), holding the
 * cycle its value is available and what kind of producer it was: fixed latency (the `wait`
 * reason), MIO (`short_scoreboard`) or L1TEX (`long_scoreboard`). Read-after-write waits;
 * write-after-write waits only on variable-latency producers (fixed-latency results retire in
 * order, as the compiler's stall counts assume); write-after-read never (operands are read at
 * issue).
 * Storage: the 16 most recent pending writes inline in the warp, older ones in a table.
 * Simplified: no limit of six counters, no register-bank conflicts, no operand reuse cache.
 */
#include <stdlib.h>
#include <string.h>

#include "timing_int.h"

void sb_free(sb_t *s)
{
    free(s->ready);
    free(s->kind);
    memset(s, 0, sizeof *s);
}

static int table_set(sb_t *s, uint32_t key, uint64_t ready, uint8_t kind)
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

int sb_set(sb_t *s, uint32_t key, uint64_t ready, uint8_t kind, uint64_t now)
{
    for (int i = 0; i < s->n; i++)
        if (s->key[i] == key) {
            s->at[i] = ready;
            s->kd[i] = kind;
            return 0;
        }
    if (s->n == SB_INLINE) { /* drop the entries whose values are already available */
        int o = 0;
        for (int i = 0; i < s->n; i++)
            if (s->at[i] > now) {
                s->key[o] = s->key[i];
                s->at[o] = s->at[i];
                s->kd[o++] = s->kd[i];
            }
        s->n = (uint8_t)o;
    }
    if (s->n < SB_INLINE) {
        s->key[s->n] = key;
        s->at[s->n] = ready;
        s->kd[s->n++] = kind;
        if (s->overflow && key < s->cap)
            s->ready[key] = 0;
        return 0;
    }
    s->overflow = 1;
    return table_set(s, key, ready, kind);
}

void sb_deps(const sb_t *s, const uint32_t *keys, int n, int waw, uint64_t now, uint64_t *T)
{
    static const int cond[3] = {C_WAIT, C_SHORT, C_LONG};
    for (int i = 0; i < n; i++) {
        uint32_t k = keys[i];
        uint64_t at = 0;
        uint8_t kd = SB_FIXED;
        for (int j = 0; j < s->n; j++)
            if (s->key[j] == k) {
                at = s->at[j];
                kd = s->kd[j];
                break;
            }
        if (s->overflow && k < s->cap && s->ready[k] > at) {
            at = s->ready[k];
            kd = s->kind[k];
        }
        if (at <= now || (waw && kd == SB_FIXED))
            continue;
        uint64_t *t = &T[cond[kd]];
        if (at > *t)
            *t = at;
    }
}
