/* viz_font: fonts and a cache of rendered strings (see viz_font.h). */
#include "viz_font.h"

#include <SDL_ttf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CACHE = 1024 }; /* rendered strings kept */

typedef struct {
    char *text;
    uint32_t key; /* colour, style, size */
    SDL_Texture *tex;
    int w, h;
} cache_entry;

struct viz_font {
    SDL_Renderer *r;
    int px;
    char paths[4][512];   /* sans, bold, mono, cjk ("" when missing) */
    TTF_Font *face[2][4]; /* [small][sans, bold, mono, cjk] */
    cache_entry cache[CACHE];
    int cached;
};

static int find_font(char *out, size_t cap, const char *const *names)
{
    const char *dirs[] = {
        getenv("WARPLAB_FONT_DIR"),      "/usr/share/fonts/truetype/dejavu",
        "/usr/share/fonts/truetype/wqy", "/usr/share/fonts/TTF",
        "/usr/share/fonts/dejavu",       "/usr/share/fonts/wenquanyi/wqy-microhei",
        "/usr/local/share/fonts"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        for (size_t k = 0; dirs[i] && names[k]; k++) {
            snprintf(out, cap, "%s/%s", dirs[i], names[k]);
            FILE *f = fopen(out, "rb");
            if (f) {
                fclose(f);
                return 1;
            }
        }
    out[0] = 0;
    return 0;
}

static void close_faces(viz_font *f)
{
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 4; i++) {
            if (f->face[s][i])
                TTF_CloseFont(f->face[s][i]);
            f->face[s][i] = NULL;
        }
}

static void flush_cache(viz_font *f)
{
    for (int i = 0; i < CACHE; i++) {
        if (f->cache[i].tex)
            SDL_DestroyTexture(f->cache[i].tex);
        free(f->cache[i].text);
    }
    memset(f->cache, 0, sizeof f->cache);
    f->cached = 0;
}

static void open_faces(viz_font *f)
{
    close_faces(f);
    for (int s = 0; s < 2; s++) {
        int px = s ? f->px * 4 / 5 : f->px;
        for (int i = 0; i < 4; i++)
            if (f->paths[i][0])
                f->face[s][i] = TTF_OpenFont(f->paths[i], px < 6 ? 6 : px);
    }
}

wl_status viz_font_open(SDL_Renderer *r, int px, viz_font **out, diag_t *d)
{
    *out = NULL;
    if (!TTF_WasInit() && TTF_Init() < 0)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "SDL_ttf: %s", TTF_GetError());
    viz_font *f = calloc(1, sizeof *f);
    if (!f)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    f->r = r;
    f->px = px;
    static const char *const sans[] = {"DejaVuSans.ttf", NULL};
    static const char *const bold[] = {"DejaVuSans-Bold.ttf", "DejaVuSans.ttf", NULL};
    static const char *const mono[] = {"DejaVuSansMono.ttf", "DejaVuSans.ttf", NULL};
    static const char *const cjk[] = {"wqy-microhei.ttc", "wqy-zenhei.ttc", NULL};
    find_font(f->paths[0], sizeof f->paths[0], sans);
    find_font(f->paths[1], sizeof f->paths[1], bold);
    find_font(f->paths[2], sizeof f->paths[2], mono);
    find_font(f->paths[3], sizeof f->paths[3], cjk);
    open_faces(f);
    if (!f->face[0][0]) {
        viz_font_close(f);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        "no usable font: install fonts-dejavu-core "
                        "(DejaVuSans.ttf) or point WARPLAB_FONT_DIR at a folder holding it");
    }
    *out = f;
    return WL_OK;
}

void viz_font_close(viz_font *f)
{
    if (!f)
        return;
    flush_cache(f);
    close_faces(f);
    free(f);
}

void viz_font_reset(viz_font *f)
{
    flush_cache(f);
}

void viz_font_resize(viz_font *f, int px)
{
    if (px == f->px || px < 4)
        return;
    f->px = px;
    flush_cache(f);
    open_faces(f);
}

int viz_font_px(const viz_font *f)
{
    return f->px;
}

int viz_font_has_cjk(const viz_font *f)
{
    return f->face[0][3] != NULL;
}

static int has_cjk(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0xe2) /* 3-byte UTF-8 from U+2000: punctuation, CJK */
            return 1;
    return 0;
}

static TTF_Font *face_for(viz_font *f, const char *text, int style)
{
    int s = (style & VIZ_TEXT_SMALL) ? 1 : 0;
    if (has_cjk(text) && f->face[s][3])
        return f->face[s][3];
    int i = (style & VIZ_TEXT_MONO) ? 2 : (style & VIZ_TEXT_BOLD) ? 1 : 0;
    return f->face[s][i] ? f->face[s][i] : f->face[0][0];
}

int viz_font_height(viz_font *f, int style)
{
    return TTF_FontLineSkip(face_for(f, "", style));
}

int viz_font_width(viz_font *f, const char *text, int style)
{
    int w = 0, h = 0;
    if (text && *text)
        TTF_SizeUTF8(face_for(f, text, style), text, &w, &h);
    return w;
}

static uint32_t hash(const char *s, uint32_t key)
{
    uint32_t h = 2166136261u ^ key;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The cached texture of (text, colour, style), rendering it on a miss. */
static cache_entry *lookup(viz_font *f, const char *text, viz_rgb c, int style)
{
    uint32_t key = ((uint32_t)c.r << 24 | (uint32_t)c.g << 16 | (uint32_t)c.b << 8) ^
                   (uint32_t)(style & (VIZ_TEXT_MONO | VIZ_TEXT_BOLD | VIZ_TEXT_SMALL));
    uint32_t h = hash(text, key);
    for (int probe = 0; probe < 8; probe++) {
        cache_entry *e = &f->cache[(h + (uint32_t)probe) % CACHE];
        if (e->text && e->key == key && !strcmp(e->text, text))
            return e;
        if (!e->text) {
            SDL_Surface *surf = TTF_RenderUTF8_Blended(face_for(f, text, style), text,
                                                       (SDL_Color){c.r, c.g, c.b, 255});
            if (!surf)
                return NULL;
            e->tex = SDL_CreateTextureFromSurface(f->r, surf);
            e->w = surf->w;
            e->h = surf->h;
            SDL_FreeSurface(surf);
            e->text = strdup(text);
            e->key = key;
            f->cached++;
            return e->tex && e->text ? e : NULL;
        }
    }
    /* a crowded neighbourhood: start the cache afresh (labels change slowly) */
    flush_cache(f);
    return lookup(f, text, c, style);
}

int viz_font_draw(viz_font *f, int x, int y, const char *text, viz_rgb c, int style)
{
    if (!text || !*text)
        return 0;
    cache_entry *e = lookup(f, text, c, style);
    if (!e)
        return 0;
    if (style & VIZ_TEXT_RIGHT)
        x -= e->w;
    else if (style & VIZ_TEXT_CENTER)
        x -= e->w / 2;
    SDL_Rect dst = {x, y, e->w, e->h};
    SDL_RenderCopy(f->r, e->tex, NULL, &dst);
    return e->w;
}
