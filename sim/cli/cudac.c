/* cudac: CUDA C++ to PTX with nvcc; see cudac.h. */
#include "cudac.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "diag.h"
#include "lesson_exp.h"

int cudac_is_source(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 3 && strcmp(path + n - 3, ".cu") == 0;
}

cudac_status cudac_compile(const char *cu, const char *sm, const char *include, const char *dir,
                           cudac_out *out)
{
    memset(out, 0, sizeof *out);
    const char *base = getenv("TMPDIR");
    if (dir) {
        snprintf(out->dir, sizeof out->dir, "%s", dir);
    } else {
        snprintf(out->dir, sizeof out->dir, "%s/warplab-cu-XXXXXX",
                 base && *base ? base : "/tmp");
        if (!mkdtemp(out->dir)) {
            out->dir[0] = '\0';
            return CUDAC_NO_TMP;
        }
        out->own_dir = 1;
    }
    /* X.cu -> DIR/X.ptx: the PTX keeps the source's name in messages */
    const char *name = strrchr(cu, '/') ? strrchr(cu, '/') + 1 : cu;
    snprintf(out->ptx, sizeof out->ptx, "%s/%.*s.ptx", out->dir, (int)(strlen(name) - 3), name);
    const char *nvcc = getenv("NVCC");
    char arch[32], inc[1100];
    snprintf(arch, sizeof arch, "-arch=%s", sm);
    snprintf(inc, sizeof inc, "-I%s", include ? include : ".");
    const char *av[] = {nvcc && *nvcc ? nvcc : "nvcc", "-ptx", arch, "-lineinfo", "-o", out->ptx,
                        cu, include ? inc : NULL, NULL};
    lexp_proc pr;
    lexp_proc_run(av, &pr);
    out->log = pr.err;
    pr.err = NULL;
    lexp_proc_free(&pr);
    if (pr.status == 127 || pr.status == -1)
        return CUDAC_NO_NVCC;
    return pr.status == 0 && access(out->ptx, R_OK) == 0 ? CUDAC_OK : CUDAC_FAILED;
}

int cudac_compile_or_say(const char *cmd, const char *cu, const char *sm, cudac_out *out)
{
    if (access(cu, R_OK))
        return cli_usage_error(cmd, "cannot read '%s'", cu);
    cudac_status st = cudac_compile(cu, sm, NULL, NULL, out);
    if (st == CUDAC_OK)
        return 0;
    if (st == CUDAC_NO_NVCC)
        cli_usage_error(cmd, "%s is CUDA C++ and nvcc is not installed here: warplab runs the PTX "
                        "nvcc writes; make it where CUDA is (`nvcc -ptx -arch=%s -lineinfo %s`) "
                        "and give the .ptx", cu, sm, cu);
    else if (st == CUDAC_NO_TMP)
        cli_usage_error(cmd, "cannot create a temporary folder for the PTX of %s", cu);
    else
        cli_usage_error(cmd, "nvcc could not compile %s (nvcc -ptx -arch=%s):\n%s", cu, sm,
                        out->log && *out->log ? out->log : "(no message)\n");
    cudac_remove(out);
    return WL_EUSAGE;
}

void cudac_remove(cudac_out *out)
{
    if (out->ptx[0])
        unlink(out->ptx);
    if (out->own_dir)
        rmdir(out->dir);
    free(out->log);
    memset(out, 0, sizeof *out);
}
