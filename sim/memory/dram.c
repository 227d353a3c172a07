/* dram: HBM channels as FIFO bandwidth servers; see dram.h. */
#include "dram.h"

#include <stdlib.h>

#include "cache.h"

struct dram {
    uint32_t channels;
    double cycles_per_byte;     /* per channel; 0 = unlimited */
    double *free;               /* cycle each channel is free again */
    uint64_t bytes;
};

dram_t *dram_create(uint32_t channels, double bytes_per_cycle)
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
    return (uint64_t)(start - (double)t);
}

uint64_t dram_bytes(const dram_t *d)
{
    return d->bytes;
}
