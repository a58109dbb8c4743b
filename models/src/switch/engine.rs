//! # Cycle model of the switch collective engine
//!
//! [`EngineModel::step`] is one clock cycle of the RTL (`netcoll-hdl`'s `switch::engine`): it
//! returns what every output port shows during the cycle, then applies the rising edge. The
//! testbench compares it with the RTL port by port, cycle by cycle, and with the
//! [golden reference](super::golden) operation by operation.
//!
//! ## Micro-architecture (what the RTL implements, register for register)
//!
//! - **Reset sweep.** `init_done`, `init_ptr`, the stage-1 register, the output registers and the
//!   counters are registers reset to zero by a synchronous `reset`. The table and state memories
//!   are RAMs with no reset; instead, every cycle in which `init_done` is low and `reset` is low
//!   writes `entry[init_ptr] = 0` (invalid) and `state[init_ptr] = 0` (Idle, TID 0) and advances
//!   `init_ptr`; the edge that writes entry `groups - 1` sets `init_done`. Hence `pkt_ready` and
//!   `cfg_ready` are low for exactly `groups` cycles after the last reset cycle. Clearing one
//!   entry per cycle is why a reset takes `groups` cycles: a RAM has one write port.
//! - **Stage 0 (cycle `t`).** `cfg_ready = init_done`, `pkt_ready = init_done && !cfg_valid`
//!   (combinational: the configuration port has priority). An accepted operation is latched into
//!   the stage-1 register at the edge, with every field reduced to its port width.
//! - **Stage 1 (cycle `t + 1`).** The latched operation reads the table and state (seeing every
//!   earlier operation's writes: the RTL uses a one-deep write bypass around the RAM read; the
//!   model simply indexes arrays), and at the edge writes them back, updates the counters and
//!   loads the output registers.
//! - **Outputs (cycle `t + 2`).** The output registers; an output group (`out_*`, `ev_*`,
//!   `rsp_*`) that was not loaded at the previous edge is all zero.
//!
//! The ready signals are not gated by `reset` (they are `init_done`-based only): an operation
//! handshaken during a reset cycle is simply lost, because the reset edge clears the stage-1
//! register. Stage 1 does not write the memories at a reset edge either; that is unobservable,
//! since the sweep that follows rewrites every entry before anything can read it.
//!
//! [`EngineModel::new`] starts in the state right after a reset edge (so it sweeps first).
//!
//! The model keeps entries and states packed into one `u64` each (see [`pack`]) and
//! implements the packet rules independently of the golden, in the flat form the RTL uses;
//! the tests compare the two on random streams.

use super::golden::Response;
use super::{EngineIn, EngineOut, EngineParams, GroupState, Opcode, TableEntry, COUNTERS};

/// Packed layouts of the model's memories (radix ≤ 32 is guaranteed by
/// [`super::RADIX_VALUES`]):
/// - entry: `children` in `[31:0]`, `parent` in `[36:32]`, `valid` bit 40, `is_root` bit 41;
/// - state: `reported` in `[31:0]`, `csm` in `[33:32]`, `fail` bit 34, `tid` in `[36:35]`.
///
/// All-zero is an invalid entry and the default (Idle, TID 0) state, which is what the reset
/// sweep writes.
pub mod pack {
    pub const LOW32: u64 = 0xFFFF_FFFF;
    pub const E_PARENT_LSB: u32 = 32;
    pub const E_VALID: u64 = 1 << 40;
    pub const E_ROOT: u64 = 1 << 41;
    pub const S_CSM_LSB: u32 = 32;
    pub const S_FAIL: u64 = 1 << 34;
    pub const S_TID_LSB: u32 = 35;
}
use pack::*;

const CSM_IDLE: u64 = 0;
const CSM_FILLING: u64 = 1;
const CSM_FULL: u64 = 2;

// Verdict codes, as on `ev_verdict` (see [`super::Verdict`]).
const V_OK: u64 = 0;
const V_UNKNOWN_CGID: u64 = 1;
const V_NOT_IN_TREE: u64 = 2;
const V_BAD_OPCODE: u64 = 3;
const V_GROUP_FAILED: u64 = 4;
const V_STALE: u64 = 5;
const V_LAG: u64 = 6;
const V_TID_FAIL: u64 = 7;

