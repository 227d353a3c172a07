/* ptxas: run NVIDIA's assembler on a PTX file and read its resource report.
 *
 * Registers and static shared memory are decided by ptxas, not by the PTX: the PTX names
 * virtual registers without limit. When ptxas is installed we ask it (exactly what
 * cudaFuncGetAttributes would report for the same target); otherwise the caller falls back
 * to a user-given --regs or an estimate.
 */
#include "ptxas.h"
#include "kname.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Finds the ptxas binary: $PTXAS, else the first executable `ptxas` on $PATH. */
static int find_ptxas(char *path, size_t size)
{
    const char *env = getenv("PTXAS");
    if (env && *env) {
        snprintf(path, size, "%s", env);
        return access(path, X_OK) == 0;
    }
    const char *p = getenv("PATH");
    if (!p)
        return 0;
    while (*p) {
        size_t len = strcspn(p, ":");
        if (len > 0 && len + 7 < size) {
            snprintf(path, size, "%.*s/ptxas", (int)len, p);
            struct stat st;
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
                return 1;
        }
        p += len;
        if (*p == ':')
            p++;
    }
    return 0;
}

int ptxas_available(void)
{
    char path[4096];
    return find_ptxas(path, sizeof path);
}

/* Runs ptxas, collecting stdout and stderr together (ptxas -v reports on stderr).
 * Returns the exit status, or -1 if it could not be run. *out is malloc'ed. */
static int run_ptxas(const char *bin, const char *ptx_path, const char *sm, char **out)
{
    *out = NULL;
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    char arch[64];
    snprintf(arch, sizeof arch, "-arch=%s", sm);
    /* posix_spawn, not fork: a forked child shares every page of ours copy-on-write until it
     * execs, and each page we then write takes a host page fault. The device buffers are
     * allocated by then, so an output buffer's first stores inside the simulated launch paid
     * one fault per 4 KB (16,384 for lat_copy's 64 MB, counted by perf's page-faults event
     * in ldst_fast). glibc's posix_spawn shares the address space until the exec instead. */
    posix_spawn_file_actions_t fa;
    int init = posix_spawn_file_actions_init(&fa) == 0;
    char a0[] = "ptxas", a1[] = "-v", a4[] = "-o", a5[] = "/dev/null";
    char *input = strdup(ptx_path);
    char *const argv[] = {a0, a1, arch, input, a4, a5, NULL};
    pid_t pid = -1;
    int ok = init && input && posix_spawn_file_actions_adddup2(&fa, fds[1], 1) == 0 &&
             posix_spawn_file_actions_adddup2(&fa, fds[1], 2) == 0 &&
             posix_spawn_file_actions_addclose(&fa, fds[0]) == 0 &&
             posix_spawn_file_actions_addclose(&fa, fds[1]) == 0 &&
             posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) == 0 &&
             posix_spawn(&pid, bin, &fa, NULL, argv, environ) == 0;
    if (init)
        posix_spawn_file_actions_destroy(&fa);
    free(input);
    if (!ok) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    close(fds[1]);
    size_t cap = 8192, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (buf && n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
            } else {
                buf = nb;
                cap *= 2;
            }
        }
        char sink[4096];
        ssize_t got = buf ? read(fds[0], buf + n, cap - n) : read(fds[0], sink, sizeof sink);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        if (buf)
            n += (size_t)got;
    }
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!buf)
        return -1;
    buf[n] = '\0';
    *out = buf;
    if (!WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* The integer just before `what` in [line, end): "4096 bytes smem" -> 4096; -1 if absent. */
static int number_before(const char *line, const char *end, const char *what)
{
    size_t wl = strlen(what);
    for (const char *p = line; p + wl <= end; p++) {
        if (strncmp(p, what, wl))
            continue;
        const char *q = p;
        while (q > line && q[-1] == ' ')
            q--;
        const char *digits = q;
        while (digits > line && digits[-1] >= '0' && digits[-1] <= '9')
            digits--;
        if (digits == q)
            continue;
        long v = strtol(digits, NULL, 10);
        return v > 0x7fffffff ? 0x7fffffff : (int)v;
    }
    return -1;
}

/* The integer just after `what`: "Used 32 registers" with what = "Used " -> 32. */
static int number_after(const char *line, const char *end, const char *what)
{
    size_t wl = strlen(what);
    for (const char *p = line; p + wl < end; p++)
        if (!strncmp(p, what, wl) && p[wl] >= '0' && p[wl] <= '9') {
            long v = strtol(p + wl, NULL, 10);
            return v > 0x7fffffff ? 0x7fffffff : (int)v;
        }
    return -1;
}

/* The entry function of the report that kernel names: its own name, else the one mangled
 * name whose C++ name it is (kname.h). Returns the text after its "Compiling entry function
 * 'NAME' for", or NULL (*many set when several match). */
static const char *find_entry(const char *text, const char *kernel, int *many)
{
    static const char tag[] = "Compiling entry function '";
    const char *hit = NULL;
    *many = 0;
    for (const char *p = strstr(text, tag); p; p = strstr(p + 1, tag)) {
        const char *name = p + sizeof tag - 1, *q = strchr(name, '\'');
        if (!q || (size_t)(q - name) >= 512 || strncmp(q, "' for", 5) != 0)
            continue;
        char sym[512];
        memcpy(sym, name, (size_t)(q - name));
        sym[q - name] = '\0';
        if (strcmp(sym, kernel) == 0)
            return q + 5;
        if (kname_matches(sym, kernel)) {
            *many += hit != NULL;
            hit = q + 5;
        }
    }
    return *many ? NULL : hit;
}

wl_status ptxas_parse_report(const char *text, const char *kernel, ptxas_info *info, diag_t *d)
{
    memset(info, 0, sizeof *info);
    int many;
    const char *start = find_entry(text, kernel, &many);
    if (!start)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        many ? "'%s' names several entry functions of ptxas's report: give the "
                               "mangled name of one"
                             : "ptxas reported no entry function '%s'",
                        kernel);
    const char *stop = strstr(start, "Compiling entry function '");
    if (!stop)
        stop = start + strlen(start);
    int found = 0;
    for (const char *line = start; line < stop;) {
        const char *eol = memchr(line, '\n', (size_t)(stop - line));
        if (!eol)
            eol = stop;
        int v;
        if ((v = number_after(line, eol, "Used ")) >= 0 && number_before(line, eol, "registers") >= 0) {
            info->regs = v;
            found = 1;
            if ((v = number_before(line, eol, "bytes smem")) >= 0)
                info->static_smem = v;
            if ((v = number_after(line, eol, "used ")) >= 0)
                info->barriers = v;
        }
        if ((v = number_before(line, eol, "bytes stack frame")) >= 0)
            info->local_bytes = v;
        int stores = number_before(line, eol, "bytes spill stores");
        int loads = number_before(line, eol, "bytes spill loads");
        if (stores >= 0 || loads >= 0)
            info->spill_bytes = (stores > 0 ? stores : 0) + (loads > 0 ? loads : 0);
        line = eol + 1;
    }
    if (!found)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        "ptxas output for '%s' has no \"Used N registers\" line", kernel);
    return WL_OK;
}

