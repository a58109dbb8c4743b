//! # Floating-point SUM and PROD in integers, the way the datapath computes them
//!
//! The arithmetic the ALU's floating-point lanes will be built from, on unsigned integers only:
//! the bit-level model that the cycle model's stages and the RTL split into registers, checked
//! against the golden reference ([`super::fp::fp_golden`], Rust's IEEE arithmetic).
//!
//! - **Unpack**: a finite element is `sig · 2^e` with `sig` the significand (the hidden bit
//!   set for a normal number) and `e` the exponent of its lowest bit.
//! - **SUM**: the operand of larger magnitude first; the other's significand shifted right to
//!   the same exponent with three extra low bits (guard, round and a sticky bit that ORs
//!   everything shifted out), then added or subtracted. The sticky bit never decides more than
//!   "above a tie": when it is set the operands' exponents differ by two or more, so at most one
//!   bit cancels and the rounding position stays above it.
//! - **PROD**: the significands' full product (at most 106 bits) at the sum of the exponents.
//! - **Round and pack**: the result normalised to `p = fraction + 1` bits, or fewer for a
//!   subnormal; rounded to nearest, ties to even; packed by adding the significand to the
//!   exponent field minus one, so that a rounding carry into a new binade, into the smallest
//!   normal or into infinity needs no special case.
//! - **MIN, MAX, MINLOC, MAXLOC**: the NaN tests and one unsigned compare of keys (a
//!   positive number with its sign bit set, a negative one inverted, so `-0 < +0`).
//! - **REPRO on words**: a contribution placed into the accumulator's 32-bit digits (its
//!   significand shifted by its biased exponent minus one, negated in two's complement), two
//!   partials added word by word without carries (the switches' U64 SUM), and the rounding
//!   by the member that uses the result (the digits' carries resolved, the leading one found,
//!   the `p` bits below it kept, everything under them a sticky bit) — on the wire format of
//!   [`super::repro`], checked against its big-integer golden reference.

use super::fp::FpType;
use super::repro::{digits, ReproResult, COUNT_WORDS, DIGIT_BITS, MAX_CONTRIBUTIONS};

/// A finite element: `sig · 2^e`, and its sign.
#[derive(Clone, Copy, Debug)]
struct Finite {
    negative: bool,
    sig: u128,
    e: i32,
}

/// The exponent field's all-ones value (infinities and NaNs).
fn exponent_max(t: FpType) -> u64 {
    t.inf() >> t.fraction_bits()
}

/// What an element is.
enum Class {
    Nan,
    Inf(bool),
    Finite(Finite),
}

fn unpack(t: FpType, x: u64) -> Class {
    let f = t.fraction_bits();
    let negative = (x >> (t.bits() - 1)) & 1 == 1;
    let field = (x >> f) & exponent_max(t);
    let fraction = x & ((1 << f) - 1);
    if field == exponent_max(t) {
        return if fraction == 0 {
            Class::Inf(negative)
        } else {
            Class::Nan
        };
    }
    let (sig, biased) = if field == 0 {
        (fraction, 1)
    } else {
        (fraction | 1 << f, field as i32)
    };
    Class::Finite(Finite {
        negative,
        sig: sig as u128,
        e: biased - t.bias() - f as i32,
    })
}

/// Bits of `x` (0 for 0).
fn width(x: u128) -> i32 {
    128 - x.leading_zeros() as i32
}

