//! # REPRO: a reproducible floating-point sum
//!
//! A floating-point SUM depends on the order of its additions, so a tree reduction gives
//! different bits for different trees, arrival orders or after a rebuild. REPRO sums exactly
//! instead and rounds once at the end: its result is the exact sum of every contribution,
//! rounded to nearest, ties to even — the same bits for any tree, any order, any grouping,
//! for every [`FpType`], `F64` included (its accumulator is 2,144 bits).
//!
//! ## The partial sum
//!
//! A [`ReproPartial`] is what a switch keeps and sends up the tree instead of a value:
//! - `acc`: the exact sum of the finite contributions as a fixed-point integer in units of the
//!   type's smallest subnormal, `2^-L` with `L` = 24 (`F16`), 133 (`BF16`), 149 (`F32`), 1074
//!   (`F64`), bounded by a two's complement width of [`acc_bits`] = 96 (`F16`), 320 (`BF16`,
//!   `F32`) or 2,144 bits (`F64`): 2^32 contributions of the largest finite value and a sign
//!   fit, rounded up to whole 32-bit digits;
//! - five counts: contributions (`count`), NaNs, `+inf`s, `-inf`s and `-0`s among them (so
//!   that an exact zero keeps IEEE's sign: it is `-0` when every contribution was `-0`).
//!
//! Two partials combine by adding all six. One contribution `x` is the partial of count 1 with
//! `acc = x · 2^L` (exact: every finite value of the type is a multiple of `2^-L`) and the
//! count of its class.
//!
//! ## The wire format: carry-free digits, so a switch combines with U64 SUM
//!
//! On the wire ([`ReproPartial::to_words`]) a partial is [`digits`]`(t)` words, then the five
//! counts, one word each: [`ReproPartial::wire_words`] = 8 words per element for `F16`, 15 for
//! `BF16` and `F32`, 72 for `F64`. Digit word `i` holds a 32-bit digit of `acc` modulo
//! `2^acc_bits` (a negative `acc` in two's complement), least significant first, in its low
//! 32 bits; its upper 32 bits are **carry room**. Two partials combine by adding their words
//! one by one as unsigned 64-bit integers — the switches' element-wise SUM over U64, with no
//! carry between words — and the represented value stays
//! `acc = Σ word_i · 2^(32 i)` (modulo `2^acc_bits`, read as two's complement). A digit word
//! of `n` contributions is below `n · 2^32`, so up to [`MAX_CONTRIBUTIONS`] = 2^32 of them no
//! word wraps and the sum is exact; a count word wraps only after 2^64.
//!
//! Why this format: the switches need no REPRO hardware at all (the integer SUM they have does
//! it at one beat per cycle, whatever the type), the combine is associative and commutative
//! bit for bit (integer addition), and only the member that uses the result resolves the
//! carries and rounds ([`super::fp_bits::repro_round`]). The cost is bandwidth: 8, 15 or 72
//! words per element instead of one (a packet of 128 words carries 16 `F16`, 8 `F32` or one
//! `F64` element).
//!
//! ## The result ([`repro_finish`])
//!
//! 1. A NaN contribution, or both infinities, give the canonical NaN; one infinity gives it.
//! 2. Otherwise the exact sum `acc · 2^-L` rounded to nearest, ties to even; a magnitude that
//!    rounds above the largest finite value gives the infinity of its sign and raises
//!    `overflow` (IEEE's overflow: the value is still what IEEE rounding says).
//! 3. An exact zero is `-0` if every contribution was `-0`, else `+0` (as IEEE's `x + -x = +0`
//!    and `-0 + -0 = -0`).
//! 4. More than [`MAX_CONTRIBUTIONS`] contributions raise `too_many`: the words may have
//!    wrapped, so the value is not promised.
//!
//! **Changed in issue 11 (switch part):** the first wire format was `acc` in whole 64-bit words
//! with carries between them and one word of a saturating count and four flags (3, 6, 6, 35
//! words); a switch would have needed a multi-word adder. Nothing had used it yet.

use super::fp::FpType;
use num_bigint::{BigInt, BigUint};
use num_traits::{One, Signed, Zero};
use thiserror::Error;

