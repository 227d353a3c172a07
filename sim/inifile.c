/* inifile: inih with line numbers (inifile.h). */
#include "inifile.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

char *ini_file_reader(char *str, int num, void *src)
{
    ini_file *s = src;
    if (s->failed || !fgets(str, num, s->f))
        return NULL;
    s->line++;
    size_t n = strlen(str);
    if (n > 0 && str[n - 1] != '\n' && !feof(s->f)) {
        ini_file_fail(s, "line longer than %d characters", num - 3);
        return NULL;
    }
    const char *p = str;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '[')
        s->header_line = s->line;
    return str;
}

int ini_file_fail(ini_file *src, const char *fmt, ...)
{
    if (!src->failed) {
        va_list ap;
        va_start(ap, fmt);
        diag_vset(src->d, WL_EUSAGE, src->path, src->line, 0, fmt, ap);
        va_end(ap);
        src->failed = 1;
    }
    return 0;
}
