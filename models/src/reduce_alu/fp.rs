//! # Floating-point elements: the rules (issue 11, first part)
//!
//! The element rules of the reduction ALU's floating-point operations, written as the golden
//! reference every later level (cycle model, RTL, Verilog) is checked against. The ALU does not
//! offer them yet: the `dtype` code has two bits, all four of them integer types; widening it
//! (and the packet header's field) is the next part of the issue.
//!
//! ## Types
//!
//! | type   | bits | exponent | fraction | canonical NaN | largest finite |
//! |--------|------|----------|----------|---------------|----------------|
//! | `F16`  | 16   | 5        | 10       | `0x7E00`      | `0x7BFF` (65504) |
//! | `BF16` | 16   | 8        | 7        | `0x7FC0`      | `0x7F7F`       |
//! | `F32`  | 32   | 8        | 23       | `0x7FC0_0000` | `0x7F7F_FFFF`  |
//! | `F64`  | 64   | 11       | 52       | `0x7FF8_0000_0000_0000` | `0x7FEF_FFFF_FFFF_FFFF` |
//!
//! An element is the low `bits` bits of a 64-bit word; the bits above it are ignored, and a
//! result is zero-extended (as for the 32-bit integer types).
//!
//! ## Rules
//!
//! 1. **SUM, PROD**: IEEE 754 addition and multiplication, rounded to nearest, ties to even;
//!    subnormal operands and results as IEEE (no flush to zero); overflow gives the infinity of
//!    the result's sign; signed zeros as IEEE (`-0 + -0 = -0`, `-0 + +0 = +0`, `-0 × 1 = -0`).
//! 2. **NaN results are canonical**: whenever the IEEE result is a NaN (a NaN operand,
//!    `inf - inf`, `0 × inf`) the ALU gives the type's canonical quiet NaN above: sign clear,
//!    quiet bit set, payload zero. (IEEE leaves the payload and sign open, and hardware differs;
//!    one NaN makes every level and every tree give the same bits.)
//! 3. **MIN, MAX**: as C's `fmin` / `fmax` and IEEE 754-2019's `minimumNumber` /
//!    `maximumNumber`: a NaN loses to any number (`fmin(NaN, x) = x`); two NaNs give the canonical
//!    NaN; `-0` counts as smaller than `+0`, so `MIN(-0, +0) = -0` and `MAX(-0, +0) = +0` in
//!    either order. The result is the winning operand's bits (a number is not changed).
//! 4. **MINLOC, MAXLOC** (MPI's pairs, as for the integers): the values rank as in rule 3 (a
//!    NaN value never beats a number; `-0 < +0`); the strictly better value wins with its index;
//!    equal values (the same bits) give that value with the lower index (unsigned 64-bit); two NaN
//!    values give the canonical NaN with the lower index.
//! 5. The logical and bitwise operations (LAND … BXOR) are not defined on floating-point types:
//!    [`fp_golden`] answers `None`, and the ALU will answer as for a reserved operation.
//!
//! ### Readings of the specification
//! - "NaN behaviour stated": rule 2. MIN / MAX "as the user would expect from C / MPI": C's
//!   `fmin` / `fmax` (rule 3), which MPI implementations use for `MPI_MIN` / `MPI_MAX` on floats.
//! - C leaves `fmin(-0, +0)` open; rule 3 orders the zeros so that the result does not depend on
//!   the operands' order, which a tree reduction needs.
//!
//! ## How the golden computes (and why it is exact)
//!
//! `F32` and `F64` are Rust's `f32` / `f64` operations, which are IEEE 754 round-to-nearest-even
//! with subnormals. `F16` and `BF16` (through the `half` crate's conversions) are computed in
//! `f32` and rounded once to the type: an `f32` has `p' = 24` significand bits, at least
//! `2p + 2` for `F16` (`p = 11`) and `BF16` (`p = 8`), so rounding the `f32` result again gives
//! the correctly rounded result (double rounding is innocuous for `+` and `×` when `p' >= 2p + 2`).
//! The tests check every type against an exact reference that rounds by searching the type's
//! bit patterns (`fp_reference`, test builds only).

use super::AluOp;
use half::{bf16, f16};
use std::cmp::Ordering;

