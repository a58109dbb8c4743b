//! Cycle model of the reduction ALU: one [`ReduceAluModel::step`] per clock, the same ports as
//! the RTL ([`ReduceAluIn`], [`ReduceAluOut`]), the same six register stages (and, with the
//! floating-point types, the same tail of `FP_LATENCY - LATENCY` output registers) and the same
//! arithmetic, bit for bit: a width mask, a sign-bit flip before an unsigned compare, a 64-bit
//! product from registered 16 × 16 partial products reduced by a carry-save tree (see
//! "Micro-architecture" in [`super`]). It does not call the golden reference; the harness
//! compares the two.

use super::fp::FpType;
use super::fp_bits;
use super::{AluLaneIn, AluLaneOut, AluOp, ReduceAluIn, ReduceAluOut, ReduceAluParams, MAX_LANES};
use crate::kit::cycle::CycleSim;
use std::collections::VecDeque;

/// The ten 16 × 16 partial products of `a × b` whose weight is below 2^64, in the order
/// `(i, j)` = 00, 01, 02, 03, 10, 11, 12, 20, 21, 30 (`a`'s digit `i`, `b`'s digit `j`).
///
/// With 16-bit digits `a = Σ a_i 2^(16 i)` and `b = Σ b_j 2^(16 j)`, the product is
/// `Σ a_i b_j 2^(16 (i + j))`; the terms with `i + j >= 4` are multiples of 2^64 and vanish.
pub const PARTIAL_DIGITS: [(u32, u32); 10] = [
    (0, 0),
    (0, 1),
    (0, 2),
    (0, 3),
    (1, 0),
    (1, 1),
    (1, 2),
    (2, 0),
    (2, 1),
    (3, 0),
];

/// The partial products of [`PARTIAL_DIGITS`] (each fits in 32 bits: (2^16 - 1)^2 < 2^32).
pub fn partial_products(a: u64, b: u64) -> [u32; 10] {
    let digit = |x: u64, k: u32| ((x >> (16 * k)) & 0xFFFF) as u32;
    PARTIAL_DIGITS.map(|(i, j)| digit(a, i) * digit(b, j))
}

/// One 3:2 carry-save adder on 64-bit words: `(s, c)` with `s + c = x + y + z` modulo 2^64.
pub fn csa(x: u64, y: u64, z: u64) -> (u64, u64) {
    (x ^ y ^ z, ((x & y) | (x & z) | (y & z)) << 1)
}

/// The partial products, each shifted to its weight, through the first three levels of the
/// RTL's tree of carry-save adders: ten terms → 7 → 5 → 4 (the terms are taken three at a time
/// in order, the leftovers carried on). The four rows sum to the product modulo 2^64; they are
/// what stage 4 registers.
pub fn carry_save_rows(p: &[u32; 10]) -> [u64; 4] {
    let mut t = [0u64; 10];
    for (k, &(i, j)) in PARTIAL_DIGITS.iter().enumerate() {
        t[k] = (p[k] as u64) << (16 * (i + j));
    }
    // Level 1: 10 → 7.
    let (a0, a1) = csa(t[0], t[1], t[2]);
    let (a2, a3) = csa(t[3], t[4], t[5]);
    let (a4, a5) = csa(t[6], t[7], t[8]);
    // Level 2: a0..a5, t9 → 5.
    let (b0, b1) = csa(a0, a1, a2);
    let (b2, b3) = csa(a3, a4, a5);
    // Level 3: b0..b3, t9 → 4.
    let (c0, c1) = csa(b0, b1, b2);
    [c0, c1, b3, t[9]]
}

/// The tree's last two levels, 4 → 3 → 2, on [`carry_save_rows`]: `(ps, pc)` with `ps + pc`
/// the product modulo 2^64 (stage 5 adds them).
pub fn carry_save_finish(rows: &[u64; 4]) -> (u64, u64) {
    let (d0, d1) = csa(rows[0], rows[1], rows[2]);
    csa(d0, d1, rows[3])
}

