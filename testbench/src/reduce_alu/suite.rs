//! The reduction ALU's directed suite: the edge-value table.
//!
//! Every operation code (the twelve operations and the four reserved codes) × every dtype ×
//! every ordered pair of that dtype's edge values, each pair with an index pair from
//! [`INDEX_PAIRS`] (ties on the lower and on the higher index, equal indices, the unsigned
//! extremes). Expectations come from the golden function (`netcoll_models::reduce_alu::golden`, whose
//! own tests are hand-written), through [`super::golden_next`].
//!
//! The table is laid out as one cycle-level sequence for a `lanes`-lane block ([`cycles`]):
//! 1. back to back, one operation per cycle, consecutive pairs of one (op, dtype) side by side
//!    in the lanes; in the middle an operation is offered in a reset cycle (it must be lost,
//!    with the `latency - 1` before it still in the pipeline, and the outputs for `latency`
//!    cycles after it all zero) and then offered again; `latency` is the block's
//!    ([`ReduceAluParams::latency`]: 6, or `FP_LATENCY` with the floating-point types);
//! 2. the table again with every pair moved one lane up, and 0–2 idle cycles before each
//!    operation; idle cycles keep `op`/`dtype` and offer swapped operands with `in_valid` low,
//!    which the result registers load anyway (out_valid low, err low).
//!
//! [`run`] checks every output of every cycle (but the first, before any edge): in cycle `t`
//! the golden answer to the inputs of cycle `t - latency`.

use super::{describe, first_difference, AluSim};
use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::reduce_alu::fp::FpType;
use netcoll_models::reduce_alu::golden::golden_next;
use netcoll_models::reduce_alu::{AluLaneIn, Dtype, ReduceAluIn, ReduceAluOut, ReduceAluParams};

/// Edge values of the 32-bit types: signs and limits, 16-bit digit edges, and values with
/// garbage in the upper half (which must be ignored).
pub const EDGES_32: [u64; 11] = [
    0,
    1,
    0xFFFF_FFFF,           // -1 / u32::MAX
    0x8000_0000,           // i32::MIN
    0x7FFF_FFFF,           // i32::MAX
    0xFFFF,                // a full low digit
    0x1_0000,              // the second digit
    0xDEAD_BEEF,           // negative as i32
    0xA5A5_A5A5_0000_0000, // 0 at the element width
    0xFFFF_FFFF_8000_0000, // i32::MIN with ones above
    0x1234_5678_0000_0003, // 3 with garbage above
];

/// Edge values of the 64-bit types.
pub const EDGES_64: [u64; 11] = [
    0,
    1,
    u64::MAX,              // -1
    0x8000_0000_0000_0000, // i64::MIN
    0x7FFF_FFFF_FFFF_FFFF, // i64::MAX
    0xFFFF_FFFF,           // a carry into bit 32 away
    0x1_0000_0000,
    0x8000_0000, // the 32-bit sign bit is not a 64-bit sign
    0xFFFF_0000_FFFF_0000,
    0x0123_4567_89AB_CDEF,
    0xFFFF_FFFF_FFFF_FFFE, // -2
];

/// (ai, bi) pairs, used in turn.
pub const INDEX_PAIRS: [(u64, u64); 7] = [
    (3, 7),
    (7, 3),
    (5, 5),
    (0, u64::MAX),
    (u64::MAX, 0),
    (0x8000_0000_0000_0000, 0x7FFF_FFFF_FFFF_FFFF),
    (1, 0),
];

/// The edge values of floating-point type `t`, from its fields: the zeros, the smallest and
/// largest subnormals, the smallest normal, the largest finite, 1 and the numbers a unit in
/// the last place above it, half a unit (1 + it is a tie that rounds to even) and just above
/// it, the infinities, the canonical NaN, a signalling NaN and a negative one, and 1 with
/// garbage above the element (for the narrower types).
pub fn fp_edges(t: FpType) -> Vec<u64> {
    let f = t.fraction_bits();
    let sign = t.sign_bit();
    let one = (t.bias() as u64) << f;
    let half_ulp = (t.bias() as u64 - f as u64 - 1) << f;
    let mut e = vec![
        0,
        sign,
        1,
        sign | 1,
        (1 << f) - 1,
        1 << f,
        sign | 1 << f,
        t.inf() - 1,
        sign | (t.inf() - 1),
        one,
        sign | one,
        one + 1,
        one + 3,
        half_ulp,
        half_ulp + 1,
        t.inf(),
        sign | t.inf(),
        t.canonical_nan(),
        t.inf() | 1,
        sign | t.canonical_nan() | 5,
    ];
    if t.bits() < 64 {
        e.push(0xA5A5_A5A5_A5A5_0000 & !t.mask() | one);
    }
    e
}

