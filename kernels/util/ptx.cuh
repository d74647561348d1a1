// Carry-chain primitives: the only place with inline PTX.
//
// Every multi-limb routine (field arithmetic, the DBC integers) is written with
// these functions. On the device each one is a single PTX instruction that
// reads and/or writes the condition-code carry flag (CC.CF), the idiom of
// sppark and ICICLE; on the host (g++, the emulation the tests run) each one
// does the same arithmetic on a thread-local carry flag. So the host tests run
// the very carry chains the GPU runs; only this one-instruction-per-function
// mapping differs, and it is reviewable line by line against the PTX ISA
// ("Extended-Precision Integer Arithmetic Instructions").
//
//   add.cc   r = a + b,           CF = carry out
//   addc.cc  r = a + b + CF,      CF = carry out
//   addc     r = a + b + CF       (CF unchanged)
//   sub.cc   r = a - b,           CF = borrow out
//   subc.cc  r = a - b - CF,      CF = borrow out
//   subc     r = a - b - CF
//   mad.lo.cc   r = lo(a*b) + c,        CF = carry out
//   madc.lo.cc  r = lo(a*b) + c + CF,   CF = carry out
//   mad.hi.cc   r = hi(a*b) + c,        CF = carry out
//   madc.hi.cc  r = hi(a*b) + c + CF,   CF = carry out
//   madc.hi     r = hi(a*b) + c + CF
#pragma once

#include "compat.cuh"

namespace zk {
namespace ptx {

#ifdef __CUDA_ARCH__

#define ZK_PTX3(name, insn)                                                   \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b) {         \
        uint32_t r;                                                            \
        asm volatile(insn " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));          \
        return r;                                                              \
    }
#define ZK_PTX4(name, insn)                                                   \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) { \
        uint32_t r;                                                            \
        asm volatile(insn " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); \
        return r;                                                              \
    }

ZK_PTX3(add_cc, "add.cc.u32")
ZK_PTX3(addc_cc, "addc.cc.u32")
ZK_PTX3(addc, "addc.u32")
ZK_PTX3(sub_cc, "sub.cc.u32")
ZK_PTX3(subc_cc, "subc.cc.u32")
ZK_PTX3(subc, "subc.u32")
ZK_PTX4(mad_lo_cc, "mad.lo.cc.u32")
ZK_PTX4(madc_lo_cc, "madc.lo.cc.u32")
ZK_PTX4(mad_hi_cc, "mad.hi.cc.u32")
ZK_PTX4(madc_hi_cc, "madc.hi.cc.u32")
ZK_PTX4(madc_hi, "madc.hi.u32")

#undef ZK_PTX3
#undef ZK_PTX4

#else  // host emulation of the carry flag

inline uint32_t& carry_flag() {
    static thread_local uint32_t cf = 0;
    return cf;
}

inline uint32_t add_cc(uint32_t a, uint32_t b) {
    uint64_t s = (uint64_t)a + b;
    carry_flag() = (uint32_t)(s >> 32);
    return (uint32_t)s;
}
inline uint32_t addc_cc(uint32_t a, uint32_t b) {
    uint64_t s = (uint64_t)a + b + carry_flag();
    carry_flag() = (uint32_t)(s >> 32);
    return (uint32_t)s;
}
inline uint32_t addc(uint32_t a, uint32_t b) { return a + b + carry_flag(); }
inline uint32_t sub_cc(uint32_t a, uint32_t b) {
    uint64_t d = (uint64_t)a - b;
    carry_flag() = (uint32_t)(d >> 63);
    return (uint32_t)d;
}
inline uint32_t subc_cc(uint32_t a, uint32_t b) {
    uint64_t d = (uint64_t)a - b - carry_flag();
    carry_flag() = (uint32_t)(d >> 63);
    return (uint32_t)d;
}
inline uint32_t subc(uint32_t a, uint32_t b) { return a - b - carry_flag(); }
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    return add_cc((uint32_t)((uint64_t)a * b), c);
}
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    return addc_cc((uint32_t)((uint64_t)a * b), c);
}
inline uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    return add_cc((uint32_t)(((uint64_t)a * b) >> 32), c);
}
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    return addc_cc((uint32_t)(((uint64_t)a * b) >> 32), c);
}
inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
    return addc((uint32_t)(((uint64_t)a * b) >> 32), c);
}

#endif

}  // namespace ptx
}  // namespace zk