/// The whole tree: [`carry_save_rows`] then [`carry_save_finish`].
pub fn carry_save(p: &[u32; 10]) -> (u64, u64) {
    carry_save_finish(&carry_save_rows(p))
}

/// The low 64 bits of `a * b` as the RTL computes it: partial products, carry-save tree, one
/// add.
pub fn mul64_lo_from_16x16(a: u64, b: u64) -> u64 {
    let (s, c) = carry_save(&partial_products(a, b));
    s.wrapping_add(c)
}

/// The decode of `dtype` (its port bits): the element mask and the sign bit to flip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decode {
    /// `0xFFFF_FFFF` for I32 / U32, all ones for I64 / U64.
    wmask: u64,
    /// The sign bit of a signed type, 0 for an unsigned one.
    sflip: u64,
}

fn decode(dtype: u64) -> Decode {
    // dtype[1] = 0: 32-bit; dtype[0] = 0: signed.
    let is32 = dtype & 2 == 0;
    let signed = dtype & 1 == 0;
    let wmask = if is32 { 0xFFFF_FFFF } else { u64::MAX };
    let sflip = match (signed, is32) {
        (false, _) => 0,
        (true, true) => 1 << 31,
        (true, false) => 1 << 63,
    };
    Decode { wmask, sflip }
}

/// Stage 1: the control inputs as offered, the operands at width (every register resets to
/// zero: `Default`).
#[derive(Clone, Copy, Debug, Default)]
struct Stage1 {
    valid: bool,
    op: u64,
    dtype: u64,
    /// `a`, `b` masked to the offered dtype's width; `ai`, `bi` as offered.
    lane: [AluLaneIn; MAX_LANES],
}

/// Stage 2, one lane: operands at width, compares, sum, truth values, partial products.
#[derive(Clone, Copy, Debug, Default)]
struct Lane2 {
    av: u64,
    bv: u64,
    ai: u64,
    bi: u64,
    a_gt: bool,
    a_lt: bool,
    bi_lt_ai: bool,
    sum: u64,
    at: bool,
    bt: bool,
    p: [u32; 10],
}

/// Stage 2: the lanes and the control carried on.
#[derive(Clone, Copy, Debug, Default)]
struct Stage2 {
    valid: bool,
    err: bool,
    op: u64,
    is32: bool,
    /// `dtype` is a floating-point type: the outputs take the floating-point results.
    fp: bool,
    lane: [Lane2; MAX_LANES],
    /// Per lane the floating-point result (value, index), carried to the outputs.
    fp_out: [AluLaneOut; MAX_LANES],
}

/// The floating-point datapath's result for one lane (`netcoll-hdl`'s `reduce_alu_fp`): the
/// bit-level functions of [`fp_bits`], which the RTL splits into its
/// [`FP_LATENCY`](super::FP_LATENCY) stages; zero for the operations the types do not define,
/// and on a block without them.
fn fp_lane(built: bool, op: u64, dtype: u64, l: &AluLaneIn) -> AluLaneOut {
    let t = FpType::ALL[(dtype & 3) as usize];
    let (r, ri) = match AluOp::from_code(op) {
        _ if !built => (0, 0),
        Some(AluOp::Sum) => (fp_bits::add(t, l.a, l.b), 0),
        Some(AluOp::Prod) => (fp_bits::mul(t, l.a, l.b), 0),
        Some(AluOp::Max) => (fp_bits::select(t, true, l.a, 0, l.b, 0).0, 0),
        Some(AluOp::Min) => (fp_bits::select(t, false, l.a, 0, l.b, 0).0, 0),
        Some(AluOp::MaxLoc) => fp_bits::select(t, true, l.a, l.ai, l.b, l.bi),
        Some(AluOp::MinLoc) => fp_bits::select(t, false, l.a, l.ai, l.b, l.bi),
        _ => (0, 0),
    };
    AluLaneOut { r, ri }
}