/// `sig · 2^e` (with any sticky information already ORed into `sig`'s lowest bits below the
/// rounding position) rounded to nearest even and packed with `negative`'s sign.
fn round_pack(t: FpType, negative: bool, sig: u128, e: i32) -> u64 {
    let sign = (negative as u64) << (t.bits() - 1);
    if sig == 0 {
        return sign;
    }
    let f = t.fraction_bits() as i32;
    let p = f + 1;
    // Shift so that the significand has p bits: its exponent is then e + shift and the
    // biased exponent e + shift + bias + f.
    let mut shift = width(sig) - p;
    let mut biased = e + shift + t.bias() + f;
    if biased < 1 {
        // Subnormal: the exponent stays at the smallest normal's, the significand shrinks.
        shift += 1 - biased;
        biased = 0;
    }
    if biased >= exponent_max(t) as i32 {
        return sign | t.inf();
    }
    let q = if shift <= 0 {
        sig << -shift
    } else if shift >= 128 {
        0 // far below the smallest subnormal's half: rounds to zero
    } else {
        let q = sig >> shift;
        let rem = sig & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    let packed = if biased >= 1 {
        ((biased as u64 - 1) << f) + q as u64
    } else {
        q as u64
    };
    if packed >> f >= exponent_max(t) {
        return sign | t.inf();
    }
    sign | packed
}

/// `a + b` on elements of `t` (the rules of [`super::fp`], canonical NaN).
pub fn add(t: FpType, a: u64, b: u64) -> u64 {
    let (x, y) = match (unpack(t, a), unpack(t, b)) {
        (Class::Nan, _) | (_, Class::Nan) => return t.canonical_nan(),
        (Class::Inf(p), Class::Inf(q)) if p != q => return t.canonical_nan(),
        (Class::Inf(p), _) | (_, Class::Inf(p)) => {
            return if p { t.sign_bit() } else { 0 } | t.inf()
        }
        (Class::Finite(x), Class::Finite(y)) => (x, y),
    };
    if x.sig == 0 && y.sig == 0 {
        return ((x.negative & y.negative) as u64) << (t.bits() - 1);
    }
    // Larger magnitude first: compare (exponent of the top bit, significand) as numbers.
    let magnitude = |v: &Finite| (v.e + width(v.sig), v.sig << (64 - width(v.sig).min(64)));
    let (big, small) = if magnitude(&x) >= magnitude(&y) {
        (x, y)
    } else {
        (y, x)
    };
    if small.sig == 0 {
        return round_pack(t, big.negative, big.sig, big.e);
    }
    const GUARD: i32 = 3;
    let big_sig = big.sig << GUARD;
    let e = big.e - GUARD;
    // Align the smaller one at `e`: its lowest bit is at most GUARD above `e` (a smaller
    // magnitude has no higher lowest bit), or below it, shifted out into the sticky bit.
    let small_sig = if small.e >= e {
        small.sig << (small.e - e)
    } else {
        let s = (e - small.e) as u32;
        if s >= 128 {
            1
        } else {
            let kept = small.sig >> s;
            let lost = small.sig & ((1u128 << s) - 1);
            kept | (lost != 0) as u128
        }
    };
    let sum = if big.negative == small.negative {
        big_sig + small_sig
    } else {
        big_sig - small_sig
    };
    if sum == 0 {
        return 0; // exact cancellation: +0 when rounding to nearest
    }
    round_pack(t, big.negative, sum, e)
}

/// `a × b` on elements of `t` (the rules of [`super::fp`], canonical NaN).
pub fn mul(t: FpType, a: u64, b: u64) -> u64 {
    let sign_of = |x: u64| (x >> (t.bits() - 1)) & 1 == 1;
    let negative = sign_of(a) != sign_of(b);
    let sign = (negative as u64) << (t.bits() - 1);
    let inf = t.inf();
    match (unpack(t, a), unpack(t, b)) {
        (Class::Nan, _) | (_, Class::Nan) => t.canonical_nan(),
        (Class::Inf(_), Class::Finite(v)) | (Class::Finite(v), Class::Inf(_)) if v.sig == 0 => {
            t.canonical_nan()
        }
        (Class::Inf(_), _) | (_, Class::Inf(_)) => sign | inf,
        (Class::Finite(x), Class::Finite(y)) => round_pack(t, negative, x.sig * y.sig, x.e + y.e),
    }
}

/// An element's compare key: unsigned, in the order of the numbers, `-0` just below `+0`
/// (a positive number with its sign bit set, a negative one with every bit inverted).
fn key(t: FpType, x: u64) -> u64 {
    let sign = t.sign_bit();
    if x & sign == 0 {
        x | sign
    } else {
        !x & t.mask()
    }
}

/// MIN, MAX, MINLOC or MAXLOC (`max`, `loc`) of `(a, ai)` and `(b, bi)` on elements of `t` as
/// the datapath decides it: the NaN tests and one unsigned compare of the keys choose the
/// operand; a tie of equal bits takes the lower index; two NaNs the canonical NaN.
pub fn select(t: FpType, max: bool, a: u64, ai: u64, b: u64, bi: u64) -> (u64, u64) {
    let (a, b) = (a & t.mask(), b & t.mask());
    let (a_nan, b_nan) = (t.is_nan(a), t.is_nan(b));
    let (ka, kb) = (key(t, a), key(t, b));
    let a_better = if max { ka > kb } else { ka < kb };
    let b_better = if max { kb > ka } else { kb < ka };
    // A number beats a NaN; between numbers the compare decides.
    let take_a = !a_nan && (b_nan || a_better);
    let take_b = !b_nan && (a_nan || b_better);
    if take_a {
        (a, ai)
    } else if take_b {
        (b, bi)
    } else if a_nan {
        (t.canonical_nan(), ai.min(bi))
    } else {
        (a, ai.min(bi))
    }
}

/// The wire words of the REPRO partial of one contribution, the element in the low bits of `x`.
pub fn repro_contribution(t: FpType, x: u64) -> Vec<u64> {
    let d = digits(t);
    let mut words = vec![0u64; d + COUNT_WORDS];
    let x = x & t.mask();
    let negative = x >> (t.bits() - 1) == 1;
    // count, NaN, +inf, -inf, -0
    words[d] = 1;
    words[d + 4] = (x == t.sign_bit()) as u64;
    match unpack(t, x) {
        Class::Nan => words[d + 1] = 1,
        Class::Inf(neg) => words[d + 2 + neg as usize] = 1,
        Class::Finite(v) => {
            // In units of the smallest subnormal the value is sig · 2^(e - e_min); a
            // significand (at most 53 bits) spans at most three digits.
            let e_min = 1 - t.bias() - t.fraction_bits() as i32;
            let shift = (v.e - e_min) as u32;
            let (digit, bit) = ((shift / DIGIT_BITS) as usize, shift % DIGIT_BITS);
            let placed = v.sig << bit;
            for k in 0..3 {
                if digit + k < d {
                    words[digit + k] = (placed >> (DIGIT_BITS as usize * k)) as u64 & DIGIT_MASK;
                }
            }
            if negative {
                negate_digits(&mut words[..d]);
            }
        }
    }
    words
}

/// The low 32 bits of a word: one digit.
const DIGIT_MASK: u64 = (1 << DIGIT_BITS) - 1;

/// Two's complement negation of little-endian 32-bit digits (each in the low half of a word).
fn negate_digits(words: &mut [u64]) {
    let mut carry = 1;
    for w in words.iter_mut() {
        let sum = (!*w & DIGIT_MASK) + carry;
        *w = sum & DIGIT_MASK;
        carry = sum >> DIGIT_BITS;
    }
}

/// Two REPRO partials' wire words combined: every word added as an unsigned 64-bit integer,
/// wrapping — exactly what a switch's element-wise SUM over U64 does to them.
pub fn repro_combine(a: &[u64], b: &[u64]) -> Vec<u64> {
    a.iter().zip(b).map(|(x, y)| x.wrapping_add(*y)).collect()
}

/// The rounding of a REPRO partial's wire words by the member that uses it (the rules of
/// [`super::repro`]): the digits' carries resolved into a two's complement number, then the
/// `p` bits below its leading one kept and rounded.
pub fn repro_round(t: FpType, words: &[u64]) -> ReproResult {
    let d = digits(t);
    let counts = &words[d..];
    let (count, nan, pos_inf, neg_inf, neg_zero) =
        (counts[0], counts[1], counts[2], counts[3], counts[4]);
    let too_many = count > MAX_CONTRIBUTIONS;
    let sign_bit = t.sign_bit();
    let f = t.fraction_bits();
    let inf = t.inf();
    let done = |bits, overflow| ReproResult {
        bits,
        overflow,
        too_many,
    };
    if nan > 0 || (pos_inf > 0 && neg_inf > 0) {
        return done(t.canonical_nan(), false);
    }
    if pos_inf > 0 || neg_inf > 0 {
        return done(inf | if neg_inf > 0 { sign_bit } else { 0 }, false);
    }
    // Resolve the carries: digit i of the sum, the rest carried into digit i + 1 (the carry
    // out of the top digit is the modulus, dropped). Then 64-bit limbs, sign-extended.
    let mut carry = 0u64;
    let mut reduced = Vec::with_capacity(d + 1);
    for &w in &words[..d] {
        let sum = u128::from(w) + u128::from(carry);
        reduced.push(sum as u64 & DIGIT_MASK);
        carry = (sum >> DIGIT_BITS) as u64;
    }
    let negative = reduced[d - 1] >> (DIGIT_BITS - 1) == 1;
    if d % 2 == 1 {
        reduced.push(if negative { DIGIT_MASK } else { 0 });
    }
    let mut m: Vec<u64> = reduced
        .chunks(2)
        .map(|pair| pair[0] | pair[1] << DIGIT_BITS)
        .collect();
    if negative {
        negate(&mut m);
    }
    let n = m.len();
    let Some(top) = (0..n).rev().find(|&k| m[k] != 0) else {
        return done(if neg_zero == count { sign_bit } else { 0 }, false);
    };
    // Bits of the magnitude, and the p bits below its leading one with a round bit and a
    // sticky bit: `sig · 2^(lowest kept bit)` in units of the smallest subnormal.
    let width = top * 64 + 64 - m[top].leading_zeros() as usize;
    let p = f as usize + 1;
    let bit = |i: usize| (m[i / 64] >> (i % 64)) & 1;
    if width <= p + 1 {
        let low = m[0] as u128 | (m.get(1).copied().unwrap_or(0) as u128) << 64;
        let bits = round_pack(t, negative, low, 1 - t.bias() - f as i32);
        return done(bits, bits & !sign_bit == inf);
    }
    let lowest = width - p - 1;
    let kept = (lowest..width).fold(0u128, |acc, i| acc | (bit(i) as u128) << (i - lowest));
    let below = (0..lowest).any(|i| bit(i) == 1);
    let e = lowest as i32 + 1 - t.bias() - f as i32;
    // The sticky bit below the round bit: shift once more and OR it in.
    let sig = kept << 1 | below as u128;
    let bits = round_pack(t, negative, sig, e - 1);
    done(bits, bits & !sign_bit == inf)
}

/// Two's complement negation of a little-endian word vector.
fn negate(words: &mut [u64]) {
    let mut carry = true;
    for w in words.iter_mut() {
        let (sum, c) = (!*w).overflowing_add(carry as u64);
        *w = sum;
        carry = c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce_alu::fp::fp_golden;
    use crate::reduce_alu::fp_reference::{exponent_near, rng};
    use crate::reduce_alu::AluOp;
    use FpType::*;

    /// Seeded random pairs of every type, from all bit patterns (NaNs, infinities, zeros and
    /// subnormals included), a quarter with exponents near each other and a quarter equal or
    /// of opposite signs: the integer datapath equals the golden reference bit for bit for
    /// SUM, PROD, MIN, MAX, MINLOC and MAXLOC.
    #[test]
    fn integer_datapath_equals_the_golden() {
        const SEED: u64 = 0xb175_0ff9;
        let mut next = rng(SEED);
        for (t, pairs) in [
            (F16, 1_000_000),
            (Bf16, 1_000_000),
            (F32, 500_000),
            (F64, 500_000),
        ] {
            let f = t.fraction_bits();
            let exp_mask = t.inf();
            for n in 0..pairs {
                let a = next() & t.mask();
                let mut b = next() & t.mask();
                match n % 4 {
                    3 => b = a ^ ((next() & 1) * t.sign_bit()), // equal, or of the other sign
                    0 => b = exponent_near(t, a, b, next()),
                    1 => b &= !exp_mask | (next() & (3 << f)), // small or subnormal
                    _ => {}
                }
                let ctx = |op: &str| format!("seed {SEED:#x}, pair {n}: {op} {t:?} {a:#x} {b:#x}");
                let sum = fp_golden(AluOp::Sum, t, a, 0, b, 0).map(|r| r.0);
                assert_eq!(Some(add(t, a, b)), sum, "{}", ctx("SUM"));
                let prod = fp_golden(AluOp::Prod, t, a, 0, b, 0).map(|r| r.0);
                assert_eq!(Some(mul(t, a, b)), prod, "{}", ctx("PROD"));
                // Indices: equal half the time, so that ties are decided by them.
                let (ai, bi) = (next() % 4, next() % 4);
                for (op, max) in [(AluOp::MaxLoc, true), (AluOp::MinLoc, false)] {
                    let want = fp_golden(op, t, a, ai, b, bi);
                    assert_eq!(Some(select(t, max, a, ai, b, bi)), want, "{}", ctx("LOC"));
                }
                for (op, max) in [(AluOp::Max, true), (AluOp::Min, false)] {
                    let want = fp_golden(op, t, a, 0, b, 0).map(|r| r.0);
                    assert_eq!(
                        Some(select(t, max, a, 0, b, 0).0),
                        want,
                        "{}",
                        ctx("MIN/MAX")
                    );
                }
            }
        }
    }

    /// REPRO on words equals the big-integer golden: every contribution's words, random trees'
    /// combined words, and the rounding, on seeded random vectors of every type.
    #[test]
    fn repro_on_words_equals_the_golden() {
        use crate::reduce_alu::repro::{repro_finish, ReproPartial};
        const SEED: u64 = 0x0e9a_b175;
        let mut next = rng(SEED);
        for case in 0..2000 {
            let t = FpType::ALL[case % 4];
            let len = 1 + (next() % 64) as usize;
            let f = t.fraction_bits();
            let exp_mask = t.inf();
            let window = next() & exp_mask;
            let xs: Vec<u64> = (0..len)
                .map(|_| {
                    let x = next() & t.mask();
                    match case % 8 {
                        // Exponents in a narrow window (cancellation, ties), finite.
                        0..=3 => {
                            let e = window.wrapping_add((next() % 3) << f) & exp_mask;
                            let e = if e == exp_mask { 0 } else { e };
                            (x & !exp_mask) | e
                        }
                        // Anything, specials included.
                        _ => x,
                    }
                })
                .collect();
            let ctx = format!("seed {SEED:#x}, case {case}, {t:?}, {len} values");
            let mut golden = ReproPartial::empty();
            let mut words: Option<Vec<u64>> = None;
            for &x in &xs {
                let one = repro_contribution(t, x);
                assert_eq!(one, ReproPartial::of(t, x).to_words(t), "{ctx}: {x:#x}");
                golden = golden.combine(&ReproPartial::of(t, x));
                words = Some(match words {
                    None => one,
                    Some(w) => repro_combine(&w, &one),
                });
            }
            let words = words.expect("at least one value");
            assert_eq!(
                ReproPartial::from_words(t, &words),
                Ok(golden.clone()),
                "{ctx}: combined"
            );
            assert_eq!(
                repro_round(t, &words),
                repro_finish(t, &golden),
                "{ctx}: rounded"
            );
        }
    }

    /// The carry room's bound: 2^32 copies of one contribution (its words times 2^32, as the
    /// switches' sums would make them) wrap no word and still round to the exact sum.
    #[test]
    fn repro_words_hold_2_pow_32_contributions() {
        use crate::reduce_alu::repro::{repro_finish, ReproPartial};
        use num_bigint::BigInt;
        let n = MAX_CONTRIBUTIONS;
        for t in FpType::ALL {
            let max = t.inf() - 1;
            for x in [max, max | t.sign_bit(), 1 | t.sign_bit(), t.sign_bit(), 2] {
                let one = repro_contribution(t, x);
                let words: Vec<u64> = one
                    .iter()
                    .map(|w| w.checked_mul(n).expect("no word wraps"))
                    .collect();
                let p = ReproPartial::of(t, x);
                let all = ReproPartial {
                    acc: p.acc * BigInt::from(n),
                    count: n,
                    nan: 0,
                    pos_inf: 0,
                    neg_inf: 0,
                    neg_zero: p.neg_zero * n,
                };
                let ctx = format!("2^32 times {t:?} {x:#x}");
                assert_eq!(
                    ReproPartial::from_words(t, &words),
                    Ok(all.clone()),
                    "{ctx}"
                );
                let r = repro_round(t, &words);
                assert_eq!(r, repro_finish(t, &all), "{ctx}");
                assert!(!r.too_many, "{ctx}");
                // The largest finite value 2^32 times overflows to infinity, and says so.
                assert_eq!(r.overflow, x & !t.sign_bit() == max, "{ctx}");
                // One more contribution is beyond the bound, and says so.
                let more = repro_combine(&words, &one);
                assert!(repro_round(t, &more).too_many, "{ctx}");
            }
        }
    }

    #[test]
    fn edges_by_hand() {
        // Ties to even, overflow by rounding, the smallest normal from subnormals, cancellation.
        assert_eq!(add(F16, 0x3C00, 0x1000), 0x3C00);
        assert_eq!(add(F16, 0x3C01, 0x1000), 0x3C02);
        assert_eq!(add(F16, 0x7BFF, 0x4C00), 0x7C00);
        assert_eq!(add(F16, 0x03FF, 0x0001), 0x0400);
        assert_eq!(add(F32, 0x3F80_0000, 0xBF80_0000), 0);
        assert_eq!(add(F32, 0x8000_0000, 0x8000_0000), 0x8000_0000);
        assert_eq!(mul(F32, 3, 0x3F00_0000), 2);
        assert_eq!(mul(F16, 0x8000, 0x7C00), 0x7E00);
        assert_eq!(mul(F64, 1 << 63, 0x3FF0 << 48), 1 << 63);
    }
}