/// Why words are not a REPRO partial of the type.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ReproFormatError {
    #[error("a REPRO partial of {t:?} is {want} words, got {got}")]
    Length { t: FpType, want: usize, got: usize },
    #[error("REPRO partial's {field} count {value} exceeds its contribution count {count}")]
    Count {
        field: &'static str,
        value: u64,
        count: u64,
    },
}

/// The most contributions a REPRO sum promises to be exact for.
pub const MAX_CONTRIBUTIONS: u64 = 1 << 32;

/// `L`: the exponent of the type's smallest subnormal is `-L` (1074 for `F64`).
pub fn scale(t: FpType) -> u32 {
    (t.bias() - 1) as u32 + t.fraction_bits()
}

/// Bits of one digit on the wire; the rest of its word is carry room.
pub const DIGIT_BITS: u32 = 32;

/// Width of the two's complement accumulator: `2^32 · max_finite · 2^L` and a sign fit,
/// rounded up to whole digits.
pub fn acc_bits(t: FpType) -> u32 {
    let needed = 32 + (t.bias() as u32 + 1) + scale(t) + 1;
    needed.div_ceil(DIGIT_BITS) * DIGIT_BITS
}

/// Digit words of a partial on the wire.
pub fn digits(t: FpType) -> usize {
    (acc_bits(t) / DIGIT_BITS) as usize
}

/// Count words after the digits: contributions, NaNs, `+inf`s, `-inf`s, `-0`s.
pub const COUNT_WORDS: usize = 5;

/// A REPRO partial sum (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReproPartial {
    pub acc: BigInt,
    /// Contributions (wrapping at 2^64, as on the wire).
    pub count: u64,
    /// NaN contributions.
    pub nan: u64,
    /// `+inf` contributions.
    pub pos_inf: u64,
    /// `-inf` contributions.
    pub neg_inf: u64,
    /// `-0` contributions.
    pub neg_zero: u64,
}

impl ReproPartial {
    /// The partial of no contribution (the identity of [`ReproPartial::combine`]).
    pub fn empty() -> Self {
        ReproPartial {
            acc: BigInt::zero(),
            count: 0,
            nan: 0,
            pos_inf: 0,
            neg_inf: 0,
            neg_zero: 0,
        }
    }

    /// The partial of one contribution: the element in the low bits of `x`.
    pub fn of(t: FpType, x: u64) -> Self {
        let x = x & t.mask();
        let sign = x >> (t.bits() - 1) == 1;
        let exponent = (x >> t.fraction_bits()) & ((1 << t.exponent_bits()) - 1);
        let fraction = x & ((1 << t.fraction_bits()) - 1);
        let mut p = ReproPartial {
            count: 1,
            neg_zero: (x == t.sign_bit()) as u64,
            ..Self::empty()
        };
        if exponent == (1 << t.exponent_bits()) - 1 {
            p.nan = (fraction != 0) as u64;
            p.pos_inf = (fraction == 0 && !sign) as u64;
            p.neg_inf = (fraction == 0 && sign) as u64;
            return p;
        }
        // value = significand · 2^(max(exponent, 1) - 1) in units of 2^-L.
        let significand = if exponent == 0 {
            fraction
        } else {
            fraction | 1 << t.fraction_bits()
        };
        let magnitude = BigInt::from(significand) << (exponent.max(1) - 1);
        p.acc = if sign { -magnitude } else { magnitude };
        p
    }

    /// The partial of both (see the module docs).
    pub fn combine(&self, other: &Self) -> Self {
        ReproPartial {
            acc: &self.acc + &other.acc,
            count: self.count.wrapping_add(other.count),
            nan: self.nan.wrapping_add(other.nan),
            pos_inf: self.pos_inf.wrapping_add(other.pos_inf),
            neg_inf: self.neg_inf.wrapping_add(other.neg_inf),
            neg_zero: self.neg_zero.wrapping_add(other.neg_zero),
        }
    }

    /// Every contribution was `-0` (vacuously true of no contribution).
    pub fn all_neg_zero(&self) -> bool {
        self.neg_zero == self.count
    }
}