/// Stage 3, one lane: the compares, the operands carried on for stage 4's selects, the result
/// of every op that needs no compare (0 for the others), and the partial products carried on.
#[derive(Clone, Copy, Debug, Default)]
struct Lane3 {
    a_gt: bool,
    a_lt: bool,
    bi_lt_ai: bool,
    av: u64,
    bv: u64,
    ai: u64,
    bi: u64,
    other: u64,
    p: [u32; 10],
}

/// The control that stages 3 to 5 carry on: PROD and the width decoded for the output, the
/// floating-point results' select.
#[derive(Clone, Copy, Debug, Default)]
struct Control {
    valid: bool,
    err: bool,
    is_prod: bool,
    is32: bool,
    fp: bool,
}

/// Stage 3: the lanes, the control and `op` (for stage 4's selects).
#[derive(Clone, Copy, Debug, Default)]
struct Stage3 {
    ctl: Control,
    op: u64,
    lane: [Lane3; MAX_LANES],
    fp_out: [AluLaneOut; MAX_LANES],
}

/// Stage 4, one lane: the value and index of every op but PROD, and PROD's four carry-save
/// rows.
#[derive(Clone, Copy, Debug, Default)]
struct Lane4 {
    value: u64,
    index: u64,
    rows: [u64; 4],
}

/// Stage 5, one lane: the value and index carried on, and PROD's sum.
#[derive(Clone, Copy, Debug, Default)]
struct Lane5 {
    value: u64,
    index: u64,
    prod: u64,
}

/// Stage 4: the lanes and the control carried on.
#[derive(Clone, Copy, Debug, Default)]
struct Stage4 {
    ctl: Control,
    lane: [Lane4; MAX_LANES],
    fp_out: [AluLaneOut; MAX_LANES],
}

/// Stage 5: the lanes and the control carried on.
#[derive(Clone, Copy, Debug, Default)]
struct Stage5 {
    ctl: Control,
    lane: [Lane5; MAX_LANES],
    fp_out: [AluLaneOut; MAX_LANES],
}

fn lane2(d: Decode, l: &AluLaneIn) -> Lane2 {
    let (av, bv) = (l.a, l.b);
    // Flipping the sign bit maps two's complement order onto unsigned order.
    let (ak, bk) = (av ^ d.sflip, bv ^ d.sflip);
    Lane2 {
        av,
        bv,
        ai: l.ai,
        bi: l.bi,
        a_gt: ak > bk,
        a_lt: ak < bk,
        bi_lt_ai: l.bi < l.ai,
        sum: av.wrapping_add(bv),
        at: av != 0,
        bt: bv != 0,
        p: partial_products(av, bv),
    }
}

fn lane3(op: u64, l: &Lane2) -> Lane3 {
    let other = match AluOp::from_code(op & 0xF) {
        Some(AluOp::Sum) => l.sum,
        Some(AluOp::LAnd) => (l.at & l.bt) as u64,
        Some(AluOp::LOr) => (l.at | l.bt) as u64,
        Some(AluOp::LXor) => (l.at ^ l.bt) as u64,
        Some(AluOp::BAnd) => l.av & l.bv,
        Some(AluOp::BOr) => l.av | l.bv,
        Some(AluOp::BXor) => l.av ^ l.bv,
        _ => 0,
    };
    Lane3 {
        a_gt: l.a_gt,
        a_lt: l.a_lt,
        bi_lt_ai: l.bi_lt_ai,
        av: l.av,
        bv: l.bv,
        ai: l.ai,
        bi: l.bi,
        other,
        p: l.p,
    }
}

fn lane4(op: u64, l: &Lane3) -> Lane4 {
    let imin = if l.bi_lt_ai { l.bi } else { l.ai };
    let (value, index) = match AluOp::from_code(op & 0xF) {
        Some(AluOp::Max) => (if l.a_lt { l.bv } else { l.av }, 0),
        Some(AluOp::Min) => (if l.a_gt { l.bv } else { l.av }, 0),
        Some(AluOp::MaxLoc) if l.a_gt => (l.av, l.ai),
        Some(AluOp::MaxLoc) if l.a_lt => (l.bv, l.bi),
        Some(AluOp::MinLoc) if l.a_lt => (l.av, l.ai),
        Some(AluOp::MinLoc) if l.a_gt => (l.bv, l.bi),
        Some(AluOp::MaxLoc | AluOp::MinLoc) => (l.av, imin),
        // PROD and the reserved codes give 0 here; the ops without a compare, `other`.
        _ => (l.other, 0),
    };
    Lane4 {
        value,
        index,
        rows: carry_save_rows(&l.p),
    }
}

