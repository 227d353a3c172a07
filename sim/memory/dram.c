/* dram: HBM channels as FIFO bandwidth servers; see dram.h. */
#include "dram.h"

#include <math.h>
#include <stdlib.h>

#include "cache.h"

struct dram {
    uint32_t channels;
    double cycles_per_byte;     /* per channel; 0 = unlimited */
    double *free;               /* cycle each channel is free again */
    uint64_t bytes;
    double peak;                /* bytes per cycle of all channels */
    double queue_cycles, tau;
    double rate, rate_t;        /* moving average of bytes per cycle, and its time */
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
    d->cycles_per_byte = bytes_per_cycle > 0 ? (double)channels / bytes_per_cycle : 0.0;
    d->peak = bytes_per_cycle;
    d->queue_cycles = bytes_per_cycle > 0 ? queue_cycles : 0.0;
    d->tau = tau > 1 ? tau : 1;
    return d;
}

void dram_destroy(dram_t *d)
{
    if (!d)
        return;
    free(d->free);
    free(d);
}

uint64_t dram_transfer(dram_t *d, uint64_t line, uint64_t t, uint32_t bytes)
{
    d->bytes += bytes;
    double *f = &d->free[cache_hash(line ^ 0x5bd1e995u) % d->channels];
    double start = (double)t > *f ? (double)t : *f;
    *f = start + (double)bytes * d->cycles_per_byte;
    double wait = start - (double)t;
    if (d->queue_cycles > 0) {
        /* requests come roughly in time order; an older one does not rewind the average */
        if ((double)t > d->rate_t) {
            d->rate *= exp(-((double)t - d->rate_t) / d->tau);
            d->rate_t = (double)t;
        }
        d->rate += (double)bytes / d->tau;
        double u = d->rate / d->peak;
        u = u < 0.95 ? u : 0.95;
        wait += d->queue_cycles * u / (1.0 - u);
    }
    return (uint64_t)wait;
}

uint64_t dram_bytes(const dram_t *d)
{
    return d->bytes;
}
