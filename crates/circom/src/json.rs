//! snarkjs' JSON files, written exactly as snarkjs writes them
//! (`JSON.stringify(x, null, 1)`: one space of indent per level, no final
//! newline; decimal strings; projective coordinates with `"1"` for z) and
//! read back for verification.

use crate::curve::{decimal, from_decimal, CircomCurve};
use crate::error::{CircomError, FileKind};
use ark_groth16::{Proof, VerifyingKey};
use serde_json::Value;

/// A JSON value as snarkjs formats it.
enum J {
    S(String),
    N(usize),
    A(Vec<J>),
    O(Vec<(&'static str, J)>),
}

impl J {
    fn write(&self, out: &mut String, depth: usize) {
        let pad = |out: &mut String, d: usize| {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', d));
        };
        match self {
            J::S(s) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
            J::N(n) => out.push_str(&n.to_string()),
            // snarkjs writes an empty list (no public signals) as "[\n]".
            J::A(v) if v.is_empty() => {
                out.push('[');
                pad(out, depth);
                out.push(']');
            }
            J::A(v) => {
                out.push('[');
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    pad(out, depth + 1);
                    x.write(out, depth + 1);
                }
                pad(out, depth);
                out.push(']');
            }
            J::O(v) => {
                out.push('{');
                for (i, (k, x)) in v.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    pad(out, depth + 1);
                    out.push('"');
                    out.push_str(k);
                    out.push_str("\": ");
                    x.write(out, depth + 1);
                }
                pad(out, depth);
                out.push('}');
            }
        }
    }

    fn render(&self) -> String {
        let mut s = String::new();
        self.write(&mut s, 0);
        s
    }
}

fn strs<const N: usize>(a: [String; N]) -> J {
    J::A(a.into_iter().map(J::S).collect())
}

fn g1<E: CircomCurve>(p: &E::G1Affine) -> J {
    strs(E::g1_json(p))
}

fn g2<E: CircomCurve>(p: &E::G2Affine) -> J {
    J::A(E::g2_json(p).into_iter().map(strs).collect())
}

/// `proof.json` as snarkjs writes it.
pub fn proof_json<E: CircomCurve>(proof: &Proof<E>) -> String {
    J::O(vec![
        ("pi_a", g1::<E>(&proof.a)),
        ("pi_b", g2::<E>(&proof.b)),
        ("pi_c", g1::<E>(&proof.c)),
        ("protocol", J::S("groth16".into())),
        ("curve", J::S(E::NAME.into())),
    ])
    .render()
}

/// `public.json` as snarkjs writes it: the public signals in decimal.
pub fn public_json<E: CircomCurve>(public: &[E::ScalarField]) -> String {
    J::A(public.iter().map(|x| J::S(decimal(x))).collect()).render()
}

/// The verification key as `snarkjs zkey export verificationkey` writes it.
pub fn vkey_json<E: CircomCurve>(vk: &VerifyingKey<E>) -> String {
    let alphabeta = E::gt_json(&vk.alpha_g1, &vk.beta_g2);
    J::O(vec![
        ("protocol", J::S("groth16".into())),
        ("curve", J::S(E::NAME.into())),
        ("nPublic", J::N(vk.gamma_abc_g1.len().saturating_sub(1))),
        ("vk_alpha_1", g1::<E>(&vk.alpha_g1)),
        ("vk_beta_2", g2::<E>(&vk.beta_g2)),
        ("vk_gamma_2", g2::<E>(&vk.gamma_g2)),
        ("vk_delta_2", g2::<E>(&vk.delta_g2)),
        (
            "vk_alphabeta_12",
            J::A(
                alphabeta
                    .into_iter()
                    .map(|f6| J::A(f6.into_iter().map(strs).collect()))
                    .collect(),
            ),
        ),
        (
            "IC",
            J::A(vk.gamma_abc_g1.iter().map(|p| g1::<E>(p)).collect()),
        ),
    ])
    .render()
}

fn bad(msg: impl Into<String>) -> CircomError {
    CircomError::format(FileKind::Json, msg.into())
}

fn parse(text: &str, what: &str) -> Result<Value, CircomError> {
    serde_json::from_str(text).map_err(|e| bad(format!("{what}: {e}")))
}

fn str_array<'a, const N: usize>(v: &'a Value, what: &str) -> Result<[&'a str; N], CircomError> {
    let a = v
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| bad(format!("{what}: expected an array of {N} strings")))?;
    let mut out = [""; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = x
            .as_str()
            .ok_or_else(|| bad(format!("{what}: expected decimal strings")))?;
    }
    Ok(out)
}

