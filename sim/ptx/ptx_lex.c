/* ptx_lex: the PTX tokenizer. See ptx_lex.h. */
#include "ptx_lex.h"

#include <string.h>

void plex_init(plex *lx, const char *src, size_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src;
    lx->len = len;
    lx->line = 1;
}

static int is_word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c == '%' || c == '.';
}

static void newline(plex *lx)
{
    lx->line++;
    lx->line_start = lx->pos;
}

static plex_tok make(const plex *lx, plex_kind k, size_t start, uint32_t line, size_t line_start)
{
    plex_tok t;
    t.kind = k;
    t.text = lx->src + start;
    t.len = lx->pos - start;
    t.line = line;
    t.col = (uint32_t)(start - line_start + 1);
    return t;
}

static plex_tok error_at(plex *lx, const char *msg)
{
    lx->err = msg;
    plex_tok t = make(lx, PLEX_ERROR, lx->pos, lx->line, lx->line_start);
    t.len = lx->pos < lx->len ? 1 : 0;
    lx->pos = lx->len; /* stop: every later call returns EOF */
    return t;
}

/* Skips whitespace and comments. Returns 0, or -1 on an unterminated comment. */
static int skip_space(plex *lx)
{
    while (lx->pos < lx->len) {
        unsigned char c = (unsigned char)lx->src[lx->pos];
        if (c == '\n') {
            lx->pos++;
            newline(lx);
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '/') {
            while (lx->pos < lx->len && lx->src[lx->pos] != '\n')
                lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '*') {
            lx->eline = lx->line;
            lx->ecol = (uint32_t)(lx->pos - lx->line_start + 1);
            lx->pos += 2;
            for (;;) {
                if (lx->pos + 1 >= lx->len) {
                    lx->pos = lx->len;
                    return -1;
                }
                if (lx->src[lx->pos] == '*' && lx->src[lx->pos + 1] == '/') {
                    lx->pos += 2;
                    break;
                }
                if (lx->src[lx->pos] == '\n') {
                    lx->pos++;
                    newline(lx);
                } else {
                    lx->pos++;
                }
            }
        } else {
            break;
        }
    }
    return 0;
}

plex_tok plex_next(plex *lx)
{
    if (skip_space(lx) < 0) {
        plex_tok t;
        t.kind = PLEX_ERROR;
        t.text = lx->src + lx->len;
        t.len = 0;
        t.line = lx->eline;
        t.col = lx->ecol;
        lx->err = "unterminated comment";
        return t;
    }
    size_t start = lx->pos;
    if (start >= lx->len)
        return make(lx, PLEX_EOF, start, lx->line, lx->line_start);
    unsigned char c = (unsigned char)lx->src[start];
    if (is_word_char(c)) {
        while (lx->pos < lx->len) {
            unsigned char d = (unsigned char)lx->src[lx->pos];
            if (is_word_char(d)) {
                lx->pos++;
            } else if (d == ':' && lx->pos + 2 < lx->len && lx->src[lx->pos + 1] == ':' &&
                       is_word_char((unsigned char)lx->src[lx->pos + 2])) {
                lx->pos += 2; /* `::` inside a word: shared::cta, L2::128B */
            } else {
                break;
            }
        }
        return make(lx, PLEX_WORD, start, lx->line, lx->line_start);
    }
    if (c == '"') {
        lx->pos++;
        while (lx->pos < lx->len && lx->src[lx->pos] != '"') {
            if (lx->src[lx->pos] == '\n' || lx->src[lx->pos] == '\0') {
                lx->pos = start;
                return error_at(lx, "unterminated string");
            }
            if (lx->src[lx->pos] == '\\' && lx->pos + 1 < lx->len)
                lx->pos++;
            lx->pos++;
        }
        if (lx->pos >= lx->len) {
            lx->pos = start;
            return error_at(lx, "unterminated string");
        }
        lx->pos++;
        return make(lx, PLEX_STRING, start, lx->line, lx->line_start);
    }
    if (strchr("{}()[]<>,;:=+-|!@", c) && c != '\0') {
        lx->pos++;
        return make(lx, PLEX_PUNCT, start, lx->line, lx->line_start);
    }
    return error_at(lx, c == 0 ? "NUL byte in input" : "unexpected character");
}

int plex_is(const plex_tok *t, char c)
{
    return t->kind == PLEX_PUNCT && t->text[0] == c;
}

int plex_word_is(const plex_tok *t, const char *w)
{
    size_t n = strlen(w);
    return t->kind == PLEX_WORD && t->len == n && memcmp(t->text, w, n) == 0;
}
