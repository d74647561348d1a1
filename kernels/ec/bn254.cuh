// BN254 G1: y^2 = x^3 + 3 over Fq.
#pragma once

#include "../ff/bn254.cuh"
#include "xyzz.cuh"

namespace zk {

struct bn254_g1 {
    typedef bn254_fq field;
    static constexpr bool A_IS_ZERO = true;
};

typedef affine_t<bn254_g1> bn254_g1_affine;
typedef jacobian_t<bn254_g1> bn254_g1_jacobian;
typedef xyzz_t<bn254_g1> bn254_g1_xyzz;

}  // namespace zk
