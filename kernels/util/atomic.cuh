// Atomic increments and maxima: CUDA's atomicAdd/atomicMax on the device, GCC's __atomic builtins
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

ZK_HD uint32_t atomic_max_u32(uint32_t* p, uint32_t v) {
#ifdef __CUDA_ARCH__
    return atomicMax(p, v);
#else
    uint32_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (cur < v && !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED)) {
    }
    return cur;
#endif
}

}  // namespace zk
