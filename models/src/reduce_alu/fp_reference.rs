//! A naive exact reference for the floating-point tests (test builds only): an element's exact
//! value as an integer multiple of `2^e`, taken from its `f64` bits (every element of the four
//! types is exact in `f64`), and an exact value rounded to the nearest element, ties to even,
//! by a binary search over the type's bit patterns (positive patterns are ordered as their
//! values). It shares no code with the shift-and-round of [`super::repro`] or the `f32` route of
//! [`super::fp`], so agreeing with it means something.

use super::fp::FpType;
use num_bigint::BigInt;
use num_traits::{Signed, Zero};

/// The element in `x` as an `f64` (exact).
pub fn to_f64(t: FpType, x: u64) -> f64 {
    match t {
        FpType::F16 => half::f16::from_bits(x as u16).to_f64(),
        FpType::Bf16 => half::bf16::from_bits(x as u16).to_f64(),
        FpType::F32 => f32::from_bits(x as u32) as f64,
        FpType::F64 => f64::from_bits(x),
    }
}

/// The exact value of the finite element `x` in units of `2^e`, from its `f64` bits.
pub fn units(t: FpType, x: u64, e: i64) -> BigInt {
    let v = to_f64(t, x & t.mask());
    let b = v.to_bits();
    let biased = ((b >> 52) & 0x7FF) as i64;
    let fraction = b & ((1 << 52) - 1);
    let (mut m, mut q) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | 1 << 52, biased - 1075)
    };
    if m != 0 {
        // The odd significand, so that the exponent is the value's lowest bit.
        q += i64::from(m.trailing_zeros());
        m >>= m.trailing_zeros();
    }
    assert!(m == 0 || q >= e, "{x:#x} is not a multiple of 2^{e}");
    let magnitude = BigInt::from(m) << (q - e) as usize;
    if b >> 63 == 1 {
        -magnitude
    } else {
        magnitude
    }
}

/// The value of the positive pattern `p`, `+inf` counting as the next power of two above the
/// largest finite value (where IEEE rounding puts the overflow threshold's neighbour).
fn pattern_units(t: FpType, p: u64, e: i64) -> BigInt {
    if p == t.inf() {
        let top = t.inf() - (1 << t.fraction_bits());
        // The largest binade's lowest value, times two.
        units(t, top, e) << 1usize
    } else {
        units(t, p, e)
    }
}

/// `n · 2^e` rounded to the nearest element of `t`, ties to even (`+0` for zero).
pub fn round_exact(t: FpType, n: &BigInt, e: i64) -> u64 {
    if n.is_zero() {
        return 0;
    }
    let sign = if n.is_negative() { t.sign_bit() } else { 0 };
    let a = n.abs();
    if pattern_units(t, t.inf(), e) <= a {
        return sign | t.inf();
    }
    // The largest pattern in [0, inf) whose value is at most `a`.
    let (mut lo, mut hi) = (0u64, t.inf());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if pattern_units(t, mid, e) <= a {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let below = pattern_units(t, lo, e);
    if below == a {
        return sign | lo;
    }
    let above = pattern_units(t, lo + 1, e);
    let (d_lo, d_hi) = (&a - &below, &above - &a);
    let p = match d_lo.cmp(&d_hi) {
        std::cmp::Ordering::Less => lo,
        std::cmp::Ordering::Greater => lo + 1,
        std::cmp::Ordering::Equal if lo % 2 == 0 => lo,
        std::cmp::Ordering::Equal => lo + 1,
    };
    sign | p
}

/// A seeded xorshift64 stream for the random tests (their failures print the seed).
pub fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// `b` with its exponent field replaced by one within two steps of `a`'s (chosen by `r`), so
/// that sums of the pair round and cancel.
pub fn exponent_near(t: FpType, a: u64, b: u64, r: u64) -> u64 {
    let f = t.fraction_bits();
    let field = t.inf();
    let near = (a & field).wrapping_add((r % 5) << f).wrapping_sub(2 << f);
    (b & !field) | (near & field)
}
