#!/usr/bin/env python3
"""Prints the body of the N-limb BMI2/ADX Montgomery multiplication in
`src/adx.rs` (`mont_mul_6`): the CIOS loop with the "no-carry" shortcut,
valid for moduli whose top limb leaves a spare bit.

    for i in 0..N:  t += a * b[i]        mulx; low halves on OF (adox), high on CF (adcx)
                    m  = t0 * inv        imul
                    t  = (t + m*p) >> 64 same two chains; t0 becomes 0 and is dropped
    t - p if t >= p else t               sub/sbb, then cmovae

The N+1 accumulator words rotate over registers r0..rN, so the shift is a
renaming. No register holds zero: `mov reg, 0` leaves the flags alone, so the
OF chain is closed with the scratch `lo` after its last use in a row. That
leaves N + 7 registers in all (N+1 accumulators, a, b, p, lo, hi, rdx): 13
for N = 6, exactly what Rust's inline assembly can allocate on x86-64 (rbx
and rbp are reserved). The final subtraction borrows a, b, lo, hi, rdx and
the free accumulator as scratch, so a and b are `inout` operands.

With the argument `full` it prints `mont_mul_4_full` instead: four limbs,
any odd modulus (the top bit may be set: secp256k1, P-256). The running sum
is then one word and one bit longer (t < 2p < 2^257), so six accumulators
rotate: after each half-row the carries out of the top limb (CF and OF)
land in the sixth, zeroed by the `xor` that starts the row; a zero register
closes the chains, and the final subtraction borrows from the 257th bit.

With `splice IN OUT` it writes IN (the committed `src/adx.rs`) to OUT with
the instruction strings of `mont_mul_6` and `mont_mul_4_full` and the limb
order of their results replaced by freshly generated ones: OUT equals IN
exactly when the committed kernels are what this script generates
(`scripts/check-asm.sh` runs it into a temporary file and diffs; `splice
src/adx.rs src/adx.rs` rewrites them in place after a change here).

Usage: python3 mont_mul_asm.py 6 > body.txt
       python3 mont_mul_asm.py full > body.txt
       python3 mont_mul_asm.py splice src/adx.rs /tmp/adx.rs
"""
import re
import sys


def full():
    """`mont_mul_4_full`: (instruction lines, result registers low to high)."""
    out = []

    def e(s):
        out.append(f'            "{s}",')

    t = ["{r0}", "{r1}", "{r2}", "{r3}", "{r4}", "{r5}"]

    def z(reg):
        return reg[:-1] + ":e}"

    e("xor {zero:e}, {zero:e}")
    for reg in t[:5]:
        e(f"xor {z(reg)}, {z(reg)}")
    for i in range(4):
        e(f"mov rdx, qword ptr [{{b}} + {8 * i}]")
        e(f"xor {z(t[5])}, {z(t[5])}")
        for src, pre in (("{a}", None), ("{p}", "m")):
            if pre:
                e(f"mov rdx, {t[0]}")
                e("imul rdx, qword ptr [{p} + 32]")
                e("xor {lo:e}, {lo:e}")
            for j in range(4):
                e(f"mulx {{hi}}, {{lo}}, qword ptr [{src} + {8 * j}]")
                e(f"adox {t[j]}, {{lo}}")
                e(f"adcx {t[j + 1]}, {{hi}}")
            e(f"adcx {t[5]}, {{zero}}")
            e(f"adox {t[4]}, {{zero}}")
            e(f"adox {t[5]}, {{zero}}")
        t = t[1:] + t[:1]
    tmp = ["{lo}", "{hi}", "rdx", "{zero}"]
    for j in range(4):
        e(f"mov {tmp[j]}, {t[j]}")
        e(f"{'sub' if j == 0 else 'sbb'} {tmp[j]}, qword ptr [{{p}} + {8 * j}]")
    e(f"sbb {t[4]}, 0")
    for j in range(4):
        e(f"cmovae {t[j]}, {tmp[j]}")
    return out, [x.strip("{}") for x in t[:4]]