/// The edge values of `dtype`.
pub fn edges(dtype: Dtype) -> Vec<u64> {
    match (dtype.fp(), dtype.bits()) {
        (Some(t), _) => fp_edges(t),
        (None, 32) => EDGES_32.to_vec(),
        (None, _) => EDGES_64.to_vec(),
    }
}

/// One (op code, dtype) row of the table with its operand pairs.
#[derive(Clone, Debug)]
pub struct Row {
    pub op: u64,
    pub dtype: Dtype,
    pub pairs: Vec<AluLaneIn>,
}

/// The edge-value table: op codes 0..16 × dtypes × ordered edge pairs.
pub fn table() -> Vec<Row> {
    let mut rows = vec![];
    for op in 0..16u64 {
        for &dtype in Dtype::ALL {
            let e = edges(dtype);
            let mut pairs = vec![];
            for &a in &e {
                for &b in &e {
                    let (ai, bi) = INDEX_PAIRS[pairs.len() % INDEX_PAIRS.len()];
                    pairs.push(AluLaneIn { a, ai, b, bi });
                }
            }
            rows.push(Row { op, dtype, pairs });
        }
    }
    rows
}

/// One cycle of the suite: the inputs, and the outputs expected in that cycle (before its
/// edge); `None` before the first edge.
#[derive(Clone, Debug)]
pub struct Cycle {
    pub input: ReduceAluIn,
    pub expect: Option<ReduceAluOut>,
}

/// The operations of `row` for a `lanes`-lane block: consecutive pairs side by side, the
/// last operation filled up from the row's start; `shift` moves every pair that many lanes up.
fn operations(row: &Row, lanes: usize, shift: usize) -> Vec<ReduceAluIn> {
    let n = row.pairs.len();
    let ops = n.div_ceil(lanes);
    (0..ops)
        .map(|c| {
            let mut i = ReduceAluIn {
                reset: false,
                in_valid: true,
                op: row.op,
                dtype: row.dtype.code(),
                ..Default::default()
            };
            for k in 0..lanes {
                let lane = (k + shift) % lanes;
                i.set_lane(lane, row.pairs[(c * lanes + k) % n]);
            }
            i
        })
        .collect()
}

/// The suite for block `p`, with expectations.
pub fn cycles(p: ReduceAluParams) -> Vec<Cycle> {
    let lanes = p.lanes;
    let rows = table();
    let mut inputs = vec![];
    let reset = ReduceAluIn {
        reset: true,
        ..Default::default()
    };
    inputs.extend([reset, reset]);

    // 1. Back to back, with a lost operation in a reset cycle half-way.
    let phase1: Vec<ReduceAluIn> = rows.iter().flat_map(|r| operations(r, lanes, 0)).collect();
    let half = phase1.len() / 2;
    for (n, i) in phase1.iter().enumerate() {
        if n == half {
            inputs.push(ReduceAluIn { reset: true, ..*i });
        }
        inputs.push(*i);
    }

    // 2. Pairs one lane up, idle cycles in between that still load the result registers.
    let phase2: Vec<ReduceAluIn> = rows.iter().flat_map(|r| operations(r, lanes, 1)).collect();
    for (n, i) in phase2.iter().enumerate() {
        for _ in 0..n % 3 {
            let mut idle = ReduceAluIn {
                in_valid: false,
                ..*i
            };
            for k in 0..lanes {
                let l = idle.lane(k);
                idle.set_lane(
                    k,
                    AluLaneIn {
                        a: l.b,
                        ai: l.bi,
                        b: l.a,
                        bi: l.ai,
                    },
                );
            }
            inputs.push(idle);
        }
        inputs.push(*i);
    }
    // One more edge, so the last operation's result is seen.
    inputs.push(ReduceAluIn::default());

    // `latency` more edges, so the last operation's result is seen.
    let latency = p.latency();
    inputs.extend(std::iter::repeat_n(ReduceAluIn::default(), latency - 1));

    // The answer in cycle t is the golden function of the inputs of cycle t - latency, unless
    // a reset edge came in between (it clears the pipeline: all zero).
    let mut out = Vec::with_capacity(inputs.len());
    for (t, i) in inputs.iter().enumerate() {
        let expect = match t {
            0 => None,
            _ if inputs[t.saturating_sub(latency)..t].iter().any(|i| i.reset) => {
                Some(ReduceAluOut::default())
            }
            _ => Some(golden_next(&inputs[t - latency], &p)),
        };
        out.push(Cycle { input: *i, expect });
    }
    out
}

