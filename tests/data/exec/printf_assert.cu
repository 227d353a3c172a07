// Device printf and assert for the executor tests.
// Regenerate: nvcc -ptx -arch=sm_90 -lineinfo printf_assert.cu -o printf_assert.ptx
#include <cassert>
#include <cstdio>

extern "C" __global__ void pk(int *p, int n)
{
    int i = threadIdx.x;
    if (i % 16 == 3)
        printf("thread %d: %5.2f %s %c %x %lld|\n", i, 1.5 * i, "ok", 'A' + i, 255 + i,
               -(long long)i * 1000000000000ll);
    assert(p[i] < n);
    p[i] = i;
}
