//! Golden reference of the reduction ALU: one operation on one lane, written with Rust's own
//! integer types so that it reads as the specification (see the [module docs](super)).

use super::fp::fp_golden;
use super::{AluLaneOut, AluOp, Dtype, ReduceAluIn, ReduceAluOut, ReduceAluParams};
use crate::kit::cycle::CycleSim;
use std::cmp::Ordering;

/// `a op b` for the element type `dtype`: returns (value, index), or `None` when `op` is not
/// defined on `dtype` (the logical and bitwise operations on a floating-point type).
///
/// `a` and `b` are 64-bit words that carry the element in their low bits (for the 32-bit and
/// 16-bit types the bits above are ignored); `ai` and `bi` are the indices of MAXLOC / MINLOC,
/// ignored by the other operations. A narrower result is zero-extended. The floating-point
/// types follow [`super::fp`] ([`fp_golden`]).
pub fn golden(op: AluOp, dtype: Dtype, a: u64, ai: u64, b: u64, bi: u64) -> Option<(u64, u64)> {
    if let Some(t) = dtype.fp() {
        return fp_golden(op, t, a, ai, b, bi);
    }
    Some(match op {
        AluOp::Max => match compare(dtype, a, b) {
            Ordering::Less => (element(dtype, b), 0),
            _ => (element(dtype, a), 0),
        },
        AluOp::Min => match compare(dtype, a, b) {
            Ordering::Greater => (element(dtype, b), 0),
            _ => (element(dtype, a), 0),
        },
        AluOp::MaxLoc => loc(compare(dtype, a, b), dtype, a, ai, b, bi),
        AluOp::MinLoc => loc(compare(dtype, b, a), dtype, a, ai, b, bi),
        AluOp::Sum => (sum(dtype, a, b), 0),
        AluOp::Prod => (prod(dtype, a, b), 0),
        AluOp::LAnd => ((truth(dtype, a) && truth(dtype, b)) as u64, 0),
        AluOp::LOr => ((truth(dtype, a) || truth(dtype, b)) as u64, 0),
        AluOp::LXor => ((truth(dtype, a) != truth(dtype, b)) as u64, 0),
        AluOp::BAnd => (element(dtype, a) & element(dtype, b), 0),
        AluOp::BOr => (element(dtype, a) | element(dtype, b), 0),
        AluOp::BXor => (element(dtype, a) ^ element(dtype, b), 0),
    })
}

/// `a op b` on one of the integer types (2-bit `dtype` fields), which define every operation.
/// A floating-point `dtype` gives `(0, 0)` for the operations it does not define.
pub fn golden_int(op: AluOp, dtype: Dtype, a: u64, ai: u64, b: u64, bi: u64) -> (u64, u64) {
    golden(op, dtype, a, ai, b, bi).unwrap_or((0, 0))
}

/// Like [`golden`] but from the port codes, for a block built with the floating-point types
/// `fp_mask` (bit `t` for `FpType::ALL[t]`, 0: none, see
/// [`ReduceAluParams::fp_mask`]): `None` when the block answers with `err` (value 0, index 0)
/// — a reserved operation code, a floating-point `dtype` the block is built without, or an
/// operation the type does not define. Codes are cut to their port widths (`op & 15`,
/// `dtype & 7`).
pub fn golden_codes(
    fp_mask: usize,
    op: u64,
    dtype: u64,
    a: u64,
    ai: u64,
    b: u64,
    bi: u64,
) -> Option<(u64, u64)> {
    let op = AluOp::from_code(op & 0xF)?;
    let dtype = Dtype::from_code(dtype & 7)?;
    if !super::builds_dtype(fp_mask, dtype) {
        return None;
    }
    golden(op, dtype, a, ai, b, bi)
}

/// The element a word carries, as a zero-extended 64-bit word.
fn element(dtype: Dtype, x: u64) -> u64 {
    match dtype {
        Dtype::I32 | Dtype::U32 => x as u32 as u64,
        _ => x, // I64, U64 (a floating-point type never gets here)
    }
}