fn pack_state(csm: u64, fail: bool, tid: u64, reported: u64) -> u64 {
    reported | (csm << S_CSM_LSB) | if fail { S_FAIL } else { 0 } | (tid << S_TID_LSB)
}

/// The cycle model. See the [module docs](self) for the micro-architecture.
#[derive(Clone, Debug)]
pub struct EngineModel {
    p: EngineParams,
    /// `radix - 1`: the mask of a port number.
    port_num_mask: u64,
    /// `groups - 1`: the mask of a CGID.
    cgid_mask: u64,
    /// [`EngineParams::port_mask`]: the mask of a child mask.
    child_mask: u64,
    counter_max: u64,

    // Memories (not reset by `reset`).
    table: Vec<u64>,
    state: Vec<u64>,

    // Registers.
    counters: [u64; COUNTERS],
    init_done: bool,
    init_ptr: u64,
    s1_valid: bool,
    s1_cfg: bool,
    /// The operation in stage 1, fields already reduced to port widths.
    s1: EngineIn,
    /// Output registers (`pkt_ready` / `cfg_ready` are always false here; they are
    /// combinational and computed in [`EngineModel::step`]).
    regs: EngineOut,
}

impl EngineModel {
    /// A model in the state right after a reset edge (it sweeps the tables first).
    ///
    /// # Panics
    /// If `p` is outside what the packed memories hold (radix > 32 or not a power of two,
    /// groups not a power of two, counter_bits ≥ 64); every [`EngineParams::is_supported`]
    /// value is fine.
    pub fn new(p: EngineParams) -> Self {
        assert!(
            p.radix <= 32 && p.radix.is_power_of_two(),
            "unsupported radix {}",
            p.radix
        );
        assert!(
            p.groups.is_power_of_two(),
            "unsupported groups {}",
            p.groups
        );
        assert!(
            p.counter_bits < 64,
            "unsupported counter_bits {}",
            p.counter_bits
        );
        Self {
            p,
            port_num_mask: p.radix as u64 - 1,
            cgid_mask: p.groups as u64 - 1,
            child_mask: p.port_mask(),
            counter_max: p.counter_max(),
            table: vec![0; p.groups],
            state: vec![0; p.groups],
            counters: [0; COUNTERS],
            init_done: false,
            init_ptr: 0,
            s1_valid: false,
            s1_cfg: false,
            s1: EngineIn::default(),
            regs: EngineOut::default(),
        }
    }

    pub fn params(&self) -> EngineParams {
        self.p
    }

    /// True once the reset sweep has finished.
    pub fn init_done(&self) -> bool {
        self.init_done
    }

    /// The table entry of `cgid` as the memory holds it now (for debugging and tests).
    pub fn entry(&self, cgid: u64) -> TableEntry {
        let e = self.table[(cgid & self.cgid_mask) as usize];
        TableEntry {
            valid: e & E_VALID != 0,
            parent: (e >> E_PARENT_LSB) & 31,
            children: e & LOW32,
            is_root: e & E_ROOT != 0,
        }
    }

    /// The state of group `cgid` as the memory holds it now.
    pub fn state(&self, cgid: u64) -> GroupState {
        let s = self.state[(cgid & self.cgid_mask) as usize];
        GroupState {
            csm: super::CsmState::from_code(s >> S_CSM_LSB),
            fail: s & S_FAIL != 0,
            tid: (s >> S_TID_LSB) & 3,
            reported: s & LOW32,
        }
    }

    /// Counter `i & 7`.
    pub fn counter(&self, i: u64) -> u64 {
        self.counters[(i & 7) as usize]
    }

    /// One clock cycle: returns the outputs during the cycle, then applies the edge.
    pub fn step(&mut self, i: &EngineIn) -> EngineOut {
        let mut o = self.regs;
        o.cfg_ready = self.init_done;
        o.pkt_ready = self.init_done && !i.cfg_valid;

        if i.reset {
            self.counters = [0; COUNTERS];
            self.init_done = false;
            self.init_ptr = 0;
            self.s1_valid = false;
            self.s1_cfg = false;
            self.s1 = EngineIn::default();
            self.regs = EngineOut::default();
            return o;
        }

        if !self.init_done {
            // Stage 1 is never valid during the sweep (nothing is accepted before init_done).
            self.table[self.init_ptr as usize] = 0;
            self.state[self.init_ptr as usize] = 0;
            self.init_done = self.init_ptr == self.cgid_mask;
            self.init_ptr = (self.init_ptr + 1) & self.cgid_mask;
        }

        self.regs = match (self.s1_valid, self.s1_cfg) {
            (false, _) => EngineOut::default(),
            (true, true) => self.exec_cfg(),
            (true, false) => self.exec_pkt(),
        };

        let take_cfg = o.cfg_ready && i.cfg_valid;
        let take_pkt = o.pkt_ready && i.pkt_valid;
        self.s1_valid = take_cfg || take_pkt;
        self.s1_cfg = take_cfg;
        if self.s1_valid {
            self.s1 = self.reduce(i);
        }
        o
    }

