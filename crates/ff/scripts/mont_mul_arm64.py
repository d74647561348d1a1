#!/usr/bin/env python3
"""Writes `src/arm64.rs`: zkaccel-ff's aarch64 assembly kernels, N-limb
Montgomery multiplication (N = 4 and 6) and modular addition and
subtraction, for moduli whose top limb leaves a spare bit.

The multiplication is the CIOS loop of the portable kernel's
`mul_no_carry` and of the x86-64 kernel (`scripts/mont_mul_asm.py`), written
with aarch64's base instructions: `mul` and `umulh` for the two halves of
each 64x64-bit product (neither touches the flags, so they interleave
freely with the carry chains), `adds`/`adcs`/`adc` for the chains.

    for i in 0..N:  t += a * b[i]        low halves on one adds/adcs chain,
                                         high halves on a second one
                    m  = t0 * inv        mul
                    t  = (t + m*p) >> 64 the same two chains; t0 becomes 0
    t - p if t >= p else t               subs/sbcs, then csel on "hs"

The N + 1 accumulator words rotate over registers t0..tN, so the shift is a
renaming. With the spare bit, t < 2p < 2^(64N) after every row, so no word
beyond t_N is needed and the last `adc` of each chain cannot carry out. The
operand `a` arrives in registers and its registers take the final
subtraction (`inout`), `b` is read one limb per row through a pointer, the
modulus and `-p^-1 mod 2^64` are loaded with `ldp`/`ldr` from their static
array (as constants in registers, the compiler materialised them with four
`mov`/`movk` each, on every call where it could not hoist them: 20
instructions against 3 loads for four limbs). Registers in all: 20 for
N = 4, 25 for N = 6 (Rust's inline assembly can allocate 27 on aarch64).

Usage: python3 scripts/mont_mul_arm64.py > src/arm64.rs
(`scripts/check-asm.sh`, run by CI, fails when the committed file differs
from what this prints.)
"""


def mul(n):
    """Instruction lines of the n-limb product and the result registers."""
    out = []

    def e(s):
        out.append(s)

    t = [f"t{k}" for k in range(n + 1)]
    load_modulus(n, e, inv=True)

    def reduce_row():
        # m = t0 * inv; t = (t + m p) >> 64. t0 + lo(m p0) is 0 mod 2^64,
        # only its carry matters; it is written to t0 (dead) with `adds`
        # rather than discarded with `cmn` (the same instruction on real
        # cores, but LLVM 14's scheduling models give `cmn` a longer path:
        # 93 cycles against 77 per product in the Neoverse N1 model).
        e("mul {bi}, {%s}, {inv}" % t[0])
        e("mul {lo}, {p0}, {bi}")
        e("adds {%s}, {%s}, {lo}" % (t[0], t[0]))
        for j in range(1, n):
            e("mul {lo}, {p%d}, {bi}" % j)
            e("adcs {%s}, {%s}, {lo}" % (t[j], t[j]))
        e("adc {%s}, {%s}, xzr" % (t[n], t[n]))
        for j in range(n):
            e("umulh {hi}, {p%d}, {bi}" % j)
            op = "adds" if j == 0 else ("adc" if j == n - 1 else "adcs")
            e("%s {%s}, {%s}, {hi}" % (op, t[j + 1], t[j + 1]))

    for i in range(n):
        e("ldr {bi}, [{b}, #%d]" % (8 * i))
        if i == 0:
            # t = a * b[0]: the low halves land directly, then the high
            # halves are added one word up.
            for j in range(n):
                e("mul {%s}, {a%d}, {bi}" % (t[j], j))
            for j in range(n):
                if j < n - 1:
                    e("umulh {hi}, {a%d}, {bi}" % j)
                    op = "adds" if j == 0 else "adcs"
                    e("%s {%s}, {%s}, {hi}" % (op, t[j + 1], t[j + 1]))
                else:
                    e("umulh {hi}, {a%d}, {bi}" % j)
                    e("adc {%s}, {hi}, xzr" % t[n])
        else:
            # t (n words) += a * b[i]: the word above t is the chain's
            # carry (`cset`), then the high halves one word up.
            for j in range(n):
                e("mul {lo}, {a%d}, {bi}" % j)
                op = "adds" if j == 0 else "adcs"
                e("%s {%s}, {%s}, {lo}" % (op, t[j], t[j]))
            e("cset {%s}, hs" % t[n])
            for j in range(n):
                e("umulh {hi}, {a%d}, {bi}" % j)
                op = "adds" if j == 0 else ("adc" if j == n - 1 else "adcs")
                e("%s {%s}, {%s}, {hi}" % (op, t[j + 1], t[j + 1]))
        reduce_row()
        t = t[1:] + t[:1]
    # t[0..n] < 2p: subtract p into a's registers, keep the difference
    # unless it borrowed.
    for j in range(n):
        op = "subs" if j == 0 else "sbcs"
        e("%s {a%d}, {%s}, {p%d}" % (op, j, t[j], j))
    for j in range(n):
        e("csel {a%d}, {a%d}, {%s}, hs" % (j, j, t[j]))
    return out


