/* ptx_insn.c: parsing one PTX instruction: guard, opcode, modifiers decoded
 * into ptx_insn fields, operands (registers, immediates, addresses, vectors,
 * special registers, labels), and call sequences. */
#include <string.h>

#include "ptx.h"
#include "ptx_int.h"

/* ---------------- opcode lookup ---------------- */
/* PTX opcodes we recognise but do not model: WL_EUNSUPPORTED, not "unknown". */
static const char *const unsupported_ops[] = {
    "tex", "tld4", "txq", "suld", "sust", "sured", "suq", "wgmma", "mma", "wmma", "ldmatrix",
    "stmatrix", "movmatrix", "tensormap", "cp.async.bulk", "cp.reduce.async.bulk", "multimem",
    "setmaxnreg", "getctarank", "mapa", "applypriority", "discard", "createpolicy", "istypep",
    "alloca", "stacksave", "stackrestore", "clusterlaunchcontrol", "tcgen05",
    "vabsdiff", "vabsdiff2", "vabsdiff4", "vadd", "vadd2", "vadd4", "vsub", "vsub2", "vsub4",
    "vmad", "vmax", "vmax2", "vmax4", "vmin", "vmin2", "vmin4", "vset", "vset2", "vset4", "vshl",
    "vshr", "vavrg2", "vavrg4", "brx", "st.async", "red.async", "st.bulk", "barrier.cluster",
    "prefetch.tensormap",
};

/* The mma.sync forms the executor runs (tensor cores, xmma.c); any other mma (other shapes,
 * integer, tf32, f64, fp8, f16 accumulators, sparse mma.sp) is skipped as unsupported. */
