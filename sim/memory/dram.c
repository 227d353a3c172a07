/* dram: HBM channels as FIFO bandwidth servers; see dram.h. */
#include "dram.h"

#include <math.h>
#include <stdlib.h>

#include "cache.h"

/* The load-dependent wait stops growing at u = 0.8 (at most 4 x queue_cycles, 1040 cycles on
 * the H200): the controllers' queues are finite. Evidence: dram.json's k_read<1> (one float4
 * load per thread per trip, 4.3 MB in flight if nvcc kept one per thread) sustains 4.44 TB/s,
 * i.e. a load-to-use time of at most ~1900 cycles at full load, where u up to 0.95 would give
 * 664 + 260 x 19 = 5600 cycles and cap it near 1.5 TB/s; lat_copy's fitted points reach only
 * u = 0.69. The value 0.8 was chosen after the first validation run of this model showed the
 * high-bandwidth copies (co_soa, co_aos, co_stride8) at 2.7-3.3 TB/s against 3.8-4.4 on the H200
 * (docs/validation.md says so). */
#define DRAM_U_MAX 0.80

/* x % n without a division (a 64-bit divide costs tens of host cycles, and every L2 access
 * picks a slice and every DRAM transfer a channel): Lemire, Kaser and Kurz, "Faster remainder by
 * direct computation" (2019), exact for every 64-bit x and 0 < n < 2^32, with
 * m = floor((2^128 - 1) / n) + 1. */
__extension__ typedef unsigned __int128 dram_u128;

static uint32_t fastmod(uint64_t x, dram_u128 m, uint32_t n)
{
    dram_u128 low = m * x; /* the fraction x / n, 128 bits */
    dram_u128 lo = ((low & UINT64_MAX) * n) >> 64, hi = (low >> 64) * n;
    return (uint32_t)((hi + lo) >> 64);
}

struct dram {
    uint32_t channels;
    dram_u128 mod_m;            /* fastmod's constant for channels */
    double cycles_per_byte;     /* per channel; 0 = unlimited */
    double *free;               /* cycle each channel is free again */
    uint64_t bytes;
    double peak;                /* bytes per cycle of all channels */
    double queue_cycles, tau;
    /* 1 / tau, 1 / peak, 1 / eff.read, 1 / eff.write: every transfer runs the averages, whose
     * divisions were a chain the host waited on (docs/performance.md, thirty-fourth session) */
    double inv_tau, inv_peak, inv_read, inv_write;
    double rate, rate_t;        /* moving average of bytes per cycle, and its time */
    double rate_w, rate_f;      /* the same for written bytes, and for bytes x f */
    int has_eff;
    dram_eff eff;
};

dram_t *dram_create(uint32_t channels, double bytes_per_cycle, double queue_cycles, double tau)
{
    if (channels == 0)
        channels = 1;
    dram_t *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->free = calloc(channels, sizeof *d->free);
    if (!d->free) {
        free(d);
        return NULL;
    }
    d->channels = channels;
    d->mod_m = ~(dram_u128)0 / channels + 1;
    d->cycles_per_byte = bytes_per_cycle > 0 ? (double)channels / bytes_per_cycle : 0.0;
    d->peak = bytes_per_cycle;
    d->queue_cycles = bytes_per_cycle > 0 ? queue_cycles : 0.0;
    d->tau = tau > 1 ? tau : 1;
    d->inv_tau = 1.0 / d->tau;
    d->inv_peak = bytes_per_cycle > 0 ? 1.0 / bytes_per_cycle : 0.0;
    return d;
}

void dram_set_efficiency(dram_t *d, const dram_eff *e)
{
    d->has_eff = e != NULL;
    if (e) {
        d->eff = *e;
        d->inv_read = 1.0 / e->read;
        d->inv_write = 1.0 / e->write;
    }
}

void dram_destroy(dram_t *d)
{
    if (!d)
        return;
    free(d->free);
    free(d);
}

/* The moving averages of the bytes moved (all, written, and weighted by f) after a transfer of
 * `bytes` at cycle t; returns its efficiency factor f (dram.h). */
static double moving_averages(dram_t *d, uint64_t t, uint32_t bytes, int write)
{
    /* requests come roughly in time order; an older one does not rewind the averages */
    if ((double)t > d->rate_t) {
        double k = exp(-((double)t - d->rate_t) / d->tau);
        d->rate *= k;
        d->rate_w *= k;
        d->rate_f *= k;
        d->rate_t = (double)t;
    }
    double b = (double)bytes * d->inv_tau;
    d->rate += b;
    if (write)
        d->rate_w += b;
    double f = 1.0;
    if (d->has_eff) {
        const dram_eff *e = &d->eff;
        double w = d->rate > 0 ? d->rate_w / d->rate : 0.0;
        f = (1.0 - w) * d->inv_read + w * d->inv_write + e->turnaround * w * (1.0 - w) +
            (bytes < e->line_bytes ? e->partial : 0.0);
    }
    d->rate_f += b * f;
    return f;
}

uint32_t dram_channel(const dram_t *d, uint64_t line)
{
    return fastmod(cache_hash(line ^ 0x5bd1e995u), d->mod_m, d->channels);
}

/* The FIFO server: line's channel is busy for bytes x cycles_per_byte x f from when it is free
 * (t at the earliest); returns the cycles the transfer waited for it. */
static inline double occupy(dram_t *d, uint64_t line, uint64_t t, uint32_t bytes, double f)
{
    double *fr = &d->free[dram_channel(d, line)];
    double start = (double)t > *fr ? (double)t : *fr;
    *fr = start + (double)bytes * d->cycles_per_byte * f;
    return start - (double)t;
}

uint64_t dram_transfer(dram_t *d, uint64_t line, uint64_t t, uint32_t bytes, int write)
{
    d->bytes += bytes;
    /* the averages serve only the load-dependent wait and the efficiency: a server without
     * either (an L2 slice) skips them */
    double f = d->queue_cycles > 0 || d->has_eff ? moving_averages(d, t, bytes, write) : 1.0;
    double wait = occupy(d, line, t, bytes, f);
    if (d->queue_cycles > 0) {
        double u = d->rate_f * d->inv_peak;
        u = u < DRAM_U_MAX ? u : DRAM_U_MAX;
        wait += d->queue_cycles * u / (1.0 - u);
    }
    return (uint64_t)wait;
}

uint64_t dram_serve(dram_t *d, uint64_t line, uint64_t t, uint32_t bytes)
{
    d->bytes += bytes;
    return (uint64_t)occupy(d, line, t, bytes, 1.0);
}

uint64_t dram_bytes(const dram_t *d)
{
    return d->bytes;
}
