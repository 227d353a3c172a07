/* Every lesson kernel in one translation unit: the harness links the kernels directly (no PTX
 * loading), and the probe build (-DWL_PROBE) needs its probe globals defined exactly once. */
#include "../kernels/bank_conflicts.cu"
#include "../kernels/coalescing.cu"
#include "../kernels/divergence.cu"
#include "../kernels/ilp.cu"
#include "../kernels/latency.cu"
#include "../kernels/occupancy_regs.cu"
#include "../kernels/partial_warps.cu"
#include "../kernels/reduction.cu"
#include "../kernels/scheduling.cu"
#include "../kernels/syncwarp.cu"
#include "../kernels/tensor_gemm.cu"
#include "../kernels/warp_spec.cu"
