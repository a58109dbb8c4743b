//! Cycle model of the reduction ALU: one [`ReduceAluModel::step`] per clock, the same ports as
//! the RTL ([`ReduceAluIn`], [`ReduceAluOut`]) and the same arithmetic, bit for bit: a width mask, a sign-bit flip
//! before an unsigned compare, and a 64-bit product built from 16 × 16 multiplies. It does not
//! call the golden reference; the harness compares the two.

use super::{AluLaneIn, AluLaneOut, AluOp, ReduceAluIn, ReduceAluOut, ReduceAluParams};
use crate::kit::cycle::CycleSim;

/// The low 64 bits of `a * b` from 16 × 16 → 32-bit multiplies, as the RTL computes it.
///
/// With 16-bit digits `a = Σ a_i 2^(16 i)` and `b = Σ b_j 2^(16 j)`, the product is
/// `Σ a_i b_j 2^(16 (i + j))`; the terms with `i + j >= 4` are multiples of 2^64 and vanish, so
/// the ten partial products with `i + j <= 3` suffice.
pub fn mul64_lo_from_16x16(a: u64, b: u64) -> u64 {
    let digit = |x: u64, k: u32| ((x >> (16 * k)) & 0xFFFF) as u32;
    let mut acc = 0u64;
    for i in 0..4 {
        for j in 0..4 - i {
            // A 16 × 16 product fits in 32 bits: (2^16 - 1)^2 < 2^32.
            let partial = digit(a, i) * digit(b, j);
            // Bits shifted past bit 63 are the multiples of 2^64 that wrap away.
            acc = acc.wrapping_add((partial as u64) << (16 * (i + j)));
        }
    }
    acc
}

/// The shared decode of `dtype` (its port bits): the element mask and the sign bit to flip.
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

/// One lane's result from its operands: what the lane's result registers load.
fn lane(op: u64, d: Decode, l: &AluLaneIn) -> AluLaneOut {
    let av = l.a & d.wmask;
    let bv = l.b & d.wmask;
    // Flipping the sign bit maps two's complement order onto unsigned order.
    let ak = av ^ d.sflip;
    let bk = bv ^ d.sflip;
    let a_gt = ak > bk;
    let a_lt = ak < bk;
    let at = av != 0;
    let bt = bv != 0;
    let imin = if l.bi < l.ai { l.bi } else { l.ai };
    let (v, i) = match AluOp::from_code(op & 0xF) {
        None => (0, 0),
        Some(AluOp::Max) => (if a_lt { bv } else { av }, 0),
        Some(AluOp::Min) => (if a_gt { bv } else { av }, 0),
        Some(AluOp::MaxLoc) if a_gt => (av, l.ai),
        Some(AluOp::MaxLoc) if a_lt => (bv, l.bi),
        Some(AluOp::MinLoc) if a_lt => (av, l.ai),
        Some(AluOp::MinLoc) if a_gt => (bv, l.bi),
        Some(AluOp::MaxLoc | AluOp::MinLoc) => (av, imin),
        Some(AluOp::Sum) => (av.wrapping_add(bv), 0),
        Some(AluOp::Prod) => (mul64_lo_from_16x16(av, bv), 0),
        Some(AluOp::LAnd) => ((at & bt) as u64, 0),
        Some(AluOp::LOr) => ((at | bt) as u64, 0),
        Some(AluOp::LXor) => ((at ^ bt) as u64, 0),
        Some(AluOp::BAnd) => (av & bv, 0),
        Some(AluOp::BOr) => (av | bv, 0),
        Some(AluOp::BXor) => (av ^ bv, 0),
    };
    // SUM and PROD carry out of bit 31; the mask keeps a 32-bit result zero-extended.
    AluLaneOut {
        r: v & d.wmask,
        ri: i,
    }
}

/// The cycle model of a `lanes`-lane block.
#[derive(Clone, Debug)]
pub struct ReduceAluModel {
    lanes: usize,
    /// The last cycle's inputs (for [`CycleSim::peek`]).
    last: ReduceAluIn,
    /// The output registers.
    q: ReduceAluOut,
}

impl ReduceAluModel {
    /// A model in its reset state.
    pub fn new(p: ReduceAluParams) -> Self {
        Self {
            lanes: p.lanes.min(super::MAX_LANES),
            last: ReduceAluIn::default(),
            q: ReduceAluOut::default(),
        }
    }

    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// One clock cycle: returns the outputs (the registers, before the edge), then applies the
    /// edge with inputs `i`.
    pub fn step(&mut self, i: &ReduceAluIn) -> ReduceAluOut {
        let out = self.q;
        self.last = *i;
        self.q = if i.reset {
            ReduceAluOut::default()
        } else {
            let d = decode(i.dtype & 3);
            let mut n = ReduceAluOut {
                out_valid: i.in_valid,
                err: i.in_valid && super::is_reserved_op(i.op),
                ..Default::default()
            };
            for k in 0..self.lanes {
                n.set_lane(k, lane(i.op & 0xF, d, &i.lane(k)));
            }
            n
        };
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
        self.q
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
        m.step(&ReduceAluIn::default())
    }

    fn pair(a: u64, ai: u64, b: u64, bi: u64) -> AluLaneIn {
        AluLaneIn { a, ai, b, bi }
    }

    /// A few hand-checked results through the registers (the full tables are the harness's).
    #[test]
    fn registered_results_by_hand() {
        let mut m = ReduceAluModel::new(ReduceAluParams { lanes: 2 });
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

    #[test]
    fn latency_one_and_reset() {
        let mut m = ReduceAluModel::new(ReduceAluParams { lanes: 1 });
        let mut i = ReduceAluIn {
            in_valid: true,
            op: 4,
            dtype: 3,
            ..Default::default()
        };
        i.set_lane(0, pair(2, 0, 3, 0));
        assert_eq!(
            m.step(&i),
            ReduceAluOut::default(),
            "nothing before the first edge"
        );
        let o = m.step(&ReduceAluIn { reset: true, ..i });
        assert!(o.out_valid);
        assert_eq!(o.r[0], 5);
        assert_eq!(
            m.step(&ReduceAluIn::default()),
            ReduceAluOut::default(),
            "reset wins"
        );
        // Results load without in_valid; out_valid stays low.
        m.step(&ReduceAluIn {
            in_valid: false,
            ..i
        });
        let o = m.step(&ReduceAluIn::default());
        assert!(!o.out_valid && !o.err);
        assert_eq!(o.r[0], 5);
    }
}