/// `a` compared with `b` as elements of `dtype` (`as i32` / `as u32` keep the low 32 bits).
fn compare(dtype: Dtype, a: u64, b: u64) -> Ordering {
    match dtype {
        Dtype::I32 => (a as i32).cmp(&(b as i32)),
        Dtype::U32 => (a as u32).cmp(&(b as u32)),
        Dtype::I64 => (a as i64).cmp(&(b as i64)),
        _ => a.cmp(&b), // U64
    }
}

/// MAXLOC / MINLOC given how `a` ranks against `b` (`Greater` = `a` is strictly better).
fn loc(a_vs_b: Ordering, dtype: Dtype, a: u64, ai: u64, b: u64, bi: u64) -> (u64, u64) {
    match a_vs_b {
        Ordering::Greater => (element(dtype, a), ai),
        Ordering::Less => (element(dtype, b), bi),
        Ordering::Equal => (element(dtype, a), ai.min(bi)),
    }
}

fn sum(dtype: Dtype, a: u64, b: u64) -> u64 {
    match dtype {
        Dtype::I32 => (a as i32).wrapping_add(b as i32) as u32 as u64,
        Dtype::U32 => (a as u32).wrapping_add(b as u32) as u64,
        Dtype::I64 => (a as i64).wrapping_add(b as i64) as u64,
        _ => a.wrapping_add(b), // U64
    }
}

fn prod(dtype: Dtype, a: u64, b: u64) -> u64 {
    match dtype {
        Dtype::I32 => (a as i32).wrapping_mul(b as i32) as u32 as u64,
        Dtype::U32 => (a as u32).wrapping_mul(b as u32) as u64,
        Dtype::I64 => (a as i64).wrapping_mul(b as i64) as u64,
        _ => a.wrapping_mul(b), // U64
    }
}

fn truth(dtype: Dtype, x: u64) -> bool {
    element(dtype, x) != 0
}

/// The golden function of one operation as the block answers it: the outputs, `p.latency()`
/// cycles later, of an edge with inputs `i` (lanes from `lanes` on stay zero; a reset gives
/// all zero). The ALU has no protocol beyond "one operation per cycle, answered
/// [`latency`](ReduceAluParams::latency) cycles later", so its golden reference is a cycle
/// design too
/// ([`ReduceAluGolden`]).
pub fn golden_next(i: &ReduceAluIn, p: &ReduceAluParams) -> ReduceAluOut {
    if i.reset {
        return ReduceAluOut::default();
    }
    let mut o = ReduceAluOut {
        out_valid: i.in_valid,
        err: i.in_valid && golden_codes(p.fp_mask(), i.op, i.dtype, 0, 0, 0, 0).is_none(),
        ..Default::default()
    };
    for k in 0..p.lanes.min(super::MAX_LANES) {
        let l = i.lane(k);
        // Without a golden result the block outputs zero.
        let (r, ri) =
            golden_codes(p.fp_mask(), i.op, i.dtype, l.a, l.ai, l.b, l.bi).unwrap_or((0, 0));
        o.set_lane(k, AluLaneOut { r, ri });
    }
    o
}

/// The golden reference as a design: [`golden_next`] through a delay line of
/// [`latency`](ReduceAluParams::latency) stages (6, or [`FP_LATENCY`](super::FP_LATENCY) with
/// the floating-point types); a reset clears the whole line (the pipeline's registers
/// reset to zero, and zero operands give zero results).
#[derive(Clone, Debug)]
pub struct ReduceAluGolden {
    p: ReduceAluParams,
    /// Answers in flight, the oldest (the one on the outputs) first.
    line: std::collections::VecDeque<ReduceAluOut>,
}

impl ReduceAluGolden {
    pub fn new(p: ReduceAluParams) -> Self {
        ReduceAluGolden {
            p,
            line: vec![ReduceAluOut::default(); p.latency()].into(),
        }
    }
}

