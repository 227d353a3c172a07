/* viz_png: headless rendering (see viz_png.h). */
#include "viz_png.h"

#include <SDL_image.h>

SDL_Surface *viz_png_draw(const viz_ctx *c, const viz_state *s, diag_t *d)
{
    SDL_Surface *surf =
        SDL_CreateRGBSurfaceWithFormat(0, s->win_w, s->win_h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!surf) {
        diag_set(d, WL_EUSAGE, NULL, 0, 0, "cannot make a %dx%d image: %s", s->win_w, s->win_h,
                 SDL_GetError());
        return NULL;
    }
    SDL_Renderer *r = SDL_CreateSoftwareRenderer(surf);
    viz_font *f = NULL;
    if (!r || viz_font_open(r, s->lay.font_px, &f, d)) {
        if (!r)
            diag_set(d, WL_EUSAGE, NULL, 0, 0, "software renderer: %s", SDL_GetError());
        if (r)
            SDL_DestroyRenderer(r);
        SDL_FreeSurface(surf);
        return NULL;
    }
    viz_render_frame(r, f, c, s);
    SDL_RenderPresent(r);
    viz_font_close(f);
    SDL_DestroyRenderer(r);
    return surf;
}

wl_status viz_png_render(const viz_ctx *c, const viz_state *s, const char *path, diag_t *d)
{
    SDL_Surface *surf = viz_png_draw(c, s, d);
    if (!surf)
        return d->status;
    int rc = IMG_SavePNG(surf, path);
    SDL_FreeSurface(surf);
    if (rc != 0)
        return diag_set(d, WL_EUSAGE, path, 0, 0, "cannot write the PNG: %s", IMG_GetError());
    return WL_OK;
}

viz_rgb viz_png_pixel(const SDL_Surface *surf, int x, int y)
{
    if (!surf || x < 0 || y < 0 || x >= surf->w || y >= surf->h)
        return (viz_rgb){0, 0, 0};
    const uint8_t *row = (const uint8_t *)surf->pixels + (size_t)y * (size_t)surf->pitch;
    uint32_t px = ((const uint32_t *)(const void *)row)[x];
    return (viz_rgb){(uint8_t)(px >> 16), (uint8_t)(px >> 8), (uint8_t)px};
}