static const struct {
    const char *name;
    uint8_t shape, ab; /* ptx_mmashape; the type of a and b */
    uint8_t na, nb;    /* registers in a and b ({d} and {c} have 4) */
} mma_forms[] = {
    {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", PTX_MMA_M16N8K16, PTX_T_F16, 4, 2},
    {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", PTX_MMA_M16N8K16, PTX_T_BF16, 4, 2},
    {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", PTX_MMA_M16N8K8, PTX_T_F16, 2, 1},
    {"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", PTX_MMA_M16N8K8, PTX_T_BF16, 2, 1},
};

/* The mma_forms row of opcode word t, or -1. */
static int mma_form(const plex_tok *t)
{
    for (int k = 0; k < (int)(sizeof mma_forms / sizeof mma_forms[0]); k++)
        if (strlen(mma_forms[k].name) == t->len && !memcmp(mma_forms[k].name, t->text, t->len))
            return k;
    return -1;
}

/* The wmma forms the executor runs (xmma.c): m16n16k16 with f16 or bf16 inputs and f32
 * accumulators, as nvcuda::wmma writes them:
 *   wmma.load.{a,b}.sync.aligned.{row,col}.m16n16k16[.global|.shared[::cta]].{f16,bf16}
 *   wmma.load.c.sync.aligned.{row,col}.m16n16k16[.SPACE].f32
 *   wmma.store.d.sync.aligned.{row,col}.m16n16k16[.SPACE].f32
 *   wmma.mma.sync.aligned.{row,col}.{row,col}.m16n16k16.f32.f32           (f16 inputs)
 *   wmma.mma.sync.aligned.{row,col}.{row,col}.m16n16k16.f32.bf16.bf16.f32
 * Decodes word t into in (op, mode, types, space, flags) and returns 1, or 0 for any other
 * form (other shapes, f16 accumulators, integer, tf32, ...: skipped as unsupported). */
static int wmma_form(const plex_tok *t, ptx_insn *in)
{
    char w[96], *part[16];
    int n = 0;
    if (t->len >= sizeof w)
        return 0;
    memcpy(w, t->text, t->len);
    w[t->len] = '\0';
    for (char *s = w; s && n < 16;) {
        part[n++] = s;
        s = strchr(s, '.');
        if (s)
            *s++ = '\0';
    }
#define P(k, s) (n > (k) && strcmp(part[k], s) == 0)
    int k = 0;
    if (!P(0, "wmma") || n < 2)
        return 0;
    int load = P(1, "load"), store = P(1, "store"), mma = P(1, "mma");
    k = mma ? 2 : 3;
    if (!(load || store || mma) || !P(k, "sync") || !P(k + 1, "aligned"))
        return 0;
    k += 2;
    unsigned mode = 0;
    if (load || store) {
        const char *f = part[2];
        mode = load && !strcmp(f, "a") ? PTX_WMMA_A : load && !strcmp(f, "b") ? PTX_WMMA_B
               : load && !strcmp(f, "c") ? PTX_WMMA_C : store && !strcmp(f, "d") ? PTX_WMMA_D
               : 99u;
        if (mode == 99u || !(P(k, "row") || P(k, "col")))
            return 0;
        mode |= P(k, "col") ? PTX_WMMA_COL : 0;
        if (!P(k + 1, "m16n16k16"))
            return 0;
        k += 2;
        if (P(k, "global") || P(k, "shared") || P(k, "shared::cta")) {
            in->space = P(k, "global") ? PTX_SPACE_GLOBAL : PTX_SPACE_SHARED;
            k++;
        }
        int ab = (mode & PTX_WMMA_FRAG) <= PTX_WMMA_B;
        if (n != k + 1 || !(ab ? P(k, "f16") || P(k, "bf16") : P(k, "f32")))
            return 0;
        in->op = load ? PTX_OP_WMMA_LOAD : PTX_OP_WMMA_STORE;
        in->type[0] = P(k, "f16") ? PTX_T_F16 : P(k, "bf16") ? PTX_T_BF16 : PTX_T_F32;
    } else {
        if (!(P(k, "row") || P(k, "col")) || !(P(k + 1, "row") || P(k + 1, "col")) ||
            !P(k + 2, "m16n16k16"))
            return 0;
        mode = (P(k, "col") ? PTX_WMMA_A_COL : 0) | (P(k + 1, "col") ? PTX_WMMA_B_COL : 0);
        k += 3;
        int f16 = n == k + 2 && P(k, "f32") && P(k + 1, "f32");
        int bf16 = n == k + 4 && P(k, "f32") && P(k + 1, "bf16") && P(k + 2, "bf16") &&
                   P(k + 3, "f32");
        if (!f16 && !bf16)
            return 0;
        in->op = PTX_OP_WMMA_MMA;
        in->type[0] = in->type[2] = PTX_T_F32;
        in->type[1] = bf16 ? PTX_T_BF16 : PTX_T_F16;
    }
#undef P
    in->mode = (uint8_t)mode;
    in->flags |= PTX_F_SYNC | PTX_F_ALIGNED;
    return 1;
}

/* Does word w (length n) start with name s followed by '.' or the end? */
static size_t prefix_len(const char *w, size_t n, const char *s)
{
    size_t l = strlen(s);
    if (l > n || memcmp(w, s, l) != 0)
        return 0;
    return (l == n || w[l] == '.') ? l : 0;
}

static int find_opcode(const char *w, size_t n, size_t *used)
{
    int best = -1;
    size_t bl = 0;
    for (int op = 0; op < PTX_OP_COUNT; op++) {
        size_t l = prefix_len(w, n, isa_name(op));
        if (l > bl) {
            bl = l;
            best = op;
        }
    }
    size_t l = prefix_len(w, n, "barrier"); /* barrier.sync == bar.sync without .aligned */
    if (l > bl) {
        bl = l;
        best = PTX_OP_BAR;
    }
    *used = bl;
    return best;
}

/* ---------------- modifiers ---------------- */
typedef enum {
    MF_TYPE, MF_SPACE, MF_CACHE, MF_ROUND, MF_FLAG, MF_CMP, MF_VEC, MF_SEM, MF_SCOPE, MF_AOP,
    MF_TESTP, MF_PRMT, MF_HINT, MF_UNSUP, MF_CTX
} mfield;

typedef struct {
    const char *name;
    uint8_t field;
    uint32_t value;
} modrow;

/* Context-free modifiers. MF_CTX names mean different things per opcode
 * (apply_ctx decides); MF_HINT are performance hints we accept and ignore. */
static const modrow mods[] = {
    {"global", MF_SPACE, PTX_SPACE_GLOBAL}, {"shared", MF_SPACE, PTX_SPACE_SHARED},
    {"shared::cta", MF_SPACE, PTX_SPACE_SHARED}, {"local", MF_SPACE, PTX_SPACE_LOCAL},
    {"const", MF_SPACE, PTX_SPACE_CONST}, {"param", MF_SPACE, PTX_SPACE_PARAM},
    {"param::entry", MF_SPACE, PTX_SPACE_PARAM}, {"param::func", MF_SPACE, PTX_SPACE_PARAM},
    {"shared::cluster", MF_SPACE, PTX_SPACE_SHARED_CLUSTER},
    {"cs", MF_CACHE, PTX_CACHE_CS}, {"lu", MF_CACHE, PTX_CACHE_LU}, {"cv", MF_CACHE, PTX_CACHE_CV},
    {"wb", MF_CACHE, PTX_CACHE_WB}, {"wt", MF_CACHE, PTX_CACHE_WT},
    {"rn", MF_ROUND, PTX_RND_RN}, {"rz", MF_ROUND, PTX_RND_RZ}, {"rm", MF_ROUND, PTX_RND_RM},
    {"rp", MF_ROUND, PTX_RND_RP}, {"rni", MF_ROUND, PTX_RND_RNI}, {"rzi", MF_ROUND, PTX_RND_RZI},
    {"rmi", MF_ROUND, PTX_RND_RMI}, {"rpi", MF_ROUND, PTX_RND_RPI}, {"rna", MF_ROUND, PTX_RND_RNA},
    {"ftz", MF_FLAG, PTX_F_FTZ}, {"sat", MF_FLAG, PTX_F_SAT}, {"approx", MF_FLAG, PTX_F_APPROX},
    {"full", MF_FLAG, PTX_F_FULL}, {"aligned", MF_FLAG, PTX_F_ALIGNED},
    {"nc", MF_FLAG, PTX_F_NC}, {"cc", MF_FLAG, PTX_F_CC}, {"wrap", MF_FLAG, PTX_F_WRAP},
    {"clamp", MF_FLAG, PTX_F_CLAMP}, {"to", MF_FLAG, PTX_F_TO}, {"relu", MF_FLAG, PTX_F_RELU},
    {"NaN", MF_FLAG, PTX_F_NAN}, {"xorsign", MF_FLAG, PTX_F_XORSIGN}, {"abs", MF_FLAG, PTX_F_ABS},
    {"shiftamt", MF_FLAG, PTX_F_SHIFTAMT}, {"noinc", MF_FLAG, PTX_F_NOINC},
    {"expect_tx", MF_FLAG, PTX_F_EXPECT_TX}, {"oob", MF_FLAG, PTX_F_OOB},
    {"eq", MF_CMP, PTX_CMP_EQ}, {"ne", MF_CMP, PTX_CMP_NE}, {"lt", MF_CMP, PTX_CMP_LT},
    {"le", MF_CMP, PTX_CMP_LE}, {"gt", MF_CMP, PTX_CMP_GT}, {"ge", MF_CMP, PTX_CMP_GE},
    {"ls", MF_CMP, PTX_CMP_LS}, {"hs", MF_CMP, PTX_CMP_HS}, {"equ", MF_CMP, PTX_CMP_EQU},
    {"neu", MF_CMP, PTX_CMP_NEU}, {"ltu", MF_CMP, PTX_CMP_LTU}, {"leu", MF_CMP, PTX_CMP_LEU},
    {"gtu", MF_CMP, PTX_CMP_GTU}, {"geu", MF_CMP, PTX_CMP_GEU}, {"num", MF_CMP, PTX_CMP_NUM},
    {"nan", MF_CMP, PTX_CMP_NAN},
    {"v2", MF_VEC, 2}, {"v4", MF_VEC, 4},
    {"weak", MF_SEM, PTX_SEM_WEAK}, {"volatile", MF_SEM, PTX_SEM_VOLATILE},
    {"relaxed", MF_SEM, PTX_SEM_RELAXED}, {"acquire", MF_SEM, PTX_SEM_ACQUIRE},
    {"release", MF_SEM, PTX_SEM_RELEASE}, {"acq_rel", MF_SEM, PTX_SEM_ACQ_REL},
    {"sc", MF_SEM, PTX_SEM_SC}, {"mmio", MF_SEM, PTX_SEM_MMIO},
    {"cta", MF_SCOPE, PTX_SCOPE_CTA}, {"cluster", MF_SCOPE, PTX_SCOPE_CLUSTER},
    {"gpu", MF_SCOPE, PTX_SCOPE_GPU}, {"gl", MF_SCOPE, PTX_SCOPE_GPU},
    {"sys", MF_SCOPE, PTX_SCOPE_SYS},
    {"inc", MF_AOP, PTX_AOP_INC}, {"dec", MF_AOP, PTX_AOP_DEC}, {"min", MF_AOP, PTX_AOP_MIN},
    {"max", MF_AOP, PTX_AOP_MAX}, {"exch", MF_AOP, PTX_AOP_EXCH}, {"cas", MF_AOP, PTX_AOP_CAS},
    {"popc", MF_AOP, PTX_AOP_POPC},
    {"finite", MF_TESTP, PTX_TESTP_FINITE}, {"infinite", MF_TESTP, PTX_TESTP_INFINITE},
    {"number", MF_TESTP, PTX_TESTP_NUMBER}, {"notanumber", MF_TESTP, PTX_TESTP_NOTANUMBER},
    {"normal", MF_TESTP, PTX_TESTP_NORMAL}, {"subnormal", MF_TESTP, PTX_TESTP_SUBNORMAL},
    {"f4e", MF_PRMT, PTX_PRMT_F4E}, {"b4e", MF_PRMT, PTX_PRMT_B4E}, {"rc8", MF_PRMT, PTX_PRMT_RC8},
    {"ecl", MF_PRMT, PTX_PRMT_ECL}, {"ecr", MF_PRMT, PTX_PRMT_ECR},
    {"rc16", MF_PRMT, PTX_PRMT_RC16},
    {"L1::evict_normal", MF_HINT, 0}, {"L1::evict_unchanged", MF_HINT, 0},
    {"L1::evict_first", MF_HINT, 0}, {"L1::evict_last", MF_HINT, 0},
    {"L1::no_allocate", MF_HINT, 0}, {"L2::evict_first", MF_HINT, 0},
    {"L2::evict_last", MF_HINT, 0}, {"L2::evict_normal", MF_HINT, 0},
    {"L2::64B", MF_HINT, 0}, {"L2::128B", MF_HINT, 0}, {"L2::256B", MF_HINT, 0},
    {"L1", MF_HINT, 0}, {"L2", MF_HINT, 0}, {"noftz", MF_HINT, 0}, {"proxy", MF_HINT, 0},
    {"async", MF_HINT, 0}, {"alias", MF_HINT, 0}, {"mbarrier_init", MF_HINT, 0},
    {"L2::cache_hint", MF_CTX, 0},
    {"and", MF_CTX, 0}, {"or", MF_CTX, 0}, {"xor", MF_CTX, 0}, {"add", MF_CTX, 0},
    {"lo", MF_CTX, 0}, {"hi", MF_CTX, 0}, {"wide", MF_CTX, 0}, {"all", MF_CTX, 0},
    {"any", MF_CTX, 0}, {"uni", MF_CTX, 0}, {"ballot", MF_CTX, 0}, {"sync", MF_CTX, 0},
    {"arrive", MF_CTX, 0}, {"red", MF_CTX, 0}, {"up", MF_CTX, 0}, {"down", MF_CTX, 0},
    {"bfly", MF_CTX, 0}, {"idx", MF_CTX, 0}, {"l", MF_CTX, 0}, {"r", MF_CTX, 0},
    {"ca", MF_CTX, 0}, {"cg", MF_CTX, 0}, {"parity", MF_CTX, 0}, {"wait", MF_CTX, 0},
    {"launch_dependents", MF_CTX, 0},
    {"satfinite", MF_UNSUP, 0}, {"e4m3", MF_UNSUP, 0}, {"e5m2", MF_UNSUP, 0},
    {"e4m3x2", MF_UNSUP, 0}, {"e5m2x2", MF_UNSUP, 0}, {"e2m1x2", MF_UNSUP, 0},
    {"e2m3x2", MF_UNSUP, 0}, {"e3m2x2", MF_UNSUP, 0}, {"ue8m0x2", MF_UNSUP, 0},
    {"s16x2", MF_UNSUP, 0}, {"u16x2", MF_UNSUP, 0}, {"f32x2", MF_UNSUP, 0},
    {"b1", MF_UNSUP, 0}, {"s4", MF_UNSUP, 0}, {"u4", MF_UNSUP, 0}, {"v8", MF_UNSUP, 0},
    {"bulk", MF_UNSUP, 0}, {"tensor", MF_UNSUP, 0}, {"multicast::cluster", MF_UNSUP, 0},
    {"v16", MF_UNSUP, 0}, {"bf16x2", MF_TYPE, PTX_T_BF16X2},
};

static int is_cmp_op(unsigned op)
{
    return op == PTX_OP_SETP || op == PTX_OP_SET;
}

/* Context-dependent modifiers. Returns 0 if applied, -1 if not valid here. */
static int apply_ctx(ptx_insn *in, const char *m, int *extra_ops)
{
    unsigned op = in->op;
#define IS(s) (strcmp(m, s) == 0)
    if (IS("and") || IS("or") || IS("xor")) {
        int v = IS("and") ? 0 : IS("or") ? 1 : 2;
        if (is_cmp_op(op))
            in->boolop = (uint8_t)(PTX_BOOL_AND + v);
        else if (op == PTX_OP_ATOM || op == PTX_OP_RED || op == PTX_OP_REDUX || op == PTX_OP_BAR)
            in->aop = (uint8_t)(PTX_AOP_AND + v);
        else if (op == PTX_OP_LOP3)
            in->boolop = (uint8_t)(PTX_BOOL_AND + v); /* lop3.BOOLOP d|p form */
        else
            return -1;
    } else if (IS("add")) {
        if (op != PTX_OP_ATOM && op != PTX_OP_RED && op != PTX_OP_REDUX)
            return -1;
        in->aop = PTX_AOP_ADD;
    } else if (IS("lo") || IS("hi")) {
        if (is_cmp_op(op))
            in->cmp = IS("lo") ? PTX_CMP_LO : PTX_CMP_HI;
        else
            in->mul = IS("lo") ? PTX_MUL_LO : PTX_MUL_HI;
    } else if (IS("wide")) {
        in->mul = PTX_MUL_WIDE;
    } else if (IS("all") || IS("any") || IS("uni") || IS("ballot")) {
        if (op == PTX_OP_VOTE)
            in->mode = IS("all") ? PTX_VOTE_ALL : IS("any") ? PTX_VOTE_ANY
                       : IS("uni") ? PTX_VOTE_UNI : PTX_VOTE_BALLOT;
        else if (op == PTX_OP_MATCH && (IS("all") || IS("any")))
            in->mode = IS("all") ? PTX_MATCH_ALL : PTX_MATCH_ANY;
        else if (IS("uni"))
            in->flags |= PTX_F_UNI;
        else
            return -1;
    } else if (IS("sync") || IS("arrive") || IS("red")) {
        if (op == PTX_OP_BAR && in->mode == 0)
            in->mode = IS("sync") ? PTX_BAR_SYNC : IS("arrive") ? PTX_BAR_ARRIVE : PTX_BAR_RED;
        else if (!IS("sync"))
            return -1;
        if (IS("sync"))
            in->flags |= PTX_F_SYNC;
    } else if (IS("up") || IS("down") || IS("bfly") || IS("idx")) {
        if (op != PTX_OP_SHFL)
            return -1;
        in->mode = IS("up") ? PTX_SHFL_UP : IS("down") ? PTX_SHFL_DOWN
                   : IS("bfly") ? PTX_SHFL_BFLY : PTX_SHFL_IDX;
    } else if (IS("l") || IS("r")) {
        if (op != PTX_OP_SHF)
            return -1;
        in->mode = IS("l") ? PTX_SHF_L : PTX_SHF_R;
    } else if (IS("ca") || IS("cg")) {
        if (op == PTX_OP_CP_ASYNC)
            in->mode = IS("ca") ? PTX_CPASYNC_CA : PTX_CPASYNC_CG;
        else
            in->cache = IS("ca") ? PTX_CACHE_CA : PTX_CACHE_CG;
    } else if (IS("parity")) {
        in->mode = PTX_MBAR_PARITY;
    } else if (IS("wait") || IS("launch_dependents")) {
        if (op != PTX_OP_GRIDDEPCONTROL)
            return -1;
        in->mode = IS("wait") ? 2 : 1;
    } else if (IS("L2::cache_hint")) {
        *extra_ops = 1; /* a trailing 64-bit cache-policy operand */
        in->flags |= PTX_F_CACHE_HINT;
    } else {
        return -1;
    }
#undef IS
    return 0;
}

/* Decodes the modifiers after the opcode name. s points at the first '.'. */
static wl_status decode_mods(pparse *p, ptx_insn *in, const char *s, size_t n, int *extra_ops)
{
    unsigned ntypes = 0, nmods = 0;
    size_t i = 0;
    while (i < n) {
        if (++nmods > 16) /* the longest real forms have ~8 */
            return perr(p, &p->tok, WL_EUSAGE, "too many modifiers in '%.*s...'", 40, p->tok.text);
        if (s[i] != '.')
            return perr(p, &p->tok, WL_EUSAGE, "malformed instruction '%.*s'",
                        (int)(p->tok.len > 60 ? 60 : p->tok.len), p->tok.text);
        size_t j = i + 1;
        while (j < n && s[j] != '.')
            j++;
        char m[40];
        size_t ml = j - i - 1;
        if (ml == 0 || ml >= sizeof m)
            return perr(p, &p->tok, WL_EUSAGE, "malformed modifier in '%.*s'",
                        (int)(p->tok.len > 60 ? 60 : p->tok.len), p->tok.text);
        memcpy(m, s + i + 1, ml);
        m[ml] = '\0';
        int t = ptype_from_word(s + i, ml + 1);
        const modrow *row = NULL;
        for (size_t k = 0; !t && k < sizeof mods / sizeof mods[0]; k++)
            if (strcmp(mods[k].name, m) == 0)
                row = &mods[k];
        if (t || (row && row->field == MF_TYPE)) {
            if (ntypes >= 3)
                return perr(p, &p->tok, WL_EUSAGE, "too many types in '%.*s'",
                            (int)(p->tok.len > 60 ? 60 : p->tok.len), p->tok.text);
            in->type[ntypes++] = (uint8_t)(t ? t : (int)row->value);
        } else if (!row) {
            return perr(p, &p->tok, WL_EUSAGE, "unknown modifier '.%s' in '%.*s'", m,
                        (int)(p->tok.len > 60 ? 60 : p->tok.len), p->tok.text);
        } else {
            int bad = 0;
            switch (row->field) {
            case MF_SPACE:
                if (in->space == 0 || in->op != PTX_OP_CP_ASYNC)
                    in->space = (uint8_t)row->value;
                else if (row->value != PTX_SPACE_GLOBAL)
                    bad = 1; /* cp.async.shared.global: the source must be global */
                break;
            case MF_CACHE: in->cache = (uint8_t)row->value; break;
            case MF_ROUND: in->round = (uint8_t)row->value; break;
            case MF_FLAG: in->flags |= row->value; break;
            case MF_CMP: in->cmp = (uint8_t)row->value; break;
            case MF_VEC: in->vec = (uint8_t)row->value; break;
            case MF_SEM: in->sem = (uint8_t)row->value; break;
            case MF_SCOPE: in->scope = (uint8_t)row->value; break;
            case MF_AOP: in->aop = (uint8_t)row->value; break;
            case MF_TESTP:
            case MF_PRMT: in->mode = (uint8_t)row->value; break;
            case MF_HINT: in->flags |= PTX_F_LEVEL_EVICT; break;
            case MF_UNSUP:
                return perr(p, &p->tok, WL_EUNSUPPORTED, "unsupported: '.%s' in '%.*s'", m,
                            (int)(p->tok.len > 60 ? 60 : p->tok.len), p->tok.text);
            default: bad = apply_ctx(in, m, extra_ops); break;
            }
            if (bad)
                return perr(p, &p->tok, WL_EUSAGE, "modifier '.%s' not valid for %s", m,
                            isa_name(in->op));
        }
        i = j;
    }
    if (in->op == PTX_OP_BAR) {
        if (plex_word_is(&p->tok, "bar") || strncmp(p->tok.text, "bar.", 4) == 0)
            in->flags |= PTX_F_ALIGNED; /* bar.X == barrier.X.aligned */
        if (in->mode == 0)
            return perr(p, &p->tok, WL_EUSAGE, "bar needs .sync, .arrive or .red");
    }
    return WL_OK;
}

/* ---------------- operands ---------------- */
static ptx_operand *new_op(pparse *p)
{
    return pvec_push(&p->ops);
}

/* Register index for a name (exact, or a `%r<N>` range member), -1 if none. */
static int32_t lookup_reg(pparse *p, const char *s, size_t n)
{
    const psym *sy = psym_find(&p->syms, s, n);
    if (sy)
        return sy->kind == PSYM_REG ? sy->index : -1;
    size_t k = n;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    if (k == n || k == 0 || n - k > 9)
        return -1;
    sy = psym_find(&p->syms, s, k);
    if (!sy || sy->kind != PSYM_RANGE)
        return -1;
    uint64_t num = 0;
    for (size_t i = k; i < n; i++)
        num = num * 10 + (uint64_t)(s[i] - '0');
    if (num >= sy->count || (n - k > 1 && s[k] == '0'))
        return -1;
    return sy->index + (int32_t)num;
}

static int lookup_sreg(const char *s, size_t n)
{
    for (int i = 0; i < PTX_SR_COUNT; i++) {
        const char *nm = ptx_sreg_name((ptx_sreg)i);
        if (strlen(nm) == n && memcmp(nm, s, n) == 0)
            return i;
    }
    return -1;
}

/* A variable/function symbol: sets symkind/sym/space; 0 ok, -1 not a symbol. */
static int lookup_sym(pparse *p, const char *s, size_t n, ptx_operand *o)
{
    const psym *sy = psym_find(&p->syms, s, n);
    if (!sy)
        return -1;
    o->sym = sy->index;
    switch (sy->kind) {
    case PSYM_LOCAL:
        o->symkind = PTX_SYM_LOCAL;
        o->space = PVEC_AT(p->locals, ptx_var, sy->index).space;
        return 0;
    case PSYM_PARAM:
        o->symkind = PTX_SYM_PARAM;
        o->space = PTX_SPACE_PARAM;
        return 0;
    case PSYM_RET:
        o->symkind = PTX_SYM_RET;
        o->space = PTX_SPACE_PARAM;
        return 0;
    case PSYM_MODVAR:
        o->symkind = PTX_SYM_MODVAR;
        o->space = PVEC_AT(p->vars, ptx_var, sy->index).space;
        return 0;
    case PSYM_FUNC:
        o->symkind = PTX_SYM_FUNC;
        return 0;
    default:
        return -1;
    }
}

static wl_status undeclared(pparse *p, const plex_tok *t)
{
    if (t->len && t->text[0] == '%')
        return perr(p, t, WL_EUSAGE, "undeclared register or unknown special register '%.*s'",
                    (int)(t->len > 60 ? 60 : t->len), t->text);
    return perr(p, t, WL_EUSAGE, "undeclared identifier '%.*s'", (int)(t->len > 60 ? 60 : t->len),
                t->text);
}

/* `reg` or `_` inside { } or after '|'. */
static wl_status parse_vec_elem(pparse *p, int32_t *out)
{
    if (plex_word_is(&p->tok, "_")) {
        *out = PTX_NONE;
        return pnext(p);
    }
    if (p->tok.kind != PLEX_WORD)
        return punexpected(p, "a register");
    int32_t r = lookup_reg(p, p->tok.text, p->tok.len);
    if (r < 0)
        return undeclared(p, &p->tok);
    *out = r;
    return pnext(p);
}

/* A number, possibly negative: IMM or FIMM (converted later to the operand type). */
static wl_status parse_number(pparse *p, ptx_operand *o, int neg)
{
    uint64_t v;
    int dbl;
    const plex_tok *t = &p->tok;
    if (pnum_float(t->text, t->len, &v, &dbl) == 0) {
        o->kind = PTX_OPND_FIMM;
        o->type = dbl ? PTX_T_F64 : PTX_T_F32;
        if (neg)
            v ^= dbl ? (1ull << 63) : (1ull << 31);
        o->imm = v;
    } else if (pnum_int(t->text, t->len, &v) == 0) {
        o->kind = PTX_OPND_IMM;
        o->imm = neg ? (uint64_t)0 - v : v;
        o->neg = 0;
    } else {
        return perr(p, t, WL_EUSAGE, "bad number '%.*s' (too large or malformed)",
                    (int)(t->len > 60 ? 60 : t->len), t->text);
    }
    return pnext(p);
}

static wl_status parse_address(pparse *p, ptx_operand *o)
{
    TRY(pnext(p)); /* '[' */
    o->kind = PTX_OPND_ADDR;
    o->reg = PTX_NONE;
    o->sym = PTX_NONE;
    if (p->tok.kind != PLEX_WORD)
        return punexpected(p, "an address");
    const plex_tok t = p->tok;
    if (t.text[0] >= '0' && t.text[0] <= '9') {
        uint64_t v;
        if (pnum_int(t.text, t.len, &v) < 0)
            return perr(p, &t, WL_EUSAGE, "bad address '%.*s'", (int)(t.len > 60 ? 60 : t.len),
                        t.text);
        o->off = (int64_t)v;
        TRY(pnext(p));
        return pexpect(p, ']');
    }
    int32_t r = lookup_reg(p, t.text, t.len);
    if (r >= 0)
        o->reg = r;
    else if (lookup_sym(p, t.text, t.len, o) < 0 || o->symkind == PTX_SYM_FUNC)
        return undeclared(p, &t);
    TRY(pnext(p));
    if (plex_is(&p->tok, '+') || plex_is(&p->tok, '-')) {
        int neg = plex_is(&p->tok, '-');
        TRY(pnext(p));
        if (plex_is(&p->tok, '-')) { /* nvcc writes [%rd1+-4] */
            neg = !neg;
            TRY(pnext(p));
        }
        uint64_t v;
        if (p->tok.kind != PLEX_WORD || pnum_int(p->tok.text, p->tok.len, &v) < 0 ||
            v > (1ull << 62))
            return punexpected(p, "an address offset");
        o->off = neg ? -(int64_t)v : (int64_t)v;
        TRY(pnext(p));
    }
    return pexpect(p, ']');
}

/* One operand at the current token; appended to p->ops. */
static wl_status parse_operand(pparse *p, const ptx_insn *in)
{
    ptx_operand *o = new_op(p);
    if (!o)
        return poom(p);
    size_t oi = p->ops.n - 1;
    ptx_operand tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.reg = PTX_NONE;
    tmp.sym = PTX_NONE;
    int32_t rest[4]; /* a wmma fragment's elements 5-8: a second VEC operand (ir.h) */
    unsigned nrest = 0;
    const plex_tok t = p->tok;
    if (plex_is(&t, '[')) {
        TRY(parse_address(p, &tmp));
    } else if (plex_is(&t, '{')) {
        TRY(pnext(p));
        tmp.kind = PTX_OPND_VEC;
        unsigned most = in->op == PTX_OP_WMMA_LOAD || in->op == PTX_OP_WMMA_STORE ||
                                in->op == PTX_OP_WMMA_MMA ? 8 : 4; /* fragments: 8 */
        for (;;) {
            if (tmp.nvec + nrest >= most)
                return perr(p, &p->tok, WL_EUNSUPPORTED,
                            "unsupported: vector operand with more than %u elements", most);
            if (tmp.nvec < 4)
                TRY(parse_vec_elem(p, &tmp.vec[tmp.nvec++]));
            else
                TRY(parse_vec_elem(p, &rest[nrest++]));
            if (plex_is(&p->tok, ',')) {
                TRY(pnext(p));
                continue;
            }
            TRY(pexpect(p, '}'));
            break;
        }
    } else if (plex_is(&t, '!')) {
        TRY(pnext(p));
        int32_t r = p->tok.kind == PLEX_WORD ? lookup_reg(p, p->tok.text, p->tok.len) : -1;
        if (r < 0)
            return p->tok.kind == PLEX_WORD ? undeclared(p, &p->tok) : punexpected(p, "a predicate");
        tmp.kind = PTX_OPND_REG;
        tmp.reg = r;
        tmp.neg = 1;
        TRY(pnext(p));
    } else if (plex_is(&t, '-')) {
        TRY(pnext(p));
        if (p->tok.kind != PLEX_WORD || !(p->tok.text[0] >= '0' && p->tok.text[0] <= '9'))
            return punexpected(p, "a number after '-'");
        TRY(parse_number(p, &tmp, 1));
    } else if (t.kind == PLEX_WORD && t.text[0] >= '0' && t.text[0] <= '9') {
        TRY(parse_number(p, &tmp, 0));
    } else if (plex_word_is(&t, "_")) {
        tmp.kind = PTX_OPND_REG; /* the sink: result discarded */
        TRY(pnext(p));
    } else if (t.kind == PLEX_WORD) {
        int32_t r = lookup_reg(p, t.text, t.len);
        int sr;
        if (r >= 0) {
            tmp.kind = PTX_OPND_REG;
            tmp.reg = r;
            TRY(pnext(p));
            if (plex_is(&p->tok, '|')) {
                TRY(pnext(p));
                tmp.kind = PTX_OPND_PAIR;
                tmp.nvec = 2;
                tmp.vec[0] = r;
                tmp.reg = PTX_NONE;
                TRY(parse_vec_elem(p, &tmp.vec[1]));
            }
        } else if (in->op == PTX_OP_BRA) {
            plabel_ref *lr = pvec_push(&p->lrefs);
            if (!lr)
                return poom(p);
            lr->name = t.text;
            lr->len = t.len;
            lr->op = (uint32_t)oi;
            lr->line = t.line;
            lr->col = t.col;
            tmp.kind = PTX_OPND_LABEL;
            TRY(pnext(p));
        } else if (lookup_sym(p, t.text, t.len, &tmp) == 0) {
            tmp.kind = PTX_OPND_SYM;
            TRY(pnext(p));
        } else if ((sr = lookup_sreg(t.text, t.len)) >= 0) {
            tmp.kind = PTX_OPND_SREG;
            tmp.sreg = (uint16_t)sr;
            tmp.type = PTX_T_U32;
            if (sr == PTX_SR_CLOCK64 || sr == PTX_SR_GLOBALTIMER || sr == PTX_SR_GRIDID)
                tmp.type = PTX_T_U64;
            TRY(pnext(p));
        } else if ((t.len >= 3 && memcmp(t.text, "%pm", 3) == 0) ||
                   (t.len >= 9 && memcmp(t.text, "%reserved", 9) == 0)) {
            /* performance-monitor counters; %reserved_smem_offset_* (nvcc -G) */
            return perr(p, &t, WL_EUNSUPPORTED, "unsupported special register '%.*s'",
                        (int)(t.len > 60 ? 60 : t.len), t.text);
        } else {
            return undeclared(p, &t);
        }
    } else {
        return punexpected(p, "an operand");
    }
    PVEC_AT(p->ops, ptx_operand, oi) = tmp;
    if (nrest) {
        ptx_operand *r = new_op(p);
        if (!r)
            return poom(p);
        *r = tmp;
        r->nvec = (uint8_t)nrest;
        r->neg = 1; /* the second half */
        memcpy(r->vec, rest, sizeof rest);
    }
    return WL_OK;
}

/* The type an immediate at operand position i takes (see ir.h: IMM/FIMM bits
 * are always at this type's width). */
static unsigned imm_type(const ptx_insn *in, unsigned i)
{
    unsigned t0 = in->type[0], t1 = in->type[1];
    switch (in->op) {
    case PTX_OP_CVT: return i == 0 ? t0 : t1;
    case PTX_OP_SET: return i == 0 ? t0 : i == 3 ? PTX_T_PRED : t1;
    case PTX_OP_SETP: return i == 0 || i == 3 ? PTX_T_PRED : t0;
    case PTX_OP_SELP: return i == 3 ? PTX_T_PRED : t0;
    case PTX_OP_SLCT: return i == 3 ? t1 : t0;
    case PTX_OP_SHL: case PTX_OP_SHR: return i == 2 ? PTX_T_U32 : t0;
    case PTX_OP_SHF: return i == 3 ? PTX_T_U32 : t0;
    case PTX_OP_BFE: return i >= 2 ? PTX_T_U32 : t0;
    case PTX_OP_BFI: return i >= 3 ? PTX_T_U32 : t0;
    case PTX_OP_MAD:
        if (in->mul == PTX_MUL_WIDE && i == 3)
            return t0 == PTX_T_S32 ? PTX_T_S64 : t0 == PTX_T_U32 ? PTX_T_U64
                   : t0 == PTX_T_S16 ? PTX_T_S32 : PTX_T_U32;
        return t0;
    case PTX_OP_SHFL: return i == 1 ? t0 : PTX_T_B32;
    case PTX_OP_WMMA_LOAD: case PTX_OP_WMMA_STORE: return PTX_T_U32; /* the stride */
    case PTX_OP_VOTE: case PTX_OP_MATCH: case PTX_OP_REDUX:
        return i == 1 && in->op != PTX_OP_VOTE ? t0 : PTX_T_B32;
    case PTX_OP_MBAR_INIT: case PTX_OP_MBAR_ARRIVE: case PTX_OP_MBAR_ARRIVE_DROP:
        return PTX_T_U32;
    case PTX_OP_MBAR_TRY_WAIT: case PTX_OP_MBAR_TEST_WAIT:
        return i == 2 ? (in->mode == PTX_MBAR_PARITY ? PTX_T_U32 : PTX_T_B64) : PTX_T_U32;
    default: return t0 ? t0 : PTX_T_U32;
    }
}

static int is_float(unsigned t)
{
    return t == PTX_T_F32 || t == PTX_T_F64;
}

/* Converts immediates to their operand type and types register operands. */
static void type_operands(pparse *p, const ptx_insn *in)
{
    for (unsigned i = 0; i < in->nops; i++) {
        ptx_operand *o = &PVEC_AT(p->ops, ptx_operand, in->op0 + i);
        if (o->kind == PTX_OPND_REG && o->reg >= 0) {
            o->type = PVEC_AT(p->regs, ptx_reg, o->reg).type;
            continue;
        }
        if (o->kind == PTX_OPND_VEC)
            o->type = in->type[0];
        if (o->kind != PTX_OPND_IMM && o->kind != PTX_OPND_FIMM)
            continue;
        unsigned t = imm_type(in, i);
        if (o->kind == PTX_OPND_FIMM && is_float(t) && t != o->type) {
            double d;
            if (o->type == PTX_T_F32) {
                uint32_t b = (uint32_t)o->imm;
                float f;
                memcpy(&f, &b, 4);
                d = f;
                memcpy(&o->imm, &d, 8);
            } else {
                memcpy(&d, &o->imm, 8);
                float f = (float)d;
                uint32_t b;
                memcpy(&b, &f, 4);
                o->imm = b;
            }
        } else if (o->kind == PTX_OPND_IMM && is_float(t)) {
            double d = (double)(int64_t)o->imm;
            o->kind = PTX_OPND_FIMM;
            if (t == PTX_T_F64) {
                memcpy(&o->imm, &d, 8);
            } else {
                float f = (float)d;
                uint32_t b;
                memcpy(&b, &f, 4);
                o->imm = b;
            }
        }
        o->type = (uint8_t)t;
    }
}

/* mma.sync's operands: four vectors of 32-bit registers, {d} and {c} of 4, {a} and {b} of
 * the form's counts (the fragments of PTX ISA 9.7.14.5.8). */
static wl_status check_mma(pparse *p, const ptx_insn *in, const plex_tok *ot, int mf)
{
    const uint8_t want[4] = {4, mma_forms[mf].na, mma_forms[mf].nb, 4};
    for (unsigned k = 0; k < 4; k++) {
        const ptx_operand *o = &PVEC_AT(p->ops, ptx_operand, in->op0 + k);
        int ok = o->kind == PTX_OPND_VEC && o->nvec == want[k];
        for (unsigned e = 0; ok && e < o->nvec; e++) {
            int32_t r = o->vec[e];
            unsigned t = r >= 0 ? PVEC_AT(p->regs, ptx_reg, r).type : PTX_T_NONE;
            ok = r >= 0 && PVEC_AT(p->regs, ptx_reg, r).vec == 1 &&
                 (t == PTX_T_B32 || t == PTX_T_U32 || t == PTX_T_S32 || t == PTX_T_F32);
        }
        if (!ok)
            return perr(p, ot, WL_EUSAGE,
                        "%s: operand %u must be a vector of %u 32-bit registers (d, a, b, c: "
                        "{%u}, {%u}, {%u}, {%u})", mma_forms[mf].name, k + 1, want[k], want[0],
                        want[1], want[2], want[3]);
    }
    return WL_OK;
}

/* Operand k of in is the start of a fragment of want 32-bit registers (8: two VEC operands of
 * 4, ir.h; 4: one)? Returns the next operand's index, or -1. */
static int frag32(pparse *p, const ptx_insn *in, unsigned k, unsigned want)
{
    for (unsigned left = want; left; k++) {
        if (k >= in->nops)
            return -1;
        const ptx_operand *o = &PVEC_AT(p->ops, ptx_operand, in->op0 + k);
        if (o->kind != PTX_OPND_VEC || o->nvec != (left > 4 ? 4 : left) ||
            o->neg != (left < want)) /* a fragment's own halves, no more */
            return -1;
        for (unsigned e = 0; e < o->nvec; e++) {
            int32_t r = o->vec[e];
            unsigned t = r >= 0 ? PVEC_AT(p->regs, ptx_reg, r).type : PTX_T_NONE;
            if (r < 0 || PVEC_AT(p->regs, ptx_reg, r).vec != 1 ||
                !(t == PTX_T_B32 || t == PTX_T_U32 || t == PTX_T_S32 || t == PTX_T_F32))
                return -1;
        }
        left -= o->nvec;
    }
    if (k < in->nops && PVEC_AT(p->ops, ptx_operand, in->op0 + k).kind == PTX_OPND_VEC &&
        PVEC_AT(p->ops, ptx_operand, in->op0 + k).neg)
        return -1; /* a vector of more registers than wanted */
    return (int)k;
}

/* wmma's operands: fragments of 32-bit registers (8; a and b of bf16: 4), an address, and a
 * stride (a 32-bit register or an integer; omitted: 16). */
static wl_status check_wmma(pparse *p, const ptx_insn *in, const plex_tok *ot)
{
    unsigned nab = in->type[in->op == PTX_OP_WMMA_MMA ? 1 : 0] == PTX_T_BF16 ? 4 : 8;
    const char *name = isa_name(in->op);
    int k = 0;
    if (in->op == PTX_OP_WMMA_MMA) {
        const unsigned want[4] = {8, nab, nab, 8};
        for (unsigned f = 0; f < 4; f++)
            if ((k = frag32(p, in, (unsigned)k, want[f])) < 0)
                return perr(p, ot, WL_EUSAGE,
                            "%s: operand %u must be a vector of %u 32-bit registers (d, a, b, c: "
                            "{8}, {%u}, {%u}, {8})", name, f + 1, want[f], nab, nab);
        if ((unsigned)k != in->nops)
            return perr(p, ot, WL_EUSAGE, "%s takes 4 operands", name);
        return WL_OK;
    }
    int load = in->op == PTX_OP_WMMA_LOAD;
    unsigned want = (in->mode & PTX_WMMA_FRAG) <= PTX_WMMA_B ? nab : 8;
    const ptx_operand *o = &PVEC_AT(p->ops, ptx_operand, in->op0);
    /* load: {frag}, [addr][, stride]; store: [addr], {frag}[, stride] */
    if (load ? (k = frag32(p, in, 0, want)) < 0 : (k = frag32(p, in, 1, want)) < 0)
        return perr(p, ot, WL_EUSAGE, "%s: operand %u must be a vector of %u 32-bit registers",
                    name, load ? 1u : 2u, want);
    unsigned addr = load ? (unsigned)k : 0, stride = load ? addr + 1 : (unsigned)k;
    if (addr >= in->nops || o[addr].kind != PTX_OPND_ADDR)
        return perr(p, ot, WL_EUSAGE, "%s: operand %u must be an address [...]", name,
                    load ? 2u : 1u);
    if (stride < in->nops &&
        (stride + 1 != in->nops ||
         (o[stride].kind != PTX_OPND_IMM &&
          !(o[stride].kind == PTX_OPND_REG && o[stride].reg >= 0 &&
            ptx_type_is_int(PVEC_AT(p->regs, ptx_reg, o[stride].reg).type)))))
        return perr(p, ot, WL_EUSAGE, "%s: the stride must be an integer register or constant",
                    name);
    return WL_OK;
}

/* call[.uni] [(rets),] callee[, (args)][, proto]; the opcode word is consumed. */
static wl_status parse_call(pparse *p, ptx_insn *in)
{
    unsigned nret = 0, n = 0;
    if (plex_is(&p->tok, '(')) {
        TRY(pnext(p));
        while (!plex_is(&p->tok, ')')) {
            TRY(parse_operand(p, in));
            nret++;
            if (plex_is(&p->tok, ','))
                TRY(pnext(p));
            else if (!plex_is(&p->tok, ')'))
                return punexpected(p, "',' or ')'");
        }
        TRY(pnext(p));
        TRY(pexpect(p, ','));
    }
    const plex_tok ct = p->tok;
    if (ct.kind != PLEX_WORD)
        return punexpected(p, "a function name");
    const psym *sy = psym_find(&p->syms, ct.text, ct.len);
    if (!sy || sy->kind != PSYM_FUNC) {
        if (lookup_reg(p, ct.text, ct.len) >= 0)
            return perr(p, &ct, WL_EUNSUPPORTED, "unsupported: indirect call through '%.*s'",
                        (int)(ct.len > 60 ? 60 : ct.len), ct.text);
        return perr(p, &ct, WL_EUSAGE, "call to undeclared function '%.*s'",
                    (int)(ct.len > 60 ? 60 : ct.len), ct.text);
    }
    in->target = sy->index;
    TRY(pnext(p));
    if (plex_is(&p->tok, ',')) {
        TRY(pnext(p));
        if (plex_is(&p->tok, '(')) {
            TRY(pnext(p));
            while (!plex_is(&p->tok, ')')) {
                TRY(parse_operand(p, in));
                n++;
                if (n > 4096)
                    return perr(p, &p->tok, WL_EUSAGE, "too many call arguments");
                if (plex_is(&p->tok, ','))
                    TRY(pnext(p));
                else if (!plex_is(&p->tok, ')'))
                    return punexpected(p, "',' or ')'");
            }
            TRY(pnext(p));
        }
        if (plex_is(&p->tok, ','))
            return perr(p, &p->tok, WL_EUNSUPPORTED,
                        "unsupported: call with a prototype or target list");
    }
    const ptx_func *callee = &PVEC_AT(p->funcs, ptx_func, in->target);
    if (callee->is_entry)
        return perr(p, &ct, WL_EUSAGE, "call to the kernel '%s' (only .func can be called)",
                    callee->name);
    if (nret != callee->nrets || n != callee->nparams)
        return perr(p, &ct, WL_EUSAGE,
                    "call to '%s' with %u return value(s) and %u argument(s); it has %u and %u",
                    callee->name, nret, n, callee->nrets, callee->nparams);
    in->nret = (uint16_t)nret;
    in->nops = (uint8_t)(nret + n > 255 ? 255 : nret + n);
    if (nret + n > 255)
        return perr(p, &ct, WL_EUNSUPPORTED, "unsupported: call with more than 255 operands");
    return pexpect(p, ';');
}

wl_status pinsn_parse(pparse *p)
{
    ptx_insn in;
    memset(&in, 0, sizeof in);
    in.guard = PTX_NONE;
    in.target = PTX_NONE;
    in.vec = 1;
    in.loc_file = (uint16_t)p->loc_file;
    in.loc_line = p->loc_line;
    in.loc_col = (uint16_t)p->loc_col;
    in.src_file = (uint16_t)p->src_file;
    in.src_line = p->src_line;
    in.src_col = (uint16_t)p->src_col;
    if (p->pragma_nounroll) {
        in.flags |= PTX_F_NOUNROLL;
        p->pragma_nounroll = 0;
    }
    if (plex_is(&p->tok, '@')) {
        TRY(pnext(p));
        if (plex_is(&p->tok, '!')) {
            in.guard_neg = 1;
            TRY(pnext(p));
        }
        int32_t r = p->tok.kind == PLEX_WORD ? lookup_reg(p, p->tok.text, p->tok.len) : -1;
        if (r < 0)
            return p->tok.kind == PLEX_WORD ? undeclared(p, &p->tok) : punexpected(p, "a predicate");
        if (PVEC_AT(p->regs, ptx_reg, r).type != PTX_T_PRED)
            return perr(p, &p->tok, WL_EUSAGE, "guard '%.*s' is not a predicate",
                        (int)(p->tok.len > 60 ? 60 : p->tok.len), p->tok.text);
        in.guard = r;
        TRY(pnext(p));
    }
    const plex_tok ot = p->tok;
    if (ot.kind != PLEX_WORD || ot.text[0] == '.' || ot.text[0] == '%' ||
        (ot.text[0] >= '0' && ot.text[0] <= '9'))
        return punexpected(p, "an instruction");
    in.line = ot.line;
    in.col = ot.col;
    /* (the tensor-core forms are looked for only after a cheap test of the first letters) */
    int mf = ot.len > 4 && !memcmp(ot.text, "mma.", 4) ? mma_form(&ot) : -1;
    int wf = ot.len > 5 && !memcmp(ot.text, "wmma.", 5) && wmma_form(&ot, &in);
    /* an instruction we recognise but do not model: skipped up to its ';', the first one of
     * the function remembered for ptx_check_supported (the file's other kernels still run) */
    for (size_t k = 0; mf < 0 && !wf && k < sizeof unsupported_ops / sizeof unsupported_ops[0];
         k++)
        if (prefix_len(ot.text, ot.len, unsupported_ops[k])) {
            if (!p->unsup.len)
                p->unsup = ot;
            while (!plex_is(&p->tok, ';')) {
                if (p->tok.kind == PLEX_EOF)
                    return punexpected(p, "';'");
                TRY(pnext(p));
            }
            return pnext(p);
        }
    size_t used = 0;
    int op = wf ? in.op : find_opcode(ot.text, ot.len, &used);
    if (op < 0)
        return perr(p, &ot, WL_EUSAGE, "unknown instruction '%.*s'",
                    (int)(ot.len > 60 ? 60 : ot.len), ot.text);
    in.op = (uint16_t)op;
    int extra = 0;
    if (wf) {
        /* wmma_form decoded the modifiers */
    } else if (mf >= 0) { /* its modifiers are the form's: no decoding */
        in.mode = mma_forms[mf].shape;
        in.type[0] = in.type[2] = PTX_T_F32;
        in.type[1] = mma_forms[mf].ab;
        in.flags |= PTX_F_SYNC | PTX_F_ALIGNED;
    } else {
        TRY(decode_mods(p, &in, ot.text + used, ot.len - used, &extra));
    }
    TRY(pnext(p));
    in.op0 = (uint32_t)p->ops.n;
    if (op == PTX_OP_CALL) {
        TRY(parse_call(p, &in));
    } else {
        unsigned n = 0;
        while (!plex_is(&p->tok, ';')) {
            if (n >= 8)
                return perr(p, &p->tok, WL_EUSAGE, "too many operands for %s", isa_name(op));
            TRY(parse_operand(p, &in));
            n++;
            if (plex_is(&p->tok, ','))
                TRY(pnext(p));
            else if (!plex_is(&p->tok, ';'))
                return punexpected(p, "',' or ';'");
        }
        unsigned nd, smin, smax;
        isa_shape(op, &nd, &smin, &smax);
        if (wf) /* a fragment of 8 took two operands: check_wmma checks the shape */
            n = (unsigned)(p->ops.n - in.op0);
        else if (n < nd + smin || n > nd + smax + (unsigned)extra)
            return perr(p, &ot, WL_EUSAGE, "%s takes %u to %u operands, found %u", isa_name(op),
                        nd + smin, nd + smax, n);
        in.nops = (uint8_t)n;
        if (mf >= 0)
            TRY(check_mma(p, &in, &ot, mf));
        if (wf)
            TRY(check_wmma(p, &in, &ot));
        TRY(pnext(p));
    }
    type_operands(p, &in);
    ptx_insn *d = pvec_push(&p->insns);
    if (!d)
        return poom(p);
    *d = in;
    return WL_OK;
}

wl_status pinsn_resolve_labels(pparse *p)
{
    for (size_t i = 0; i < p->lrefs.n; i++) {
        const plabel_ref *r = &PVEC_AT(p->lrefs, plabel_ref, i);
        const psym *s = psym_find(&p->labsyms, r->name, r->len);
        if (!s) {
            plex_tok t = {PLEX_WORD, r->name, r->len, r->line, r->col};
            return perr(p, &t, WL_EUSAGE, "undefined label '%.*s'",
                        (int)(r->len > 60 ? 60 : r->len), r->name);
        }
        PVEC_AT(p->ops, ptx_operand, r->op).sym =
            (int32_t)PVEC_AT(p->labels, ptx_label, s->index).insn;
    }
    for (size_t i = 0; i < p->insns.n; i++) {
        ptx_insn *in = &PVEC_AT(p->insns, ptx_insn, i);
        if (in->op == PTX_OP_BRA) {
            const ptx_operand *o = &PVEC_AT(p->ops, ptx_operand, in->op0);
            if (o->kind != PTX_OPND_LABEL) {
                plex_tok t = {PLEX_WORD, "bra", 3, in->line, in->col};
                return perr(p, &t, o->kind == PTX_OPND_REG ? WL_EUNSUPPORTED : WL_EUSAGE,
                            "bra needs a label operand");
            }
            in->target = o->sym;
        }
    }
    return WL_OK;
}
