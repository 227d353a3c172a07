/* spillmap: reads the spill maps of scripts/sass-spills.py (spillmap.h). */
#include "spillmap.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ini.h>

#include "inifile.h"

typedef struct {
    ini_file src; /* the file, its current line, the first error */
    spillmap *m;
} load_ctx;

/* One unsigned number token of s at *pos (decimal or 0x); 0 when there is none. */
static int number(const char **pos, uint32_t *v)
{
    const char *p = *pos;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!isdigit((unsigned char)*p))
        return 0;
    errno = 0;
    char *end;
    unsigned long x = strtoul(p, &end, 0);
    if (errno || x > UINT32_MAX || (*end && !isspace((unsigned char)*end)))
        return 0;
    *v = (uint32_t)x;
    *pos = end;
    return 1;
}

static int parse_op(load_ctx *c, spill_kernel *k, const char *value)
{
    ini_file *src = &c->src;
    spill_op op = {.map_line = (uint32_t)src->line};
    const char *p = value;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!strncmp(p, "stl", 3) && isspace((unsigned char)p[3]))
        op.store = 1;
    else if (!(!strncmp(p, "ldl", 3) && isspace((unsigned char)p[3])))
        return ini_file_fail(src, "op: expected 'stl' or 'ldl', got '%.20s'", p);
    p += 3;
    uint32_t bytes = 0;
    if (!number(&p, &op.after_line) || !number(&p, &bytes) || !number(&p, &op.offset))
        return ini_file_fail(src, "op: expected '%s AFTER_LINE BYTES OFFSET%s' (numbers)",
                             op.store ? "stl" : "ldl", op.store ? "" : " [USE_LINE]");
    if (!op.store)
        (void)number(&p, &op.use_line);
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return ini_file_fail(src, "op: unexpected '%.20s' after the numbers", p);
    if (op.after_line == 0)
        return ini_file_fail(src, "op: PTX lines start at 1");
    if (bytes != 4 && bytes != 8 && bytes != 16)
        return ini_file_fail(src, "op: %u bytes per lane (4, 8 or 16)", bytes);
    op.bytes = (uint8_t)bytes;
    if (op.offset % bytes || (uint64_t)op.offset + bytes > k->frame)
        return ini_file_fail(src, "op: offset %u of %u bytes is %s the %u-byte frame",
                             op.offset, bytes, op.offset % bytes ? "misaligned in" : "outside",
                             k->frame);
    if (k->nops % 64 == 0) {
        spill_op *v = realloc(k->ops, (k->nops + 64) * sizeof *v);
        if (!v)
            return ini_file_fail(src, "out of memory");
        k->ops = v;
    }
    k->ops[k->nops++] = op;
    return 1;
}

/* A numeric key (frame, regs): from 1 to hi, given once per kernel. */
static int set_number(ini_file *src, const char *value, const char *key, const char *what,
                      uint32_t hi, uint32_t *field)
{
    const char *p = value;
    uint32_t v;
    if (!number(&p, &v) || *p || v == 0 || v > hi)
        return ini_file_fail(src, "%s: expected %s from 1 to %u", key, what, hi);
    if (*field)
        return ini_file_fail(src, "%s given twice", key);
    *field = v;
    return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    load_ctx *c = user;
    ini_file *src = &c->src;
    spillmap *m = c->m;
    if (src->failed)
        return 0;
    if (!*section)
        return ini_file_fail(src, "key '%s' before any [kernel]", name);
    spill_kernel *k = m->nkernels ? &m->kernels[m->nkernels - 1] : NULL;
    if (!k || strcmp(k->kernel, section) != 0 || (uint32_t)src->header_line != k->line) {
        if (strlen(section) >= sizeof k->kernel)
            return ini_file_fail(src, "kernel name longer than %zu characters",
                                 sizeof k->kernel - 1);
        for (uint32_t i = 0; i < m->nkernels; i++)
            if (!strcmp(m->kernels[i].kernel, section)) {
                src->line = src->header_line;
                return ini_file_fail(src, "[%s] appears twice (first at line %u)", section,
                                     m->kernels[i].line);
            }
        spill_kernel *v = realloc(m->kernels, (m->nkernels + 1) * sizeof *v);
        if (!v)
            return ini_file_fail(src, "out of memory");
        m->kernels = v;
        k = &m->kernels[m->nkernels++];
        memset(k, 0, sizeof *k);
        snprintf(k->kernel, sizeof k->kernel, "%s", section);
        k->line = (uint32_t)src->header_line;
    }
    if (!strcmp(name, "frame"))
        return set_number(src, value, "frame", "a number of bytes", 1u << 24, &k->frame);
    if (!strcmp(name, "regs"))
        return set_number(src, value, "regs", "registers per thread", 255, &k->regs);
    if (!strcmp(name, "op")) {
        if (!k->frame)
            return ini_file_fail(src, "op before 'frame'");
        return parse_op(c, k, value);
    }
    return ini_file_fail(src, "unknown key '%s' (frame, regs, op)", name);
}

wl_status spillmap_load(const char *path, spillmap **out, diag_t *d)
{
    *out = NULL;
    spillmap *m = calloc(1, sizeof *m);
    if (!m)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    snprintf(m->path, sizeof m->path, "%s", path);
    load_ctx c = {.src = {.path = path, .d = d}, .m = m};
    c.src.f = fopen(path, "r");
    if (!c.src.f) {
        spillmap_free(m);
        return diag_set(d, WL_EUSAGE, path, 0, 0, "cannot read spill map: %s", strerror(errno));
    }
    int rc = ini_parse_stream(ini_file_reader, &c.src, handler, &c);
    fclose(c.src.f);
    if (!c.src.failed && rc != 0)
        diag_set(d, WL_EUSAGE, path, rc > 0 ? rc : 0, 0,
                 "malformed line (expected [kernel] or key = value)");
    for (uint32_t i = 0; !c.src.failed && rc == 0 && i < m->nkernels; i++)
        if (!m->kernels[i].frame) {
            c.src.failed = 1;
            diag_set(d, WL_EUSAGE, path, (int)m->kernels[i].line, 0, "[%s] has no 'frame'",
                     m->kernels[i].kernel);
        }
    if (c.src.failed || rc != 0) {
        spillmap_free(m);
        return d->status;
    }
    *out = m;
    return WL_OK;
}

const spill_kernel *spillmap_find(const spillmap *m, const char *kernel)
{
    for (uint32_t i = 0; m && kernel && i < m->nkernels; i++)
        if (!strcmp(m->kernels[i].kernel, kernel))
            return &m->kernels[i];
    return NULL;
}

void spillmap_free(spillmap *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nkernels; i++)
        free(m->kernels[i].ops);
    free(m->kernels);
    free(m);
}

int spillmap_beside(const char *ptx_path, char *out, size_t size)
{
    size_t n = strlen(ptx_path);
    if (n >= 4 && !strcmp(ptx_path + n - 4, ".ptx"))
        n -= 4;
    if (n + sizeof ".spills" > size)
        return 0;
    memcpy(out, ptx_path, n);
    memcpy(out + n, ".spills", sizeof ".spills");
    struct stat st;
    return stat(out, &st) == 0 && S_ISREG(st.st_mode);
}

wl_status spillmap_load_beside(const char *ptx_path, spillmap **out, diag_t *d)
{
    char path[1024];
    *out = NULL;
    return spillmap_beside(ptx_path, path, sizeof path) ? spillmap_load(path, out, d) : WL_OK;
}
