// Host/device portability: the same headers compile under nvcc (kernels) and
// under g++ (the host emulation in crates/cuda/host/emulation.cpp).
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define ZK_HD __host__ __device__ __forceinline__
#define ZK_CONSTANT __constant__
#else
#define ZK_HD inline
#define ZK_CONSTANT
#endif

#if defined(__CUDACC__)
#define ZK_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#define ZK_UNROLL _Pragma("GCC unroll 16")
#else
#define ZK_UNROLL
#endif
