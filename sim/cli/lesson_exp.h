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
    arch_t arch;      /* [arch.NAME] */
} lexp_result;

typedef struct {
    const lesson_t *l;
    char root[1024], self[1024], dir[1024], tmp[1024];
    int zh;
    lexp_result runs[LESSON_MAX_RUNS], occs[LESSON_MAX_OCCS], archs[LESSON_MAX_ARCHS];
    lexp_result student;
    int has_student;
    arch_t lesson_arch;
} lexp_session;

typedef struct {
    int passed, failed, unmet; /* unmet: requires timing/measured data not there yet */
} lexp_tally;

void lexp_proc_free(lexp_proc *r);
void lexp_proc_run(const char *const argv[], lexp_proc *r);
const char *lexp_first_line(const char *s, char *buf, size_t n);
const char *lexp_tr(const lexp_session *s, const char *en, const char *zh);
void lexp_run(lexp_session *s, const lesson_run *r, lexp_result *e, const char *student_ptx,
              const char *trace, const char *dump);
void lexp_run_all(lexp_session *s);
void lexp_measured(const lexp_result *e, const char *key, lesson_value *v);
void lexp_run_metric(const lexp_result *e, const char *key, lesson_value *v);
void lexp_occ_metric(lexp_session *s, const lesson_occ *o, const lexp_result *e, const char *key,
                       lesson_value *v);
void lexp_lookup(void *ctx, const char *ref, lesson_value *v);
void lexp_checks(lexp_session *s, int goals, lexp_tally *t);
int lexp_mktmp(lexp_session *s);
void lexp_rmtmp(lexp_session *s);
int lexp_cols(const char *s, size_t n);
void lexp_wrap(const char *text, int indent, int width);
int lexp_same_dumps(const char *a, const char *b, char *why, size_t n);

#endif
