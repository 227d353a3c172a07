// Warp-shuffle reduction, shared-memory tile, atomics, __launch_bounds__.
extern "C" __global__ void __launch_bounds__(256, 2)
reduce_sum(const float *__restrict__ in, float *out, int n)
{
    __shared__ float warp_sums[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (blockDim.x >> 5) ? warp_sums[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, off);
        if (lane == 0) atomicAdd(out, v);
    }
}

extern "C" __global__ void vote_match(const int *in, unsigned *out)
{
    int t = threadIdx.x;
    int x = in[t];
    unsigned b = __ballot_sync(0xffffffffu, x > 0);
    int all = __all_sync(0xffffffffu, x > 0);
    int any = __any_sync(0xffffffffu, x > 5);
    unsigned m = __match_any_sync(0xffffffffu, x);
    unsigned r = __reduce_add_sync(0xffffffffu, (unsigned)x);
    unsigned mx = __reduce_max_sync(0xffffffffu, (unsigned)x);
    unsigned am = __activemask();
    __syncwarp();
    out[t] = b + all + any + m + r + mx + am + __popc(x) + __clz(x) + __brev(x) + __ffs(x);
    atomicMax((int *)out + 1, x);
    atomicCAS((int *)out + 2, 0, x);
    atomicExch((int *)out + 3, x);
    atomicInc(out + 4, 17u);
    atomicAnd(out + 5, (unsigned)x);
    atomicOr(out + 6, (unsigned)x);
    atomicXor(out + 7, (unsigned)x);
    atomicMin((unsigned long long *)out + 8, (unsigned long long)x);
    atomicAdd((double *)out + 9, (double)x);
}
