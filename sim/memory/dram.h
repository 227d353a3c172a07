/* dram: the DRAM (HBM) behind the L2 as a set of channels with finite bandwidth.
 *
 * Hardware: H200 has HBM3e on a 6016-bit bus (about 12 x 512-bit memory controllers) at
 * 3201 MHz DDR: 4.81 TB/s theoretical, 4.49 TB/s measured for a streaming read [OURS]. Lines
 * are interleaved over the controllers by an address hash.
 * Model: one channel per 512 bits of bus width; a line goes to channel hash(line) % channels.
 * Each channel is a server of bandwidth (sustained bandwidth / channels): a sector transfer
 * occupies it for sector_bytes / bytes_per_cycle cycles, and a request that finds it busy waits
 * (FIFO queueing), so streaming kernels saturate at the sustained bandwidth and latency grows
 * with load. Reads and write-backs share the channels.
 * Simplified: no banks, rows, refresh or read/write turnaround; the sustained/theoretical ratio
 * stands for all of them.
 */
#ifndef WL_MEMORY_DRAM_H
#define WL_MEMORY_DRAM_H

#include <stdint.h>

typedef struct dram dram_t;

/* bytes_per_cycle: sustained bandwidth of all channels together, bytes per SM cycle (<= 0:
 * unlimited). NULL when out of memory. */
dram_t *dram_create(uint32_t channels, double bytes_per_cycle);
void dram_destroy(dram_t *d);
/* Moves `bytes` of line `line` starting no earlier than cycle t; returns the cycles the
 * transfer waited for its channel (0 when the channel was idle). */
uint64_t dram_transfer(dram_t *d, uint64_t line, uint64_t t, uint32_t bytes);
/* Bytes moved so far (reads and writes). */
uint64_t dram_bytes(const dram_t *d);

#endif
