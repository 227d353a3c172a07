// Kernels that misbehave on purpose, for tests/test_hostile.c (each fault through `warplab run`).
// Regenerate: cd tests/data/hostile && nvcc -ptx -arch=sm_90 -lineinfo faults.cu -o faults.ptx
#include <cstdint>

// Reads past the end of a 64-int buffer when n > 64.
extern "C" __global__ void global_oob_read(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[0] += in[i];
}

// A local array indexed by a parameter: out of the thread's local frame for big k.
extern "C" __global__ void local_oob(int *out, int k)
{
    volatile int local[4];
    for (int i = 0; i < 4; i++)
        local[i] = i;
    out[threadIdx.x] = local[k];
}

// A 4-byte shared load at an odd byte offset.
extern "C" __global__ void shared_misaligned(int *out, int off)
{
    __shared__ int buf[64];
    buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = *(int *)((char *)buf + off);
}

// __syncthreads inside a branch only lanes 0-15 of each warp take: 32 of 64 threads arrive,
// the rest exit, and the barrier never completes. (A whole warp that exits instead counts as
// arrived on Volta and later, so a warp-uniform early return would not hang.)
extern "C" __global__ void divergent_syncthreads(int *out)
{
    if (threadIdx.x % 32 < 16) {
        __syncthreads();
        out[threadIdx.x] = 1;
    }
}

// Named barrier 1 with disagreeing thread counts: warp 0 says 64, warp 1 says 128; a block of
// 64 threads never fills a 128-thread barrier.
extern "C" __global__ void named_barrier_mismatch(int *out)
{
    if (threadIdx.x < 32)
        asm volatile("bar.sync 1, 64;");
    else
        asm volatile("bar.sync 1, 128;");
    out[threadIdx.x] = 1;
}

// Spins until *flag becomes non-zero; nothing ever sets it.
extern "C" __global__ void spin_forever(volatile int *flag)
{
    while (*flag == 0) {
    }
}

// Reads shared memory nobody wrote (compute-sanitizer's initcheck reports it).
extern "C" __global__ void shared_uninit(int *out)
{
    __shared__ int buf[64];
    if (threadIdx.x < 32)
        buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[63 - threadIdx.x];
}

// Warp 1 reads what warp 0 writes with no barrier between (racecheck reports it).
extern "C" __global__ void shared_race(int *out)
{
    __shared__ int buf[64];
    buf[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = buf[(threadIdx.x + 32) % 64];
}