    /// The inputs as the RTL's ports see them: every field cut to its port width.
    fn reduce(&self, i: &EngineIn) -> EngineIn {
        EngineIn {
            reset: i.reset,
            pkt_valid: i.pkt_valid,
            pkt_port: i.pkt_port & self.port_num_mask,
            pkt_cgid: i.pkt_cgid & self.cgid_mask,
            pkt_tid: i.pkt_tid & 3,
            pkt_op: i.pkt_op & 7,
            cfg_valid: i.cfg_valid,
            cfg_op: i.cfg_op & 3,
            cfg_cgid: i.cfg_cgid & self.cgid_mask,
            cfg_entry_valid: i.cfg_entry_valid,
            cfg_parent: i.cfg_parent & self.port_num_mask,
            cfg_children: i.cfg_children & self.child_mask,
            cfg_is_root: i.cfg_is_root,
            cfg_counter: i.cfg_counter & 7,
        }
    }

    fn bump(&mut self, k: u64) {
        let c = &mut self.counters[k as usize];
        if *c < self.counter_max {
            *c += 1;
        }
    }

    /// Stage 1 for a packet.
    fn exec_pkt(&mut self) -> EngineOut {
        let s = self.s1;
        let cgid = s.pkt_cgid as usize;
        let (port, t, op) = (s.pkt_port, s.pkt_tid, s.pkt_op);
        let pbit = 1u64 << port;
        let e = self.table[cgid];
        let children = e & LOW32;
        let parent = (e >> E_PARENT_LSB) & 31;
        let root = e & E_ROOT != 0;
        let from_parent = !root && parent == port;
        let from_child = !from_parent && children & pbit != 0;
        // FULL (0) and STATUS_REQ (2) travel up; EXIT (1) and STATUS_RSP (3) down.
        let upward = op & 1 == 0;

        let mut o = EngineOut {
            ev_valid: true,
            ev_cgid: s.pkt_cgid,
            ..EngineOut::default()
        };
        let mut emit = |ports: u64, opc: Opcode| {
            o.out_valid = true;
            o.out_ports = ports;
            o.out_cgid = s.pkt_cgid;
            o.out_tid = t;
            o.out_op = opc.code();
        };

        let verdict = if e & E_VALID == 0 {
            V_UNKNOWN_CGID
        } else if op > 3 {
            V_BAD_OPCODE
        } else if !(from_parent || from_child) {
            V_NOT_IN_TREE
        } else if from_child != upward {
            V_BAD_OPCODE
        } else {
            let mut st = self.state[cgid];
            let csm = (st >> S_CSM_LSB) & 3;
            let g = (st >> S_TID_LSB) & 3;
            let rep = st & LOW32;
            let d = t.wrapping_sub(g) & 3;
            let v = if st & S_FAIL != 0 {
                V_GROUP_FAILED
            } else if from_child {
                match d {
                    0 if rep & pbit == 0 => {
                        let rep2 = rep | pbit;
                        st = if rep2 != children {
                            pack_state(CSM_FILLING, false, g, rep2)
                        } else if root {
                            emit(children, Opcode::Exit);
                            pack_state(CSM_IDLE, false, (g + 1) & 3, 0)
                        } else {
                            emit(1 << parent, Opcode::Full);
                            pack_state(CSM_FULL, false, g, rep2)
                        };
                        V_OK
                    }
                    0 if op == Opcode::Full.code() => V_STALE,
                    0 => {
                        if csm == CSM_FULL {
                            emit(1 << parent, Opcode::StatusReq);
                        }
                        V_OK
                    }
                    3 => {
                        emit(pbit, Opcode::StatusRsp);
                        V_LAG
                    }
                    _ => {
                        st |= S_FAIL;
                        V_TID_FAIL
                    }
                }
            } else {
                match d {
                    0 if csm == CSM_FULL => {
                        emit(children, Opcode::Exit);
                        st = pack_state(CSM_IDLE, false, (g + 1) & 3, 0);
                        V_OK
                    }
                    3 => V_STALE,
                    _ => {
                        st |= S_FAIL;
                        V_TID_FAIL
                    }
                }
            };
            self.state[cgid] = st;
            o.ev_state = (st >> S_CSM_LSB) & 3;
            o.ev_tid = (st >> S_TID_LSB) & 3;
            o.ev_fail = st & S_FAIL != 0;
            v
        };
        o.ev_verdict = verdict;
        self.bump(0);
        if verdict != V_OK {
            self.bump(verdict);
        }
        o
    }

