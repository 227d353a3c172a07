// cp.async pipeline, cuda::barrier / mbarrier, cooperative groups, half types, clock, nanosleep.
#include <cuda_pipeline.h>
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cp_async_copy(float *out, const float *in)
{
    __shared__ alignas(16) float s[256 * 4];
    __pipeline_memcpy_async(&s[threadIdx.x * 4], &in[(blockIdx.x * 256 + threadIdx.x) * 4], 16);
    __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x], 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * 256 + threadIdx.x] = s[(threadIdx.x * 4 + 1) % 1024];
}

extern "C" __global__ void cuda_barrier(float *out, const float *in)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ float s[256];
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    s[threadIdx.x] = in[threadIdx.x];
    bar.arrive_and_wait();
    out[threadIdx.x] = s[255 - threadIdx.x];
    auto tok = bar.arrive();
    bar.wait(std::move(tok));
}

extern "C" __global__ void coop_groups(int *out, const int *in)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int v = in[block.thread_rank()];
    int s = cg::reduce(warp, v, cg::plus<int>());
    v = warp.shfl_up(v, 1) + warp.shfl(v, 3);
    block.sync();
    if (warp.thread_rank() == 0) out[warp.meta_group_rank()] = s + v;
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    t8.sync();
    out[64 + block.thread_rank()] = t8.any(v > 3) + warp.ballot(v & 1);
}

extern "C" __global__ void halves(__half *h, __nv_bfloat16 *b, const float *in)
{
    int t = threadIdx.x;
    __half x = __float2half(in[t]);
    __half2 y = __halves2half2(x, __float2half(2.0f));
    y = __hfma2(y, y, y);
    h[t] = __hadd(__low2half(y), __high2half(y));
    __nv_bfloat16 z = __float2bfloat16(in[t]);
    b[t] = __hmul(z, z);
}

extern "C" __global__ void clocks(long long *out, int *o2)
{
    long long c0 = clock64();
    unsigned sm, wid, lane;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(wid));
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    unsigned long long gt;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
    __nanosleep(100);
    __threadfence();
    __threadfence_block();
    out[threadIdx.x] = clock64() - c0 + sm + wid + lane + gt + clock();
    unsigned dyn; asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
    o2[threadIdx.x] = (int)dyn + __mul24(threadIdx.x, 3) + __umulhi(threadIdx.x, 77u) + __sad(1, threadIdx.x, 2u)
        + __byte_perm(threadIdx.x, 5, 0x3210) + __funnelshift_l(threadIdx.x, 3u, 4) + __ldg(o2 + 1) + __ldcs(o2 + 2);
    __stcs(o2 + 3, 1);
    __stwt(o2 + 4, 1);
}
