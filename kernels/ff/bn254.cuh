// BN254 (alt_bn128) base field Fq and scalar field Fr, 8 x 32-bit limbs.
// Constants: p, -p^-1 mod 2^32 and R = 2^256 mod p, checked against arkworks
// by the host tests (crates/cuda/tests/emulation.rs).
#pragma once

#include "mont.cuh"

namespace zk {

struct bn254_fq_params {
    static constexpr int N = 8;
    static constexpr uint32_t INV = 0xe4866389u;
    ZK_HD static constexpr uint32_t modulus(int i) {
        constexpr uint32_t v[8] = {0xd87cfd47, 0x3c208c16, 0x6871ca8d, 0x97816a91,
                                   0x8181585d, 0xb85045b6, 0xe131a029, 0x30644e72};
        return v[i];
    }
    ZK_HD static constexpr uint32_t one(int i) {
        constexpr uint32_t v[8] = {0xc58f0d9d, 0xd35d438d, 0xf5c70b3d, 0x0a78eb28,
                                   0x7879462c, 0x666ea36f, 0x9a07df2f, 0x0e0a77c1};
        return v[i];
    }
};

struct bn254_fr_params {
    static constexpr int N = 8;
    static constexpr uint32_t INV = 0xefffffffu;
    ZK_HD static constexpr uint32_t modulus(int i) {
        constexpr uint32_t v[8] = {0xf0000001, 0x43e1f593, 0x79b97091, 0x2833e848,
                                   0x8181585d, 0xb85045b6, 0xe131a029, 0x30644e72};
        return v[i];
    }
    ZK_HD static constexpr uint32_t one(int i) {
        constexpr uint32_t v[8] = {0x4ffffffb, 0xac96341c, 0x9f60cd29, 0x36fc7695,
                                   0x7879462e, 0x666ea36f, 0x9a07df2f, 0x0e0a77c1};
        return v[i];
    }
};

typedef fp_t<bn254_fq_params> bn254_fq;
typedef fp_t<bn254_fr_params> bn254_fr;

}  // namespace zk