    /// Stage 1 for a configuration operation.
    fn exec_cfg(&mut self) -> EngineOut {
        let s = self.s1;
        let cgid = s.cfg_cgid as usize;
        let mut o = EngineOut {
            rsp_valid: true,
            ..EngineOut::default()
        };
        match s.cfg_op {
            0 => {
                // Write: store the entry, reset the group; echo the entry and the reset state.
                self.table[cgid] = s.cfg_children
                    | (s.cfg_parent << E_PARENT_LSB)
                    | if s.cfg_entry_valid { E_VALID } else { 0 }
                    | if s.cfg_is_root { E_ROOT } else { 0 };
                self.state[cgid] = 0;
                o.rsp_entry_valid = s.cfg_entry_valid;
                o.rsp_parent = s.cfg_parent;
                o.rsp_children = s.cfg_children;
                o.rsp_is_root = s.cfg_is_root;
            }
            1 => {
                let e = self.table[cgid];
                let st = self.state[cgid];
                o.rsp_entry_valid = e & E_VALID != 0;
                o.rsp_parent = (e >> E_PARENT_LSB) & 31;
                o.rsp_children = e & LOW32;
                o.rsp_is_root = e & E_ROOT != 0;
                o.rsp_state = (st >> S_CSM_LSB) & 3;
                o.rsp_tid = (st >> S_TID_LSB) & 3;
                o.rsp_fail = st & S_FAIL != 0;
                o.rsp_reported = st & LOW32;
            }
            2 => o.rsp_counter = self.counters[s.cfg_counter as usize],
            _ => self.counters = [0; COUNTERS],
        }
        o
    }
}

