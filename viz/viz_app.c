/* viz_app: `warplab view` (see viz_app.h). */
#include "viz_app.h"

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptxas.h"
#include "stall.h"
#include "viz_measured.h"
#include "viz_png.h"
#include "viz_render.h"

typedef struct {
    const char *input, *measured, *png, *lang;
    int view, sm, sched, reason, regs, smem, w, h;
    int64_t cursor;
    double range_a, range_b;
    int is_ptx, per_warp, show_help;
    int nrun; /* the run options (simulate-then-view form) */
    char **run_argv;
    char word_run[4], word_trace[8]; /* writable argv strings for `run` */
} viz_opts;

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "warplab view: error: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try: warplab view --help)\n");
    va_end(ap);
    return 1;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* Parses argv into o; the options it does not know go to run (PTX form) or are errors. */
static int parse(int argc, char **argv, viz_opts *o)
{
    memset(o, 0, sizeof *o);
    o->view = VIZ_VIEW_GPU;
    o->sched = o->reason = o->regs = o->smem = -1;
    o->cursor = -1;
    o->w = 1366;
    o->h = 768;
    o->lang = "en";
    o->run_argv = calloc((size_t)argc + 4, sizeof *o->run_argv);
    if (!o->run_argv)
        return usage_error("%s", "out of memory");
    memcpy(o->word_run, "run", 4);
    memcpy(o->word_trace, "--trace", 8);
    o->run_argv[o->nrun++] = o->word_run;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        int takes = !strcmp(a, "--measured") || !strcmp(a, "--png") || !strcmp(a, "--view") ||
                    !strcmp(a, "--size") || !strcmp(a, "--sm") || !strcmp(a, "--range") ||
                    !strcmp(a, "--cursor") || !strcmp(a, "--reason") || !strcmp(a, "--sched") ||
                    !strcmp(a, "--lang") || (!strcmp(a, "--regs") || !strcmp(a, "--smem"));
        if (takes && !v)
            return usage_error("%s needs a value", a);
        if (!strcmp(a, "--per-warp")) {
            o->per_warp = 1;
        } else if (!strcmp(a, "--show-help")) {
            o->show_help = 1;
        } else if (!strcmp(a, "--measured")) {
            o->measured = v;
        } else if (!strcmp(a, "--png")) {
            o->png = v;
        } else if (!strcmp(a, "--view")) {
            if ((o->view = viz_view_from_name(v)) < 0)
                return usage_error("unknown view '%s' (gpu, sm, breakdown, measured, occupancy, "
                                   "source)",
                                   v);
        } else if (!strcmp(a, "--size")) {
            int w, h;
            char extra;
            if (sscanf(v, "%dx%d%c", &w, &h, &extra) != 2 || w < 320 || h < 200 || w > 8192 ||
                h > 8192)
                return usage_error("bad --size '%s' (WxH, 320x200 .. 8192x8192)", v);
            o->w = w;
            o->h = h;
        } else if (!strcmp(a, "--sm")) {
            if (!parse_int(v, 0, 4095, &n))
                return usage_error("bad --sm '%s'", v);
            o->sm = (int)n;
        } else if (!strcmp(a, "--sched")) {
            if (!parse_int(v, 0, 63, &n))
                return usage_error("bad --sched '%s'", v);
            o->sched = (int)n;
        } else if (!strcmp(a, "--cursor")) {
            if (!parse_int(v, 0, 0x7fffffffL, &n))
                return usage_error("bad --cursor '%s'", v);
            o->cursor = n;
        } else if (!strcmp(a, "--range")) {
            char extra;
            if (sscanf(v, "%lf:%lf%c", &o->range_a, &o->range_b, &extra) != 2 || o->range_a < 0 ||
                o->range_b <= o->range_a)
                return usage_error("bad --range '%s' (A:B cycles, A < B)", v);
        } else if (!strcmp(a, "--reason")) {
            if ((o->reason = stall_from_name(v)) < 0)
                return usage_error("unknown stall reason '%s' (Nsight names: long_scoreboard, "
                                   "barrier, ...)",
                                   v);
        } else if (!strcmp(a, "--lang")) {
            if (strcmp(v, "en") && strcmp(v, "zh"))
                return usage_error("--lang is en or zh, not '%s'", v);
            o->lang = v;
        } else if (!strcmp(a, "--regs") || !strcmp(a, "--smem")) {
            /* both a viewer option and a run option: keep it for run too */
            if (!parse_int(v, 0, 1 << 30, &n))
                return usage_error("bad number '%s'", v);
            *(!strcmp(a, "--regs") ? &o->regs : &o->smem) = (int)n;
            o->run_argv[o->nrun++] = argv[i];
            o->run_argv[o->nrun++] = argv[i + 1];
        } else if (a[0] == '-' && a[1] == '-' && o->is_ptx) {
            o->run_argv[o->nrun++] = argv[i]; /* a run option (and its value, if any) */
            continue;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", a);
        } else if (!o->input) {
            o->input = a;
            o->is_ptx = ends_with(a, ".ptx");
            o->run_argv[o->nrun++] = argv[i];
            continue;
        } else if (o->is_ptx) {
            o->run_argv[o->nrun++] = argv[i]; /* value of a run option */
            continue;
        } else {
            return usage_error("unexpected argument '%s'", a);
        }
        if (takes)
            i++;
    }
    if (!o->input)
        return usage_error("%s", "missing the TRACE (or KERNEL.ptx) to show");
    return 0;
}

