/* ptx_cfg: basic blocks, the control-flow graph and immediate post-dominators
 * (the SIMT reconvergence points). The parser runs it on every function; the
 * results are in ptx_func.blocks (ir.h). */
#ifndef WL_PTX_CFG_H
#define WL_PTX_CFG_H

#include <stdint.h>

/* Immediate post-dominators of a graph of n nodes plus a virtual exit node n.
 * succ[2*i], succ[2*i+1] are node i's successors (nsucc[i] of them, ids 0..n).
 * Writes ipdom[i] for i < n: the immediate post-dominator (n = exit), or -1 if
 * node i cannot reach the exit. Returns 0, or -1 when out of memory. */
int ptx_postdom(uint32_t n, const uint32_t *succ, const uint8_t *nsucc, int32_t *ipdom);

#endif
