// Fixed-width unsigned integers for the per-thread chain computation:
// L little-endian 32-bit limbs, carry chains through util/ptx.cuh.
#pragma once

#include "../util/ptx.cuh"

#ifndef __CUDA_ARCH__
#include <cmath>
#endif

namespace zk {

template <int L>
struct uint_t {
    uint32_t w[L];

    ZK_HD static uint_t zero() {
        uint_t r;
        ZK_UNROLL
        for (int i = 0; i < L; i++) r.w[i] = 0;
        return r;
    }

    ZK_HD bool is_zero() const {
        uint32_t acc = 0;
        ZK_UNROLL
        for (int i = 0; i < L; i++) acc |= w[i];
        return acc == 0;
    }

    /// Number of significant bits (0 for zero).
    ZK_HD uint32_t bits() const {
        for (int i = L - 1; i >= 0; i--) {
            if (w[i] != 0) {
#ifdef __CUDA_ARCH__
                return 32 * i + 32 - __clz(w[i]);
#else
                return 32 * i + 32 - __builtin_clz(w[i]);
#endif
            }
        }
        return 0;
    }

    ZK_HD bool bit(uint32_t k) const {
        uint32_t i = k / 32;
        return i < (uint32_t)L && ((w[i] >> (k % 32)) & 1);
    }

    /// Bits [k, k + 64) as a u64 (zero beyond the top).
    ZK_HD uint64_t window64(uint32_t k) const {
        uint64_t r = 0;
        for (int j = 0; j < 3; j++) {
            uint32_t i = k / 32 + j;
            if (i >= (uint32_t)L) break;
            uint32_t s = k % 32;
            // limb i sits at bit 32 j - s of the window
            int pos = 32 * j - (int)s;
            uint64_t v = w[i];
            if (pos >= 0) {
                if (pos < 64) r |= v << pos;
            } else {
                r |= v >> (-pos);
            }
        }
        return r;
    }

    ZK_HD int cmp(const uint_t& o) const {
        for (int i = L - 1; i >= 0; i--) {
            if (w[i] != o.w[i]) return w[i] < o.w[i] ? -1 : 1;
        }
        return 0;
    }

    ZK_HD uint_t sub(const uint_t& o) const {
        uint_t r;
        r.w[0] = ptx::sub_cc(w[0], o.w[0]);
        ZK_UNROLL
        for (int i = 1; i < L - 1; i++) r.w[i] = ptx::subc_cc(w[i], o.w[i]);
        r.w[L - 1] = ptx::subc(w[L - 1], o.w[L - 1]);
        return r;
    }

    ZK_HD uint_t add(const uint_t& o) const {
        uint_t r;
        r.w[0] = ptx::add_cc(w[0], o.w[0]);
        ZK_UNROLL
        for (int i = 1; i < L - 1; i++) r.w[i] = ptx::addc_cc(w[i], o.w[i]);
        r.w[L - 1] = ptx::addc(w[L - 1], o.w[L - 1]);
        return r;
    }

    /// |self - o| and whether self >= o.
    ZK_HD uint_t abs_diff(const uint_t& o, bool& ge) const {
        ge = cmp(o) >= 0;
        return ge ? sub(o) : o.sub(*this);
    }

    /// self << k, truncated to L limbs.
    ZK_HD uint_t shl(uint32_t k) const {
        uint_t r = zero();
        uint32_t q = k / 32, s = k % 32;
        for (int i = L - 1; i >= (int)q; i--) {
            uint32_t v = w[i - q] << s;
            if (s != 0 && i - (int)q - 1 >= 0) v |= w[i - q - 1] >> (32 - s);
            r.w[i] = v;
        }
        return r;
    }

    ZK_HD uint_t shr1() const {
        uint_t r;
        ZK_UNROLL
        for (int i = 0; i < L - 1; i++) r.w[i] = (w[i] >> 1) | (w[i + 1] << 31);
        r.w[L - 1] = w[L - 1] >> 1;
        return r;
    }

    /// The 63 bits from the top one down, normalised to [2^62, 2^63).
    ZK_HD uint64_t mantissa() const {
        uint32_t b = bits();
        if (b == 0) return 0;
        if (b <= 63) return window64(0) << (63 - b);
        return window64(b - 63) & (~0ull >> 1);
    }

    /// log2(self) as a double (the same evaluation as zkaccel-dbc's).
    ZK_HD double log2() const {
        uint32_t b = bits();
        if (b <= 64) return ::log2((double)window64(0));
        return ::log2((double)window64(b - 64)) + (double)(b - 64);
    }
};

}  // namespace zk
