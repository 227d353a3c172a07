/* stall: names and one-sentence descriptions of the warp states (see stall.h). */
#include "stall.h"

#include <string.h>

static const char *const stall_names[STALL_COUNT] = {
#define STALL_X(id, name, en, zh) name,
    STALL_REASONS(STALL_X)
#undef STALL_X
};
static const char *const stall_en[STALL_COUNT] = {
#define STALL_X(id, name, en, zh) en,
    STALL_REASONS(STALL_X)
#undef STALL_X
};
static const char *const stall_zh[STALL_COUNT] = {
#define STALL_X(id, name, en, zh) zh,
    STALL_REASONS(STALL_X)
#undef STALL_X
};

const char *stall_name(int reason)
{
    return reason >= 0 && reason < STALL_COUNT ? stall_names[reason] : "?";
}

const char *stall_describe(int reason, const char *lang)
{
    if (reason < 0 || reason >= STALL_COUNT)
        return "?";
    return lang && strcmp(lang, "zh") == 0 ? stall_zh[reason] : stall_en[reason];
}

int stall_from_name(const char *name)
{
    for (int i = 0; name && i < STALL_COUNT; i++)
        if (strcmp(stall_names[i], name) == 0)
            return i;
    return -1;
}
