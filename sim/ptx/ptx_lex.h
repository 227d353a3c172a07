/* ptx_lex: the PTX tokenizer (internal to the front end).
 *
 * Streams tokens on demand, so memory stays constant whatever the input size.
 * A WORD is a run of [A-Za-z0-9_$%.] plus `::` (so `ld.global.v2.f32`,
 * `%tid.x`, `.reg`, `$L__BB0_3`, `shared::cta`, `0f3F800000` and `1.5` are
 * single words); `:` alone, punctuation and "strings" are their own tokens.
 * Comments (// and C-style) and whitespace are skipped. NUL bytes and other
 * control characters are lexical errors.
 */
#ifndef WL_PTX_LEX_H
#define WL_PTX_LEX_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    PLEX_EOF = 0,
    PLEX_WORD,
    PLEX_STRING, /* text includes the quotes */
    PLEX_PUNCT,  /* one of { } ( ) [ ] < > , ; : = + - | ! @ */
    PLEX_ERROR   /* text points at the offending byte; plex_error_msg says why */
} plex_kind;

typedef struct {
    plex_kind kind;
    const char *text;
    size_t len;
    uint32_t line, col;
} plex_tok;

typedef struct {
    const char *src;
    size_t len, pos;
    uint32_t line;
    size_t line_start;
    const char *err; /* message for PLEX_ERROR */
    uint32_t eline, ecol; /* where an unterminated comment started */
} plex;

void plex_init(plex *lx, const char *src, size_t len);
/* Returns the next token (PLEX_EOF at the end, forever). */
plex_tok plex_next(plex *lx);
/* True when the token is the punctuation character c. */
int plex_is(const plex_tok *t, char c);
/* True when the token is the word w (exact). */
int plex_word_is(const plex_tok *t, const char *w);

#endif