fn field<'a>(v: &'a Value, key: &str, what: &str) -> Result<&'a Value, CircomError> {
    v.get(key)
        .ok_or_else(|| bad(format!("{what}: missing \"{key}\"")))
}

fn check_header<E: CircomCurve>(v: &Value, what: &str) -> Result<(), CircomError> {
    if let Some(p) = v.get("protocol") {
        if p != "groth16" {
            return Err(CircomError::Unsupported {
                file: FileKind::Json,
                msg: format!("{what}: protocol {p}, only groth16"),
            });
        }
    }
    if let Some(c) = v.get("curve") {
        if c != E::NAME {
            return Err(CircomError::Mismatch(format!(
                "{what}: curve {c}, expected {}",
                E::NAME
            )));
        }
    }
    Ok(())
}

fn read_g1<E: CircomCurve>(v: &Value, what: &str) -> Result<E::G1Affine, CircomError> {
    E::g1_from_json(&str_array::<3>(v, what)?)
        .filter(E::g1_valid)
        .ok_or_else(|| bad(format!("{what}: not a point of {}'s G1", E::NAME)))
}

fn read_g2<E: CircomCurve>(v: &Value, what: &str) -> Result<E::G2Affine, CircomError> {
    let a = v
        .as_array()
        .filter(|a| a.len() == 3)
        .ok_or_else(|| bad(format!("{what}: expected three coordinate pairs")))?;
    let c = [
        str_array::<2>(&a[0], what)?,
        str_array::<2>(&a[1], what)?,
        str_array::<2>(&a[2], what)?,
    ];
    E::g2_from_json(&c)
        .filter(E::g2_valid)
        .ok_or_else(|| bad(format!("{what}: not a point of {}'s G2", E::NAME)))
}

/// Reads `proof.json`; every point checked on the curve and in the
/// subgroup.
pub fn read_proof_json<E: CircomCurve>(text: &str) -> Result<Proof<E>, CircomError> {
    let v = parse(text, "proof")?;
    check_header::<E>(&v, "proof")?;
    Ok(Proof {
        a: read_g1::<E>(field(&v, "pi_a", "proof")?, "proof pi_a")?,
        b: read_g2::<E>(field(&v, "pi_b", "proof")?, "proof pi_b")?,
        c: read_g1::<E>(field(&v, "pi_c", "proof")?, "proof pi_c")?,
    })
}

/// Reads `public.json`: decimal strings below the scalar field's modulus.
pub fn read_public_json<E: CircomCurve>(text: &str) -> Result<Vec<E::ScalarField>, CircomError> {
    let v = parse(text, "public signals")?;
    let a = v
        .as_array()
        .ok_or_else(|| bad("public signals: expected an array"))?;
    a.iter()
        .enumerate()
        .map(|(i, x)| {
            x.as_str().and_then(from_decimal).ok_or_else(|| {
                bad(format!(
                    "public signal {i}: not a decimal string below the field's modulus"
                ))
            })
        })
        .collect()
}

/// Reads a verification key (`vkey.json`); every point checked.
pub fn read_vkey_json<E: CircomCurve>(text: &str) -> Result<VerifyingKey<E>, CircomError> {
    let v = parse(text, "verification key")?;
    let w = "verification key";
    check_header::<E>(&v, w)?;
    let ic = field(&v, "IC", w)?
        .as_array()
        .ok_or_else(|| bad("verification key: IC is not an array"))?
        .iter()
        .enumerate()
        .map(|(i, p)| read_g1::<E>(p, &format!("verification key IC[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(n) = v.get("nPublic") {
        if n.as_u64() != Some(ic.len() as u64 - 1) || ic.is_empty() {
            return Err(bad(format!(
                "verification key: nPublic is {n}, IC has {} points",
                ic.len()
            )));
        }
    }
    Ok(VerifyingKey {
        alpha_g1: read_g1::<E>(field(&v, "vk_alpha_1", w)?, "vk_alpha_1")?,
        beta_g2: read_g2::<E>(field(&v, "vk_beta_2", w)?, "vk_beta_2")?,
        gamma_g2: read_g2::<E>(field(&v, "vk_gamma_2", w)?, "vk_gamma_2")?,
        delta_g2: read_g2::<E>(field(&v, "vk_delta_2", w)?, "vk_delta_2")?,
        gamma_abc_g1: ic,
    })
}

/// The curve a snarkjs JSON file names (`"curve"`), if any.
pub fn json_curve(text: &str) -> Option<String> {
    let v: Value = serde_json::from_str(text).ok()?;
    v.get("curve")?.as_str().map(str::to_owned)
}