/// A floating-point element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FpType {
    F16,
    Bf16,
    F32,
    F64,
}

impl FpType {
    /// Every type, narrowest first.
    pub const ALL: [FpType; 4] = [FpType::F16, FpType::Bf16, FpType::F32, FpType::F64];

    /// The position in [`FpType::ALL`] (the `dtype` code minus 4, the bit in `fp_types`).
    pub fn index(self) -> usize {
        self as usize
    }

    /// Width of an element.
    pub fn bits(self) -> u32 {
        match self {
            FpType::F16 | FpType::Bf16 => 16,
            FpType::F32 => 32,
            FpType::F64 => 64,
        }
    }

    /// Width of the exponent field.
    pub fn exponent_bits(self) -> u32 {
        match self {
            FpType::F16 => 5,
            FpType::Bf16 | FpType::F32 => 8,
            FpType::F64 => 11,
        }
    }

    /// Width of the fraction field (the significand without its hidden bit).
    pub fn fraction_bits(self) -> u32 {
        self.bits() - 1 - self.exponent_bits()
    }

    /// The element's bits in a word (the low `bits`).
    pub fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }

    /// The exponent bias.
    pub fn bias(self) -> i32 {
        (1 << (self.exponent_bits() - 1)) - 1
    }

    /// The sign bit.
    pub fn sign_bit(self) -> u64 {
        1 << (self.bits() - 1)
    }

    /// `+inf`: the exponent field all ones (also its mask), the fraction zero.
    pub fn inf(self) -> u64 {
        ((1u64 << self.exponent_bits()) - 1) << self.fraction_bits()
    }

    /// The canonical quiet NaN (rule 2).
    pub fn canonical_nan(self) -> u64 {
        self.inf() | 1 << (self.fraction_bits() - 1)
    }

    /// Whether the element in `x` is a NaN (all-ones exponent, non-zero fraction).
    pub fn is_nan(self, x: u64) -> bool {
        let x = x & self.mask();
        x & self.inf() == self.inf() && x & ((1u64 << self.fraction_bits()) - 1) != 0
    }

    /// The element in `x` as an `f64` (exact for every type).
    pub fn value(self, x: u64) -> f64 {
        match self {
            FpType::F16 => f16::from_bits(x as u16).to_f64(),
            FpType::Bf16 => bf16::from_bits(x as u16).to_f64(),
            FpType::F32 => f32::from_bits(x as u32) as f64,
            FpType::F64 => f64::from_bits(x),
        }
    }
}

/// `a op b` on elements of type `t`: (value, index), or `None` for an operation that is not
/// defined on floating-point types (rule 5). `ai`, `bi` are MINLOC / MAXLOC's indices.
pub fn fp_golden(op: AluOp, t: FpType, a: u64, ai: u64, b: u64, bi: u64) -> Option<(u64, u64)> {
    let (a, b) = (a & t.mask(), b & t.mask());
    Some(match op {
        AluOp::Sum => (arith(t, a, b, |x, y| x + y, |x, y| x + y), 0),
        AluOp::Prod => (arith(t, a, b, |x, y| x * y, |x, y| x * y), 0),
        AluOp::Min => (pick(t, rank(t, false, a, b), a, 0, b, 0).0, 0),
        AluOp::Max => (pick(t, rank(t, true, a, b), a, 0, b, 0).0, 0),
        AluOp::MinLoc => pick(t, rank(t, false, a, b), a, ai, b, bi),
        AluOp::MaxLoc => pick(t, rank(t, true, a, b), a, ai, b, bi),
        _ => return None,
    })
}

