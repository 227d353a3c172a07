/* cudac: a CUDA C++ source file turned into PTX with nvcc, for the commands that take a kernel
 * file (`run`, `occupancy`, `lesson N --check`; prefix cudac_).
 *
 * warplab simulates PTX, what `nvcc -ptx` writes. Given X.cu instead, these commands run
 * `nvcc -ptx -arch=sm_XX -lineinfo [-I DIR] -o TMP/X.ptx X.cu` (sm_XX: the arch file's compute
 * capability; $NVCC names another nvcc) into a fresh folder under $TMPDIR and go on with that
 * PTX, exactly as if it had been given. Without nvcc (a laptop without CUDA) they say so and how
 * to get the PTX elsewhere. */
#ifndef WL_CLI_CUDAC_H
#define WL_CLI_CUDAC_H

#include <stddef.h>

typedef enum {
    CUDAC_OK,
    CUDAC_NO_NVCC,   /* no nvcc to run */
    CUDAC_FAILED,    /* nvcc ran and failed: its messages are in log */
    CUDAC_NO_TMP,    /* no temporary folder could be made */
} cudac_status;

typedef struct {
    char dir[1024];  /* the folder of the PTX ("" when none) */
    int own_dir;     /* cudac_compile made it (cudac_remove deletes it) */
    char ptx[1280];  /* dir/X.ptx */
    char *log;       /* nvcc's standard error (malloc'ed, may be NULL) */
} cudac_out;

/* True when path names a CUDA C++ source (ends in ".cu"). */
int cudac_is_source(const char *path);

/* Compiles cu for sm ("sm_90"), with include as an extra -I folder (NULL: none), into folder dir
 * (NULL: a fresh one under $TMPDIR, else /tmp). */
cudac_status cudac_compile(const char *cu, const char *sm, const char *include, const char *dir,
                           cudac_out *out);

/* For the commands: compiles cu and prints why not on stderr as "warplab CMD: ..." (exit status
 * 1 of the contract). Returns 0 on success, else WL_EUSAGE. */
int cudac_compile_or_say(const char *cmd, const char *cu, const char *sm, cudac_out *out);

/* Deletes the PTX and the folder if cudac_compile made it, frees the log (out may be all zero:
 * nothing to do). */
void cudac_remove(cudac_out *out);

#endif