impl CycleSim for ReduceAluGolden {
    type In = ReduceAluIn;
    type Out = ReduceAluOut;
    fn step(&mut self, i: &ReduceAluIn) -> ReduceAluOut {
        let out = self.line.pop_front().unwrap_or_default();
        if i.reset {
            self.line
                .iter_mut()
                .for_each(|o| *o = ReduceAluOut::default());
        }
        self.line.push_back(golden_next(i, &self.p));
        out
    }
    fn peek(&mut self) -> ReduceAluOut {
        self.line.front().copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    //! Expected values are written by hand from the specification, never computed by the code
    //! under test. Words are hexadecimal; `M` marks garbage in the upper half of a 32-bit
    //! operand, which must be ignored.

    use super::*;
    use AluOp::*;
    use Dtype::*;

    /// Garbage in the upper 32 bits of a 32-bit operand.
    const M: u64 = 0xA5A5_A5A5_0000_0000;

    /// (a, b, expected value) for one op and dtype; index must be 0.
    fn check(op: AluOp, dtype: Dtype, rows: &[(u64, u64, u64)]) {
        for &(a, b, want) in rows {
            let got = golden_int(op, dtype, a, 0x11, b, 0x22);
            assert_eq!(
                got,
                (want, 0),
                "{op} {dtype}: a={a:#x} b={b:#x}: expected ({want:#x}, 0), got ({:#x}, {:#x})",
                got.0,
                got.1
            );
        }
    }

    /// (a, ai, b, bi, expected value, expected index).
    fn check_loc(op: AluOp, dtype: Dtype, rows: &[(u64, u64, u64, u64, u64, u64)]) {
        for &(a, ai, b, bi, wv, wi) in rows {
            let got = golden_int(op, dtype, a, ai, b, bi);
            assert_eq!(
                got,
                (wv, wi),
                "{op} {dtype}: a=({a:#x},{ai}) b=({b:#x},{bi}): expected ({wv:#x}, {wi}), got ({:#x}, {})",
                got.0,
                got.1
            );
        }
    }

    #[test]
    fn max() {
        check(
            Max,
            I32,
            &[
                (0, 0, 0),
                (0xFFFF_FFFF, 0, 0),                     // -1 < 0
                (0x8000_0000, 0x7FFF_FFFF, 0x7FFF_FFFF), // MIN < MAX
                (0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFF), // MIN < -1
                (M | 5, 3, 5),
                (M | 0xFFFF_FFFE, M | 0xFFFF_FFFF, 0xFFFF_FFFF), // -2 < -1, not sign-extended
            ],
        );
        check(
            Max,
            U32,
            &[
                (0, 0, 0),
                (0xFFFF_FFFF, 0, 0xFFFF_FFFF),
                (0x8000_0000, 0x7FFF_FFFF, 0x8000_0000),
                (M | 1, 2, 2),
                (0x1_0000_0000, 0, 0), // upper bits ignored: 0 vs 0
            ],
        );
        check(
            Max,
            I64,
            &[
                (0, u64::MAX, 0),
                (
                    0x8000_0000_0000_0000,
                    0x7FFF_FFFF_FFFF_FFFF,
                    0x7FFF_FFFF_FFFF_FFFF,
                ),
                (0x8000_0000_0000_0000, u64::MAX, u64::MAX),
                (0xFFFF_FFFF, 0x1_0000_0000, 0x1_0000_0000),
            ],
        );
        check(
            Max,
            U64,
            &[
                (0, u64::MAX, u64::MAX),
                (
                    0x8000_0000_0000_0000,
                    0x7FFF_FFFF_FFFF_FFFF,
                    0x8000_0000_0000_0000,
                ),
                (7, 7, 7),
            ],
        );
    }

    #[test]
    fn min() {
        check(
            Min,
            I32,
            &[
                (0xFFFF_FFFF, 0, 0xFFFF_FFFF),
                (0x8000_0000, 0x7FFF_FFFF, 0x8000_0000),
                (M | 5, 3, 3),
                (3, 3, 3),
            ],
        );
        check(
            Min,
            U32,
            &[
                (0xFFFF_FFFF, 0, 0),
                (0x8000_0000, 0x7FFF_FFFF, 0x7FFF_FFFF),
                (M | 0xFFFF_FFFF, 0xFFFF_FFFE, 0xFFFF_FFFE),
            ],
        );
        check(
            Min,
            I64,
            &[
                (0, u64::MAX, u64::MAX),
                (
                    0x8000_0000_0000_0000,
                    0x7FFF_FFFF_FFFF_FFFF,
                    0x8000_0000_0000_0000,
                ),
                (0xFFFF_FFFF, 0x1_0000_0000, 0xFFFF_FFFF),
            ],
        );
        check(
            Min,
            U64,
            &[
                (0, u64::MAX, 0),
                (
                    0x8000_0000_0000_0000,
                    0x7FFF_FFFF_FFFF_FFFF,
                    0x7FFF_FFFF_FFFF_FFFF,
                ),
            ],
        );
    }

    #[test]
    fn maxloc() {
        check_loc(
            MaxLoc,
            I32,
            &[
                (5, 1, 3, 2, 5, 1),
                (3, 1, 5, 2, 5, 2),
                (0xFFFF_FFFF, 9, 0, 4, 0, 4), // -1 < 0
                (M | 7, 9, 7, 4, 7, 4),       // tie, a has the larger index
                (7, 4, 7, 9, 7, 4),           // tie, a has the smaller index
                (0x8000_0000, 0, 0x7FFF_FFFF, 1, 0x7FFF_FFFF, 1),
            ],
        );
        check_loc(
            MaxLoc,
            U32,
            &[
                (0xFFFF_FFFF, 9, 0, 4, 0xFFFF_FFFF, 9),
                (0x1_0000_0000, 6, 0, 3, 0, 3), // both are 0: tie, lowest index
                (
                    8,
                    u64::MAX,
                    8,
                    0x8000_0000_0000_0000,
                    8,
                    0x8000_0000_0000_0000,
                ),
            ],
        );
        check_loc(
            MaxLoc,
            I64,
            &[
                (u64::MAX, 1, 0, 2, 0, 2),
                (0x8000_0000_0000_0000, 1, u64::MAX, 2, u64::MAX, 2),
                (
                    0x7FFF_FFFF_FFFF_FFFF,
                    5,
                    0x7FFF_FFFF_FFFF_FFFF,
                    3,
                    0x7FFF_FFFF_FFFF_FFFF,
                    3,
                ),
            ],
        );
        check_loc(
            MaxLoc,
            U64,
            &[
                (u64::MAX, 1, 0, 2, u64::MAX, 1),
                (0, u64::MAX, 0, 0, 0, 0), // index compare is unsigned
                (1, 0, 2, u64::MAX, 2, u64::MAX),
            ],
        );
    }

    #[test]
    fn minloc() {
        check_loc(
            MinLoc,
            I32,
            &[
                (5, 1, 3, 2, 3, 2),
                (0xFFFF_FFFF, 9, 0, 4, 0xFFFF_FFFF, 9),
                (M | 7, 9, 7, 4, 7, 4),
                (0x8000_0000, 8, 0x8000_0000, 8, 0x8000_0000, 8),
            ],
        );
        check_loc(
            MinLoc,
            U32,
            &[(0xFFFF_FFFF, 9, 0, 4, 0, 4), (2, 7, M | 2, 6, 2, 6)],
        );
        check_loc(
            MinLoc,
            I64,
            &[
                (u64::MAX, 1, 0, 2, u64::MAX, 1),
                (
                    0x8000_0000_0000_0000,
                    3,
                    0x8000_0000_0000_0000,
                    2,
                    0x8000_0000_0000_0000,
                    2,
                ),
            ],
        );
        check_loc(
            MinLoc,
            U64,
            &[
                (u64::MAX, 1, 0, 2, 0, 2),
                (
                    4,
                    0x8000_0000_0000_0000,
                    4,
                    0x7FFF_FFFF_FFFF_FFFF,
                    4,
                    0x7FFF_FFFF_FFFF_FFFF,
                ),
            ],
        );
    }

    #[test]
    fn sum() {
        check(
            Sum,
            I32,
            &[
                (1, 2, 3),
                (0xFFFF_FFFF, 1, 0),                             // -1 + 1
                (0x7FFF_FFFF, 1, 0x8000_0000),                   // MAX + 1 wraps to MIN
                (0x8000_0000, 0xFFFF_FFFF, 0x7FFF_FFFF),         // MIN + -1 wraps to MAX
                (M | 0xFFFF_FFFF, M | 0xFFFF_FFFF, 0xFFFF_FFFE), // -1 + -1, zero-extended
            ],
        );
        check(
            Sum,
            U32,
            &[
                (0xFFFF_FFFF, 1, 0),
                (0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFE),
                (M | 3, 4, 7),
            ],
        );
        check(
            Sum,
            I64,
            &[
                (u64::MAX, 1, 0),
                (0x7FFF_FFFF_FFFF_FFFF, 1, 0x8000_0000_0000_0000),
                (0xFFFF_FFFF, 1, 0x1_0000_0000), // a carry into bit 32 is kept
            ],
        );
        check(
            Sum,
            U64,
            &[
                (u64::MAX, u64::MAX, 0xFFFF_FFFF_FFFF_FFFE),
                (0x8000_0000_0000_0000, 0x8000_0000_0000_0000, 0),
            ],
        );
    }

    #[test]
    fn prod() {
        check(
            Prod,
            I32,
            &[
                (6, 7, 42),
                (0xFFFF_FFFF, 0xFFFF_FFFF, 1),           // -1 * -1
                (0xFFFF_FFFF, 5, 0xFFFF_FFFB),           // -1 * 5 = -5, zero-extended
                (0x8000_0000, 0xFFFF_FFFF, 0x8000_0000), // MIN * -1 wraps to MIN
                (0x10000, 0x10000, 0),                   // 2^32 wraps to 0
                (M | 3, M | 3, 9),
            ],
        );
        check(
            Prod,
            U32,
            &[
                (0xFFFF_FFFF, 0xFFFF_FFFF, 1),
                (0xFFFF, 0xFFFF, 0xFFFE_0001),
                (0x1_0000_0002, 3, 6),
            ],
        );
        check(
            Prod,
            I64,
            &[
                (u64::MAX, u64::MAX, 1),
                (u64::MAX, 2, 0xFFFF_FFFF_FFFF_FFFE),
                (0x8000_0000_0000_0000, u64::MAX, 0x8000_0000_0000_0000),
                (0x1_0000_0000, 0x1_0000_0000, 0),
                (0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFE_0000_0001),
            ],
        );
        check(
            Prod,
            U64,
            &[
                (0x1_0000_0001, 0x1_0000_0001, 0x2_0000_0001),
                (0x0123_4567_89AB_CDEF, 0x10, 0x1234_5678_9ABC_DEF0),
                (0x0123_4567_89AB_CDEF, 0, 0),
            ],
        );
    }

    #[test]
    fn logical() {
        for dt in [I32, U32] {
            check(
                LAnd,
                dt,
                &[
                    (1, 2, 1),
                    (0, 2, 0),
                    (M, 1, 0),
                    (0xFFFF_FFFF, 0x8000_0000, 1),
                ],
            );
            check(LOr, dt, &[(0, 0, 0), (M, M, 0), (0, 0x8000_0000, 1)]);
            check(LXor, dt, &[(1, 1, 0), (1, 0, 1), (M, 7, 1), (0, 0, 0)]);
        }
        for dt in [I64, U64] {
            check(
                LAnd,
                dt,
                &[(1, 2, 1), (0, 2, 0), (M, 1, 1), (u64::MAX, 0, 0)],
            );
            check(
                LOr,
                dt,
                &[(0, 0, 0), (M, 0, 1), (0, 0x8000_0000_0000_0000, 1)],
            );
            check(LXor, dt, &[(1, 1, 0), (1, 0, 1), (M, 0, 1), (0, 0, 0)]);
        }
    }

    #[test]
    fn bitwise() {
        for dt in [I32, U32] {
            check(
                BAnd,
                dt,
                &[
                    (0xF0F0, 0xFF00, 0xF000),
                    (M | 0xFFFF_FFFF, u64::MAX, 0xFFFF_FFFF),
                ],
            );
            check(BOr, dt, &[(0xF0F0, 0x0F0F, 0xFFFF), (M, M, 0)]);
            check(
                BXor,
                dt,
                &[(0xFFFF_FFFF, 0x0F0F_0F0F, 0xF0F0_F0F0), (M | 1, 1, 0)],
            );
        }
        for dt in [I64, U64] {
            check(BAnd, dt, &[(M | 0xFF, u64::MAX, M | 0xFF)]);
            check(
                BOr,
                dt,
                &[(0x8000_0000_0000_0000, 1, 0x8000_0000_0000_0001)],
            );
            check(BXor, dt, &[(u64::MAX, M, 0x5A5A_5A5A_FFFF_FFFF)]);
        }
    }

    #[test]
    fn reserved_codes() {
        for fp in [0, super::super::ALL_FP_TYPES] {
            for op in 12..16 {
                assert_eq!(golden_codes(fp, op, 3, 1, 2, 3, 4), None);
            }
            assert_eq!(golden_codes(fp, 4, 0, 2, 0, 3, 0), Some((5, 0)));
            // Codes are cut to their port widths: op 0x14 is op 4, dtype 0xA is dtype 2.
            assert_eq!(golden_codes(fp, 0x14, 0xA, u64::MAX, 0, 1, 0), Some((0, 0)));
        }
    }

    #[test]
    fn floating_point_codes() {
        // f32 1.5 + 2.25 = 3.75 (0x3FC0_0000 + 0x4010_0000 = 0x4070_0000), garbage above.
        let (a, b) = (M | 0x3FC0_0000, 0x4010_0000);
        assert_eq!(
            golden_codes(super::super::ALL_FP_TYPES, 4, 6, a, 0, b, 0),
            Some((0x4070_0000, 0))
        );
        // Without the floating-point types the block answers `err`.
        assert_eq!(golden_codes(0, 4, 6, a, 0, b, 0), None);
        // Nor with some types built in that leave f32 (bit 2) out; with it alone it answers.
        assert_eq!(golden_codes(0b1011, 4, 6, a, 0, b, 0), None);
        assert_eq!(
            golden_codes(0b0100, 4, 6, a, 0, b, 0),
            Some((0x4070_0000, 0))
        );
        // The logical and bitwise operations are not defined on a floating-point type.
        for op in 6..12 {
            for dtype in 4..8 {
                assert_eq!(
                    golden_codes(super::super::ALL_FP_TYPES, op, dtype, a, 0, b, 0),
                    None
                );
            }
        }
        // fp16 MAXLOC: 2.0 (0x4000) vs 2.0 with a lower index; bf16 MIN with a NaN is the number.
        assert_eq!(
            golden_codes(super::super::ALL_FP_TYPES, 2, 4, 0x4000, 9, 0x4000, 3),
            Some((0x4000, 3))
        );
        assert_eq!(
            golden_codes(super::super::ALL_FP_TYPES, 1, 5, 0x7FC1, 0, 0xBF80, 0),
            Some((0xBF80, 0))
        );
        // fp64 PROD: 3 × 0.5 = 1.5.
        assert_eq!(
            golden_codes(
                super::super::ALL_FP_TYPES,
                5,
                7,
                0x4008_0000_0000_0000,
                0,
                0x3FE0_0000_0000_0000,
                0
            ),
            Some((0x3FF8_0000_0000_0000, 0))
        );
    }
}
