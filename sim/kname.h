/* kname: kernels named the way their author wrote them (prefix kname_).
 *
 * A CUDA kernel not declared extern "C" reaches the PTX under its C++ (Itanium ABI) mangled
 * name: `__global__ void add(float *, int)` is `_Z3addPfi`, `ns::scale` `_ZN2ns5scaleEPff`,
 * `fill<float>` `_Z4fillIfEvPT_S0_`. These helpers let `--kernel add` find `_Z3addPfi`. Only the
 * function's name is read (source names, nested names, a template's name without its
 * arguments); parameter types are not decoded. A LEAF module: no dependency in sim/. */
#ifndef WL_KNAME_H
#define WL_KNAME_H

#include <stddef.h>

/* The C++ name of a mangled function symbol without parameters or template arguments
 * ("add", "ns::scale", "fill") into out (n bytes); returns 1, or 0 with out = "" when sym is
 * not a mangled name this reads (extern "C" names, special names). */
int kname_base(const char *sym, char *out, size_t n);

/* Does name select sym: the same text, or sym's kname_base, or that base's last component
 * ("scale" for ns::scale)? */
int kname_matches(const char *sym, const char *name);

#endif
