// warpsync.cu: what __syncwarp() costs when the warp is diverged (independent thread scheduling)
// against the same exchange in a converged warp and a divergent branch without __syncwarp.
// The model has no cost for switching paths at a divergent __syncwarp yet, and its_swap (the same
// pattern, gpu/kernels/syncwarp.cu) runs 8x slower on the H200 than simulated: these numbers are
// what a model of it would be calibrated on.
//   converged   s[tid] = x; __syncwarp(); x = s[tid ^ 16] + k; __syncwarp();   (every lane)
//   divergent   lanes 0-15 and 16-31 each run that exchange in their own branch of an if, as
//               its_swap does: two __syncwarp() per branch, at different places in the code
//   branch      the same divergent if with arithmetic only, no shared memory, no __syncwarp
// Each is timed two ways: one warp alone (clock64 around the loop: cycles per iteration, the
// latency) and 132 x 8 blocks of 256 threads, 64 warps per SM (cudaEvent, best of 5: SM cycles
// per iteration of every warp, the throughput), ITERS iterations each.
#include "mb_common.cuh"

#define ITERS 4096

template <int MODE>
__device__ __forceinline__ unsigned step(unsigned *s, unsigned tid, unsigned lane, unsigned x,
                                         unsigned k)
{
    if (MODE == 0) {
        s[tid] = x;
        __syncwarp();
        x = s[tid ^ 16u] + k;
        __syncwarp();
    } else if (MODE == 1) {
        if (lane < 16) {
            s[tid] = x;
            __syncwarp();
            x = s[tid + 16] + k;
            __syncwarp();
        } else {
            s[tid] = x * 3u;
            __syncwarp();
            x = s[tid - 16] ^ k;
            __syncwarp();
        }
    } else {
        if (lane < 16)
            x = x * 3u + k;
        else
            x = (x ^ k) + 7u;
    }
    return x;
}

template <int MODE>
__global__ void k_sync(unsigned *out, unsigned long long *cycles, int iters)
{
    __shared__ unsigned s[1024];
    unsigned tid = threadIdx.x, lane = tid % 32;
    unsigned x = tid * 2654435761u;
    __syncthreads();
    unsigned long long c0 = clock64();
    for (int k = 0; k < iters; ++k)
        x = step<MODE>(s, tid, lane, x, (unsigned)k);
    unsigned long long c1 = clock64();
    out[blockIdx.x * blockDim.x + tid] = x;
    if (tid == 0 && blockIdx.x == 0)
        cycles[0] = c1 - c0;
}

template <int MODE>
static void measure(mb_json *j, const char *name, double mhz)
{
    const int blocks = 132 * 8, threads = 256;
    unsigned *out;
    unsigned long long *cyc, h = 0;
    MB_CHECK(cudaMalloc(&out, (size_t)blocks * threads * sizeof *out));
    MB_CHECK(cudaMalloc(&cyc, sizeof *cyc));
    k_sync<MODE><<<1, 32>>>(out, cyc, ITERS); // warm-up
    k_sync<MODE><<<1, 32>>>(out, cyc, ITERS);
    MB_CHECK(cudaMemcpy(&h, cyc, sizeof h, cudaMemcpyDeviceToHost));
    float best = 1e30f;
    for (int r = 0; r < 5; r++) {
        mb_timer t;
        mb_timer_start(&t);
        k_sync<MODE><<<blocks, threads>>>(out, cyc, ITERS);
        float ms = mb_timer_stop(&t);
        best = ms < best ? ms : best;
    }
    mb_key(j, name);
    printf("{\"iters\": %d, \"one_warp_cycles\": %llu, \"one_warp_cycles_per_iter\": %.2f, "
           "\"full_blocks\": %d, \"full_threads\": %d, \"full_best_ms\": %.4f, "
           "\"full_sm_cycles_per_iter\": %.1f, \"full_sm_cycles_per_warp_iter\": %.3f}",
           ITERS, h, (double)h / ITERS, blocks, threads, best,
           best * 1e-3 * mhz * 1e6 / ITERS, best * 1e-3 * mhz * 1e6 / ITERS / 64.0);
    MB_CHECK(cudaFree(out));
    MB_CHECK(cudaFree(cyc));
}

int main(void)
{
    mb_begin("warpsync");
    double mhz = mb_measured_clock_mhz();
    mb_json j = {1};
    measure<0>(&j, "converged", mhz);
    measure<1>(&j, "divergent", mhz);
    measure<2>(&j, "branch", mhz);
    mb_end();
    return 0;
}
