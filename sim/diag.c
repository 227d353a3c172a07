#include "diag.h"

#include <stdio.h>
#include <string.h>

void diag_clear(diag_t *d)
{
    memset(d, 0, sizeof *d);
}

wl_status diag_vset(diag_t *d, wl_status status, const char *file, int line, int col,
                    const char *fmt, va_list ap)
{
    if (!d)
        return status;
    d->status = status;
    snprintf(d->file, sizeof d->file, "%s", file ? file : "");
    d->line = line;
    d->col = col;
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    return status;
}

wl_status diag_set(diag_t *d, wl_status status, const char *file, int line, int col,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vset(d, status, file, line, col, fmt, ap);
    va_end(ap);
    return status;
}

void diag_format(const diag_t *d, char *buf, unsigned long size)
{
    if (d->file[0] && d->line > 0 && d->col > 0)
        snprintf(buf, size, "%s:%d:%d: error: %s", d->file, d->line, d->col, d->msg);
    else if (d->file[0] && d->line > 0)
        snprintf(buf, size, "%s:%d: error: %s", d->file, d->line, d->msg);
    else if (d->file[0])
        snprintf(buf, size, "%s: error: %s", d->file, d->msg);
    else
        snprintf(buf, size, "error: %s", d->msg);
}
