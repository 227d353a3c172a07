// Shared-memory tiled transpose with padding and dynamic shared memory.
#define TILE 32
extern "C" __global__ void transpose_padded(float *out, const float *in, int w, int h)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void dyn_smem(float4 *out, const float4 *in)
{
    extern __shared__ float4 buf[];
    buf[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    float4 v = buf[blockDim.x - 1 - threadIdx.x];
    v.x *= 2.0f;
    out[threadIdx.x] = v;
}

__constant__ float coeffs[4] = {1.0f, 2.0f, 0.5f, -1.0f};
__device__ int counter = 7;
__device__ unsigned long long table[3] = {1, 0xffffffffffffull, 3};

extern "C" __global__ void const_poly(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    out[i] = ((coeffs[3] * x + coeffs[2]) * x + coeffs[1]) * x + coeffs[0] + (float)table[i & 1];
    if (i == 0) atomicAdd(&counter, 1);
}
