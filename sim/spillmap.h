/* spillmap: where ptxas spills registers, placed on the PTX (docs/model.md, section 9).
 *
 * PTX has no spill code: ptxas adds stores to and reloads from each thread's stack frame in
 * local memory when a kernel must fit fewer registers than it needs (__launch_bounds__,
 * -maxrregcount). scripts/sass-spills.py reads them off the SASS and writes X.spills beside
 * X.ptx, an INI file:
 *
 *     [or_regs_lb8]               ; a kernel
 *     frame = 520                 ; stack frame, bytes per thread
 *     regs = 32                   ; registers of the code the map is of (optional)
 *     op = stl 1161 4 264         ; a spill store after the PTX instruction at line 1161:
 *                                 ;   4 bytes per lane at frame offset 264
 *     op = ldl 1190 4 172 1193    ; a reload after line 1190, waited for at line 1193
 *
 * The timing model issues each op as a local-memory warp instruction (sched.c). */
#ifndef WL_SPILLMAP_H
#define WL_SPILLMAP_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

typedef struct {
    uint8_t store;       /* 1: spill store (STL); 0: reload (LDL) */
    uint8_t bytes;       /* per lane: 4, 8 or 16 */
    uint32_t offset;     /* byte offset in the thread's stack frame */
    uint32_t after_line; /* issued after the PTX instruction at this file line */
    uint32_t use_line;   /* a reload: the PTX instruction at this line waits for it; 0: none */
    uint32_t map_line;   /* its line in the map file (for errors) */
} spill_op;

typedef struct {
    char kernel[128];
    uint32_t frame;      /* stack frame, bytes per thread */
    uint32_t regs;       /* registers per thread of the code it is of; 0: not said */
    uint32_t line;       /* the [kernel] header's line in the map file */
    spill_op *ops;
    uint32_t nops;
} spill_kernel;

typedef struct {
    char path[1024];
    spill_kernel *kernels;
    uint32_t nkernels;
} spillmap;

/* Reads a map. Errors (WL_EUSAGE, with the file and line): unreadable, malformed line, unknown
 * key, an op that is not `stl|ldl AFTER BYTES OFFSET [USE]`, bytes not 4/8/16, an access past
 * the frame, an op before `frame`, a kernel twice, regs not 1..255. */
wl_status spillmap_load(const char *path, spillmap **out, diag_t *d);
/* The map's entry for a kernel, or NULL. */
const spill_kernel *spillmap_find(const spillmap *m, const char *kernel);
void spillmap_free(spillmap *m);
/* The map that belongs beside a PTX file (X.ptx -> X.spills, else X + ".spills") into out;
 * 1 when that file exists. */
int spillmap_beside(const char *ptx_path, char *out, size_t size);
/* Loads the map beside a PTX file when there is one (*out NULL and WL_OK when not). */
wl_status spillmap_load_beside(const char *ptx_path, spillmap **out, diag_t *d);

#endif
