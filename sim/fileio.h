/* fileio: reading a whole file into memory (one reader for the PTX-adjacent text files, the
 * lesson files, traces and the viewer's sources). */
#ifndef WL_FILEIO_H
#define WL_FILEIO_H

#include <stddef.h>
#include <stdio.h>

/* Reads f to its end into a malloc'd buffer with a NUL after the last byte; *len (when not
 * NULL) gets the byte count. max > 0 limits the size: a longer file gives NULL. NULL also on a
 * read error or when out of memory. The caller opens and closes f. */
char *fio_read_stream(FILE *f, size_t max, size_t *len);

/* fio_read_stream on the file at path (NULL when it cannot be opened). */
char *fio_read_file(const char *path, size_t max, size_t *len);

#endif