/* Fills the occupancy context: the arch file, the launch's block size, registers (--regs,
 * else ptxas -v, else an assumed 32) and shared memory. */
static void setup_ctx(viz_ctx *c, const viz_model *m, const viz_opts *o, const viz_host *host)
{
    diag_t d;
    memset(c, 0, sizeof *c);
    c->m = m;
    c->lang = o->lang;
    occ_input_defaults(&c->occ);
    c->has_arch = host && host->arch_dir && m->arch[0] &&
                  arch_load(host->arch_dir, m->arch, &c->arch, &d) == WL_OK;
    uint32_t threads =
        m->block[0] * (m->block[1] ? m->block[1] : 1) * (m->block[2] ? m->block[2] : 1);
    c->occ.block_size = threads ? (int)threads : 32;
    c->occ.dyn_smem = o->smem > 0 ? o->smem : 0;
    c->occ.regs_per_thread = 32;
    snprintf(c->regs_note, sizeof c->regs_note, "assumed: no --regs, no ptxas");
    int regs = 0, smem = 0;
    if (o->regs >= 0) {
        c->occ.regs_per_thread = o->regs;
        snprintf(c->regs_note, sizeof c->regs_note, "--regs");
    } else if (c->has_arch && m->ptx_path[0] && ptxas_available() &&
               ptxas_query(m->ptx_path, m->kernel, c->arch.sm_target, &regs, &smem, NULL, NULL,
                           &d) == WL_OK) {
        c->occ.regs_per_thread = regs;
        c->occ.static_smem = smem;
        snprintf(c->regs_note, sizeof c->regs_note, "ptxas -v");
    }
}