def load_modulus(n, e, inv=False):
    """`ldp` the modulus' limbs (and `-p^-1 mod 2^64`) from `pinv`."""
    for j in range(0, n, 2):
        e("ldp {p%d}, {p%d}, [{pinv}, #%d]" % (j, j + 1, 8 * j))
    if inv:
        e("ldr {inv}, [{pinv}, #%d]" % (8 * n))


def add(n):
    out = []
    load_modulus(n, out.append)
    for j in range(n):
        op = "adds" if j == 0 else "adcs"
        out.append("%s {a%d}, {a%d}, {b%d}" % (op, j, j, j))
    for j in range(n):
        op = "subs" if j == 0 else "sbcs"
        out.append("%s {b%d}, {a%d}, {p%d}" % (op, j, j, j))
    for j in range(n):
        out.append("csel {a%d}, {b%d}, {a%d}, hs" % (j, j, j))
    return out


def sub(n):
    out = []
    load_modulus(n, out.append)
    for j in range(n):
        op = "subs" if j == 0 else "sbcs"
        out.append("%s {a%d}, {a%d}, {b%d}" % (op, j, j, j))
    # All ones when the difference borrowed: p is added back under it.
    out.append("csetm {mask}, lo")
    for j in range(n):
        out.append("and {b%d}, {p%d}, {mask}" % (j, j))
    for j in range(n):
        op = "adds" if j == 0 else "adcs"
        out.append("%s {a%d}, {a%d}, {b%d}" % (op, j, j, j))
    return out


HEADER = '''\
//! The aarch64 kernel: Montgomery multiplication and modular addition and
//! subtraction for four- and six-limb moduli with a spare top bit (BN254's
//! two fields, BLS12-381 Fr; BLS12-381 and BLS12-377 Fq), in assembly with
//! aarch64's base instructions (every aarch64 CPU runs them).
//!
//! GENERATED by `scripts/mont_mul_arm64.py`: edit the script, not this
//! file (`scripts/check-asm.sh`, run by CI, fails when they differ).
//!
//! The product is the CIOS loop of the portable kernel's `mul_no_carry`
//! ([`crate::portable`]) and of the x86-64 one, with the "no-carry"
//! shortcut, so it is only valid for moduli whose top limb leaves a spare
//! bit, which the caller checks; results are fully reduced, identical to
//! arkworks'. Each 64x64-bit product is a `mul` (low half) and a `umulh`
//! (high half); neither sets the flags, so they interleave with the two
//! `adds`/`adcs` chains (low halves, high halves) of each row:
//! ```text
//! for i in 0..N:   t += a * b[i]
//!                  m  = t0 * inv mod 2^64
//!                  t  = (t + m * p) >> 64   (t0 becomes 0)
//! result = t - p if t >= p else t            (subs/sbcs, then csel)
//! ```
//! What compilers emit for the portable kernel on aarch64 is longer: they
//! materialise each carry with `cset` and add it back, where the chains
//! here keep it in the flags (docs/aarch64.md has the instruction counts
//! and llvm-mca's cycle estimates).
//!
//! The functions are safe to call (no CPU feature beyond the base ISA, no
//! memory beyond their arguments); their preconditions are about values:
//! broken, they return wrong field elements, never touch other memory.

use core::arch::asm;
'''