impl ReproPartial {
    /// Words on the wire for type `t`: the digits and the five counts.
    pub fn wire_words(t: FpType) -> usize {
        digits(t) + COUNT_WORDS
    }

    /// The partial on the wire with every digit reduced to 32 bits (see the module docs);
    /// `acc` is taken modulo `2^acc_bits`.
    pub fn to_words(&self, t: FpType) -> Vec<u64> {
        let modulus = BigInt::one() << acc_bits(t);
        let mut acc = &self.acc % &modulus;
        if acc.is_negative() {
            acc += &modulus;
        }
        let mut words: Vec<u64> = acc.magnitude().iter_u32_digits().map(u64::from).collect();
        words.resize(digits(t), 0);
        words.extend([
            self.count,
            self.nan,
            self.pos_inf,
            self.neg_inf,
            self.neg_zero,
        ]);
        words
    }

    /// The partial the words carry, whether their digits are reduced or sums with carries in
    /// their upper halves (the inverse of [`ReproPartial::to_words`] up to that choice).
    pub fn from_words(t: FpType, words: &[u64]) -> Result<Self, ReproFormatError> {
        let want = Self::wire_words(t);
        if words.len() != want {
            return Err(ReproFormatError::Length {
                t,
                want,
                got: words.len(),
            });
        }
        let (digit_words, counts) = words.split_at(digits(t));
        let modulus = BigInt::one() << acc_bits(t);
        let mut acc = digit_words
            .iter()
            .rev()
            .fold(BigInt::zero(), |a, &w| (a << DIGIT_BITS) + w)
            % &modulus;
        if acc >= &modulus >> 1 {
            acc -= &modulus;
        }
        let count = counts[0];
        let fields = ["NaN", "+inf", "-inf", "-0"];
        for (field, &value) in fields.iter().zip(&counts[1..]) {
            if value > count {
                return Err(ReproFormatError::Count {
                    field,
                    value,
                    count,
                });
            }
        }
        Ok(ReproPartial {
            acc,
            count,
            nan: counts[1],
            pos_inf: counts[2],
            neg_inf: counts[3],
            neg_zero: counts[4],
        })
    }
}

/// A finished REPRO sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReproResult {
    /// The element's bits.
    pub bits: u64,
    /// The exact sum's magnitude rounded above the largest finite value (rule 2).
    pub overflow: bool,
    /// More than [`MAX_CONTRIBUTIONS`] contributions (rule 4).
    pub too_many: bool,
}

/// The correctly rounded exact sum of `p` as an element of `t` (rules 1 to 4).
pub fn repro_finish(t: FpType, p: &ReproPartial) -> ReproResult {
    let too_many = p.count > MAX_CONTRIBUTIONS;
    let done = |bits| ReproResult {
        bits,
        overflow: false,
        too_many,
    };
    let sign_bit = t.sign_bit();
    let inf = t.inf();
    if p.nan > 0 || (p.pos_inf > 0 && p.neg_inf > 0) {
        return done(t.canonical_nan());
    }
    if p.pos_inf > 0 || p.neg_inf > 0 {
        return done(inf | if p.neg_inf > 0 { sign_bit } else { 0 });
    }
    if p.acc.is_zero() {
        return done(if p.all_neg_zero() { sign_bit } else { 0 });
    }
    let sign = if p.acc.is_negative() { sign_bit } else { 0 };
    let m: BigUint = p.acc.abs().to_biguint().unwrap_or_default();
    let f = t.fraction_bits() as u64;
    let precision = f + 1;
    // In units of 2^-L a subnormal is its fraction: below 2^f nothing needs rounding.
    if m.bits() <= f {
        return done(sign | low_u64(&m));
    }
    // m = 2^(exponent - 1 + f) · 1.xxx with biased exponent `exponent` >= 1.
    let shift = m.bits() - precision;
    let mut significand = &m >> shift;
    if shift > 0 {
        let remainder = &m - (&significand << shift);
        let half = BigUint::one() << (shift - 1);
        let odd = significand.bit(0);
        if remainder > half || (remainder == half && odd) {
            significand += 1u32;
        }
    }
    let mut exponent = shift + 1;
    if significand.bits() > precision {
        significand >>= 1;
        exponent += 1;
    }
    let max_exponent = (1u64 << t.exponent_bits()) - 2;
    if exponent > max_exponent {
        return ReproResult {
            bits: sign | inf,
            overflow: true,
            too_many,
        };
    }
    let fraction = low_u64(&significand) & ((1 << f) - 1);
    done(sign | exponent << f | fraction)
}

