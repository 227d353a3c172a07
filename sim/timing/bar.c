/* bar: CTA barriers as the timing model sees them.
 *
 * Hardware: 16 named barriers per CTA; bar.sync/barrier.sync id[, count] makes the warp wait
 * until `count` threads (default: all threads of the CTA) have arrived; bar.arrive counts the
 * warp without waiting; exited threads count as arrived. Releasing the warps takes time: on
 * the H200, back-to-back bar.sync costs 12.7 + 2.0 cycles per warp taking part ([OURS]).
 * Model: the functional engine already knows the barrier's outcome (it executed the warps'
 * instructions when they were fetched); here we count arrivals when the instructions ISSUE,
 * and release every waiting warp at last_arrival + lat_barrier + lat_barrier_per_warp * n,
 * n the number of warps that waited. Their next instructions are fetched then, so nothing
 * after a barrier executes before every warp reached it.
 */
#include <stdio.h>
#include <string.h>

#include "timing_int.h"

static wl_status bar_release(tctx *c, tblock *b, int id, uint64_t now)
{
    tbar *br = &b->bars[id];
    uint64_t rel = now + (uint64_t)c->a->lat_barrier +
                   (uint64_t)c->a->lat_barrier_per_warp * br->nwaiting;
    memset(br, 0, sizeof *br);
    for (int i = 0; i < b->nwarps; i++) {
        tw *w = &b->warps[i];
        if (w->state != TW_BARRIER || w->bar_id != id)
            continue;
        w->state = TW_ACTIVE;
        w->T[C_BAR] = rel;
        wl_status st = sched_fetch(c, w, rel - 1); /* can issue from rel on */
        if (st != WL_OK)
            return st;
        sched_refresh(c, w);
    }
    return WL_OK;
}

static int bar_complete(const tblock *b, const tbar *br)
{
    if (br->arrived == 0)
        return 0;
    uint32_t need = br->expected ? br->expected : b->nthreads - b->exited_threads;
    return br->arrived >= need;
}

wl_status bar_arrive(tctx *c, tblock *b, tw *w, uint64_t now, int waits)
{
    int id = w->dg.bar_id & 15;
    tbar *br = &b->bars[id];
    br->expected = w->dg.bar_count;
    br->arrived += wl_popc32(w->dg.exec_mask);
    br->line = w->dg.st->line;
    if (waits) {
        w->state = TW_BARRIER;
        w->T[C_BAR] = T_INF;
        w->bar_id = id;
        w->bar_line = w->dg.st->line;
        br->nwaiting++;
    }
    return bar_complete(b, br) ? bar_release(c, b, id, now) : WL_OK;
}

wl_status bar_exit(tctx *c, tblock *b, uint32_t nthreads, uint64_t now)
{
    b->exited_threads += nthreads;
    for (int id = 0; id < 16; id++)
        if (b->bars[id].expected == 0 && bar_complete(b, &b->bars[id])) {
            wl_status st = bar_release(c, b, id, now);
            if (st != WL_OK)
                return st;
        }
    return WL_OK;
}

/* Names every barrier of the first blocked block that has waiting warps, in the functional
 * engine's words (the first barrier gives the position). */
wl_status bar_deadlock(tctx *c, diag_t *d)
{
    const uint32_t *g = c->res->grid;
    for (int s = 0; s < c->nsm; s++) {
        const tsm *sm = &c->sms[s];
        for (int k = 0; k < c->res->blocks_per_sm; k++) {
            const tblock *b = sm->blocks[k];
            if (!b)
                continue;
            char msg[900];
            size_t n = 0;
            int first = -1;
            for (int id = 0; id < 16; id++) {
                const tbar *br = &b->bars[id];
                if (!br->nwaiting)
                    continue;
                if (first < 0)
                    first = id;
                char ws[200] = "";
                size_t m = 0;
                for (int i = 0; i < b->nwarps && m + 12 < sizeof ws; i++)
                    if (b->warps[i].state == TW_BARRIER && b->warps[i].bar_id == id)
                        m += (size_t)snprintf(ws + m, sizeof ws - m, "%s%d", m ? "," : "", i);
                uint32_t need = br->expected ? br->expected : b->nthreads - b->exited_threads;
                if (n < sizeof msg)
                    n += (size_t)snprintf(msg + n, sizeof msg - n,
                                          "%sbarrier %d (line %u) can never complete: warps %s "
                                          "wait, %u of %u threads arrived", n ? "; " : "", id,
                                          br->line, ws, br->arrived, need);
            }
            if (first < 0)
                continue;
            return diag_set(d, WL_EDEADLOCK, c->m->name, (int)b->bars[first].line, 0,
                            "deadlock in block (%u,%u,%u): %s; %u threads exited",
                            b->id % g[0], b->id / g[0] % g[1], b->id / g[0] / g[1], msg,
                            b->exited_threads);
        }
    }
    return diag_set(d, WL_EDEADLOCK, c->m->name, 0, 0,
                    "deadlock: no warp can make progress (%llu of %llu blocks done)",
                    (unsigned long long)c->blocks_done, (unsigned long long)c->nblocks);
}
