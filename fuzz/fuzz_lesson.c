/* libFuzzer target for the lesson-file reader and the claim expressions: any bytes must parse
 * or fail with WL_EUSAGE and a message (never crash, hang or read past the input); a parsed
 * lesson's claims must evaluate, whatever the metrics say, to one of the four verdicts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Metrics from the reference's first character: a number, a string, null or missing. */
static void lookup(void *ctx, const char *ref, lesson_value *v)
{
    (void)ctx;
    switch (ref[0] % 4) {
    case 0: v->kind = LESSON_V_NUM; v->num = (double)(unsigned char)ref[1]; break;
    case 1: v->kind = LESSON_V_STR; strcpy(v->str, "registers"); break;
    case 2: v->kind = LESSON_V_NULL; break;
    default: v->kind = LESSON_V_MISSING; break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lesson_t *l = malloc(sizeof *l);
    if (!l)
        return 0;
    diag_t d;
    diag_clear(&d);
    /* the input is not NUL-terminated: the reader must respect size */
    wl_status st = lesson_parse((const char *)data, size, "fuzz.ini", l, &d);
    if (st != WL_OK) {
        if (st != WL_EUSAGE || !d.msg[0] || strcmp(d.file, "fuzz.ini"))
            abort();
    } else {
        for (int i = 0; i < l->nchecks; i++) {
            lesson_outcome o;
            lesson_expr_eval(&l->checks[i].x, l->checks[i].tolerance, lookup, NULL, &o);
            if (o.verdict > LESSON_ERROR)
                abort();
        }
    }
    free(l);
    return 0;
}