/// SUM or PROD (rules 1, 2): `f` in `f32` for the three narrower types, `g` in `f64`.
fn arith(t: FpType, a: u64, b: u64, f: fn(f32, f32) -> f32, g: fn(f64, f64) -> f64) -> u64 {
    let r = match t {
        FpType::F16 => {
            let x = f(
                f16::from_bits(a as u16).to_f32(),
                f16::from_bits(b as u16).to_f32(),
            );
            f16::from_f32(x).to_bits() as u64
        }
        FpType::Bf16 => {
            let x = f(
                bf16::from_bits(a as u16).to_f32(),
                bf16::from_bits(b as u16).to_f32(),
            );
            bf16::from_f32(x).to_bits() as u64
        }
        FpType::F32 => f(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits() as u64,
        FpType::F64 => g(f64::from_bits(a), f64::from_bits(b)).to_bits(),
    };
    if t.is_nan(r) {
        t.canonical_nan()
    } else {
        r
    }
}

/// How `x` ranks against `y` (rule 3): `Greater` if `x` is the better of the two for MAX
/// (`max`) or MIN. A NaN is worse than every number for both; two NaNs rank equal; numbers
/// compare as `f64` values, and equal values by sign, so that `-0 < +0`.
fn rank(t: FpType, max: bool, x: u64, y: u64) -> Ordering {
    let negative = |v: u64| v & t.sign_bit() != 0;
    match (t.is_nan(x), t.is_nan(y)) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => {
            let order = t
                .value(x)
                .partial_cmp(&t.value(y))
                .unwrap_or(Ordering::Equal)
                .then(negative(y).cmp(&negative(x)));
            if max {
                order
            } else {
                order.reverse()
            }
        }
    }
}

/// The winner of a MIN / MAX / MINLOC / MAXLOC (rules 3, 4) given how `a` ranks against `b`.
fn pick(t: FpType, a_vs_b: Ordering, a: u64, ai: u64, b: u64, bi: u64) -> (u64, u64) {
    match a_vs_b {
        Ordering::Greater => (a, ai),
        Ordering::Less => (b, bi),
        Ordering::Equal if t.is_nan(a) => (t.canonical_nan(), ai.min(bi)),
        Ordering::Equal => (a, ai.min(bi)),
    }
}

#[cfg(test)]
mod tests {
    //! Expected bits are written by hand from the rules and IEEE 754, never computed by the code
    //! under test; the random test compares with the naive exact reference.

    use super::*;
    use AluOp::*;
    use FpType::*;

    fn v(op: AluOp, t: FpType, a: u64, b: u64) -> u64 {
        fp_golden(op, t, a, 0, b, 0).expect("defined").0
    }

    #[test]
    fn type_table() {
        assert_eq!(
            FpType::ALL.map(|t| (t.canonical_nan(), t.fraction_bits())),
            [
                (0x7E00, 10),
                (0x7FC0, 7),
                (0x7FC0_0000, 23),
                (0x7FF8_0000_0000_0000, 52)
            ]
        );
        assert!(F16.is_nan(0x7C01) && F16.is_nan(0xFE00) && !F16.is_nan(0x7C00));
        assert!(!Bf16.is_nan(0xFF80) && Bf16.is_nan(0xFF81));
    }

    #[test]
    fn sums_round_to_nearest_even() {
        // 1 + 2 = 3.
        assert_eq!(v(Sum, F32, 0x3F80_0000, 0x4000_0000), 0x4040_0000);
        assert_eq!(v(Sum, F16, 0x3C00, 0x4000), 0x4200);
        assert_eq!(v(Sum, Bf16, 0x3F80, 0x4000), 0x4040);
        assert_eq!(v(Sum, F64, 0x3FF0 << 48, 0x4000 << 48), 0x4008 << 48);
        // 1 + half an ulp: a tie, to the even 1; (1 + ulp) + half an ulp: to the even 1 + 2 ulp.
        assert_eq!(v(Sum, F32, 0x3F80_0000, 0x3380_0000), 0x3F80_0000);
        assert_eq!(v(Sum, F32, 0x3F80_0001, 0x3380_0000), 0x3F80_0002);
        assert_eq!(v(Sum, F16, 0x3C00, 0x1000), 0x3C00);
        assert_eq!(v(Sum, F16, 0x3C01, 0x1000), 0x3C02);
        assert_eq!(v(Sum, Bf16, 0x3F80, 0x3B80), 0x3F80);
        assert_eq!(v(Sum, Bf16, 0x3F81, 0x3B80), 0x3F82);
        assert_eq!(v(Sum, F64, 0x3FF0 << 48, 0x3CA0 << 48), 0x3FF0 << 48);
        assert_eq!(
            v(Sum, F64, (0x3FF0 << 48) | 1, 0x3CA0 << 48),
            (0x3FF0 << 48) | 2
        );
        // Just above the tie rounds up.
        assert_eq!(v(Sum, F16, 0x3C00, 0x1001), 0x3C01);
    }