def spare_bit(n):
    """`mont_mul_<n>` (spare-bit moduli): (instruction lines, result
    registers low to high)."""
    w = n + 1
    out = []

    def e(s):
        out.append(f'            "{s}",')

    def r(k):
        return "{r%d}" % (k % w)

    for k in range(w):
        e(f"xor {r(k)[:-1]}:e}}, {r(k)[:-1]}:e}}")
    for i in range(n):
        s = i
        if i > 0:
            # the word shifted out last row is zero already; xor clears CF and OF
            e(f"xor {r(s + n)[:-1]}:e}}, {r(s + n)[:-1]}:e}}")
        e(f"mov rdx, qword ptr [{{b}} + {8 * i}]")
        for j in range(n):
            e(f"mulx {{hi}}, {{lo}}, qword ptr [{{a}} + {8 * j}]")
            e(f"adox {r(s + j)}, {{lo}}")
            e(f"adcx {r(s + j + 1)}, {{hi}}")
        e("mov {lo:e}, 0")
        e(f"adox {r(s + n)}, {{lo}}")
        e(f"mov rdx, {r(s)}")
        e(f"imul rdx, qword ptr [{{p}} + {8 * n}]")
        e("xor {lo:e}, {lo:e}")
        for j in range(n):
            e(f"mulx {{hi}}, {{lo}}, qword ptr [{{p}} + {8 * j}]")
            e(f"adox {r(s + j)}, {{lo}}")
            e(f"adcx {r(s + j + 1)}, {{hi}}")
        e("mov {lo:e}, 0")
        e(f"adox {r(s + n)}, {{lo}}")
    # result: r[n..2n) mod w; scratch: the free accumulator and a, b, lo, hi, rdx
    res = [r(n + j) for j in range(n)]
    free = r(2 * n)
    tmp = ["{lo}", "{hi}", "rdx", "{a}", "{b}", free][:n]
    for j in range(n):
        e(f"mov {tmp[j]}, {res[j]}")
        e(f"{'sub' if j == 0 else 'sbb'} {tmp[j]}, qword ptr [{{p}} + {8 * j}]")
    for j in range(n):
        e(f"cmovae {res[j]}, {tmp[j]}")
    return out, [x.strip("{}") for x in res]


def show(generated):
    out, res = generated
    print("\n".join(out))
    print("// result limbs, low to high:", ", ".join(res))


def splice_one(lines, name, generated):
    """Replaces, in `lines` (a Rust file), the instruction strings of the
    `asm!` block of `fn name` and the array of result limbs it returns."""
    out, res = generated
    start = next(
        (i for i, l in enumerate(lines) if re.match(rf"\s*pub\(crate\) unsafe fn {name}\(", l)),
        None,
    )
    if start is None:
        sys.exit(f"mont_mul_asm.py: no `fn {name}` in the file")
    i = start
    while "asm!(" not in lines[i]:
        i += 1
    first = i + 1
    last = first
    while lines[last].lstrip().startswith('"'):
        last += 1
    lines[first:last] = out
    # the function's value: the result registers, low to high
    k = first + len(out)
    while not re.match(r"^\s*\[r\d+(, r\d+)*\]$", lines[k]):
        if lines[k].startswith("}"):
            sys.exit(f"mont_mul_asm.py: no result array in `fn {name}`")
        k += 1
    indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())]
    lines[k] = f"{indent}[{', '.join(res)}]"


def splice(src, dst):
    with open(src) as f:
        text = f.read()
    lines = text.split("\n")
    splice_one(lines, "mont_mul_6", spare_bit(6))
    splice_one(lines, "mont_mul_4_full", full())
    with open(dst, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "full":
        show(full())
    elif len(sys.argv) > 1 and sys.argv[1] == "splice":
        if len(sys.argv) != 4:
            sys.exit("usage: mont_mul_asm.py splice IN OUT")
        splice(sys.argv[2], sys.argv[3])
    else:
        show(spare_bit(int(sys.argv[1]) if len(sys.argv) > 1 else 6))