fn lane5(l: &Lane4) -> Lane5 {
    let (ps, pc) = carry_save_finish(&l.rows);
    Lane5 {
        value: l.value,
        index: l.index,
        prod: ps.wrapping_add(pc),
    }
}

fn lane_out(is_prod: bool, is32: bool, l: &Lane5) -> AluLaneOut {
    let v = if is_prod { l.prod } else { l.value };
    // SUM and PROD carry out of bit 31; the mask keeps a 32-bit result zero-extended.
    let wmask = if is32 { 0xFFFF_FFFF } else { u64::MAX };
    AluLaneOut {
        r: v & wmask,
        ri: l.index,
    }
}

/// The cycle model of a `lanes`-lane block.
#[derive(Clone, Debug)]
pub struct ReduceAluModel {
    p: ReduceAluParams,
    lanes: usize,
    s1: Stage1,
    s2: Stage2,
    s3: Stage3,
    s4: Stage4,
    s5: Stage5,
    /// The output registers of stage 6.
    q: ReduceAluOut,
    /// The tail (`fp = 1`): `FP_LATENCY - LATENCY` more registers after `q` on every output,
    /// the oldest (the one on the outputs) first; empty without the floating-point types.
    tail: VecDeque<ReduceAluOut>,
}

impl ReduceAluModel {
    /// A model in its reset state.
    pub fn new(p: ReduceAluParams) -> Self {
        Self {
            p,
            lanes: p.lanes.min(MAX_LANES),
            s1: Stage1::default(),
            s2: Stage2::default(),
            s3: Stage3::default(),
            s4: Stage4::default(),
            s5: Stage5::default(),
            q: ReduceAluOut::default(),
            tail: vec![ReduceAluOut::default(); p.extra_stages()].into(),
        }
    }

    /// The outputs: the last register, `q` or the tail's last.
    fn outputs(&self) -> ReduceAluOut {
        self.tail.front().copied().unwrap_or(self.q)
    }

    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// One clock cycle: returns the outputs (the registers, before the edge), then applies the
    /// edge with inputs `i`: every stage loads from the one before it.
    pub fn step(&mut self, i: &ReduceAluIn) -> ReduceAluOut {
        let out = self.outputs();
        if i.reset {
            *self = Self::new(self.p);
            return out;
        }
        let out_ctl = self.s5.ctl;
        let mut q = ReduceAluOut {
            out_valid: out_ctl.valid,
            err: out_ctl.err,
            ..Default::default()
        };
        let mut s5 = Stage5 {
            ctl: self.s4.ctl,
            fp_out: self.s4.fp_out,
            ..Default::default()
        };
        let mut s4 = Stage4 {
            ctl: self.s3.ctl,
            fp_out: self.s3.fp_out,
            ..Default::default()
        };
        let mut s3 = Stage3 {
            ctl: Control {
                valid: self.s2.valid,
                err: self.s2.err,
                is_prod: self.s2.op == AluOp::Prod.code(),
                is32: self.s2.is32,
                fp: self.s2.fp,
            },
            op: self.s2.op,
            fp_out: self.s2.fp_out,
            ..Default::default()
        };
        let d = decode(self.s1.dtype);
        let fp = self.s1.dtype & 4 != 0;
        // `err`: a reserved code, or an operation the block does not compute on a
        // floating-point type (any, without them; the logical and bitwise ones, with them).
        let built = super::builds_code(self.p.fp_mask(), self.s1.dtype);
        let fp_refused = fp && (!built || self.s1.op > AluOp::Prod.code());
        let mut s2 = Stage2 {
            valid: self.s1.valid,
            err: self.s1.valid && (super::is_reserved_op(self.s1.op) || fp_refused),
            op: self.s1.op,
            is32: d.wmask == 0xFFFF_FFFF,
            fp,
            ..Default::default()
        };
        let in_wmask = decode(i.dtype & 3).wmask;
        let mut s1 = Stage1 {
            valid: i.in_valid,
            op: i.op & 0xF,
            dtype: i.dtype & 7,
            ..Default::default()
        };
        for k in 0..self.lanes {
            q.set_lane(
                k,
                if out_ctl.fp {
                    self.s5.fp_out[k]
                } else {
                    lane_out(out_ctl.is_prod, out_ctl.is32, &self.s5.lane[k])
                },
            );
            s2.fp_out[k] = fp_lane(built, self.s1.op, self.s1.dtype, &self.s1.lane[k]);
            s5.lane[k] = lane5(&self.s4.lane[k]);
            s4.lane[k] = lane4(self.s3.op, &self.s3.lane[k]);
            s3.lane[k] = lane3(self.s2.op, &self.s2.lane[k]);
            s2.lane[k] = lane2(d, &self.s1.lane[k]);
            let l = i.lane(k);
            s1.lane[k] = AluLaneIn {
                a: l.a & in_wmask,
                b: l.b & in_wmask,
                ..l
            };
        }
        if !self.tail.is_empty() {
            self.tail.pop_front();
            self.tail.push_back(self.q);
        }
        (self.q, self.s5, self.s4, self.s3, self.s2, self.s1) = (q, s5, s4, s3, s2, s1);
        out
    }
}

