// Atomic increments: CUDA's atomicAdd on the device, GCC's __atomic builtins
// on the host (the emulation runs simulated blocks on several host threads).
#pragma once

#include "compat.cuh"

namespace zk {

ZK_HD uint32_t atomic_add_u32(uint32_t* p, uint32_t v) {
#ifdef __CUDA_ARCH__
    return atomicAdd(p, v);
#else
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

}  // namespace zk