    #[test]
    fn overflow_zeros_and_subnormals() {
        // max + max = +inf; F16: 65504 + 16 is the tie between 65504 (odd) and 65536 → inf.
        assert_eq!(v(Sum, F32, 0x7F7F_FFFF, 0x7F7F_FFFF), 0x7F80_0000);
        assert_eq!(v(Sum, F16, 0x7BFF, 0x4C00), 0x7C00);
        assert_eq!(v(Sum, F16, 0x7BFF, 0x4BFF), 0x7BFF);
        assert_eq!(v(Sum, Bf16, 0xFF7F, 0xFF7F), 0xFF80);
        // Signed zeros.
        assert_eq!(v(Sum, F32, 0x8000_0000, 0x8000_0000), 0x8000_0000);
        assert_eq!(v(Sum, F32, 0x8000_0000, 0x0000_0000), 0x0000_0000);
        assert_eq!(v(Sum, F16, 0x3C00, 0xBC00), 0x0000);
        assert_eq!(v(Prod, F16, 0x8000, 0x3C00), 0x8000);
        assert_eq!(v(Prod, F64, 1 << 63, 1 << 63), 0);
        // Subnormals: the smallest plus itself; half of it is a tie with 0 (even); 1.5 of it a
        // tie between 1 and 2 (even: 2).
        assert_eq!(v(Sum, F32, 1, 1), 2);
        assert_eq!(v(Prod, F32, 1, 0x3F00_0000), 0);
        assert_eq!(v(Prod, F32, 3, 0x3F00_0000), 2);
        assert_eq!(v(Prod, F16, 1, 0x3800), 0);
        assert_eq!(v(Prod, F16, 3, 0x3800), 2);
        assert_eq!(v(Prod, Bf16, 3, 0x3F00), 2);
        assert_eq!(v(Prod, F64, 3, 0x3FE0 << 48), 2);
        // The largest subnormal plus the smallest is the smallest normal.
        assert_eq!(v(Sum, F16, 0x03FF, 0x0001), 0x0400);
    }

    #[test]
    fn nans_are_canonical() {
        // inf - inf, 0 × inf, a signalling NaN, a negative NaN with a payload.
        assert_eq!(v(Sum, F32, 0x7F80_0000, 0xFF80_0000), 0x7FC0_0000);
        assert_eq!(v(Prod, F16, 0x0000, 0x7C00), 0x7E00);
        assert_eq!(v(Sum, F32, 0x7F80_0001, 0x3F80_0000), 0x7FC0_0000);
        assert_eq!(v(Prod, Bf16, 0xFFC5, 0x3F80), 0x7FC0);
        assert_eq!(v(Sum, F64, 0xFFF0_0000_0000_0123, 0), 0x7FF8 << 48);
        assert_eq!(v(Min, F16, 0xFE01, 0x7C02), 0x7E00);
        assert_eq!(v(MaxLoc, F32, 0x7FC0_0001, 0xFFC0_0000), 0x7FC0_0000);
        assert_eq!(
            fp_golden(MinLoc, F32, 0xFF80_0001, 9, 0x7FC0_0000, 4),
            Some((0x7FC0_0000, 4))
        );
    }

    #[test]
    fn min_max_as_fmin_fmax() {
        // A NaN loses to a number, in either place; the number comes back unchanged.
        assert_eq!(v(Min, F32, 0x7FC0_0000, 0x3F80_0000), 0x3F80_0000);
        assert_eq!(v(Min, F32, 0x3F80_0000, 0x7FC0_0000), 0x3F80_0000);
        assert_eq!(v(Max, F16, 0xFC00, 0x7E00), 0xFC00);
        // -0 below +0, whichever order.
        assert_eq!(v(Min, F32, 0x0000_0000, 0x8000_0000), 0x8000_0000);
        assert_eq!(v(Min, F32, 0x8000_0000, 0x0000_0000), 0x8000_0000);
        assert_eq!(v(Max, F32, 0x8000_0000, 0x0000_0000), 0x0000_0000);
        assert_eq!(v(Max, Bf16, 0x0000, 0x8000), 0x0000);
        // Negative numbers order by magnitude reversed; infinities at the ends.
        assert_eq!(v(Max, F64, 0xC000 << 48, 0xBFF0 << 48), 0xBFF0 << 48);
        assert_eq!(v(Min, F16, 0xFC00, 0xFBFF), 0xFC00);
        assert_eq!(v(Max, F16, 0x7C00, 0x7BFF), 0x7C00);
        assert_eq!(v(Min, F16, 0x0001, 0x8001), 0x8001);
    }