impl CycleSim for ReduceAluModel {
    type In = ReduceAluIn;
    type Out = ReduceAluOut;
    fn step(&mut self, i: &ReduceAluIn) -> ReduceAluOut {
        ReduceAluModel::step(self, i)
    }
    fn peek(&mut self) -> ReduceAluOut {
        self.outputs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64: a tiny fixed-seed generator, enough for test vectors (no dependency).
    struct SplitMix(u64);
    impl SplitMix {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
    }

    const EDGES: [u64; 14] = [
        0,
        1,
        2,
        0xFFFF,
        0x1_0000,
        0xFFFF_FFFF,
        0x1_0000_0000,
        0x7FFF_FFFF,
        0x8000_0000,
        0x7FFF_FFFF_FFFF_FFFF,
        0x8000_0000_0000_0000,
        0xFFFF_0000_FFFF_0000,
        u64::MAX - 1,
        u64::MAX,
    ];

    #[test]
    fn mul64_lo_matches_wrapping_mul() {
        for &a in &EDGES {
            for &b in &EDGES {
                assert_eq!(
                    mul64_lo_from_16x16(a, b),
                    a.wrapping_mul(b),
                    "a={a:#x} b={b:#x}"
                );
            }
        }
        const SEED: u64 = 0x00A1_0001;
        let mut rng = SplitMix(SEED);
        for n in 0..200_000 {
            let (a, b) = (rng.next(), rng.next());
            // Also narrow operands, where most digits are zero.
            let shift = (n % 64) as u32;
            for (a, b) in [(a, b), (a >> shift, b >> (63 - shift))] {
                assert_eq!(
                    mul64_lo_from_16x16(a, b),
                    a.wrapping_mul(b),
                    "seed {SEED:#x}, pair #{n}: a={a:#x} b={b:#x}"
                );
            }
        }
    }

    #[test]
    fn decode_follows_the_dtype_bits() {
        assert_eq!(
            decode(0),
            Decode {
                wmask: 0xFFFF_FFFF,
                sflip: 0x8000_0000
            }
        );
        assert_eq!(
            decode(1),
            Decode {
                wmask: 0xFFFF_FFFF,
                sflip: 0
            }
        );
        assert_eq!(
            decode(2),
            Decode {
                wmask: u64::MAX,
                sflip: 0x8000_0000_0000_0000
            }
        );
        assert_eq!(
            decode(3),
            Decode {
                wmask: u64::MAX,
                sflip: 0
            }
        );
    }

    fn run(m: &mut ReduceAluModel, op: u64, dtype: u64, lanes: &[AluLaneIn]) -> ReduceAluOut {
        let mut i = ReduceAluIn {
            in_valid: true,
            op,
            dtype,
            ..Default::default()
        };
        for (k, l) in lanes.iter().enumerate() {
            i.set_lane(k, *l);
        }
        m.step(&i);
        for _ in 1..m.p.latency() {
            m.step(&ReduceAluIn::default());
        }
        m.step(&ReduceAluIn::default())
    }

    fn pair(a: u64, ai: u64, b: u64, bi: u64) -> AluLaneIn {
        AluLaneIn { a, ai, b, bi }
    }

    /// A few hand-checked results through the registers (the full tables are the harness's).
    #[test]
    fn registered_results_by_hand() {
        let mut m = ReduceAluModel::new(ReduceAluParams {
            lanes: 2,
            fp: 0,
            ..Default::default()
        });
        // MINLOC i32: -1 < 5 in lane 0; a tie in lane 1 takes the lower index.
        let o = run(
            &mut m,
            3,
            0,
            &[pair(0xFFFF_FFFF, 4, 5, 2), pair(9, 8, 9, 3)],
        );
        assert!(o.out_valid && !o.err);
        assert_eq!(
            o.lane(0),
            AluLaneOut {
                r: 0xFFFF_FFFF,
                ri: 4
            }
        );
        assert_eq!(o.lane(1), AluLaneOut { r: 9, ri: 3 });
        assert_eq!(o.lane(2), AluLaneOut::default(), "beyond the block's lanes");
        // PROD u32 wraps; PROD u64 keeps 64 bits.
        let o = run(&mut m, 5, 1, &[pair(0xFFFF_FFFF, 1, 2, 1)]);
        assert_eq!(
            o.lane(0),
            AluLaneOut {
                r: 0xFFFF_FFFE,
                ri: 0
            }
        );
        let o = run(&mut m, 5, 3, &[pair(0xFFFF_FFFF, 1, 2, 1)]);
        assert_eq!(o.r[0], 0x1_FFFF_FFFE);
        // A reserved op: value 0, err.
        let o = run(&mut m, 13, 3, &[pair(1, 1, 1, 1)]);
        assert!(o.out_valid && o.err);
        assert_eq!(o.lane(0), AluLaneOut::default());
    }

    /// The answer shows exactly six cycles after the operation, and one operation per
    /// cycle flows; a reset clears every stage.
    #[test]
    fn latency_six_back_to_back_and_reset() {
        assert_eq!(super::super::LATENCY, 6);
        let mut m = ReduceAluModel::new(ReduceAluParams {
            lanes: 1,
            fp: 0,
            ..Default::default()
        });
        let op = |a: u64, b: u64| {
            let mut i = ReduceAluIn {
                in_valid: true,
                op: AluOp::Sum.code(),
                dtype: 3,
                ..Default::default()
            };
            i.set_lane(0, pair(a, 0, b, 0));
            i
        };
        // Operations 10+1, 20+2, 30+3 in cycles 0, 1, 2: answers in cycles 6, 7, 8.
        let mut seen = vec![];
        for t in 0..10u64 {
            let i = if t < 3 {
                op(10 * (t + 1), t + 1)
            } else {
                ReduceAluIn::default()
            };
            let o = m.step(&i);
            seen.push((o.out_valid, o.r[0]));
        }
        assert_eq!(
            seen,
            [
                (false, 0),
                (false, 0),
                (false, 0),
                (false, 0),
                (false, 0),
                (false, 0),
                (true, 11),
                (true, 22),
                (true, 33),
                (false, 0)
            ]
        );
        // An operation five cycles before a reset is lost; the outputs stay zero after it.
        m.step(&op(2, 3));
        m.step(&ReduceAluIn::default());
        m.step(&ReduceAluIn::default());
        m.step(&ReduceAluIn::default());
        m.step(&ReduceAluIn::default());
        m.step(&ReduceAluIn {
            reset: true,
            ..op(4, 4)
        });
        for t in 0..7 {
            assert_eq!(
                m.step(&ReduceAluIn::default()),
                ReduceAluOut::default(),
                "cycle {t} after the reset edge"
            );
        }
        // Results load without in_valid; out_valid stays low.
        m.step(&ReduceAluIn {
            in_valid: false,
            ..op(2, 3)
        });
        for _ in 1..6 {
            m.step(&ReduceAluIn::default());
        }
        let o = m.step(&ReduceAluIn::default());
        assert!(!o.out_valid && !o.err);
        assert_eq!(o.r[0], 5);
    }

    /// A block with the floating-point types answers every operation, integer ones too,
    /// exactly `latency()` cycles after it (`FP_LATENCY`, the spec's per-build value), one per
    /// cycle; a reset clears the tail too. The results are worked out by hand.
    #[test]
    fn fp_build_answers_after_its_latency_back_to_back_and_reset() {
        let p = ReduceAluParams {
            lanes: 2,
            fp: 1,
            ..Default::default()
        };
        let lat = p.latency();
        assert_eq!(lat, super::super::FP_LATENCY);
        let mut m = ReduceAluModel::new(p);
        let op = |op: AluOp, dtype: u64, a: u64, b: u64| {
            let mut i = ReduceAluIn {
                in_valid: true,
                op: op.code(),
                dtype,
                ..Default::default()
            };
            i.set_lane(0, pair(a, 0, b, 0));
            i.set_lane(1, pair(b, 0, a, 0));
            i
        };
        // Cycle 0: f64 1.5 + 2.25 = 3.75; cycle 1: u64 20 + 2 = 22; cycle 2: f32 2 × 3 = 6.
        let offered = [
            op(AluOp::Sum, 7, 0x3FF8_0000_0000_0000, 0x4002_0000_0000_0000),
            op(AluOp::Sum, 3, 20, 2),
            op(AluOp::Prod, 6, 0x4000_0000, 0x4040_0000),
        ];
        let answers = [0x400E_0000_0000_0000, 22, 0x40C0_0000];
        for t in 0..lat + 5 {
            let i = offered.get(t).copied().unwrap_or_default();
            let o = m.step(&i);
            let want = t.checked_sub(lat).and_then(|k| answers.get(k));
            match want {
                Some(&r) => {
                    assert!(o.out_valid && !o.err, "cycle {t}");
                    assert_eq!((o.r[0], o.r[1], o.ri[0]), (r, r, 0), "cycle {t}");
                }
                None => assert_eq!(o, ReduceAluOut::default(), "cycle {t}"),
            }
        }
        // An operation `lat - 1` cycles before a reset is lost; the outputs are zero for `lat`
        // cycles after it (and after).
        m.step(&offered[1]);
        for _ in 1..lat - 1 {
            m.step(&ReduceAluIn::default());
        }
        m.step(&ReduceAluIn {
            reset: true,
            ..offered[0]
        });
        for t in 0..lat + 1 {
            assert_eq!(
                m.step(&ReduceAluIn::default()),
                ReduceAluOut::default(),
                "cycle {t} after the reset edge"
            );
        }
        // And the block works on after the reset: the u64 SUM again.
        m.step(&offered[1]);
        for _ in 1..lat {
            assert!(!m.step(&ReduceAluIn::default()).out_valid);
        }
        let o = m.step(&ReduceAluIn::default());
        assert!(o.out_valid);
        assert_eq!(o.r[0], 22);
    }

    /// One 3:2 adder by hand (the tree as a whole is `mul64_lo_matches_wrapping_mul`'s).
    #[test]
    fn csa_keeps_the_sum() {
        // 3 + 5 + 6 = 14: no bit position has an odd count, and each has two ones.
        assert_eq!(csa(0b011, 0b101, 0b110), (0b000, 0b1110));
        // A carry out of bit 63 wraps away: 2^63 · 3 = 2^63 modulo 2^64.
        assert_eq!(csa(1 << 63, 1 << 63, 1 << 63), (1 << 63, 0));
    }
}