/// The output registers an operation with golden answer `resp` loads, i.e. what the engine
/// shows [`super::LATENCY`] cycles after accepting it (`pkt_ready` / `cfg_ready` false: they
/// are not part of an operation's answer). This is the one place that maps the golden's
/// [`Response`] onto the port fields.
pub fn expected_outputs(resp: &Response) -> EngineOut {
    let mut o = EngineOut::default();
    match resp {
        Response::Packet { cgid, result } => {
            o.ev_valid = true;
            o.ev_cgid = *cgid;
            o.ev_verdict = result.verdict.code();
            o.ev_state = result.state.csm as u64;
            o.ev_tid = result.state.tid;
            o.ev_fail = result.state.fail;
            if let Some(out) = result.out {
                o.out_valid = true;
                o.out_ports = out.ports;
                o.out_cgid = out.cgid;
                o.out_tid = out.tid;
                o.out_op = out.op.code();
            }
        }
        Response::Cfg(r) => {
            o.rsp_valid = true;
            o.rsp_entry_valid = r.entry.valid;
            o.rsp_parent = r.entry.parent;
            o.rsp_children = r.entry.children;
            o.rsp_is_root = r.entry.is_root;
            o.rsp_state = r.state.csm as u64;
            o.rsp_tid = r.state.tid;
            o.rsp_fail = r.state.fail;
            o.rsp_reported = r.state.reported;
            o.rsp_counter = r.counter;
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::super::golden::{CfgCmd, GoldenEngine, Op};
    use super::super::{CfgOp, Packet, Verdict, LATENCY};
    use super::*;
    use std::collections::VecDeque;

    /// Runs `n` reset cycles then steps until `init_done`; returns the idle cycles counted
    /// after the last reset cycle (with packets and cfg ops offered throughout, which must not
    /// be accepted).
    fn reset_and_count(m: &mut EngineModel, n: usize) -> usize {
        let busy = EngineIn {
            pkt_valid: true,
            cfg_valid: false,
            pkt_cgid: 1,
            ..EngineIn::default()
        };
        for _ in 0..n {
            m.step(&EngineIn {
                reset: true,
                ..busy
            });
        }
        let mut low = 0;
        loop {
            let cfg = low % 2 == 1;
            let o = m.step(&EngineIn {
                cfg_valid: cfg,
                ..busy
            });
            assert!(
                !o.ev_valid && !o.rsp_valid && !o.out_valid,
                "output during sweep: {o:?}"
            );
            if o.cfg_ready {
                assert_eq!(o.pkt_ready, !cfg);
                return low;
            }
            assert!(!o.pkt_ready);
            low += 1;
        }
    }

    #[test]
    fn init_sweep_length() {
        for p in [EngineParams::SMALL, EngineParams::default()] {
            let mut m = EngineModel::new(p);
            assert_eq!(reset_and_count(&mut m, 3), p.groups);
            // a few more cycles of traffic, then reset again
            for _ in 0..10 {
                m.step(&EngineIn {
                    cfg_valid: true,
                    ..EngineIn::default()
                });
            }
            assert_eq!(reset_and_count(&mut m, 1), p.groups);
            // fresh model without reset: also sweeps
            let mut m = EngineModel::new(p);
            assert_eq!(reset_and_count(&mut m, 0), p.groups);
        }
    }

    /// A model past reset and sweep.
    fn ready_model(p: EngineParams) -> EngineModel {
        let mut m = EngineModel::new(p);
        m.step(&EngineIn {
            reset: true,
            ..EngineIn::default()
        });
        for _ in 0..p.groups {
            m.step(&EngineIn::default());
        }
        assert!(m.init_done());
        m
    }

    fn write_in(cgid: u64, parent: u64, children: u64, is_root: bool) -> EngineIn {
        EngineIn {
            cfg_valid: true,
            cfg_op: CfgOp::Write as u64,
            cfg_cgid: cgid,
            cfg_entry_valid: true,
            cfg_parent: parent,
            cfg_children: children,
            cfg_is_root: is_root,
            ..EngineIn::default()
        }
    }

    fn pkt_in(port: u64, cgid: u64, tid: u64, op: Opcode) -> EngineIn {
        EngineIn {
            pkt_valid: true,
            pkt_port: port,
            pkt_cgid: cgid,
            pkt_tid: tid,
            pkt_op: op.code(),
            ..EngineIn::default()
        }
    }

    /// Outputs with the ready signals of an idle, initialised engine.
    fn idle_out() -> EngineOut {
        EngineOut {
            pkt_ready: true,
            cfg_ready: true,
            ..EngineOut::default()
        }
    }

    #[test]
    fn latency_is_two() {
        assert_eq!(LATENCY, 2);
        let mut m = ready_model(EngineParams::default());
        let t0 = m.step(&write_in(7, 3, 0b0110, false));
        assert_eq!(
            t0,
            EngineOut {
                pkt_ready: false,
                ..idle_out()
            }
        );
        assert_eq!(m.step(&EngineIn::default()), idle_out());
        let rsp = EngineOut {
            rsp_valid: true,
            rsp_entry_valid: true,
            rsp_parent: 3,
            rsp_children: 0b0110,
            ..idle_out()
        };
        assert_eq!(m.step(&EngineIn::default()), rsp);
        assert_eq!(m.step(&EngineIn::default()), idle_out());
        // a packet: accepted at t, event at t + 2
        m.step(&pkt_in(1, 7, 0, Opcode::Full));
        assert_eq!(m.step(&EngineIn::default()), idle_out());
        let ev = EngineOut {
            ev_valid: true,
            ev_cgid: 7,
            ev_state: 1,
            ..idle_out()
        };
        assert_eq!(m.step(&EngineIn::default()), ev);
        assert_eq!(m.step(&EngineIn::default()), idle_out());
    }

    #[test]
    fn back_to_back_same_cgid() {
        let mut m = ready_model(EngineParams::default());
        // cycle 0: write root of group 9 with children 2 and 5; a packet offered alongside is
        // not accepted (cfg has priority)
        let both = EngineIn {
            pkt_valid: true,
            pkt_port: 2,
            pkt_cgid: 9,
            ..write_in(9, 0, 0b10_0100, true)
        };
        let o0 = m.step(&both);
        assert!(!o0.pkt_ready && o0.cfg_ready);
        // cycles 1, 2: both children report, back to back; cycle 3: read the entry; cycle 4: a
        // FULL of the next transaction; cycle 5: read counter 0
        let o1 = m.step(&pkt_in(2, 9, 0, Opcode::Full));
        let o2 = m.step(&pkt_in(5, 9, 0, Opcode::Full));
        let read = EngineIn {
            cfg_valid: true,
            cfg_op: CfgOp::ReadEntry as u64,
            cfg_cgid: 9,
            ..EngineIn::default()
        };
        let o3 = m.step(&read);
        let o4 = m.step(&pkt_in(5, 9, 1, Opcode::Full));
        let rc = EngineIn {
            cfg_valid: true,
            cfg_op: CfgOp::ReadCounter as u64,
            cfg_counter: 0,
            ..EngineIn::default()
        };
        let o5 = m.step(&rc);
        let o6 = m.step(&EngineIn::default());
        let o7 = m.step(&EngineIn::default());
        assert_eq!(o1, idle_out());
        let entry = |o: EngineOut| EngineOut {
            rsp_valid: true,
            rsp_entry_valid: true,
            rsp_parent: 0,
            rsp_children: 0b10_0100,
            rsp_is_root: true,
            ..o
        };
        assert_eq!(o2, entry(idle_out()));
        assert_eq!(
            o3,
            EngineOut {
                pkt_ready: false,
                ev_valid: true,
                ev_cgid: 9,
                ev_state: 1,
                ..idle_out()
            }
        );
        // second FULL completes: Idle, TID 1, EXIT(0) to the child mask
        let exit = EngineOut {
            out_valid: true,
            out_ports: 0b10_0100,
            out_cgid: 9,
            out_tid: 0,
            out_op: Opcode::Exit.code(),
            ev_valid: true,
            ev_cgid: 9,
            ev_state: 0,
            ev_tid: 1,
            ..idle_out()
        };
        assert_eq!(o4, exit);
        // the read (accepted right after the completing packet) sees the new state
        assert_eq!(
            o5,
            EngineOut {
                pkt_ready: false,
                rsp_tid: 1,
                ..entry(idle_out())
            }
        );
        assert_eq!(
            o6,
            EngineOut {
                ev_valid: true,
                ev_cgid: 9,
                ev_state: 1,
                ev_tid: 1,
                rsp_reported: 0,
                ..idle_out()
            }
        );
        assert_eq!(
            o7,
            EngineOut {
                rsp_valid: true,
                rsp_counter: 3,
                ..idle_out()
            }
        );
        assert_eq!(
            m.state(9),
            GroupState {
                csm: super::super::CsmState::Filling,
                fail: false,
                tid: 1,
                reported: 1 << 5
            }
        );
    }

    /// xorshift64* — tiny, deterministic, good enough for stimulus.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            self.0 = x;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }
    }

    /// Picks a set bit of `mask` (nonzero) at random.
    fn random_bit(rng: &mut Rng, mask: u64) -> u64 {
        let n = mask.count_ones() as u64;
        let mut k = rng.below(n);
        for b in 0..64 {
            if mask & (1 << b) != 0 {
                if k == 0 {
                    return b;
                }
                k -= 1;
            }
        }
        unreachable!()
    }

    /// Random stimulus for one cycle, biased by the golden's current state so that barriers
    /// actually complete (uniform TIDs and ports would almost only produce drops). Fields of
    /// invalid ports and high bits beyond the port widths carry garbage on purpose.
    fn random_input(rng: &mut Rng, g: &GoldenEngine, hot: &[u64]) -> EngineIn {
        let p = g.params();
        let mut i = EngineIn {
            pkt_port: rng.next(),
            pkt_cgid: rng.next(),
            pkt_tid: rng.next(),
            pkt_op: rng.next(),
            cfg_op: rng.next(),
            cfg_cgid: rng.next(),
            cfg_entry_valid: rng.chance(50),
            cfg_parent: rng.next(),
            cfg_children: rng.next(),
            cfg_is_root: rng.chance(50),
            cfg_counter: rng.next(),
            ..EngineIn::default()
        };
        let garbage =
            |rng: &mut Rng, bits: usize| if rng.chance(3) { rng.next() << bits } else { 0 };
        let pick_cgid = |rng: &mut Rng| {
            if rng.chance(85) {
                hot[rng.below(hot.len() as u64) as usize]
            } else {
                rng.below(p.groups as u64)
            }
        };
        i.cfg_valid = rng.chance(4);
        if i.cfg_valid {
            i.cfg_cgid = pick_cgid(rng) | garbage(rng, p.cgid_bits());
            i.cfg_op = match rng.below(100) {
                0..=59 => 0,
                60..=79 => 1,
                80..=96 => 2,
                _ => 3,
            } | garbage(rng, 2);
            i.cfg_entry_valid = rng.chance(92);
            // mostly small, nonempty child masks, so that barriers complete
            let ch = match rng.below(100) {
                0..=4 => 0,
                5..=9 => rng.next(),
                _ => (rng.next() & rng.next() & rng.next()) | (1 << rng.below(p.radix as u64)),
            };
            i.cfg_children = (ch & p.port_mask()) | garbage(rng, p.radix);
            i.cfg_parent = rng.below(p.radix as u64) | garbage(rng, p.port_bits());
            i.cfg_is_root = rng.chance(40);
            i.cfg_counter = rng.below(8) | garbage(rng, 3);
        }
        i.pkt_valid = rng.chance(75);
        if i.pkt_valid {
            let cgid = pick_cgid(rng);
            let e = g.entry(cgid);
            let s = g.state(cgid);
            let r = rng.below(100);
            let (port, from_parent) = if r < 60 && e.children != 0 {
                (random_bit(rng, e.children), false)
            } else if r < 80 {
                (e.parent, true)
            } else {
                (rng.below(p.radix as u64), false)
            };
            let op = if rng.chance(4) {
                rng.below(8)
            } else if from_parent {
                [1, 1, 3][rng.below(3) as usize]
            } else {
                [0, 0, 0, 2][rng.below(4) as usize]
            };
            // Mostly the TIDs a healthy tree would use: the group's own from a child, the
            // completed one (Stale) from the parent unless the group waits in Full; sometimes
            // a lagging child; rarely anything (TidFail, which disables the group until the
            // next Write).
            let tid = (if rng.chance(3) {
                rng.next()
            } else if from_parent {
                if s.csm == super::super::CsmState::Full && rng.chance(85) {
                    s.tid
                } else {
                    s.tid + 3
                }
            } else if rng.chance(88) {
                s.tid
            } else {
                s.tid + 3
            }) & 3;
            i.pkt_port = port | garbage(rng, p.port_bits());
            i.pkt_cgid = cgid | garbage(rng, p.cgid_bits());
            i.pkt_tid = tid | garbage(rng, 2);
            i.pkt_op = op | garbage(rng, 3);
        }
        i
    }

    fn op_of(i: &EngineIn, cfg: bool) -> Op {
        if cfg {
            Op::Cfg(CfgCmd {
                op: CfgOp::from_code(i.cfg_op),
                cgid: i.cfg_cgid,
                entry: TableEntry {
                    valid: i.cfg_entry_valid,
                    parent: i.cfg_parent,
                    children: i.cfg_children,
                    is_root: i.cfg_is_root,
                },
                counter: i.cfg_counter,
            })
        } else {
            Op::Packet(Packet {
                port: i.pkt_port,
                cgid: i.pkt_cgid,
                tid: i.pkt_tid,
                op: i.pkt_op,
            })
        }
    }

    /// Drives the cycle model with random stimulus (idle gaps, occasional resets) and checks
    /// every output of every cycle against the golden's answers, delayed by [`LATENCY`].
    fn random_compare(p: EngineParams, seed: u64, min_ops: u64) {
        let mut rng = Rng(seed);
        let hot = [0, 1, 5, p.groups as u64 - 1];
        let mut m = EngineModel::new(p);
        let mut g = GoldenEngine::new(p);
        let mut pending: VecDeque<(u64, EngineOut)> = VecDeque::new();
        let mut since_reset = 0usize;
        let mut verdicts = [0u64; 8];
        let (mut ops, mut cfgs, mut resets) = (0u64, 0u64, 0u64);
        let mut outs = [0u64; 4]; // output packets by opcode
        let mut cycle = 0u64;
        let mut gap = 0;
        let mut reset_left = 1; // start with a reset
        while ops < min_ops {
            let mut i = if gap > 0 {
                gap -= 1;
                EngineIn {
                    pkt_port: rng.next(),
                    cfg_cgid: rng.next(),
                    ..EngineIn::default()
                }
            } else {
                if rng.chance(8) {
                    gap = rng.below(6);
                }
                random_input(&mut rng, &g, &hot)
            };
            if reset_left == 0 && rng.below(30_000) == 0 {
                reset_left = 1 + rng.below(3);
            }
            if reset_left > 0 {
                i.reset = true;
                reset_left -= 1;
            }
            let o = m.step(&i);

            // expected outputs of this cycle
            let mut want = match pending.front() {
                Some(&(due, e)) if due == cycle => {
                    pending.pop_front();
                    e
                }
                _ => EngineOut::default(),
            };
            want.cfg_ready = since_reset >= p.groups;
            want.pkt_ready = want.cfg_ready && !i.cfg_valid;
            assert_eq!(o, want, "seed {seed:#x}, cycle {cycle}, input {i:?}");

            if i.reset {
                // the edge drops everything in flight; the sweep then clears the tables
                pending.clear();
                g = GoldenEngine::new(p);
                since_reset = 0;
                resets += 1;
            } else {
                since_reset += 1;
                let take_cfg = o.cfg_ready && i.cfg_valid;
                let take_pkt = o.pkt_ready && i.pkt_valid;
                if take_cfg || take_pkt {
                    let resp = g.apply(&op_of(&i, take_cfg));
                    if let Response::Packet { result, .. } = &resp {
                        verdicts[result.verdict.code() as usize] += 1;
                        if let Some(out) = result.out {
                            outs[out.op.code() as usize] += 1;
                        }
                    } else {
                        cfgs += 1;
                    }
                    pending.push_back((cycle + LATENCY as u64, expected_outputs(&resp)));
                    ops += 1;
                }
            }
            cycle += 1;
        }
        // the stimulus must actually exercise the rules
        println!("{p:?}: {cycle} cycles, {ops} ops, verdicts {verdicts:?}, outputs {outs:?}, cfgs {cfgs}, resets {resets}");
        for v in Verdict::ALL {
            assert!(
                verdicts[v.code() as usize] >= 50,
                "seed {seed:#x}: verdict {v:?} seen {verdicts:?}"
            );
        }
        assert!(
            outs.iter().all(|&n| n >= 100),
            "seed {seed:#x}: outputs by opcode {outs:?}"
        );
        assert!(
            cfgs >= 1000 && resets >= 2,
            "seed {seed:#x}: cfgs {cfgs} resets {resets}"
        );
        // the final state agrees too (after draining the pipeline)
        for _ in 0..LATENCY {
            m.step(&EngineIn::default());
        }
        for c in 0..p.groups as u64 {
            assert_eq!(m.entry(c), g.entry(c), "seed {seed:#x}: entry {c}");
            assert_eq!(m.state(c), g.state(c), "seed {seed:#x}: state {c}");
        }
        for k in 0..8 {
            assert_eq!(m.counter(k), g.counter(k), "seed {seed:#x}: counter {k}");
        }
    }

    #[test]
    fn random_vs_golden_small() {
        random_compare(EngineParams::SMALL, 0x9E48_F7EB_2DF9_8CE6, 150_000);
    }

    #[test]
    fn random_vs_golden_default() {
        random_compare(EngineParams::default(), 0x0000_C011_EC71_0E55, 150_000);
    }

    #[test]
    fn random_vs_golden_largest() {
        let p = EngineParams {
            radix: 32,
            groups: 4096,
            counter_bits: 32,
        };
        random_compare(p, 0x5EED_0000_0000_0001, 100_000);
    }

    #[test]
    fn counters_saturate_in_model() {
        let p = EngineParams::SMALL;
        let mut m = ready_model(p);
        // 70_000 packets for an unknown group, back to back
        for _ in 0..70_000 {
            m.step(&pkt_in(0, 3, 0, Opcode::Full));
        }
        for _ in 0..LATENCY {
            m.step(&EngineIn::default());
        }
        assert_eq!(m.counter(0), 65_535);
        assert_eq!(m.counter(V_UNKNOWN_CGID), 65_535);
        assert_eq!(m.counter(V_NOT_IN_TREE), 0);
    }
}