/// What a suite run checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Cycles run.
    pub cycles: u64,
    /// Valid operations whose results were checked.
    pub operations: u64,
    /// Lane results (value and index) of valid operations checked.
    pub lane_results: u64,
}

/// Runs `suite` on `dut`, comparing every output every cycle; on failure, the first mismatches
/// (cycle, signal, expected, actual, and the inputs that caused them).
pub fn run(dut: &mut AluSim, p: ReduceAluParams, suite: &[Cycle]) -> Result<Report, String> {
    let lanes = p.lanes;
    let mut report = Report::default();
    let mut failures = vec![];
    let mut failing_cycles = 0u64;
    for (t, c) in suite.iter().enumerate() {
        let got = dut.step(&c.input);
        report.cycles += 1;
        let Some(want) = c.expect else { continue };
        if want.out_valid {
            report.operations += 1;
            report.lane_results += lanes as u64;
        }
        if let Some((signal, e, a)) = first_difference(p, &want, &got) {
            failing_cycles += 1;
            if failures.len() < 10 {
                failures.push(format!(
                    "cycle {t}: signal {signal} expected {e:#x}, actual {a:#x} (inputs of cycle {}: {})",
                    t.saturating_sub(p.latency()),
                    describe(&suite[t.saturating_sub(p.latency())].input, lanes)
                ));
            }
        }
    }
    if failures.is_empty() {
        Ok(report)
    } else {
        Err(format!(
            "{lanes} lane(s): {failing_cycles} of {} cycles differ; the first:\n{}",
            report.cycles,
            failures.join("\n")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const LANES_VALUES: [usize; 3] = [1, 2, 4];
    use std::collections::{BTreeMap, BTreeSet};

    /// Every (op code, dtype) is offered, and every edge pair in two different lanes (when
    /// there are two).
    #[test]
    fn the_suite_covers_the_table_in_two_lanes() {
        for lanes in LANES_VALUES {
            let suite = cycles(super::super::params(lanes, true));
            let mut lanes_of = BTreeMap::<(u64, u64, u64, u64), BTreeSet<usize>>::new();
            for c in suite.iter().filter(|c| c.input.in_valid && !c.input.reset) {
                for (k, l) in (0..lanes).map(|k| (k, c.input.lane(k))) {
                    lanes_of
                        .entry((c.input.op, c.input.dtype, l.a, l.b))
                        .or_default()
                        .insert(k);
                }
            }
            for row in table() {
                for p in &row.pairs {
                    let n = lanes_of
                        .get(&(row.op, row.dtype.code(), p.a, p.b))
                        .map_or(0, |s| s.len());
                    assert!(
                        n >= lanes.min(2),
                        "{lanes} lanes: op {} {} pair ({:#x}, {:#x}) in {n} lane(s)",
                        row.op,
                        row.dtype,
                        p.a,
                        p.b
                    );
                }
            }
            assert!(suite.iter().any(|c| c.input.reset && c.input.in_valid));
            assert!(suite.iter().any(|c| !c.input.in_valid && c.input.a[0] != 0));
        }
    }
}