/// The low 64 bits of `m`.
fn low_u64(m: &BigUint) -> u64 {
    m.iter_u64_digits().next().unwrap_or(0)
}

/// REPRO of the elements in `xs`, in the order given (any order gives the same).
pub fn repro_sum(t: FpType, xs: &[u64]) -> ReproResult {
    let p = xs.iter().fold(ReproPartial::empty(), |p, &x| {
        p.combine(&ReproPartial::of(t, x))
    });
    repro_finish(t, &p)
}

/// Whether `acc` fits the two's complement width [`acc_bits`] (the bound the format promises
/// for up to [`MAX_CONTRIBUTIONS`] contributions).
pub fn acc_fits(t: FpType, acc: &BigInt) -> bool {
    let limit = BigInt::one() << (acc_bits(t) - 1);
    acc < &limit && acc >= &-limit
}

#[cfg(test)]
mod tests {
    //! Expected bits by hand; the random test compares with the naive exact reference
    //! (`fp_reference`), which converts and rounds without this module's code.

    use super::*;
    use FpType::*;

    fn sum(t: FpType, xs: &[u64]) -> u64 {
        let r = repro_sum(t, xs);
        assert!(!r.too_many);
        r.bits
    }

    #[test]
    fn format_widths() {
        assert_eq!(FpType::ALL.map(scale), [24, 133, 149, 1074]);
        assert_eq!(FpType::ALL.map(acc_bits), [96, 320, 320, 2144]);
        // 2^32 largest finite F32 values still fit; the smallest subnormal is 1.
        let max = ReproPartial::of(F32, 0x7F7F_FFFF).acc << 32;
        assert!(acc_fits(F32, &max) && acc_fits(F32, &-max));
        let max = ReproPartial::of(F64, 0x7FEF_FFFF_FFFF_FFFF).acc << 32;
        assert!(acc_fits(F64, &max) && acc_fits(F64, &-max.clone()));
        // Rounded up to whole digits the width leaves 13 more bits of headroom, and no more.
        assert!(acc_fits(F64, &(max.clone() << 13)));
        assert!(!acc_fits(F64, &(max << 14)));
        assert_eq!(ReproPartial::of(F32, 1).acc, BigInt::one());
        assert_eq!(ReproPartial::of(F16, 0x3C00).acc, BigInt::one() << 24);
    }

    #[test]
    fn exact_then_rounded_once() {
        // 1 + 2^-24 + 2^-24 = 1 + 2^-23 exactly (a sequential f32 sum gives 1).
        assert_eq!(
            sum(F32, &[0x3F80_0000, 0x3380_0000, 0x3380_0000]),
            0x3F80_0001
        );
        // One half-ulp: a tie, to even.
        assert_eq!(sum(F32, &[0x3F80_0000, 0x3380_0000]), 0x3F80_0000);
        assert_eq!(sum(F32, &[0x3F80_0001, 0x3380_0000]), 0x3F80_0002);
        // big + 1 - big = 1 (sequentially 0).
        assert_eq!(
            sum(F32, &[0x7149_F2CA, 0x3F80_0000, 0xF149_F2CA]),
            0x3F80_0000
        );
        assert_eq!(sum(F16, &[0x7BFF, 0x3C00, 0xFBFF]), 0x3C00);
        assert_eq!(sum(Bf16, &[0x3F80, 0x3B80, 0x3B80]), 0x3F81);
        // Subnormals are exact.
        assert_eq!(sum(F32, &[1, 1, 0x8000_0001]), 1);
        assert_eq!(sum(F16, &[0x03FF, 0x0001]), 0x0400);
        // F64: 1 + 2^-53 + 2^-53 = 1 + 2^-52 (sequentially 1); the smallest subnormals.
        let one = 0x3FF0_0000_0000_0000;
        assert_eq!(sum(F64, &[one, 0x3CA0 << 48, 0x3CA0 << 48]), one | 1);
        assert_eq!(sum(F64, &[one, 0x3CA0 << 48]), one);
        assert_eq!(sum(F64, &[1, 1, 1 << 63 | 1]), 1);
        // The largest finite plus the largest finite overflows; minus one of them it does not.
        let max = 0x7FEF_FFFF_FFFF_FFFF;
        let r = repro_sum(F64, &[max, max]);
        assert_eq!((r.bits, r.overflow), (0x7FF0 << 48, true));
        assert_eq!(sum(F64, &[max, max, 1 << 63 | max]), max);
    }