/* The first "error" line of ptxas's output, trimmed, for the diagnostic. */
static void first_error(const char *text, char *buf, size_t size)
{
    const char *p = strstr(text, "error");
    if (!p)
        p = strstr(text, "fatal");
    if (!p)
        p = text;
    const char *bol = p;
    while (bol > text && bol[-1] != '\n')
        bol--;
    size_t len = strcspn(bol, "\n");
    snprintf(buf, size, "%.*s", (int)(len < 400 ? len : 400), bol);
}

wl_status ptxas_query_info(const char *ptx_path, const char *kernel, const char *sm,
                           ptxas_info *info, diag_t *d)
{
    memset(info, 0, sizeof *info);
    char bin[4096];
    if (!find_ptxas(bin, sizeof bin)) {
        diag_set(d, WL_EUSAGE, NULL, 0, 0,
                 "ptxas not found on PATH (set $PTXAS or give the register count)");
        return PTXAS_ENOTFOUND;
    }
    if (access(ptx_path, R_OK) != 0)
        return diag_set(d, WL_EUSAGE, ptx_path, 0, 0, "cannot read: %s", strerror(errno));
    char *out = NULL;
    int rc = run_ptxas(bin, ptx_path, sm, &out);
    if (rc < 0 || rc == 127) {
        free(out);
        diag_set(d, WL_EUSAGE, NULL, 0, 0, "could not run %s", bin);
        return PTXAS_ENOTFOUND;
    }
    wl_status st;
    if (rc != 0) {
        char msg[512];
        first_error(out, msg, sizeof msg);
        st = diag_set(d, WL_EUSAGE, ptx_path, 0, 0, "ptxas -arch=%s failed: %s", sm, msg);
    } else {
        st = ptxas_parse_report(out, kernel, info, d);
    }
    free(out);
    return st;
}

wl_status ptxas_query(const char *ptx_path, const char *kernel, const char *sm, int *regs,
                      int *static_smem, int *local_bytes, int *spill_bytes, diag_t *d)
{
    ptxas_info info;
    wl_status st = ptxas_query_info(ptx_path, kernel, sm, &info, d);
    if (st != WL_OK)
        return st;
    if (regs)
        *regs = info.regs;
    if (static_smem)
        *static_smem = info.static_smem;
    if (local_bytes)
        *local_bytes = info.local_bytes;
    if (spill_bytes)
        *spill_bytes = info.spill_bytes;
    return WL_OK;
}