def asm_fn(n, name, doc, safety, body, operands):
    """One `pub(crate) fn NAME(a, b, pinv) -> [u64; n]` around an `asm!`
    block: `a`'s limbs in registers (`inout`, the result), then `operands`."""
    lines = [""]
    w = lines.append
    for d in doc:
        w(f"///{' ' if d else ''}{d}")
    w("#[inline(always)]")
    w(f"pub(crate) fn {name}(a: &[u64; {n}], b: &[u64; {n}], pinv: &[u64; {n + 1}]) -> [u64; {n}] {{")
    w("    let [" + ", ".join(f"mut a{j}" for j in range(n)) + "] = *a;")
    for s in safety:
        w(f"    // {s}")
    w("    unsafe {")
    w("        asm!(")
    for s in body:
        w(f'            "{s}",')
    for j in range(n):
        w(f"            a{j} = inout(reg) a{j},")
    for s in operands:
        w(f"            {s},")
    w("        );")
    w("    }")
    w("    [" + ", ".join(f"a{j}" for j in range(n)) + "]")
    w("}")
    return lines


def fn_mul(n):
    return asm_fn(
        n,
        f"mont_mul_{n}",
        [
            f"`a * b * 2^-{64 * n} mod p`, where `pinv` is the modulus' {n} limbs then",
            "`-p^-1 mod 2^64`.",
            "",
            f"Correct for `p < 2^{64 * n - 1}` (a spare top bit) and `a, b < p`.",
        ],
        [
            f"SAFETY: reads the {n} limbs of `b` and the {n + 1} words of `pinv`",
            "through their pointers, touches no other memory and no stack.",
        ],
        mul(n),
        ["b = in(reg) b.as_ptr()", "pinv = in(reg) pinv.as_ptr()"]
        + [f"p{j} = out(reg) _" for j in range(n)]
        + ["inv = out(reg) _"]
        + [f"t{k} = out(reg) _" for k in range(n + 1)]
        + ["bi = out(reg) _", "lo = out(reg) _", "hi = out(reg) _"]
        + ["options(pure, readonly, nostack)"],
    )


def fn_addsub(n, name, body, doc):
    return asm_fn(
        n,
        f"{name}_{n}",
        doc,
        [
            f"SAFETY: reads the {n} limbs of the modulus through `pinv`, touches no",
            "other memory and no stack.",
        ],
        body,
        [f"b{j} = inout(reg) b[{j}] => _" for j in range(n)]
        + ["pinv = in(reg) pinv.as_ptr()"]
        + [f"p{j} = out(reg) _" for j in range(n)]
        + (["mask = out(reg) _"] if name == "sub" else [])
        + ["options(pure, readonly, nostack)"],
    )


def main():
    lines = [HEADER.rstrip("\n")]
    for n in (4, 6):
        lines += fn_mul(n)
        lines += fn_addsub(
            n,
            "add",
            add(n),
            [
                f"`a + b mod p` for `a, b < p < 2^{64 * n - 1}` (the sum cannot carry out): the",
                "sum, then `p` subtracted unless that borrows.",
            ],
        )
        lines += fn_addsub(
            n,
            "sub",
            sub(n),
            [
                "`a - b mod p` for `a, b < p` (any modulus): the difference, then `p`",
                "added back under a mask when it borrowed.",
            ],
        )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
