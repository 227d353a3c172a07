/* libFuzzer target for the --arg grammar: any bytes must parse or fail cleanly
 * (never crash, never a message without the spec); a parsed spec must fill
 * without touching memory past its COUNT elements, and its canonical text must
 * parse back to the same canonical text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "argspec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = (char *)malloc(size + 1);
    if (!spec)
        return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';
    argspec a, b;
    diag_t d;
    diag_clear(&d);
    if (argspec_parse(spec, &a, &d) != WL_OK) {
        if (d.status != WL_EUSAGE || !strstr(d.msg, "--arg '"))
            abort();
        free(spec);
        return 0;
    }
    /* Fill only modest buffers: the fuzzer must stay fast and within memory. */
    uint64_t n = argspec_bytes(&a);
    if (n <= (1u << 16)) {
        uint8_t *buf = (uint8_t *)malloc((size_t)n); /* exact size: ASan sees overruns */
        if (buf && argspec_fill(&a, buf, &d) != WL_OK)
            abort();
        free(buf);
    }
    char c1[256], c2[256];
    argspec_format(&a, c1, sizeof c1);
    if (argspec_parse(c1, &b, &d) != WL_OK)
        abort();
    argspec_format(&b, c2, sizeof c2);
    if (strcmp(c1, c2) != 0 || argspec_bytes(&a) != argspec_bytes(&b))
        abort();
    free(spec);
    return 0;
}