    #[test]
    fn overflow_zeros_and_specials() {
        // 65504 + 65504 - 65504 = 65504: no overflow, whichever order.
        assert_eq!(sum(F16, &[0x7BFF, 0x7BFF, 0xFBFF]), 0x7BFF);
        let r = repro_sum(F16, &[0x7BFF, 0x4C00]);
        assert_eq!((r.bits, r.overflow), (0x7C00, true));
        let r = repro_sum(F16, &[0x7BFF, 0x4BFF]);
        assert_eq!((r.bits, r.overflow), (0x7BFF, false));
        assert_eq!(
            repro_sum(F32, &[0xFF7F_FFFF, 0xFF7F_FFFF]).bits,
            0xFF80_0000
        );
        assert_eq!(sum(F32, &[0x8000_0000, 0x8000_0000]), 0x8000_0000);
        assert_eq!(sum(F32, &[0x8000_0000, 0x0000_0000]), 0);
        assert_eq!(sum(F16, &[0x3C00, 0xBC00]), 0);
        assert_eq!(sum(F16, &[0x7C00, 0x3C00, 0xFBFF]), 0x7C00);
        assert_eq!(sum(F16, &[0x7C00, 0xFC00]), 0x7E00);
        assert_eq!(sum(Bf16, &[0xFF80, 0x3F80]), 0xFF80);
        assert_eq!(sum(F32, &[0x7F80_0001, 0x3F80_0000]), 0x7FC0_0000);
        assert_eq!(sum(F32, &[]), 0x8000_0000);
    }

    #[test]
    fn wire_format() {
        assert_eq!(FpType::ALL.map(ReproPartial::wire_words), [8, 15, 15, 72]);
        // F16 1.0 is 2^24 units; -1.0 its two's complement in three 32-bit digits; -0 only
        // its count; a NaN and an infinity only theirs.
        let one = ReproPartial::of(F16, 0x3C00).to_words(F16);
        assert_eq!(one, [0x0100_0000, 0, 0, 1, 0, 0, 0, 0]);
        let minus_one = ReproPartial::of(F16, 0xBC00).to_words(F16);
        assert_eq!(
            minus_one,
            [0xFF00_0000, 0xFFFF_FFFF, 0xFFFF_FFFF, 1, 0, 0, 0, 0]
        );
        let minus_zero = ReproPartial::of(F16, 0x8000).to_words(F16);
        assert_eq!(minus_zero, [0, 0, 0, 1, 0, 0, 0, 1]);
        let nan = ReproPartial::of(F32, 0x7FC0_0000).to_words(F32);
        assert_eq!(nan[10..], [1, 1, 0, 0, 0]);
        let inf = ReproPartial::of(F32, 0xFF80_0000).to_words(F32);
        assert_eq!(inf[10..], [1, 0, 0, 1, 0]);
        // Word by word sums (a switch's U64 SUM) still carry the partial: 1 + -1 + -0 is an
        // exact zero with carries in the upper halves, not all -0, three contributions.
        let sum: Vec<u64> = (0..8)
            .map(|i| one[i] + minus_one[i] + minus_zero[i])
            .collect();
        assert_eq!(
            sum,
            [0x1_0000_0000, 0xFFFF_FFFF, 0xFFFF_FFFF, 3, 0, 0, 0, 1]
        );
        let p = ReproPartial::from_words(F16, &sum).expect("well formed");
        assert_eq!(
            (&p.acc, p.count, p.all_neg_zero()),
            (&BigInt::zero(), 3, false)
        );
        for words in [one, minus_one, minus_zero] {
            let back = ReproPartial::from_words(F16, &words).expect("well formed");
            assert_eq!(back.to_words(F16), words);
        }
        // A tree's partial of many F64 values goes there and back unchanged.
        let mut next = crate::reduce_alu::fp_reference::rng(0x3d1e);
        let p = (0..100)
            .map(|_| ReproPartial::of(F64, next() & !(0x7FF0 << 48) | 0x4000 << 48))
            .fold(ReproPartial::empty(), |a, b| a.combine(&b));
        let back = ReproPartial::from_words(F64, &p.to_words(F64)).expect("well formed");
        assert_eq!(back, p);
        // Malformed: the wrong length, more NaNs (or -0s) than contributions.
        assert_eq!(
            ReproPartial::from_words(F16, &[0, 1]),
            Err(ReproFormatError::Length {
                t: F16,
                want: 8,
                got: 2
            })
        );
        assert_eq!(
            ReproPartial::from_words(F16, &[0, 0, 0, 1, 2, 0, 0, 0]),
            Err(ReproFormatError::Count {
                field: "NaN",
                value: 2,
                count: 1
            })
        );
        assert!(ReproPartial::from_words(F16, &[0, 0, 0, 1, 0, 0, 0, 2]).is_err());
        assert!(ReproPartial::from_words(F16, &[0, 0, 0, 2, 0, 0, 0, 2]).is_ok());
    }

