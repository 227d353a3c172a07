// cp.async + cuda::pipeline and cuda::barrier (mbarrier) kernels for the executor's tests.
// Regenerate: nvcc -ptx -arch=sm_90 -lineinfo async.cu -o async.ptx
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>

namespace cg = cooperative_groups;

// Double-buffered copy of tiles of 256 floats into shared memory with cuda::pipeline
// (cp.async + commit/wait groups), then out[i] = 2 * in[i] + 1.
extern "C" __global__ void pipe_scale(const float *in, float *out, int ntiles)
{
    __shared__ float buf[2][256];
    auto block = cg::this_thread_block();
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int t = threadIdx.x;
    size_t base = (size_t)blockIdx.x * ntiles * 256;
    pipe.producer_acquire();
    cuda::memcpy_async(&buf[0][t], &in[base + t], sizeof(float), pipe);
    pipe.producer_commit();
    for (int k = 0; k < ntiles; k++) {
        if (k + 1 < ntiles) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buf[(k + 1) & 1][t], &in[base + (k + 1) * 256 + t], sizeof(float),
                               pipe);
            pipe.producer_commit();
        }
        cuda::pipeline_consumer_wait_prior<1>(pipe);
        block.sync();
        out[base + k * 256 + t] = 2.0f * buf[k & 1][(t + 1) % 256] + 1.0f;
        block.sync();
        pipe.consumer_release();
    }
}

// A block-wide cuda::barrier (mbarrier in shared memory) used for several phases.
extern "C" __global__ void mbar_phases(int *out, int phases)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int s[256];
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    int acc = 0;
    for (int p = 0; p < phases; p++) {
        s[threadIdx.x] = (int)threadIdx.x * (p + 1);
        bar.arrive_and_wait();
        acc += s[(threadIdx.x + 1) % blockDim.x];
        bar.arrive_and_wait();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
