/* inifile: reading an INI file with inih (ini_parse_stream) so that every error names its line:
 * a line-counting reader and a first-error-wins error setter, shared by the arch files (arch.c)
 * and the spill maps (spillmap.c). */
#ifndef WL_INIFILE_H
#define WL_INIFILE_H

#include <stdio.h>

#include "diag.h"

typedef struct {
    FILE *f;
    const char *path;
    diag_t *d;
    int line;        /* the line the reader returned last: the one being handled */
    int header_line; /* the latest [section] header's line (0: none yet) */
    int failed;      /* an error was recorded in d: the reader stops, handlers return 0 */
} ini_file;

/* inih's fgets-style reader over src->f (ini_parse_stream(ini_file_reader, src, ...)): counts
 * lines, notes section headers, and stops with an error on a line longer than the buffer. */
char *ini_file_reader(char *str, int num, void *src);

/* Records an error (WL_EUSAGE) at the current line unless one was recorded before; returns 0,
 * what an inih handler returns to say it failed. */
int ini_file_fail(ini_file *src, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
