//! The switch engine's directed conformance suite.
//!
//! Every case is a list of operations, each with the answer a reader of seed `000_…` and of
//! `netcoll_models::switch_engine` expects, written out by hand. [`run_case`] runs a case on any
//! [`EngineDut`], so the same cases check the golden reference, the cycle model, the rust-hdl
//! RTL and the Verilog under Verilator.

use super::{write_entry, EngineDut, Level, Timed};
use netcoll_models::reduce_alu::{AluOp, Dtype};
use netcoll_models::switch_engine::golden::{CfgCmd, Op, OutPacket, PacketResult, Response};
use netcoll_models::switch_engine::{
    CfgOp, CsmState, GroupState, Opcode, Packet, PayloadMeta, SwitchEngineParams, TableEntry,
    Verdict,
};

use CsmState::{Filling, Full, Idle};
use Opcode::{Exit, Full as FullOp, StatusReq, StatusRsp};

/// What one operation must answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// A packet's verdict, the group state after it (`csm`, `tid`, `fail`) and the packet sent.
    Pkt {
        verdict: Verdict,
        csm: CsmState,
        tid: u64,
        fail: bool,
        out: Option<(u64, u64, Opcode)>,
    },
    /// A `ReadEntry` / `Write` answer.
    Entry {
        entry: TableEntry,
        state: GroupState,
    },
    /// A rejected `Write`'s answer: the stored entry and state, `rsp_rejected` set.
    Rejected {
        entry: TableEntry,
        state: GroupState,
    },
    /// A `ReadCounter` answer.
    Counter(u64),
    /// Any configuration answer with all fields zero (`ClearCounters`).
    Empty,
}

/// A directed test case.
#[derive(Default)]
pub struct Case {
    pub name: &'static str,
    pub params: SwitchEngineParams,
    pub steps: Vec<(Timed, Expect)>,
    /// `out_ready` as a function of `now` (`None`: always high). With a pattern, the steps'
    /// `out`s are checked as one stream, in order, against the packets that left the queue.
    pub out_ready: Option<fn(u64) -> bool>,
    /// The retry timer's events: the `now` of the tick, the group and the group's TID (the
    /// FULL goes to the parent, `parent_hot`; the state is Full, not failed).
    pub retries: Vec<(u64, u64, u64, u64)>,
    /// The payloads of the output packets, in the order they leave (checked when not empty,
    /// one per output packet; a reducing engine's outputs are always checked as a stream).
    pub payloads: Vec<(PayloadMeta, Vec<u64>)>,
}

impl Case {
    /// The levels the case runs at: every level, but a reducing engine whose shape the RTL
    /// does not build (`netcoll_hdl::switch_engine::REDUCING_SHAPES`) on the golden reference
    /// and the cycle model only.
    pub fn runs_at(&self, level: Level) -> bool {
        matches!(level, Level::Golden | Level::Model)
            || netcoll_hdl::switch_engine::build(&self.params).is_some()
    }
}

fn t(op: Op) -> Timed {
    Timed { idle: 0, op }
}

fn pkt(port: u64, cgid: u64, tid: u64, op: u64) -> Op {
    Op::header(Packet {
        port,
        cgid,
        tid,
        op,
        ..Default::default()
    })
}

fn ok(csm: CsmState, tid: u64, out: Option<(u64, u64, Opcode)>) -> Expect {
    Expect::Pkt {
        verdict: Verdict::Ok,
        csm,
        tid,
        fail: false,
        out,
    }
}

fn drop(verdict: Verdict) -> Expect {
    Expect::Pkt {
        verdict,
        csm: Idle,
        tid: 0,
        fail: false,
        out: None,
    }
}

fn entry(parent: u64, children: u64, is_root: bool) -> TableEntry {
    TableEntry {
        valid: true,
        parent,
        children,
        is_root,
    }
}

fn written(parent: u64, children: u64, is_root: bool) -> Expect {
    Expect::Entry {
        entry: entry(parent, children, is_root),
        state: GroupState::default(),
    }
}

fn read(cgid: u64) -> Op {
    Op::Cfg(CfgCmd {
        op: CfgOp::ReadEntry,
        cgid,
        entry: TableEntry::default(),
        counter: 0,
        tid: 0,
    })
}

fn counter(i: u64) -> Op {
    Op::Cfg(CfgCmd {
        op: CfgOp::ReadCounter,
        cgid: 0,
        entry: TableEntry::default(),
        counter: i,
        tid: 0,
    })
}

fn write_at(cgid: u64, parent: u64, children: u64, is_root: bool, tid: u64) -> Op {
    Op::Cfg(CfgCmd {
        op: CfgOp::Write,
        cgid,
        entry: entry(parent, children, is_root),
        counter: 0,
        tid,
    })
}

fn verdict(verdict: Verdict, csm: CsmState, tid: u64, out: Option<(u64, u64, Opcode)>) -> Expect {
    Expect::Pkt {
        verdict,
        csm,
        tid,
        fail: false,
        out,
    }
}

fn state(csm: CsmState, tid: u64, reported: u64) -> GroupState {
    GroupState {
        csm,
        fail: false,
        tid,
        sent: 0,
        reported,
        ..GroupState::default()
    }
}

const F: u64 = 0; // FULL
const X: u64 = 1; // EXIT
const SQ: u64 = 2; // STATUS_REQ
const SR: u64 = 3; // STATUS_RSP