static void setup_state(viz_state *s, const viz_model *m, const viz_opts *o)
{
    double extent = (double)m->total_cycles;
    if (m->meas) { /* the measured timeline on the same axis: ns -> cycles at the model's clock */
        double span =
            m->meas->probe_span_us > m->meas->time_us ? m->meas->probe_span_us : m->meas->time_us;
        if (span * m->clock_mhz > extent)
            extent = span * m->clock_mhz;
    }
    viz_state_init(s, extent, m->sm_count, m->slots, m->scheds, o->w, o->h);
    s->view = (viz_view)o->view;
    s->sm = o->sm < (int)m->sm_count ? o->sm : 0;
    s->sched_filter = o->sched < (int)m->scheds ? o->sched : -1;
    s->reason_filter = o->reason;
    s->src_lines = (int)m->nlines;
    s->cursor = o->cursor;
    s->per_warp = o->per_warp;
    s->help = o->show_help;
    /* The axis reaches the measured span too (the Measured view compares both), but the other
     * views open fitted to the simulated run: a 3 us simulation beside an 80 us measurement
     * would otherwise be a sliver at the left. Home fits everything. */
    if (s->view != VIZ_VIEW_MEASURED && m->total_cycles > 1 && extent > (double)m->total_cycles &&
        s->lay.plot.w > 0)
        s->cpp = (double)m->total_cycles / s->lay.plot.w;
    if (o->range_b > o->range_a) {
        s->t0 = o->range_a;
        s->cpp = (o->range_b - o->range_a) / s->lay.plot.w;
        viz_ev nop = {.type = VIZ_EV_WHEEL}; /* dy 0: only clamps the view */
        viz_input_handle(s, &nop);
    }
    if (s->view == VIZ_VIEW_SOURCE && o->cursor >= 0) {
        /* scroll so the cursor's line is in view */
        const viz_issue *is = viz_model_issue_at(m, (uint32_t)s->sm, 0, (uint64_t)o->cursor);
        if (is && is->line > 20)
            s->src_scroll = (int)is->line - 20;
    }
}

static int key_of(const SDL_Keysym *k)
{
    int shift = (k->mod & KMOD_SHIFT) != 0;
    switch (k->sym) {
    case SDLK_LEFT: return VIZ_K_LEFT;
    case SDLK_RIGHT: return VIZ_K_RIGHT;
    case SDLK_UP: return VIZ_K_UP;
    case SDLK_DOWN: return VIZ_K_DOWN;
    case SDLK_PAGEUP: return VIZ_K_PAGEUP;
    case SDLK_PAGEDOWN: return VIZ_K_PAGEDOWN;
    case SDLK_HOME: return VIZ_K_HOME;
    case SDLK_END: return VIZ_K_END;
    case SDLK_ESCAPE: return VIZ_K_ESC;
    case SDLK_F1: return VIZ_K_F1;
    case SDLK_TAB: return '\t';
    case SDLK_KP_PLUS: return '+';
    case SDLK_KP_MINUS: return '-';
    case SDLK_SLASH: return shift ? '?' : '/';
    case SDLK_EQUALS: return shift ? '+' : '=';
    case SDLK_PERIOD: return shift ? '>' : '.';
    case SDLK_COMMA: return shift ? '<' : ',';
    default: return k->sym >= 32 && k->sym < 127 ? (int)k->sym : 0;
    }
}

/* Smoke tests drive the real window loop (under SDL's offscreen driver) by queueing keys from
 * $WARPLAB_VIEW_KEYS: each character is a key press; '~' is a wheel step up and '_' one down
 * at the plot's centre, '@' a mouse move there. The test ends its string with 'q'. */
static void queue_scripted_events(const viz_state *s)
{
    const char *keys = getenv("WARPLAB_VIEW_KEYS");
    int cx = s->lay.plot.x + s->lay.plot.w / 2, cy = s->lay.plot.y + s->lay.plot.h / 2;
    for (; keys && *keys; keys++) {
        SDL_Event e;
        memset(&e, 0, sizeof e);
        if (*keys == '~' || *keys == '_') {
            e.type = SDL_MOUSEWHEEL;
            e.wheel.y = *keys == '~' ? 1 : -1;
        } else if (*keys == '@') {
            e.type = SDL_MOUSEMOTION;
            e.motion.x = cx;
            e.motion.y = cy;
        } else {
            e.type = SDL_KEYDOWN;
            e.key.keysym.sym = (SDL_Keycode)(unsigned char)*keys;
        }
        SDL_PushEvent(&e);
    }
}

