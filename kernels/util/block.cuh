// Kernels whose threads cooperate through shared memory are written once for
// both sides: ZK_BLOCK_FOR walks a block's threads (threadIdx.x on the
// device, a loop on the host, which runs a whole block in one host thread)
// and ZK_BLOCK_SYNC is __syncthreads (a no-op between the host loops, which
// already run step after step).
#pragma once

#include "compat.cuh"

#ifdef __CUDA_ARCH__
#define ZK_BLOCK_FOR(t, count) for (uint32_t t = threadIdx.x; t < (count); t += blockDim.x)
#define ZK_BLOCK_SYNC() __syncthreads()
#else
#define ZK_BLOCK_FOR(t, count) for (uint32_t t = 0; t < (count); t++)
#define ZK_BLOCK_SYNC() \
    do {                \
    } while (0)
#endif