    #[test]
    fn loc_pairs() {
        // Equal values: the lower index; the better value wins with its own index.
        assert_eq!(
            fp_golden(MaxLoc, F32, 0x3F80_0000, 7, 0x3F80_0000, 3),
            Some((0x3F80_0000, 3))
        );
        assert_eq!(
            fp_golden(MaxLoc, F16, 0x7E00, 1, 0xBC00, 9),
            Some((0xBC00, 9))
        );
        assert_eq!(
            fp_golden(MaxLoc, F16, 0x8000, 5, 0x0000, 2),
            Some((0x0000, 2))
        );
        assert_eq!(
            fp_golden(MinLoc, F16, 0x8000, 5, 0x0000, 2),
            Some((0x8000, 5))
        );
        assert_eq!(
            fp_golden(MinLoc, F64, 0x4000 << 48, 1, 0x3FF0 << 48, 8),
            Some((0x3FF0 << 48, 8))
        );
    }

    #[test]
    fn upper_bits_ignored_and_logic_ops_undefined() {
        assert_eq!(v(Sum, F16, 0xDEAD_BEEF_0000_3C00, 0xFFFF_0000_4000), 0x4200);
        assert_eq!(v(Max, F32, 0x1234_5678_3F80_0000, 0x4000_0000), 0x4000_0000);
        for op in [LAnd, LOr, LXor, BAnd, BOr, BXor] {
            for t in FpType::ALL {
                assert_eq!(fp_golden(op, t, 1, 0, 2, 0), None, "{op:?} {t:?}");
            }
        }
    }

    /// Seeded random pairs of finite elements of every type, half of them with exponents
    /// near each other so that sums round and cancel: SUM and PROD equal the exact result
    /// rounded once by [`super::super::fp_reference`] (zeros signed as IEEE says).
    #[test]
    fn results_are_the_exact_result_rounded_once() {
        use crate::reduce_alu::fp_reference::{exponent_near, rng, round_exact, units};
        const SEED: u64 = 0x00f1_0a75;
        let mut next = rng(SEED);
        for (t, pairs) in [
            (F16, 200_000),
            (Bf16, 200_000),
            (F32, 50_000),
            (F64, 20_000),
        ] {
            let e = -(crate::reduce_alu::repro::scale(t) as i64);
            let sign = t.sign_bit();
            let exp_mask = t.inf();
            for n in 0..pairs {
                let a = next() & t.mask();
                let mut b = next() & t.mask();
                if n % 2 == 0 {
                    b = exponent_near(t, a, b, next());
                }
                if [a, b].iter().any(|&x| x & exp_mask == exp_mask) {
                    continue; // infinities and NaNs: the hand-written tests above
                }
                let zero_sign = |sum: bool| match sum {
                    true if a == sign && b == sign => sign,
                    true => 0,
                    false => (a ^ b) & sign,
                };
                for op in [Sum, Prod] {
                    let (exact, unit) = match op {
                        Sum => (units(t, a, e) + units(t, b, e), e),
                        _ => (units(t, a, e) * units(t, b, e), 2 * e),
                    };
                    let mut want = round_exact(t, &exact, unit);
                    if want & !sign == 0 {
                        want = if exact == 0.into() {
                            zero_sign(op == Sum)
                        } else {
                            want
                        };
                    }
                    assert_eq!(
                        v(op, t, a, b),
                        want,
                        "seed {SEED:#x}, pair {n}: {op:?} {t:?} {a:#x} {b:#x}"
                    );
                }
            }
        }
    }
}