    #[test]
    fn too_many_is_reported() {
        let mut p = ReproPartial::of(F32, 0x3F80_0000);
        p.count = MAX_CONTRIBUTIONS;
        assert!(!repro_finish(F32, &p).too_many);
        let q = p.combine(&ReproPartial::of(F32, 0x3F80_0000));
        assert!(repro_finish(F32, &q).too_many);
    }

    /// Seeded random vectors of finite elements over the whole range: every order and every
    /// grouping (a random binary tree) gives the same bits, equal to the exact sum (from the
    /// elements' `f64` values) rounded by the naive reference.
    #[test]
    fn any_tree_any_order_equals_the_exact_sum() {
        use crate::reduce_alu::fp_reference::{rng, round_exact, units};
        const SEED: u64 = 0x0e9a_c75e;
        let mut next = rng(SEED);
        for case in 0..600 {
            let t = FpType::ALL[case % 4];
            let len = 1 + (next() % 200) as usize;
            let sign = t.sign_bit();
            let inf = t.inf();
            // Half the cases within a window of exponents, so that values cancel and tie.
            let window = (next() & inf) >> t.fraction_bits();
            let xs: Vec<u64> = (0..len)
                .map(|_| loop {
                    let mut x = next() & t.mask();
                    if case % 2 == 0 {
                        let e = (window + next() % 4) << t.fraction_bits();
                        x = (x & !inf) | (e & inf);
                    }
                    if x & inf != inf {
                        break x;
                    }
                })
                .collect();
            let exact = xs
                .iter()
                .map(|&x| units(t, x, -(scale(t) as i64)))
                .fold(BigInt::zero(), |a, b| a + b);
            let want = if exact.is_zero() {
                if xs.iter().all(|&x| x == sign) {
                    sign
                } else {
                    0
                }
            } else {
                round_exact(t, &exact, -(scale(t) as i64))
            };
            let ctx = format!("seed {SEED:#x}, case {case}, {t:?}, {len} values");
            assert_eq!(sum(t, &xs), want, "{ctx}");
            let mut parts: Vec<ReproPartial> = xs.iter().map(|&x| ReproPartial::of(t, x)).collect();
            while parts.len() > 1 {
                let i = (next() % parts.len() as u64) as usize;
                let a = parts.swap_remove(i);
                let j = (next() % parts.len() as u64) as usize;
                parts[j] = parts[j].combine(&a);
            }
            assert_eq!(repro_finish(t, &parts[0]).bits, want, "{ctx} (tree)");
        }
    }
}