static int window_loop(viz_ctx *c, viz_state *s)
{
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) < 0) {
        fprintf(stderr,
                "warplab view: error: cannot open a window (%s); use --png OUT.png to "
                "render without a display\n",
                SDL_GetError());
        return 1;
    }
    SDL_Window *win =
        SDL_CreateWindow("warplab view", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, s->win_w,
                         s->win_h, SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    SDL_Renderer *r =
        win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC)
            : NULL;
    if (win && !r)
        r = SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    viz_font *f = NULL;
    diag_t d;
    if (!win || !r || viz_font_open(r, s->lay.font_px, &f, &d)) {
        fprintf(stderr, "warplab view: error: %s\n", !win || !r ? SDL_GetError() : d.msg);
        if (r)
            SDL_DestroyRenderer(r);
        if (win)
            SDL_DestroyWindow(win);
        return 1;
    }
    /* HiDPI: draw at the output's pixel size, scale mouse positions to it */
    int ow, oh, ww, wh;
    SDL_GetRendererOutputSize(r, &ow, &oh);
    SDL_GetWindowSize(win, &ww, &wh);
    viz_ev rs = {.type = VIZ_EV_RESIZE, .w = ow, .h = oh};
    viz_input_handle(s, &rs);
    queue_scripted_events(s);
    int dirty = 1;
    Uint32 last = SDL_GetTicks();
    while (!s->quit) {
        SDL_Event e;
        int got = s->playing ? SDL_WaitEventTimeout(&e, 15) : SDL_WaitEventTimeout(&e, 250);
        double sx = ww ? (double)ow / ww : 1, sy = wh ? (double)oh / wh : 1;
        while (got) {
            viz_ev ev = {0};
            int have = 1;
            switch (e.type) {
            case SDL_QUIT:
                s->quit = 1;
                have = 0;
                break;
            case SDL_KEYDOWN:
                ev.type = VIZ_EV_KEY;
                ev.key = key_of(&e.key.keysym);
                ev.shift = (e.key.keysym.mod & KMOD_SHIFT) != 0;
                if (e.key.keysym.sym == SDLK_RETURN && s->view == VIZ_VIEW_GPU) {
                    int sm = viz_render_gpu_sm_at(c, s, s->mouse_y);
                    if (sm >= 0) {
                        s->sm = sm;
                        s->view = VIZ_VIEW_SM;
                        dirty = 1;
                    }
                    have = 0;
                }
                break;
            case SDL_MOUSEWHEEL:
                ev.type = VIZ_EV_WHEEL;
                ev.dy = e.wheel.y;
                ev.x = s->mouse_x;
                ev.y = s->mouse_y;
                break;
            case SDL_MOUSEBUTTONDOWN:
            case SDL_MOUSEBUTTONUP:
                have = e.button.button == SDL_BUTTON_LEFT;
                ev.type = e.type == SDL_MOUSEBUTTONDOWN ? VIZ_EV_DOWN : VIZ_EV_UP;
                ev.x = (int)(e.button.x * sx);
                ev.y = (int)(e.button.y * sy);
                break;
            case SDL_MOUSEMOTION:
                ev.type = VIZ_EV_MOTION;
                ev.x = (int)(e.motion.x * sx);
                ev.y = (int)(e.motion.y * sy);
                break;
            case SDL_RENDER_TARGETS_RESET:
            case SDL_RENDER_DEVICE_RESET:
                viz_font_reset(f); /* the label textures are gone */
                dirty = 1;
                have = 0;
                break;
            case SDL_WINDOWEVENT:
                have = e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED;
                if (have) {
                    SDL_GetRendererOutputSize(r, &ow, &oh);
                    SDL_GetWindowSize(win, &ww, &wh);
                    ev.type = VIZ_EV_RESIZE;
                    ev.w = ow;
                    ev.h = oh;
                }
                dirty |= e.window.event == SDL_WINDOWEVENT_EXPOSED;
                break;
            default: have = 0;
            }
            if (have)
                dirty |= viz_input_handle(s, &ev);
            if (have && ev.type == VIZ_EV_MOTION && s->view == VIZ_VIEW_SM) {
                viz_hover h; /* remembered for the source view */
                viz_render_hover(c, s, ev.x, ev.y, &h);
                if (h.valid && h.reason >= 0) {
                    s->hover_slot = h.slot;
                    s->hover_cycle = (int64_t)h.cycle;
                }
            }
            got = SDL_PollEvent(&e);
        }
        Uint32 now = SDL_GetTicks();
        viz_ev tick = {.type = VIZ_EV_TICK, .dt = (now - last) / 1000.0};
        last = now;
        dirty |= viz_input_handle(s, &tick);
        if (dirty) {
            viz_render_frame(r, f, c, s);
            SDL_RenderPresent(r);
            dirty = 0;
        }
    }
    viz_font_close(f);
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(win);
    return 0;
}