/// Every transition of the ratchet, at a root and at a non-root, with the table read back.
fn csm_transitions() -> Case {
    let s = |csm, tid, reported| GroupState {
        csm,
        fail: false,
        tid,
        sent: 0,
        reported,
        ..GroupState::default()
    };
    let steps = vec![
        // Root group 3, children on ports 0 and 1.
        (t(write_entry(3, 0, 0b0011, true)), written(0, 0b0011, true)),
        (t(pkt(0, 3, 0, F)), ok(Filling, 0, None)), // Idle -> Filling
        (
            t(read(3)),
            Expect::Entry {
                entry: entry(0, 0b0011, true),
                state: s(Filling, 0, 0b01),
            },
        ),
        // Filling -> Full -> Exiting -> Idle at the root: EXIT to both children, TID 0 -> 1.
        (t(pkt(1, 3, 0, F)), ok(Idle, 1, Some((0b0011, 0, Exit)))),
        (
            t(read(3)),
            Expect::Entry {
                entry: entry(0, 0b0011, true),
                state: s(Idle, 1, 0),
            },
        ),
        // Non-root group 5: parent on port 3, children on 1 and 2.
        (
            t(write_entry(5, 3, 0b0110, false)),
            written(3, 0b0110, false),
        ),
        (t(pkt(2, 5, 0, F)), ok(Filling, 0, None)),
        // Filling -> Full: tell the parent, wait.
        (t(pkt(1, 5, 0, F)), ok(Full, 0, Some((0b1000, 0, FullOp)))),
        (
            t(read(5)),
            Expect::Entry {
                entry: entry(3, 0b0110, false),
                state: s(Full, 0, 0b0110),
            },
        ),
        // Full -> Exiting -> Idle on the parent's EXIT: EXIT to the children, TID 0 -> 1.
        (t(pkt(3, 5, 0, X)), ok(Idle, 1, Some((0b0110, 0, Exit)))),
        (
            t(read(5)),
            Expect::Entry {
                entry: entry(3, 0b0110, false),
                state: s(Idle, 1, 0),
            },
        ),
        // A second transaction on the same group uses TID 1.
        (t(pkt(1, 5, 1, F)), ok(Filling, 1, None)),
        (t(pkt(2, 5, 1, F)), ok(Full, 1, Some((0b1000, 1, FullOp)))),
        (t(pkt(3, 5, 1, SR)), ok(Idle, 2, Some((0b0110, 1, Exit)))),
    ];
    Case {
        name: "csm_every_transition",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// All 16 (packet TID, group TID) pairs for a child's FULL: one group per pair (SMALL has 16).
fn tid_pairs_from_child() -> Case {
    let mut steps = vec![];
    for g in 0..4u64 {
        for tp in 0..4u64 {
            let cgid = g * 4 + tp;
            // A root with one child on port 2: every FULL completes a transaction.
            steps.push((
                t(write_entry(cgid, 0, 0b0100, true)),
                written(0, 0b0100, true),
            ));
            for k in 0..g {
                steps.push((
                    t(pkt(2, cgid, k, F)),
                    ok(Idle, k + 1, Some((0b0100, k, Exit))),
                ));
            }
            let want = match (tp + 4 - g) % 4 {
                0 => ok(Idle, (g + 1) % 4, Some((0b0100, tp, Exit))),
                3 => Expect::Pkt {
                    verdict: Verdict::Lag,
                    csm: Idle,
                    tid: g,
                    fail: false,
                    out: Some((0b0100, tp, StatusRsp)),
                },
                _ => Expect::Pkt {
                    verdict: Verdict::TidFail,
                    csm: Idle,
                    tid: g,
                    fail: true,
                    out: None,
                },
            };
            steps.push((t(pkt(2, cgid, tp, F)), want));
        }
    }
    Case {
        name: "tid_all_16_pairs_from_child",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// All 16 (packet TID, group TID) pairs for the parent's EXIT to a Full group.
fn tid_pairs_from_parent() -> Case {
    let mut steps = vec![];
    for g in 0..4u64 {
        for tp in 0..4u64 {
            let cgid = g * 4 + tp;
            // Parent on port 3, one child on port 1.
            steps.push((
                t(write_entry(cgid, 3, 0b0010, false)),
                written(3, 0b0010, false),
            ));
            for k in 0..g {
                steps.push((
                    t(pkt(1, cgid, k, F)),
                    ok(Full, k, Some((0b1000, k, FullOp))),
                ));
                steps.push((
                    t(pkt(3, cgid, k, X)),
                    ok(Idle, k + 1, Some((0b0010, k, Exit))),
                ));
            }
            steps.push((
                t(pkt(1, cgid, g, F)),
                ok(Full, g, Some((0b1000, g, FullOp))),
            ));
            let want = match (tp + 4 - g) % 4 {
                0 => ok(Idle, (g + 1) % 4, Some((0b0010, tp, Exit))),
                3 => Expect::Pkt {
                    verdict: Verdict::Stale,
                    csm: Full,
                    tid: g,
                    fail: false,
                    out: None,
                },
                _ => Expect::Pkt {
                    verdict: Verdict::TidFail,
                    csm: Full,
                    tid: g,
                    fail: true,
                    out: None,
                },
            };
            steps.push((t(pkt(3, cgid, tp, X)), want));
        }
    }
    Case {
        name: "tid_all_16_pairs_from_parent",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// Each drop reason, then the counters that count them.
fn drop_reasons() -> Case {
    let steps = vec![
        (
            t(write_entry(7, 3, 0b0011, false)),
            written(3, 0b0011, false),
        ),
        (t(pkt(0, 9, 0, F)), drop(Verdict::UnknownCgid)),
        (t(pkt(2, 7, 0, F)), drop(Verdict::NotInTree)),
        (t(pkt(0, 7, 0, 5)), drop(Verdict::BadOpcode)),
        (t(pkt(0, 7, 0, X)), drop(Verdict::BadOpcode)), // EXIT from a child
        (t(pkt(3, 7, 0, F)), drop(Verdict::BadOpcode)), // FULL from the parent
        (t(pkt(0, 7, 0, F)), ok(Filling, 0, None)),
        (
            t(pkt(0, 7, 0, F)),
            Expect::Pkt {
                verdict: Verdict::Stale,
                csm: Filling,
                tid: 0,
                fail: false,
                out: None,
            },
        ),
        (
            t(pkt(1, 7, 2, F)),
            Expect::Pkt {
                verdict: Verdict::TidFail,
                csm: Filling,
                tid: 0,
                fail: true,
                out: None,
            },
        ),
        (
            t(pkt(1, 7, 0, F)),
            Expect::Pkt {
                verdict: Verdict::GroupFailed,
                csm: Filling,
                tid: 0,
                fail: true,
                out: None,
            },
        ),
        (t(counter(0)), Expect::Counter(9)),
        (t(counter(1)), Expect::Counter(1)),
        (t(counter(2)), Expect::Counter(1)),
        (t(counter(3)), Expect::Counter(3)),
        (t(counter(4)), Expect::Counter(1)),
        (t(counter(5)), Expect::Counter(1)),
        (t(counter(6)), Expect::Counter(0)),
        (t(counter(7)), Expect::Counter(1)),
        // Only the subnet manager's write clears Failure.
        (
            t(write_entry(7, 3, 0b0011, false)),
            written(3, 0b0011, false),
        ),
        (t(pkt(1, 7, 0, F)), ok(Filling, 0, None)),
        (
            t(Op::Cfg(CfgCmd {
                op: CfgOp::ClearCounters,
                cgid: 0,
                entry: TableEntry::default(),
                counter: 0,
                tid: 0,
            })),
            Expect::Empty,
        ),
        (t(counter(0)), Expect::Counter(0)),
        (t(counter(3)), Expect::Counter(0)),
    ];
    Case {
        name: "drop_reasons_and_counters",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// A packet with a payload.
fn data(port: u64, cgid: u64, tid: u64, op: u64, rop: AluOp, dtype: Dtype, words: &[u64]) -> Op {
    Op::Packet(
        Packet {
            port,
            cgid,
            tid,
            op,
            plen: words.len() as u64,
            rop: rop.code(),
            dtype: dtype.code(),
        },
        words.to_vec(),
    )
}

/// A header with raw reduction fields and no words.
fn shaped(port: u64, cgid: u64, tid: u64, op: u64, plen: u64, rop: u64, dtype: u64) -> Op {
    Op::Packet(
        Packet {
            port,
            cgid,
            tid,
            op,
            plen,
            rop,
            dtype,
        },
        vec![],
    )
}

fn shape(plen: u64, rop: AluOp, dtype: Dtype) -> PayloadMeta {
    PayloadMeta {
        plen,
        rop: rop.code(),
        dtype: dtype.code(),
    }
}

/// Rule 2b on a barrier-only engine: reduction fields in a header (a length, an operation, a
/// type) are refused before the group is consulted, after rules 1 and 2 and before rule 3,
/// and change nothing; counter 11 counts them.
fn malformed_payload_headers() -> Case {
    let steps = vec![
        (
            t(write_entry(7, 3, 0b0011, false)),
            written(3, 0b0011, false),
        ),
        (t(shaped(0, 7, 0, F, 0, 4, 0)), drop(Verdict::BadPayload)),
        (t(shaped(0, 7, 0, F, 0, 0, 1)), drop(Verdict::BadPayload)),
        (t(shaped(1, 7, 0, F, 3, 4, 2)), drop(Verdict::BadPayload)),
        (t(shaped(0, 7, 0, F, 255, 0, 0)), drop(Verdict::BadPayload)),
        // Rule 1 and 2 come first, rule 3 after.
        (t(shaped(0, 9, 0, F, 0, 4, 0)), drop(Verdict::UnknownCgid)),
        (t(shaped(0, 7, 0, 6, 0, 4, 0)), drop(Verdict::BadOpcode)),
        (t(shaped(2, 7, 0, F, 0, 4, 0)), drop(Verdict::BadPayload)),
        // Nothing was counted: the first clean report starts the transaction.
        (t(pkt(0, 7, 0, F)), ok(Filling, 0, None)),
        (t(counter(11)), Expect::Counter(5)),
        (t(counter(0)), Expect::Counter(8)),
    ];
    Case {
        name: "malformed_payload_headers",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// The engine that reduces in the directed cases: radix 4, 16 groups, packets of up to 8
/// words, 2 words a beat, data memory for groups 0–3.
fn reducing() -> SwitchEngineParams {
    SwitchEngineParams::SMALL.with_payload(8, 2, 4)
}

/// A root with two children reduces: SUM over i64 (wrapping), the Lag answer from the retained
/// result, a contribution of another shape refused (`BAD_PAYLOAD`, not counted) and the
/// transaction completed by the right one (MAX over u32, two elements a word), MIN over i32,
/// and every malformed payload of rule 2b.
fn reduction_at_a_root() -> Case {
    use AluOp::{Max, Min, MinLoc, Sum};
    use Dtype::{I32, I64, U32};
    let steps = vec![
        (t(write_entry(2, 0, 0b0011, true)), written(0, 0b0011, true)),
        (
            t(data(0, 2, 0, F, Sum, I64, &[1, 2, 3, u64::MAX])),
            ok(Filling, 0, None),
        ),
        (
            t(data(1, 2, 0, F, Sum, I64, &[10, 20, 30, 1])),
            ok(Idle, 1, Some((0b0011, 0, Exit))),
        ),
        // Port 0 missed that EXIT: it is answered with the retained sum.
        (
            t(data(0, 2, 0, F, Sum, I64, &[9, 9, 9, 9])),
            verdict(Verdict::Lag, Idle, 1, Some((0b0001, 0, StatusRsp))),
        ),
        // Transaction 1: MAX over u32 (two elements in each word).
        (
            t(data(
                0,
                2,
                1,
                F,
                Max,
                U32,
                &[0x0000_0005_FFFF_FFF0, 0x8000_0000_0000_0001],
            )),
            ok(Filling, 1, None),
        ),
        (
            t(data(1, 2, 1, F, Sum, I64, &[1, 2])),
            verdict(Verdict::BadPayload, Filling, 1, None),
        ),
        (
            t(data(
                1,
                2,
                1,
                F,
                Max,
                U32,
                &[0x0000_0007_0000_0001, 0x7FFF_FFFF_0000_0002],
            )),
            ok(Idle, 2, Some((0b0011, 1, Exit))),
        ),
        // Transaction 2: MIN over i32 (signed halves).
        (
            t(data(1, 2, 2, F, Min, I32, &[0x8000_0000_0000_0005])),
            ok(Filling, 2, None),
        ),
        (
            t(data(0, 2, 2, F, Min, I32, &[0x7FFF_FFFF_FFFF_FFFB])),
            ok(Idle, 3, Some((0b0011, 2, Exit))),
        ),
        // Rule 2b on a reducing engine: a STATUS_REQ with data, a payload longer than 8 words,
        // a group without data memory (4 and up), a reserved operation, MINLOC on an odd
        // number of words.
        (t(shaped(0, 2, 3, SQ, 2, 4, 2)), drop(Verdict::BadPayload)),
        (t(shaped(0, 2, 3, F, 9, 4, 2)), drop(Verdict::BadPayload)),
        (t(shaped(0, 2, 3, F, 0, 0, 2)), drop(Verdict::BadPayload)),
        (t(shaped(0, 2, 3, F, 2, 13, 2)), drop(Verdict::BadPayload)),
        (
            t(data(0, 2, 3, F, MinLoc, I64, &[1, 2, 3])),
            drop(Verdict::BadPayload),
        ),
        // A floating-point type (SUM over F32) on an engine built without them.
        (t(shaped(0, 2, 3, F, 2, 4, 6)), drop(Verdict::BadPayload)),
        (t(write_entry(5, 0, 0b0011, true)), written(0, 0b0011, true)),
        (
            t(data(0, 5, 0, F, Sum, I64, &[1, 2])),
            drop(Verdict::BadPayload),
        ),
        (t(counter(11)), Expect::Counter(8)),
    ];
    Case {
        name: "reduction_at_a_root",
        params: reducing(),
        steps,
        payloads: vec![
            (shape(4, Sum, I64), vec![11, 22, 33, 0]),
            (shape(4, Sum, I64), vec![11, 22, 33, 0]),
            (
                shape(2, Max, U32),
                vec![0x0000_0007_FFFF_FFF0, 0x8000_0000_0000_0002],
            ),
            // min(i32) of 0x8000_0000 (-2^31) and 0x7FFF_FFFF, of 5 and -5.
            (shape(1, Min, I32), vec![0x8000_0000_FFFF_FFFB]),
        ],
        ..Case::default()
    }
}

/// The floating-point types at a root with two children (`fp = 1`; values by hand from IEEE
/// 754): SUM over F32 (two a word; `2.25 + -2.25 = +0` in the low half, `1.5 + 0.25` in the
/// high half, which the switch's ALU reduces in a lane built without fp64), MAX over F64 (a NaN loses to a
/// number, `-0 < +0`), SUM over F16 in 32-bit slots (the upper 16 bits of a slot ignored and
/// zero in the result; `65504 + 1` rounds back to 65504), and LAND on F32 refused.
fn fp_reduction_at_a_root() -> Case {
    use AluOp::{Max, Sum};
    use Dtype::{F16, F32, F64};
    let steps = vec![
        (t(write_entry(2, 0, 0b0011, true)), written(0, 0b0011, true)),
        // Low halves 2.25 and -2.25, high halves 1.5 and 0.25 (an odd lane of the ALU).
        (
            t(data(0, 2, 0, F, Sum, F32, &[0x3FC0_0000_4010_0000])),
            ok(Filling, 0, None),
        ),
        (
            t(data(1, 2, 0, F, Sum, F32, &[0x3E80_0000_C010_0000])),
            ok(Idle, 1, Some((0b0011, 0, Exit))),
        ),
        // (NaN, -0) and (1.0, +0).
        (
            t(data(
                0,
                2,
                1,
                F,
                Max,
                F64,
                &[0x7FF8_0000_0000_0001, 1 << 63],
            )),
            ok(Filling, 1, None),
        ),
        (
            t(data(1, 2, 1, F, Max, F64, &[0x3FF0_0000_0000_0000, 0])),
            ok(Idle, 2, Some((0b0011, 1, Exit))),
        ),
        // (65504, 1.0 with 0xABCD above it) and (1.0, 1.0).
        (
            t(data(0, 2, 2, F, Sum, F16, &[0xABCD_3C00_0000_7BFF])),
            ok(Filling, 2, None),
        ),
        (
            t(data(1, 2, 2, F, Sum, F16, &[0x0000_3C00_0000_3C00])),
            ok(Idle, 3, Some((0b0011, 2, Exit))),
        ),
        // LAND is not defined on a floating-point type.
        (t(shaped(0, 2, 3, F, 1, 6, 6)), drop(Verdict::BadPayload)),
        (t(counter(11)), Expect::Counter(1)),
    ];
    Case {
        name: "fp_reduction_at_a_root",
        params: SwitchEngineParams {
            fp: 1,
            ..reducing()
        },
        steps,
        payloads: vec![
            (shape(1, Sum, F32), vec![0x3FE0_0000_0000_0000]),
            (shape(2, Max, F64), vec![0x3FF0_0000_0000_0000, 0]),
            (shape(1, Sum, F16), vec![0x0000_4000_0000_7BFF]),
        ],
        ..Case::default()
    }
}

/// A middle switch (parent on port 3, children 0 and 1) reduces: its FULL up carries the
/// product of its children's, a retry in a later epoch is forwarded with it, the parent's EXIT
/// goes down with the parent's result (kept as the retained result, which answers a lagging
/// child), and an EXIT whose shape is not the partial result's is refused; MINLOC breaks a tie
/// on the lowest index.
fn reduction_through_a_middle_switch() -> Case {
    use AluOp::{MinLoc, Prod, Sum};
    use Dtype::{I64, U64};
    let steps = vec![
        (
            t(write_entry(1, 3, 0b0011, false)),
            written(3, 0b0011, false),
        ),
        (
            t(data(0, 1, 0, F, Prod, U64, &[3, 5])),
            ok(Filling, 0, None),
        ),
        (
            t(data(1, 1, 0, F, Prod, U64, &[7, 11])),
            ok(Full, 0, Some((0b1000, 0, FullOp))),
        ),
        // A retry of a child, in the next epoch: forwarded with the partial result (the
        // retry's own words are not combined again).
        (
            Timed {
                idle: 1100,
                op: data(0, 1, 0, F, Prod, U64, &[3, 5]),
            },
            ok(Full, 0, Some((0b1000, 0, FullOp))),
        ),
        (
            t(data(3, 1, 0, X, Prod, U64, &[100, 200])),
            ok(Idle, 1, Some((0b0011, 0, Exit))),
        ),
        (
            t(data(1, 1, 0, F, Prod, U64, &[7, 11])),
            verdict(Verdict::Lag, Idle, 1, Some((0b0010, 0, StatusRsp))),
        ),
        // Transaction 1: MINLOC over i64, (value, index) pairs; a tie takes the lowest index.
        (
            t(data(0, 1, 1, F, MinLoc, I64, &[5, 7, u64::MAX, 1])),
            ok(Filling, 1, None),
        ),
        (
            t(data(1, 1, 1, F, MinLoc, I64, &[5, 2, 4, 0])),
            ok(Full, 1, Some((0b1000, 1, FullOp))),
        ),
        (
            t(data(3, 1, 1, X, Sum, I64, &[0, 0, 0, 0])),
            verdict(Verdict::BadPayload, Full, 1, None),
        ),
        (
            t(data(3, 1, 1, X, MinLoc, I64, &[4, 9, 6, 6])),
            ok(Idle, 2, Some((0b0011, 1, Exit))),
        ),
    ];
    Case {
        name: "reduction_through_a_middle_switch",
        params: reducing(),
        steps,
        payloads: vec![
            (shape(2, Prod, U64), vec![21, 55]),
            (shape(2, Prod, U64), vec![21, 55]),
            (shape(2, Prod, U64), vec![100, 200]),
            (shape(2, Prod, U64), vec![100, 200]),
            // (5, 7) vs (5, 2): a tie, index 2; (-1, 1) vs (4, 0): -1 is smaller.
            (shape(4, MinLoc, I64), vec![5, 2, u64::MAX, 1]),
            (shape(4, MinLoc, I64), vec![4, 9, 6, 6]),
        ],
        ..Case::default()
    }
}

/// A barrier over a root with twelve children (default parameters), twice.
fn full_barrier() -> Case {
    let children: u64 = 0b1111_1111_1111_0000;
    let mut steps = vec![(
        t(write_entry(200, 0, children, true)),
        written(0, children, true),
    )];
    for round in 0..2u64 {
        let ports: Vec<u64> = (4..16).collect();
        for (k, &p) in ports.iter().enumerate() {
            let want = if k + 1 == ports.len() {
                ok(Idle, round + 1, Some((children, round, Exit)))
            } else {
                ok(Filling, round, None)
            };
            // Children report in a different order each round.
            let p = if round == 0 { p } else { 19 - p };
            steps.push((t(pkt(p, 200, round, F)), want));
        }
    }
    Case {
        name: "full_barrier_twelve_children",
        params: SwitchEngineParams::default(),
        steps,
        ..Case::default()
    }
}

/// Lost Exit: a child left behind asks, is told its transaction completed, and the next
/// barrier proceeds; a non-root switch that missed Exit asks its own parent.
fn lagging_child() -> Case {
    let steps = vec![
        (t(write_entry(1, 0, 0b0110, true)), written(0, 0b0110, true)),
        (t(pkt(1, 1, 0, F)), ok(Filling, 0, None)),
        (t(pkt(2, 1, 0, F)), ok(Idle, 1, Some((0b0110, 0, Exit)))),
        // Port 2 never saw that EXIT: it is still Full at TID 0 and asks.
        (
            t(pkt(2, 1, 0, SQ)),
            Expect::Pkt {
                verdict: Verdict::Lag,
                csm: Idle,
                tid: 1,
                fail: false,
                out: Some((0b0100, 0, StatusRsp)),
            },
        ),
        // Both move on to transaction 1, which completes normally.
        (t(pkt(2, 1, 1, F)), ok(Filling, 1, None)),
        (t(pkt(1, 1, 1, F)), ok(Idle, 2, Some((0b0110, 1, Exit)))),
        // A non-root (group 2, parent port 3) that is Full and whose child asks: the switch
        // asks its own parent, whose STATUS_RSP completes the transaction here too.
        (
            t(write_entry(2, 3, 0b0001, false)),
            written(3, 0b0001, false),
        ),
        (t(pkt(0, 2, 0, F)), ok(Full, 0, Some((0b1000, 0, FullOp)))),
        // (In the next epoch: in this one the switch's own FULL went up already.)
        (
            Timed {
                idle: 1024,
                op: pkt(0, 2, 0, SQ),
            },
            ok(Full, 0, Some((0b1000, 0, StatusReq))),
        ),
        (t(pkt(3, 2, 0, SR)), ok(Idle, 1, Some((0b0001, 0, Exit)))),
        // The parent's late EXIT for the same transaction is stale.
        (
            t(pkt(3, 2, 0, X)),
            Expect::Pkt {
                verdict: Verdict::Stale,
                csm: Idle,
                tid: 1,
                fail: false,
                out: None,
            },
        ),
        // A lost FULL: the child's STATUS_REQ is not its report; its re-sent FULL is.
        (
            t(pkt(0, 2, 1, SQ)),
            verdict(Verdict::Unreported, Idle, 1, None),
        ),
        (t(pkt(0, 2, 1, F)), ok(Full, 1, Some((0b1000, 1, FullOp)))),
    ];
    Case {
        name: "lagging_child_recovers",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// Two groups interleaved back to back, with and without idle cycles between operations:
/// exercises the read-before-write bypass.
fn interleaved_groups() -> Case {
    let mut steps = vec![
        (t(write_entry(4, 0, 0b0011, true)), written(0, 0b0011, true)),
        (
            t(write_entry(8, 3, 0b0101, false)),
            written(3, 0b0101, false),
        ),
    ];
    for round in 0..3u64 {
        let idle = round as u32; // 0, 1, 2 idle cycles between operations
        let mut s = |op, e| steps.push((Timed { idle, op }, e));
        s(pkt(0, 4, round, F), ok(Filling, round, None));
        s(pkt(0, 8, round, F), ok(Filling, round, None));
        s(
            pkt(1, 4, round, F),
            ok(Idle, round + 1, Some((0b0011, round, Exit))),
        );
        s(
            pkt(2, 8, round, F),
            ok(Full, round, Some((0b1000, round, FullOp))),
        );
        s(
            pkt(3, 8, round, X),
            ok(Idle, round + 1, Some((0b0101, round, Exit))),
        );
    }
    steps.push((
        t(read(4)),
        Expect::Entry {
            entry: entry(0, 0b0011, true),
            state: GroupState {
                csm: Idle,
                fail: false,
                tid: 3,
                sent: 0,
                reported: 0,
                ..GroupState::default()
            },
        },
    ));
    Case {
        name: "interleaved_groups",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// Configuration right before and after packets of the same group, no idle cycles.
fn config_back_to_back() -> Case {
    let steps = vec![
        (
            t(write_entry(6, 1, 0b0001, false)),
            written(1, 0b0001, false),
        ),
        (t(pkt(0, 6, 0, F)), ok(Full, 0, Some((0b0010, 0, FullOp)))),
        // Re-building the group resets its state immediately.
        (
            t(write_entry(6, 2, 0b0001, false)),
            written(2, 0b0001, false),
        ),
        (t(pkt(0, 6, 0, F)), ok(Full, 0, Some((0b0100, 0, FullOp)))),
        (t(pkt(2, 6, 0, X)), ok(Idle, 1, Some((0b0001, 0, Exit)))),
        // Destroying it (valid = 0) makes it unknown.
        (
            t(Op::Cfg(CfgCmd {
                op: CfgOp::Write,
                cgid: 6,
                entry: TableEntry::default(),
                counter: 0,
                tid: 0,
            })),
            Expect::Entry {
                entry: TableEntry::default(),
                state: GroupState::default(),
            },
        ),
        (t(pkt(0, 6, 1, F)), drop(Verdict::UnknownCgid)),
    ];
    Case {
        name: "config_back_to_back",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

fn clear() -> Op {
    Op::Cfg(CfgCmd {
        op: CfgOp::ClearCounters,
        cgid: 0,
        entry: TableEntry::default(),
        counter: 0,
        tid: 0,
    })
}

/// One group's operations at every distance of the write bypass and just past it: an
/// operation accepted 1, 2, 3 and 4 cycles after the one that last wrote its group (idle
/// cycles or another group's packets in between), after packets and after configuration
/// `Write`s (state and entry), and counter reads and clears right after the packets they
/// count.
fn bypass_depth() -> Case {
    let at = |idle: u32, op: Op| Timed { idle, op };
    let steps = vec![
        (
            at(0, write_entry(3, 0, 0b1110, true)),
            written(0, 0b1110, true),
        ),
        // 1, 2 and 3 cycles after the previous write of group 3.
        (at(0, pkt(1, 3, 0, F)), ok(Filling, 0, None)),
        (at(1, pkt(2, 3, 0, F)), ok(Filling, 0, None)),
        (at(2, pkt(3, 3, 0, F)), ok(Idle, 1, Some((0b1110, 0, Exit)))),
        (
            at(0, read(3)),
            Expect::Entry {
                entry: entry(0, 0b1110, true),
                state: GroupState {
                    csm: Idle,
                    fail: false,
                    tid: 1,
                    sent: 0,
                    reported: 0,
                    ..GroupState::default()
                },
            },
        ),
        // 2 cycles after the completing packet (the read between writes nothing), then a
        // duplicate right behind it.
        (at(0, pkt(3, 3, 1, F)), ok(Filling, 1, None)),
        (
            at(0, pkt(3, 3, 1, F)),
            Expect::Pkt {
                verdict: Verdict::Stale,
                csm: Filling,
                tid: 1,
                fail: false,
                out: None,
            },
        ),
        // Counters read and cleared right behind the packets.
        (at(0, counter(0)), Expect::Counter(5)),
        (at(0, counter(Verdict::Stale.code())), Expect::Counter(1)),
        (at(0, clear()), Expect::Empty),
        (at(0, counter(0)), Expect::Counter(0)),
        // A Write resets the Filling group (TID 1): the packet 2 cycles later sees TID 0.
        (
            at(0, write_entry(3, 0, 0b1110, true)),
            written(0, 0b1110, true),
        ),
        (at(1, pkt(1, 3, 0, F)), ok(Filling, 0, None)),
        (at(0, pkt(0, 5, 0, F)), drop(Verdict::UnknownCgid)),
        (at(0, pkt(2, 3, 0, F)), ok(Filling, 0, None)),
        (at(0, pkt(3, 3, 0, F)), ok(Idle, 1, Some((0b1110, 0, Exit)))),
        // New entries, used 1 and 2 cycles after they are written.
        (
            at(0, write_entry(3, 0, 0b0010, false)),
            written(0, 0b0010, false),
        ),
        (
            at(0, pkt(1, 3, 0, F)),
            ok(Full, 0, Some((0b0001, 0, FullOp))),
        ),
        (
            at(0, write_entry(3, 2, 0b0010, false)),
            written(2, 0b0010, false),
        ),
        (at(0, pkt(0, 5, 0, F)), drop(Verdict::UnknownCgid)),
        (
            at(0, pkt(1, 3, 0, F)),
            ok(Full, 0, Some((0b0100, 0, FullOp))),
        ),
        (at(0, pkt(2, 3, 0, X)), ok(Idle, 1, Some((0b0010, 0, Exit)))),
        (at(0, counter(0)), Expect::Counter(8)),
        (
            at(0, counter(Verdict::UnknownCgid.code())),
            Expect::Counter(2),
        ),
        // An entry and a reset state used 3 cycles after their `Write`, then the memory's
        // word 4 cycles after the packet that wrote it.
        (
            at(0, write_entry(3, 0, 0b0110, true)),
            written(0, 0b0110, true),
        ),
        (at(0, pkt(0, 5, 0, F)), drop(Verdict::UnknownCgid)),
        (at(0, pkt(0, 5, 0, F)), drop(Verdict::UnknownCgid)),
        (at(0, pkt(1, 3, 0, F)), ok(Filling, 0, None)),
        (at(3, pkt(2, 3, 0, F)), ok(Idle, 1, Some((0b0110, 0, Exit)))),
    ];
    Case {
        name: "bypass_depth",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// `Write` takes the TID the subnet manager chooses: a group started, recovered from Failure
/// and rebuilt mid-barrier at the tree's TID, each used right behind its `Write`.
fn write_keeps_chosen_tid() -> Case {
    let steps = vec![
        (
            t(write_at(1, 3, 0b0011, false, 2)),
            Expect::Entry {
                entry: entry(3, 0b0011, false),
                state: state(Idle, 2, 0),
            },
        ),
        (t(pkt(0, 1, 2, F)), ok(Filling, 2, None)),
        (t(pkt(1, 1, 2, F)), ok(Full, 2, Some((0b1000, 2, FullOp)))),
        (t(pkt(3, 1, 2, X)), ok(Idle, 3, Some((0b0011, 2, Exit)))),
        // TID 0 is ahead of 3 by one: Failure, then everything is dropped ...
        (
            t(pkt(0, 1, 0, F)),
            Expect::Pkt {
                verdict: Verdict::TidFail,
                csm: Idle,
                tid: 3,
                fail: true,
                out: None,
            },
        ),
        (
            t(pkt(0, 1, 3, F)),
            Expect::Pkt {
                verdict: Verdict::GroupFailed,
                csm: Idle,
                tid: 3,
                fail: true,
                out: None,
            },
        ),
        // ... until the subnet manager rewrites the group at the tree's TID, 3.
        (
            t(write_at(1, 3, 0b0011, false, 3)),
            Expect::Entry {
                entry: entry(3, 0b0011, false),
                state: state(Idle, 3, 0),
            },
        ),
        (t(pkt(0, 1, 3, F)), ok(Filling, 3, None)),
        // Rebuilt mid-barrier with other children, at the same TID: they report anew.
        (
            t(write_at(1, 3, 0b0110, false, 3)),
            Expect::Entry {
                entry: entry(3, 0b0110, false),
                state: state(Idle, 3, 0),
            },
        ),
        (t(pkt(1, 1, 3, F)), ok(Filling, 3, None)),
        (t(pkt(2, 1, 3, F)), ok(Full, 3, Some((0b1000, 3, FullOp)))),
        (
            t(read(1)),
            Expect::Entry {
                entry: entry(3, 0b0110, false),
                state: state(Full, 3, 0b0110),
            },
        ),
        // `cfg_tid` = 0 is the old `Write`.
        (
            t(write_at(1, 3, 0b0110, false, 0)),
            Expect::Entry {
                entry: entry(3, 0b0110, false),
                state: state(Idle, 0, 0),
            },
        ),
        (t(pkt(2, 1, 0, F)), ok(Filling, 0, None)),
    ];
    Case {
        name: "write_keeps_chosen_tid",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// Entries the configuration port refuses: nothing is written, the answer is the stored entry
/// and state with `rsp_rejected`; the group goes on as if nothing happened.
fn rejected_writes() -> Case {
    let stored = entry(1, 0b0101, false);
    let destroy = Op::Cfg(CfgCmd {
        op: CfgOp::Write,
        cgid: 2,
        entry: TableEntry::default(),
        counter: 0,
        tid: 0,
    });
    let steps = vec![
        (
            t(write_entry(2, 1, 0b0101, false)),
            written(1, 0b0101, false),
        ),
        (t(pkt(0, 2, 0, F)), ok(Filling, 0, None)),
        // The parent among the children; no child at all.
        (
            t(write_entry(2, 1, 0b0011, false)),
            Expect::Rejected {
                entry: stored,
                state: state(Filling, 0, 0b0001),
            },
        ),
        (
            t(write_at(2, 0, 0, true, 3)),
            Expect::Rejected {
                entry: stored,
                state: state(Filling, 0, 0b0001),
            },
        ),
        // Right behind them: the group as before.
        (t(pkt(2, 2, 0, F)), ok(Full, 0, Some((0b0010, 0, FullOp)))),
        // A never-written group answers its invalid entry.
        (
            t(write_entry(5, 2, 0b0100, false)),
            Expect::Rejected {
                entry: TableEntry::default(),
                state: GroupState::default(),
            },
        ),
        (
            t(read(5)),
            Expect::Entry {
                entry: TableEntry::default(),
                state: GroupState::default(),
            },
        ),
        // A root's `parent` means nothing, so it may name a child; destroying is always fine.
        (t(write_entry(6, 1, 0b0010, true)), written(1, 0b0010, true)),
        (
            t(destroy),
            Expect::Entry {
                entry: TableEntry::default(),
                state: GroupState::default(),
            },
        ),
        (t(pkt(0, 2, 0, F)), drop(Verdict::UnknownCgid)),
    ];
    Case {
        name: "rejected_writes",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// A STATUS_REQ from a child that has not reported is not its report (rule 6): polling
/// children, the last one included, do not release the barrier. Counters 8 and 11..15.
fn unreported_status_req() -> Case {
    let unreported = |csm| verdict(Verdict::Unreported, csm, 0, None);
    let steps = vec![
        (
            t(write_entry(4, 3, 0b0111, false)),
            written(3, 0b0111, false),
        ),
        (t(pkt(0, 4, 0, SQ)), unreported(Idle)),
        (t(pkt(0, 4, 0, F)), ok(Filling, 0, None)),
        (t(pkt(1, 4, 0, SQ)), unreported(Filling)),
        (t(pkt(0, 4, 0, SQ)), ok(Filling, 0, None)),
        (t(pkt(1, 4, 0, F)), ok(Filling, 0, None)),
        (t(pkt(2, 4, 0, SQ)), unreported(Filling)),
        (t(pkt(2, 4, 0, F)), ok(Full, 0, Some((0b1000, 0, FullOp)))),
        (t(counter(0)), Expect::Counter(7)),
        (t(counter(Verdict::Unreported.code())), Expect::Counter(3)),
        (t(counter(11)), Expect::Counter(0)),
        (t(counter(15)), Expect::Counter(0)),
    ];
    Case {
        name: "unreported_status_req",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// Retries at a Full non-root go to the parent once per epoch (1024 cycles here), FULL as
/// FULL and STATUS_REQ as STATUS_REQ; the rest are coalesced, the switch's own FULL
/// included. At a root (never Full between packets) a repeated FULL is still stale.
fn retry_forwarded_then_coalesced() -> Case {
    let full = |out| verdict(Verdict::Ok, Full, 0, out);
    let coalesced = verdict(Verdict::Coalesced, Full, 0, None);
    let later = |op| Timed { idle: 1024, op };
    let steps = vec![
        (
            t(write_entry(3, 0, 0b0110, false)),
            written(0, 0b0110, false),
        ),
        (t(pkt(1, 3, 0, F)), ok(Filling, 0, None)),
        // now 3, epoch 0: the switch's FULL goes up ...
        (t(pkt(2, 3, 0, F)), full(Some((0b0001, 0, FullOp)))),
        // ... so in epoch 0 the children's retries stop here.
        (t(pkt(1, 3, 0, F)), coalesced),
        (t(pkt(2, 3, 0, SQ)), coalesced),
        // now 1030, epoch 1: the first retry goes up, the next is coalesced.
        (later(pkt(1, 3, 0, F)), full(Some((0b0001, 0, FullOp)))),
        (t(pkt(2, 3, 0, SQ)), coalesced),
        // now 2056, epoch 2: a STATUS_REQ goes up as such; one right behind it stops.
        (later(pkt(2, 3, 0, SQ)), full(Some((0b0001, 0, StatusReq)))),
        (t(pkt(1, 3, 0, F)), coalesced),
        (t(pkt(0, 3, 0, SR)), ok(Idle, 1, Some((0b0110, 0, Exit)))),
        (t(write_entry(4, 0, 0b0011, true)), written(0, 0b0011, true)),
        (t(pkt(0, 4, 0, F)), ok(Filling, 0, None)),
        (
            t(pkt(0, 4, 0, F)),
            verdict(Verdict::Stale, Filling, 0, None),
        ),
        (t(counter(Verdict::Coalesced.code())), Expect::Counter(4)),
        (t(counter(Verdict::Stale.code())), Expect::Counter(1)),
    ];
    Case {
        name: "retry_forwarded_then_coalesced",
        params: SwitchEngineParams::SMALL,
        steps,
        ..Case::default()
    }
}

/// With `retry_timer`: 256-cycle epochs, sixteen groups scanned one per idle cycle. The Full
/// non-root group 4 (its FULL went up at `now` 2, epoch 0) is re-sent at its first tick two
/// epochs on (`now` 520, the scan reaching group 4 at 8 + 16 m), then again two epochs after
/// that (1032); the Filling root, the other groups and the operations' cycles tick nothing.
fn timer_retry() -> Case {
    let steps = vec![
        (
            t(write_entry(4, 1, 0b0001, false)),
            written(1, 0b0001, false),
        ),
        (t(pkt(0, 4, 0, F)), ok(Full, 0, Some((0b0010, 0, FullOp)))),
        (t(write_entry(5, 0, 0b0011, true)), written(0, 0b0011, true)),
        (t(pkt(0, 5, 0, F)), ok(Filling, 0, None)),
        (
            Timed {
                idle: 1100,
                op: counter(Verdict::Retry.code()),
            },
            Expect::Counter(2),
        ),
        (t(counter(0)), Expect::Counter(2)),
        (
            t(read(4)),
            Expect::Entry {
                entry: entry(1, 0b0001, false),
                state: state(Full, 0, 0b0001),
            },
        ),
    ];
    Case {
        name: "timer_retry",
        params: SwitchEngineParams {
            retry_timer: 1,
            epoch_cycles: 256,
            ..SwitchEngineParams::SMALL
        },
        steps,
        retries: vec![(520, 4, 0, 0b0010), (1032, 4, 0, 0b0010)],
        ..Case::default()
    }
}

/// `out_ready` low for long stretches: twenty barriers of a one-child root, each an EXIT.
/// Events come four cycles after their packets whatever `out_ready` does; the EXITs wait in
/// the queue, which fills and holds `pkt_ready` low, and leave in order; a configuration read
/// is taken even while the queue is full.
fn out_queue_back_pressure() -> Case {
    fn ready(now: u64) -> bool {
        !(3..60).contains(&now) && !(70..200).contains(&now)
    }
    let mut steps = vec![(t(write_entry(2, 0, 0b0100, true)), written(0, 0b0100, true))];
    for k in 0..20u64 {
        steps.push((
            t(pkt(2, 2, k % 4, F)),
            ok(Idle, (k + 1) % 4, Some((0b0100, k % 4, Exit))),
        ));
        if k == 9 {
            steps.push((
                t(read(2)),
                Expect::Entry {
                    entry: entry(0, 0b0100, true),
                    state: state(Idle, 2, 0),
                },
            ));
        }
    }
    steps.push((t(counter(0)), Expect::Counter(20)));
    Case {
        name: "out_queue_back_pressure",
        params: SwitchEngineParams::SMALL,
        steps,
        out_ready: Some(ready),
        ..Case::default()
    }
}

/// Every directed case.
pub fn cases() -> Vec<Case> {
    vec![
        csm_transitions(),
        tid_pairs_from_child(),
        tid_pairs_from_parent(),
        drop_reasons(),
        malformed_payload_headers(),
        reduction_at_a_root(),
        fp_reduction_at_a_root(),
        reduction_through_a_middle_switch(),
        full_barrier(),
        lagging_child(),
        interleaved_groups(),
        config_back_to_back(),
        bypass_depth(),
        write_keeps_chosen_tid(),
        rejected_writes(),
        unreported_status_req(),
        retry_forwarded_then_coalesced(),
        timer_retry(),
        out_queue_back_pressure(),
    ]
}

fn check(e: &Expect, r: &Response) -> bool {
    match (e, r) {
        (
            Expect::Pkt {
                verdict,
                csm,
                tid,
                fail,
                out,
            },
            Response::Packet { result, .. },
        ) => {
            result.verdict == *verdict
                && result.state.csm == *csm
                && result.state.tid == *tid
                && result.state.fail == *fail
                && result.out.as_ref().map(|o| (o.ports, o.tid, o.op)) == *out
        }
        (Expect::Entry { entry, state }, Response::Cfg(c)) => {
            c.entry == *entry && c.state == *state && c.counter == 0 && !c.rejected
        }
        (Expect::Rejected { entry, state }, Response::Cfg(c)) => {
            c.entry == *entry && c.state == *state && c.counter == 0 && c.rejected
        }
        (Expect::Counter(n), Response::Cfg(c)) => {
            c.counter == *n
                && c.entry == TableEntry::default()
                && c.state == GroupState::default()
                && !c.rejected
        }
        (Expect::Empty, Response::Cfg(c)) => {
            c.counter == 0
                && c.entry == TableEntry::default()
                && c.state == GroupState::default()
                && !c.rejected
        }
        _ => false,
    }
}

/// Runs `case` on `dut`; the error names the step, the operation, what was expected and what
/// came back.
pub fn run_case(dut: &mut dyn EngineDut, case: &Case) -> Result<(), String> {
    let ops: Vec<Timed> = case.steps.iter().map(|s| s.0.clone()).collect();
    dut.set_out_ready(case.out_ready);
    let answers = dut.run(&ops)?;
    if answers.len() != ops.len() {
        return Err(format!(
            "{} answers to {} operations",
            answers.len(),
            ops.len()
        ));
    }
    let split = case.out_ready.is_some() || case.params.reduces();
    let mut outs = vec![];
    for (k, ((op, want), got)) in case.steps.iter().zip(&answers).enumerate() {
        let mut want = *want;
        if let Expect::Pkt { out, .. } = &mut want {
            if split {
                outs.extend(out.take());
            }
        }
        if !check(&want, got) {
            return Err(format!(
                "step {k}: {:?}\n  expected {want:?}\n  got      {got:?}",
                op.op
            ));
        }
    }
    let log = dut.log();
    let got: Vec<(u64, u64, Opcode)> = log.outs.iter().map(|o| (o.ports, o.tid, o.op)).collect();
    if got != outs {
        return Err(format!(
            "output packets, in the order they left the queue:\n  expected {outs:?}\n  got      {got:?}"
        ));
    }
    if !case.payloads.is_empty() {
        let got: Vec<(PayloadMeta, Vec<u64>)> =
            log.outs.iter().map(|o| (o.meta, o.data.clone())).collect();
        if got != case.payloads {
            return Err(format!(
                "output payloads, in order:\n  expected {:?}\n  got      {got:?}",
                case.payloads
            ));
        }
    }
    let want: Vec<(u64, Response)> = case
        .retries
        .iter()
        .map(|&(now, cgid, tid, parent_hot)| {
            let result = PacketResult {
                verdict: Verdict::Retry,
                state: GroupState {
                    csm: Full,
                    fail: false,
                    tid,
                    sent: 0,
                    reported: 0,
                    ..GroupState::default()
                },
                out: Some(OutPacket {
                    ports: parent_hot,
                    cgid,
                    tid,
                    op: FullOp,
                    meta: Default::default(),
                    data: vec![],
                }),
            };
            (now, Response::Packet { cgid, result })
        })
        .collect();
    if log.retries != want {
        return Err(format!(
            "retry timer events (now, event):\n  expected {want:?}\n  got      {:?}",
            log.retries
        ));
    }
    Ok(())
}
