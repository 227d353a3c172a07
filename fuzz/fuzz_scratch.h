/* fuzz_scratch: the fuzz targets whose loaders read a path (fuzz_arch, fuzz_cases) write each
 * input to a per-process scratch file first. Header-only: each target is its own program. */
#ifndef WL_FUZZ_SCRATCH_H
#define WL_FUZZ_SCRATCH_H

#include <stdint.h>
#include <stdio.h>

/* Writes size bytes to path; 0 on success, -1 (and no file left) on any I/O failure. */
static inline int fuzz_write_scratch(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t wrote = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || wrote != size) {
        remove(path);
        return -1;
    }
    return 0;
}

#endif
