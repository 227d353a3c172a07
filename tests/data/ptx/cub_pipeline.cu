// CUB block radix sort/scan/reduce (bmsk, 64-bit match), a grid-wide cooperative-groups sync
// (acquire/release atomics, fence.sc), and cuda::pipeline with cuda::memcpy_async.
#include <cub/cub.cuh>
extern "C" __global__ void sort_scan(int *d, int *o)
{
    typedef cub::BlockRadixSort<int, 128, 4> Sort;
    typedef cub::BlockScan<int, 128> Scan;
    typedef cub::BlockReduce<int, 128> Red;
    __shared__ union { typename Sort::TempStorage s; typename Scan::TempStorage c; typename Red::TempStorage r; } tmp;
    int k[4];
    for (int i = 0; i < 4; i++) k[i] = d[threadIdx.x * 4 + i];
    Sort(tmp.s).Sort(k);
    __syncthreads();
    int agg;
    Scan(tmp.c).ExclusiveSum(k, k, agg);
    __syncthreads();
    int s = Red(tmp.r).Sum(k[0]);
    for (int i = 0; i < 4; i++) o[threadIdx.x * 4 + i] = k[i] + s + agg;
}
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void grid_sync(int *o)
{
    cg::grid_group g = cg::this_grid();
    o[g.thread_rank()] = 1;
    g.sync();
    o[g.thread_rank()] += o[(g.thread_rank() + 1) % g.size()];
}
#include <cuda/pipeline>
extern "C" __global__ void pipe_copy(float *out, const float *in)
{
    __shared__ float s[2][128];
    auto block = cg::this_thread_block();
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> st;
    auto p = cuda::make_pipeline(block, &st);
    for (int i = 0; i < 2; i++) {
        p.producer_acquire();
        cuda::memcpy_async(block, s[i], in + i * 128, sizeof(float) * 128, p);
        p.producer_commit();
    }
    for (int i = 0; i < 2; i++) {
        p.consumer_wait();
        out[i * 128 + threadIdx.x] = s[i][threadIdx.x] * 2;
        p.consumer_release();
    }
}
