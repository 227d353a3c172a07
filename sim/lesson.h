/* lesson: the classroom lesson file (lessons/NN-name/lesson.ini), read and validated, and the
 * claim expressions its checks are written in.
 *
 * A lesson file is data: which experiments to run (a kernel launch, an occupancy question, an
 * arch description), what the student should conclude, and claims that `warplab lesson N
 * --check` verifies in the model and against the measured H200 data. Sections:
 *
 *   [lesson]         number, title, title_zh, takeaway, takeaway_zh, topic (1..11), arch
 *                    (default h200), view (the run whose trace is the most telling), view_kind
 *                    (the viewer's --view NAME, default sm)
 *   [run.NAME]       a kernel launch: either `case = CASE` (the launch of that name in
 *                    gpu/cases-sim.txt) or ptx, kernel, grid, block, smem, regs, args (the --arg
 *                    SPECs separated by blanks); measured = CASE in gpu/measured/<arch>/ (defaults
 *                    to `case`); label, label_zh; regs = what ptxas 13.0 reports for sm_90 (as in
 *                    the case's measured attributes.num_regs), so that occupancy does not depend
 *                    on whether ptxas is installed (never applied to a student's kernel)
 *   [occupancy.NAME] block, regs, smem, carveout; measured = yes looks the same launch up in
 *                    gpu/measured/<arch>/occupancy-sweep.csv; label, label_zh
 *   [arch.NAME]      name = an arch file's stem (h200, rtx3090, ...); label, label_zh
 *   [check.NAME]     expect = a claim; tolerance; why, why_zh; requires = timing|measured
 *   [exercise]       task, task_zh, kernel (the file students copy), run (the run whose launch
 *                    the student's kernel takes), entry (the kernel name, default the run's)
 *   [goal.NAME]      like [check.NAME], checked against the student's version (`student.`)
 *
 * Claims: see lesson_expr.h.
 *
 * Long values continue on following lines that start with a blank (inih's multi-line values),
 * joined with one space. Every error names FILE:LINE with status WL_EUSAGE.
 */
#ifndef WL_LESSON_H
#define WL_LESSON_H

#include <stddef.h>

#include "arch.h"
#include "diag.h"
#include "lesson_expr.h"

#define LESSON_NAME_MAX 32
#define LESSON_TEXT_MAX 1024
#define LESSON_MAX_RUNS 12
#define LESSON_MAX_OCCS 12
#define LESSON_MAX_ARCHS 4
#define LESSON_MAX_CHECKS 32

typedef enum { LESSON_REQ_NONE, LESSON_REQ_TIMING, LESSON_REQ_MEASURED } lesson_req;
typedef struct {
    char name[LESSON_NAME_MAX];
    lesson_expr x;           /* expect = the claim */
    double tolerance;
    char why[LESSON_TEXT_MAX], why_zh[LESSON_TEXT_MAX];
    lesson_req requires;
    int is_goal;             /* 1: a [goal.NAME] of the exercise */
    int line;
} lesson_check;

typedef struct {
    char name[LESSON_NAME_MAX];
    char case_name[64];      /* "" when the launch is spelled out */
    char ptx[256], kernel[64], grid[32], block[32];
    char args[1024];         /* --arg SPECs separated by single blanks */
    long smem;               /* -1: not given */
    int regs;                /* 0: not given */
    char measured[64];       /* case name of the H200 measurement, "" for none */
    char label[160], label_zh[160];
    int line;
} lesson_run;

typedef struct {
    char name[LESSON_NAME_MAX];
    int block, regs, carveout; /* carveout -1: not set */
    long smem;
    int measured;            /* 1: compare with occupancy-sweep.csv */
    char label[160], label_zh[160];
    int line;
} lesson_occ;

typedef struct {
    char name[LESSON_NAME_MAX];
    char arch[32];
    char label[160], label_zh[160];
    int line;
} lesson_archref;

typedef struct {
    char path[256];          /* as given to lesson_load (for messages) */
    int number, topic;
    char title[160], title_zh[160];
    char takeaway[LESSON_TEXT_MAX], takeaway_zh[LESSON_TEXT_MAX];
    char arch[32];
    char view_run[LESSON_NAME_MAX], view_kind[32];
    lesson_run runs[LESSON_MAX_RUNS];
    int nruns;
    lesson_occ occs[LESSON_MAX_OCCS];
    int noccs;
    lesson_archref archs[LESSON_MAX_ARCHS];
    int narchs;
    lesson_check checks[LESSON_MAX_CHECKS]; /* checks and goals, in file order */
    int nchecks;
    int has_exercise;
    char task[LESSON_TEXT_MAX], task_zh[LESSON_TEXT_MAX];
    char ex_kernel[256], ex_run[LESSON_NAME_MAX], ex_entry[64];
} lesson_t;

/* What kind of experiment a name refers to. */
typedef enum { LESSON_EXP_NONE, LESSON_EXP_RUN, LESSON_EXP_OCC, LESSON_EXP_ARCH,
               LESSON_EXP_STUDENT } lesson_exp_kind;

/* Reads and validates a lesson file; label (or path when NULL) names it in messages, e.g.
 * "lessons/03-occupancy/lesson.ini". On error: WL_EUSAGE with label:line in d. */
wl_status lesson_load(const char *path, const char *label, lesson_t *out, diag_t *d);
/* Reads a whole file (at most 64 MB), NUL-terminated; *len (may be NULL) gets its size.
 * Returns NULL when it cannot be read. The caller frees. */
char *lesson_read_file(const char *path, size_t *len);
/* The same from text in memory (len bytes, need not be NUL-terminated). */
wl_status lesson_parse(const char *text, size_t len, const char *path, lesson_t *out, diag_t *d);

const lesson_run *lesson_find_run(const lesson_t *l, const char *name);
const lesson_occ *lesson_find_occ(const lesson_t *l, const char *name);
const lesson_archref *lesson_find_arch(const lesson_t *l, const char *name);
lesson_exp_kind lesson_kind_of(const lesson_t *l, const char *name);

/* An arch metric by name (sm_count, tpc_count, max_warps_per_sm, ...): returns 1 and sets *v
 * when key is one (a may be NULL to ask only whether it is), 0 otherwise. */
int lesson_arch_metric(const arch_t *a, const char *key, double *v);

const char *lesson_req_str(lesson_req r);

#endif
