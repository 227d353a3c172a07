/* fileio: see fileio.h. */
#include "fileio.h"

#include <stdlib.h>

char *fio_read_stream(FILE *f, size_t max, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *nb = max && cap > max ? NULL : realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            return NULL;
        }
        buf = nb;
        cap *= 2;
    }
    if (!buf || ferror(f) || (max && n > max)) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

char *fio_read_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = fio_read_stream(f, max, len);
    fclose(f);
    return buf;
}
