#define _XOPEN_SOURCE 700 /* nftw */
#include "testutil.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* The directories tu_tmpdir made, removed with what they hold when the test program exits
 * (by the process that made them: a forked child's exit leaves them). */
static struct {
    char **dir;
    size_t n;
    pid_t owner;
} tmpdirs;

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_tmpdirs(void)
{
    if (getpid() != tmpdirs.owner)
        return;
    for (size_t i = 0; i < tmpdirs.n; i++) {
        nftw(tmpdirs.dir[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(tmpdirs.dir[i]);
    }
    free(tmpdirs.dir);
    tmpdirs.dir = NULL;
    tmpdirs.n = 0;
}

const char *tu_tmpdir(void)
{
    char tmpl[] = "/tmp/warplab-test-XXXXXX";
    if (!mkdtemp(tmpl))
        return NULL;
    char **v = realloc(tmpdirs.dir, (tmpdirs.n + 1) * sizeof *v);
    char *d = strdup(tmpl);
    if (!v || !d) {
        free(d);
        if (v)
            tmpdirs.dir = v;
        rmdir(tmpl);
        return NULL;
    }
    tmpdirs.dir = v;
    if (tmpdirs.n == 0 && tmpdirs.owner == 0) {
        tmpdirs.owner = getpid();
        atexit(remove_tmpdirs);
    }
    tmpdirs.dir[tmpdirs.n++] = d;
    return d;
}

const char *tu_path(const char *rel)
{
    static char bufs[8][4096];
    static int slot;
    const char *root = getenv("WARPLAB_ROOT");
    char *b = bufs[slot++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", root ? root : ".", rel);
    return b;
}

int tu_warplabv(tu_result *r, int n, const char *const *args)
{
    const char *bin = getenv("WARPLAB_BIN");
    char outp[] = "/tmp/wl-out-XXXXXX", errp[] = "/tmp/wl-err-XXXXXX";
    int fo = mkstemp(outp), fe = mkstemp(errp);
    r->status = -1;
    r->out = r->err = NULL;
    if (!bin || fo < 0 || fe < 0)
        goto done;
    pid_t pid = fork();
    if (pid == 0) {
        char **argv = calloc((size_t)n + 2, sizeof *argv);
        if (!argv)
            _exit(127);
        argv[0] = strdup(bin);
        for (int i = 0; i < n; i++)
            argv[i + 1] = strdup(args[i]);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(bin, argv);
        _exit(127);
    }
    int st = 0;
    if (pid > 0 && waitpid(pid, &st, 0) == pid)
        r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
done:
    if (fo >= 0)
        close(fo);
    if (fe >= 0)
        close(fe);
    r->out = tu_read_file(outp, NULL);
    r->err = tu_read_file(errp, NULL);
    if (!r->out)
        r->out = calloc(1, 1);
    if (!r->err)
        r->err = calloc(1, 1);
    unlink(outp);
    unlink(errp);
    return r->status;
}

int tu_warplab(tu_result *r, ...)
{
    const char *args[128];
    int n = 0;
    va_list ap;
    va_start(ap, r);
    const char *a;
    while (n < 128 && (a = va_arg(ap, const char *)) != NULL)
        args[n++] = a;
    va_end(ap);
    return tu_warplabv(r, n, args);
}

void tu_free(tu_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

int tu_have_tool(const char *tool)
{
    const char *path = getenv("PATH");
    char buf[4096], file[4200];
    snprintf(buf, sizeof buf, "%s", path ? path : "");
    for (char *dir = strtok(buf, ":"); dir; dir = strtok(NULL, ":")) {
        snprintf(file, sizeof file, "%s/%s", dir, tool);
        if (access(file, X_OK) == 0)
            return 1;
    }
    return 0;
}

const char *tu_tmpfile(const char *name, const char *text, char *path, size_t n)
{
    const char *dir = tu_tmpdir();
    if (!dir || snprintf(path, n, "%s/%s", dir, name) >= (int)n)
        return NULL;
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? path : NULL;
}
