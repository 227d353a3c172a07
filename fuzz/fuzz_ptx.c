/* libFuzzer target for the PTX front end: any bytes must parse or fail with a
 * diag (status 1 or 2 and a message), never crash, hang or leak; a parsed
 * module must print every instruction and keep its IR invariants (operand
 * ranges, branch targets, block ranges, ipdom ids), also after the ptxas
 * scheduling model reordered it (ptx_schedule), and its register pressure
 * must be computable (ptx_pressure); a kernel's check for skipped unsupported instructions
 * (ptx_check_supported) gives WL_OK or WL_EUNSUPPORTED with a message and a line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The front end's sources are compiled into this target so libFuzzer gets
 * coverage feedback (libwarplab itself is built without -fsanitize=fuzzer;
 * the library's copies are then not linked in). */
#include "../sim/ptx/ptx_lex.c"
#include "../sim/ptx/ptx_ir.c"
#include "../sim/ptx/ptx_parse.c"
#include "../sim/ptx/ptx_module.c"
#include "../sim/ptx/ptx_insn.c"
#include "../sim/ptx/ptx_cfg.c"
#include "../sim/ptx/ptx_format.c"
#include "../sim/ptx/ptx_sched.c"
#include "../sim/kname.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_func(const ptx_module *m, const ptx_func *f)
{
    char buf[256];
    for (uint32_t i = 0; i < f->ninsns; i++) {
        const ptx_insn *in = &f->insns[i];
        if (in->op >= PTX_OP_COUNT || in->op0 + in->nops > f->nops)
            abort();
        if (in->guard >= 0 && (uint32_t)in->guard >= f->nregs)
            abort();
        if (in->op == PTX_OP_BRA && (in->target < 0 || (uint32_t)in->target > f->ninsns))
            abort();
        if (in->op == PTX_OP_CALL && (in->target < 0 || (uint32_t)in->target >= m->nfuncs))
            abort();
        if (in->block < 0 || (uint32_t)in->block >= f->nblocks)
            abort();
        for (uint32_t k = 0; k < in->nops; k++) {
            const ptx_operand *o = &f->ops[in->op0 + k];
            if (o->kind == PTX_OPND_REG && o->reg >= 0 && (uint32_t)o->reg >= f->nregs)
                abort();
        }
        ptx_insn_format(m, f, i, buf, sizeof buf);
        ptx_insn_format(m, f, i, buf, 8); /* truncation */
    }
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const ptx_block *bl = &f->blocks[b];
        if (bl->first > bl->last || bl->last >= f->ninsns || bl->nsucc > 2)
            abort();
        for (unsigned k = 0; k < bl->nsucc; k++)
            if (bl->succ[k] > f->nblocks)
                abort();
        if (bl->ipdom != PTX_NONE && (bl->ipdom < 0 || (uint32_t)bl->ipdom > f->nblocks))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ptx_module *m = NULL;
    diag_t d;
    wl_status st = ptx_parse_string((const char *)data, size, "fuzz.ptx", &m, &d);
    if (st != WL_OK) {
        if (m || (st != WL_EUSAGE && st != WL_EUNSUPPORTED) || d.msg[0] == '\0')
            abort();
        return 0;
    }
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        check_func(m, &m->funcs[i]);
        /* a function name read as a mangled C++ name (--kernel's matching) */
        char cxx[32];
        if (kname_base(m->funcs[i].name, cxx, sizeof cxx) && !cxx[0])
            abort();
        (void)kname_matches(m->funcs[i].name, "k");
        /* a skipped unsupported instruction is refused at launch with a message and a line */
        wl_status su = ptx_check_supported(m, &m->funcs[i], &d);
        if (su != WL_OK && (su != WL_EUNSUPPORTED || d.msg[0] == '\0' || d.line <= 0))
            abort();
    }
    if (ptx_schedule(m, &d) != WL_OK && d.msg[0] == '\0')
        abort();
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        check_func(m, &m->funcs[i]);
        (void)ptx_pressure(&m->funcs[i], NULL, NULL);
    }
    ptx_module_free(m);
    return 0;
}
