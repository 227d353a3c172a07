/* lesson_expr: the claims a lesson checks.
 *
 * A claim compares two arithmetic expressions (+ - * / and parentheses over numbers and
 * metric references) with one of < <= > >= == !=, or a string metric with a "quoted" string
 * (== or != only). A metric reference is EXPERIMENT.KEY[.SUBKEY], e.g. naive.cycles,
 * naive.stalls.long_scoreboard, naive.stall_share.barrier, occ.occupancy, occ.limiter,
 * naive.h200.time_us (measured on the real GPU), gpu.sm_count. Run metrics are the keys of
 * `warplab run --json`, plus stall_share.X (X's warp-cycles over all warp-cycles, selected
 * included), opcodes.NAME (warp instructions of that opcode, 0 when none ran), h200.PATH (a value
 * of gpu/measured/<arch>/CASE.json; time_us = timing.median_us) and, for a student's kernel,
 * same_output (1 when every output buffer equals the original kernel's, byte for byte).
 * Tolerance t (default 0) relaxes every comparison by t x |right-hand side|: a < b holds when
 * a < b + t|b|, a == b when |a - b| <= t|b|.
 *
 */
#ifndef WL_LESSON_EXPR_H
#define WL_LESSON_EXPR_H

#include "diag.h"

#define LESSON_MAX_NODES 32

typedef enum { LESSON_LT, LESSON_LE, LESSON_GT, LESSON_GE, LESSON_EQ, LESSON_NE } lesson_cmp;
typedef enum {
    LESSON_N_NUM, LESSON_N_STR, LESSON_N_REF, LESSON_N_ADD, LESSON_N_SUB, LESSON_N_MUL,
    LESSON_N_DIV, LESSON_N_NEG
} lesson_node_kind;

typedef struct {
    lesson_node_kind kind;
    double num;              /* LESSON_N_NUM */
    char text[96];           /* LESSON_N_REF: "naive.cycles"; LESSON_N_STR: the string */
    int a, b;                /* operand node indices (b unused for NEG) */
} lesson_node;

typedef struct {
    char text[256];          /* the claim as written */
    lesson_cmp cmp;
    lesson_node nodes[LESSON_MAX_NODES];
    int nnodes, lhs, rhs;    /* root node indices of both sides */
} lesson_expr;

/* A metric's value as the caller found it. */
typedef enum { LESSON_V_NUM, LESSON_V_STR, LESSON_V_NULL, LESSON_V_MISSING } lesson_vkind;
typedef struct {
    lesson_vkind kind;
    double num;
    char str[96];
} lesson_value;

/* Looks a metric reference ("naive.cycles") up; must fill v. */
typedef void (*lesson_lookup_fn)(void *ctx, const char *ref, lesson_value *v);

typedef enum {
    LESSON_HOLDS,            /* the claim is true */
    LESSON_FAILS,            /* the claim is false */
    LESSON_UNKNOWN,          /* a metric is null: not modelled / not measured yet */
    LESSON_ERROR             /* a metric does not exist, or a type mismatch */
} lesson_verdict;

typedef struct {
    lesson_verdict verdict;
    double lhs, rhs;         /* both sides' values (numeric claims) */
    char lhs_str[96], rhs_str[96];
    char missing[96];        /* the first null or missing reference */
} lesson_outcome;


/* Parses one claim. Errors: WL_EUSAGE naming path:line and the column. */
wl_status lesson_expr_parse(const char *text, const char *path, int line, lesson_expr *x,
                            diag_t *d);
/* Evaluates a parsed claim with the metrics lookup gives; tolerance as above. */
void lesson_expr_eval(const lesson_expr *x, double tolerance, lesson_lookup_fn lookup, void *ctx,
                      lesson_outcome *o);
const char *lesson_cmp_str(lesson_cmp c);

#endif
