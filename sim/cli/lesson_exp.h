/* lesson_exp: the experiments of one `warplab lesson` session (prefix lexp_).
 *
 * Runs a lesson's launches by spawning this same binary (`warplab run ... --json`,
 * `warplab occupancy ... --json`) and keeps their JSON; loads the measured H200 data from
 * gpu/measured/<arch>/; answers the claims' metric look-ups; evaluates and prints checks.
 * Only the command-line contract of DESIGN.md is used, never the simulator's internals. */
#ifndef WL_LESSON_EXP_H
#define WL_LESSON_EXP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arch.h"
#include "lesson.h"

typedef struct {
    int status; /* exit status, 128+signal, or -1 when it could not start */
    char *out, *err;
} lexp_proc;

typedef struct {
    int done, status;
    char error[640];  /* why the experiment has no result */
    cJSON *json;      /* the --json object */
    cJSON *measured;  /* gpu/measured/<arch>/<case>.json, or NULL */
    int h200_blocks;  /* occupancy: blocks_per_sm from the sweep, -1 when not found */
    int same_output;  /* student: 1 when every buffer equals the lesson's run's, -1 unknown */
    char warnings[1024]; /* the run's first warnings on stderr ("warning: ..."), one a line */
    arch_t arch;      /* [arch.NAME] */
} lexp_result;

typedef struct {
    const lesson_t *l;
    char root[1024], self[1024], dir[1024], tmp[1024];
    int zh;
    lexp_result runs[LESSON_MAX_RUNS], occs[LESSON_MAX_OCCS], archs[LESSON_MAX_ARCHS];
    lexp_result student;
    int has_student;
    int sanitize;     /* 1: lexp_run adds --sanitize (functional, race warnings), no trace */
    int full;         /* 1: a run with a measured case takes that case's launch from
                         gpu/cases.txt, the one the H200 ran (`lesson N --full`); traces,
                         dumps and a student's kernel keep the lesson's small launch */
    arch_t lesson_arch;
} lexp_session;

typedef struct {
    int passed, failed, unmet; /* unmet: requires timing/measured data not there yet */
} lexp_tally;

/* Frees a captured run's output. */
void lexp_proc_free(lexp_proc *r);
/* Runs argv (argv[0] a path, or a name on $PATH), capturing stdout and stderr. */
void lexp_proc_run(const char *const argv[], lexp_proc *r);
/* The first line of s, copied into buf (for one-line messages). */
const char *lexp_first_line(const char *s, char *buf, size_t n);
/* en, or zh when the session is in Chinese and zh is not empty. */
const char *lexp_tr(const lexp_session *s, const char *en, const char *zh);
/* Runs one [run.NAME] with `warplab run --json` into e (and its measured JSON); with
 * student_ptx the student's PTX replaces the lesson's; trace/dump (may be NULL) pass
 * --trace FILE / --dump DIR. */
void lexp_run(lexp_session *s, const lesson_run *r, lexp_result *e, const char *student_ptx,
              const char *trace, const char *dump);
/* Loads the arch experiments and runs every occupancy and kernel experiment. */
void lexp_run_all(lexp_session *s);
/* A value of the measured JSON (time_us = timing.median_us); absent means not measured. */
void lexp_measured(const lexp_result *e, const char *key, lesson_value *v);
/* A metric of a run: a key of run --json, stalls.X, stall_share.X, opcodes.X, h200.PATH,
 * same_output. */
void lexp_run_metric(const lexp_result *e, const char *key, lesson_value *v);
/* A metric of an occupancy experiment; h200.blocks_per_sm/warps_per_sm/occupancy come from
 * the measured occupancy sweep. */
void lexp_occ_metric(lexp_session *s, const lesson_occ *o, const lexp_result *e, const char *key,
                     lesson_value *v);
/* The lesson_lookup_fn of a session (ctx): EXPERIMENT.KEY to a value. */
void lexp_lookup(void *ctx, const char *ref, lesson_value *v);
/* Evaluates and prints the checks (goals when goals is set): PASS, FAIL or SKIP lines. */
void lexp_checks(lexp_session *s, int goals, lexp_tally *t);
/* A private temporary folder in s->tmp (0 on success); lexp_rmtmp removes it. */
int lexp_mktmp(lexp_session *s);
void lexp_rmtmp(lexp_session *s);
/* Terminal columns of the first n bytes of UTF-8 s (CJK count two). */
int lexp_cols(const char *s, size_t n);
/* Prints text wrapped at width columns, indented. */
void lexp_wrap(const char *text, int indent, int width);
/* 1 when the argN.bin files of two --dump folders are identical, 0 when not (why says
 * where), -1 when there are none. */
int lexp_same_dumps(const char *a, const char *b, char *why, size_t n);

#endif