/* The simulate-then-view form: `run` with --trace into a temporary file. */
static int simulate(viz_opts *o, const viz_host *host, char *trace, size_t cap)
{
    if (!host || !host->run) {
        fprintf(stderr, "warplab view: error: simulating a PTX file needs `warplab run`\n");
        return 1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(trace, cap, "%s/warplab-view-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(trace);
    if (fd < 0) {
        fprintf(stderr, "warplab view: error: cannot make a temporary trace file: %s\n",
                strerror(errno));
        return 1;
    }
    close(fd);
    o->run_argv[o->nrun++] = o->word_trace;
    o->run_argv[o->nrun++] = trace;
    o->run_argv[o->nrun] = NULL;
    int st = host->run(o->nrun, o->run_argv);
    FILE *f = st ? NULL : fopen(trace, "rb");
    if (!st && (!f || fgetc(f) == EOF)) {
        fprintf(stderr,
                "warplab view: error: `warplab run` wrote no trace for %s (this build's "
                "run cannot trace yet)\n",
                o->input);
        st = 1;
    }
    if (f)
        fclose(f);
    if (st != 0)
        unlink(trace);
    return st;
}

int viz_main(int argc, char **argv, const viz_host *host)
{
    viz_opts o;
    int st = parse(argc, argv, &o);
    char trace[4096] = "";
    if (!st && o.is_ptx)
        st = simulate(&o, host, trace, sizeof trace);
    if (st) {
        free(o.run_argv);
        return st;
    }
    viz_model m;
    diag_t d;
    diag_clear(&d);
    char buf[1600];
    if (viz_model_from_trace(&m, o.is_ptx ? trace : o.input, &d) ||
        (o.measured && viz_measured_load(o.measured, &m.meas, &d))) {
        diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "warplab view: %s\n", buf);
        if (trace[0])
            unlink(trace);
        viz_model_free(&m);
        free(o.run_argv);
        return d.status ? (int)d.status : 1;
    }
    if (trace[0])
        unlink(trace);
    viz_model_load_cuda(&m, host ? host->root_dir : NULL);
    viz_ctx c;
    viz_state s;
    setup_ctx(&c, &m, &o, host);
    setup_state(&s, &m, &o);
    if (TTF_Init() < 0) {
        fprintf(stderr, "warplab view: error: SDL_ttf: %s\n", TTF_GetError());
        st = 1;
    } else if (o.png) {
        if (viz_png_render(&c, &s, o.png, &d)) {
            diag_format(&d, buf, sizeof buf);
            fprintf(stderr, "warplab view: %s\n", buf);
            st = d.status;
        }
    } else {
        st = window_loop(&c, &s);
    }
    if (TTF_WasInit())
        TTF_Quit();
    SDL_Quit();
    viz_model_free(&m);
    free(o.run_argv);
    return st;
}
