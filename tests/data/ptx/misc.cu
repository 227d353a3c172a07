// Rounding intrinsics, bar.red (__syncthreads_count/and/or), named barriers,
// scoped atomics, cuda::atomic_ref memory orders, address-space predicates,
// grid-dependency control, trap/brkpt, dp4a, funnel shifts, 64-bit bit ops.
#include <cuda/atomic>
#include <cuda_bf16.h>

__device__ __noinline__ int sum3(int a, long long b, float c) { return a + (int)b + (int)c; }

extern "C" __global__ void __launch_bounds__(128) misc_kernel(int *out, float *fout, double *dout,
                                                              const int *in, unsigned long long *u)
{
    __shared__ int sh[128];
    __shared__ float shf[4];
    int t = threadIdx.x;
    int v = in[t];
    float f = __int_as_float(v);
    double d = (double)v;
    sh[t] = v;
    int cnt = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v > 1);
    int any = __syncthreads_or(v > 2);
    asm volatile("bar.sync 1, 64;");
    atomicAdd(&sh[(t + 1) & 127], 1);
    atomicAdd(&shf[t & 3], 1.5f);
    atomicAdd_block(out + 1, 1);
    atomicAdd_system(out + 2, 1);
    atomicSub(out + 3, 2);
    atomicAdd(out + 4, v); // result unused: red
    cuda::atomic_ref<int, cuda::thread_scope_device> ar(out[5]);
    int seen = ar.load(cuda::memory_order_acquire);
    ar.store(seen + 1, cuda::memory_order_release);
    ar.fetch_add(1, cuda::memory_order_relaxed);
    __threadfence_system();
    out[64 + t] = cnt + all + any + sh[t] + __dp4a(v, 0x01020304, 3) + __funnelshift_r(v, t, 5)
        + __popcll(u[t]) + __ffsll(u[t]) + __clzll(u[t]) + (int)__brevll(u[t])
        + __float2int_rn(f) + __float2int_rz(f) + __float2int_ru(f) + __float2int_rd(f)
        + (int)__double2ll_ru(d) + __isShared(&sh[t]) + __isGlobal(in) + (int)__cvta_generic_to_shared(&sh[t])
        + __shfl_sync(0xffffffffu, v, t + 1, 16) + __match_all_sync(0xffffffffu, v, &seen)
        + __reduce_or_sync(0xffffffffu, (unsigned)v) + (v % 7) + (int)((unsigned)v % 9u)
        + sum3(v, (long long)u[t], f) + __mulhi(v, t) + (int)__umul64hi(u[t], 3ull) + __usad(v, t, 1);
    fout[t] = __fsqrt_rn(f) + __frcp_rz(f) + __fdiv_ru(f, 3.0f) + __fadd_rd(f, 1.0f) + __fmul_rz(f, f)
        + __fmaf_ru(f, f, f) + __int2float_rz(v) + __uint2float_ru((unsigned)v) + __ll2float_rd((long long)v)
        + __saturatef(f) + __bfloat162float(__float2bfloat16_rz(f)) + fmaxf(f, 0.0f) + __frsqrt_rn(f);
    dout[t] = __dadd_rd(d, 1.0) + __dmul_ru(d, d) + __ddiv_rz(d, 3.0) + __dsqrt_rn(d) + __drcp_rn(d)
        + (double)__double2float_rd(d) + __ll2double_rn((long long)u[t]) + fma(d, d, d) + rint(d) + trunc(d);
    if (v == 12345) __trap();
    if (v == 54321) __brkpt();
    if (t == 0) asm volatile("griddepcontrol.launch_dependents;");
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("prefetch.global.L2 [%0];" :: "l"(in + t));
}
