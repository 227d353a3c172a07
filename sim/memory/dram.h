/* dram: the DRAM (HBM) behind the L2 as a set of channels with finite bandwidth.
 *
 * Hardware: H200 has HBM3e on a 6016-bit bus (about 12 x 512-bit memory controllers) at
 * 3201 MHz DDR: 4.81 TB/s theoretical, 4.49 TB/s measured for a streaming read [OURS]. Lines
 * are interleaved over the controllers by an address hash.
 * Model: one channel per 512 bits of bus width; a line goes to channel hash(line) % channels.
 * Each channel is a server of bandwidth (sustained bandwidth / channels): a sector transfer
 * occupies it for sector_bytes / bytes_per_cycle cycles, and a request that finds it busy waits
 * (FIFO), so streaming kernels saturate at the sustained bandwidth. Real HBM latency grows long
 * before saturation (bank conflicts, row misses, refresh, read/write turnaround): on top of the
 * FIFO wait a request waits queue_cycles x u / (1 - u), the mean wait of an M/M/1 queue, where u
 * is the utilisation of all channels over the last ~tau cycles (an exponential moving average of
 * the bytes moved, u capped at 0.95). Reads and write-backs share the channels.
 * Efficiency (dram_set_efficiency): a transfer occupies its channel for bytes / peak x f with
 *   f = (1 - w) / read + w / write + turnaround x w (1 - w) + (bytes < line ? partial : 0),
 * w the fraction of written bytes over the same ~tau cycles: streaming reads, streaming writes,
 * their mix (read/write turnaround) and partial-line bursts each sustain what the H200 measured
 * (memsys.c). Without it f = 1 (the channels run at bytes_per_cycle).
 * Simplified: no banks, rows or refresh as such; one utilisation for all channels.
 */
#ifndef WL_MEMORY_DRAM_H
#define WL_MEMORY_DRAM_H

#include <stdint.h>

typedef struct dram dram_t;

/* bytes_per_cycle: sustained bandwidth of all channels together, bytes per SM cycle (<= 0:
 * unlimited); queue_cycles: the load-dependent wait's scale (0: none); tau: the utilisation's
 * averaging time in cycles. NULL when out of memory. */
dram_t *dram_create(uint32_t channels, double bytes_per_cycle, double queue_cycles, double tau);
void dram_destroy(dram_t *d);

/* Sustained fractions of the peak (bytes_per_cycle of dram_create) for streaming reads and
 * writes, the extra cost of mixing them (turnaround, in units of the peak's cycles per byte
 * at w = 1/2 x 4), and the extra cost of a burst shorter than line_bytes. */
typedef struct {
    double read, write, turnaround, partial;
    uint32_t line_bytes;
} dram_eff;
void dram_set_efficiency(dram_t *d, const dram_eff *e); /* before the first transfer */

/* Moves `bytes` of line `line` (a write-back when write) starting no earlier than cycle t;
 * returns the cycles the transfer waited for its channel (0 when the channel was idle). */
uint64_t dram_transfer(dram_t *d, uint64_t line, uint64_t t, uint32_t bytes, int write);
/* dram_transfer for a server made with queue_cycles 0 and no efficiency (the L2's slices): the
 * same result without the averages' tests; called for every L2 access. */
uint64_t dram_serve(dram_t *d, uint64_t line, uint64_t t, uint32_t bytes);
/* The channel of line `line`: hash(line) % channels. */
uint32_t dram_channel(const dram_t *d, uint64_t line);
/* Bytes moved so far (reads and writes). */
uint64_t dram_bytes(const dram_t *d);

#endif
