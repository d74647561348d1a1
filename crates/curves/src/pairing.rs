//! The pairing engines: arkworks' `Pairing` over zkaccel's group types,
//! written once as a macro and instantiated for BN254 and BLS12-381.
//!
//! Miller loop, final exponentiation, prepared points and the target field
//! are arkworks' own (the prepared types are shared, so arkworks' verifiers
//! and zkaccel's accept the same prepared keys); only the groups differ.

/// `$engine` implements `Pairing` by delegating to `$inner`, with G1 and G2
/// the zkaccel types over `$g1` and `$g2`.
macro_rules! accel_pairing {
    ($engine:ident, $inner:ty, $g1:ty, $g2:ty, $g1prep:ty, $g2prep:ty, $doc:expr) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $engine;

        impl From<$crate::Affine<$g1>> for $g1prep {
            fn from(p: $crate::Affine<$g1>) -> Self {
                p.0.into()
            }
        }
        impl<'a> From<&'a $crate::Affine<$g1>> for $g1prep {
            fn from(p: &'a $crate::Affine<$g1>) -> Self {
                p.0.into()
            }
        }
        impl From<$crate::Projective<$g1>> for $g1prep {
            fn from(p: $crate::Projective<$g1>) -> Self {
                p.0.into()
            }
        }
        impl From<$crate::Affine<$g2>> for $g2prep {
            fn from(p: $crate::Affine<$g2>) -> Self {
                p.0.into()
            }
        }
        impl<'a> From<&'a $crate::Affine<$g2>> for $g2prep {
            fn from(p: &'a $crate::Affine<$g2>) -> Self {
                p.0.into()
            }
        }
        impl From<$crate::Projective<$g2>> for $g2prep {
            fn from(p: $crate::Projective<$g2>) -> Self {
                p.0.into()
            }
        }

        impl ark_ec::pairing::Pairing for $engine {
            type BaseField = <$inner as ark_ec::pairing::Pairing>::BaseField;
            type ScalarField = <$inner as ark_ec::pairing::Pairing>::ScalarField;
            type G1 = $crate::Projective<$g1>;
            type G1Affine = $crate::Affine<$g1>;
            type G1Prepared = $g1prep;
            type G2 = $crate::Projective<$g2>;
            type G2Affine = $crate::Affine<$g2>;
            type G2Prepared = $g2prep;
            type TargetField = <$inner as ark_ec::pairing::Pairing>::TargetField;

            fn multi_miller_loop(
                a: impl IntoIterator<Item = impl Into<Self::G1Prepared>>,
                b: impl IntoIterator<Item = impl Into<Self::G2Prepared>>,
            ) -> ark_ec::pairing::MillerLoopOutput<Self> {
                ark_ec::pairing::MillerLoopOutput(
                    <$inner as ark_ec::pairing::Pairing>::multi_miller_loop(a, b).0,
                )
            }

            fn final_exponentiation(
                mlo: ark_ec::pairing::MillerLoopOutput<Self>,
            ) -> Option<ark_ec::pairing::PairingOutput<Self>> {
                <$inner as ark_ec::pairing::Pairing>::final_exponentiation(
                    ark_ec::pairing::MillerLoopOutput(mlo.0),
                )
                .map(|out| ark_ec::pairing::PairingOutput(out.0))
            }
        }
    };
}

pub(crate) use accel_pairing;
