//! # Switch collective engine
//!
//! The switch-side engine of seed `000_…`: a collective forwarding table per collective group id
//! (CGID), a per-group collective state machine (CSM) ratchet and a 2-bit modular transaction-id
//! (TID) comparator. It runs barriers inside a spanning tree of switches.
//!
//! This module holds what every level shares: the parameters ([`EngineParams`]), the packet
//! format ([`packet`]), the port structs ([`EngineIn`], [`EngineOut`]) and the codes that appear
//! on those ports. The golden reference is in [`golden`], the cycle model in [`engine`]; the RTL
//! is `netcoll-hdl`'s `switch::engine`.
//!
//! ## Per-group state
//!
//! | field      | width | meaning                                                       |
//! |------------|-------|---------------------------------------------------------------|
//! | `csm`      | 2     | Idle = 0, Filling = 1, Full = 2, Exiting = 3                  |
//! | `fail`     | 1     | Failure flag: set by an impossible TID, cleared only by a configuration write |
//! | `tid`      | 2     | transaction id of the current (not yet completed) transaction |
//! | `reported` | radix | one bit per child port that has reported Full this transaction |
//!
//! The CSM is a ratchet: it only ever moves one state forward (Idle → Filling → Full → Exiting →
//! Idle). One packet may take it through several consecutive steps (a root whose last child
//! reports goes Filling → Full → Exiting → Idle), never skipping one. Exiting is passed through
//! within the packet that causes it, because the switch sends Exit to its children without
//! waiting for acknowledgement; so between packets a group is Idle, Filling or Full.
//!
//! ## Packet processing (one packet, in this order)
//!
//! Let `p` be the ingress port, `T` the packet TID, `G` the group TID and `d = (T - G) mod 4`.
//! 1. table entry not valid → drop, verdict [`Verdict::UnknownCgid`];
//! 2. opcode reserved (4..7) → drop, [`Verdict::BadOpcode`];
//! 3. role: `p` is the parent (non-root only) → from parent; else `p` in the child mask → from
//!    child; else drop, [`Verdict::NotInTree`];
//! 4. direction: FULL and STATUS_REQ must come from a child, EXIT and STATUS_RSP from the parent;
//!    otherwise drop, [`Verdict::BadOpcode`];
//! 5. group in Failure → drop, [`Verdict::GroupFailed`];
//! 6. from a child (FULL or STATUS_REQ):
//!    - `d == 3` (the child is one transaction behind: it missed Exit) → discard, answer
//!      STATUS_RSP with TID `T` ("transaction T completed") to port `p` alone, state untouched,
//!      [`Verdict::Lag`];
//!    - `d == 1 or 2` (the child is ahead: impossible short of a bug) → set Failure,
//!      [`Verdict::TidFail`];
//!    - `d == 0`, child's `reported` bit clear (FULL, or a STATUS_REQ whose FULL was lost: a
//!      child only asks while it is Full) → set the bit; Idle → Filling; if every child has now
//!      reported, Filling → Full; then on Full: a root goes Full → Exiting → Idle, clears
//!      `reported`, advances its TID and multicasts EXIT(`T`) to the child mask; a non-root sends
//!      FULL(`T`) to its parent and waits. [`Verdict::Ok`];
//!    - `d == 0`, bit already set: FULL is a duplicate → [`Verdict::Stale`]; STATUS_REQ while the
//!      group is Full (non-root) → forward STATUS_REQ(`T`) to the parent (this switch may itself
//!      have missed Exit), [`Verdict::Ok`]; STATUS_REQ otherwise → nothing to say yet,
//!      [`Verdict::Ok`] with no output.
//! 7. from the parent (EXIT or STATUS_RSP, which both mean "transaction `T` completed"):
//!    - `d == 0` and Full → Full → Exiting → Idle, clear `reported`, advance TID, multicast
//!      EXIT(`T`) to the child mask, [`Verdict::Ok`];
//!    - `d == 0` and not Full (the parent cannot complete before we reported) → Failure,
//!      [`Verdict::TidFail`];
//!    - `d == 3` (news of a transaction already completed here) → [`Verdict::Stale`];
//!    - `d == 1 or 2` → Failure, [`Verdict::TidFail`].
//!
//! Every accepted packet yields exactly one event (`ev_*` outputs) with its verdict and the
//! group's state after it (all zero for the drop verdicts 1–3, where no group state is read),
//! and at most one output packet.
//!
//! ### Clarifications
//!
//! Points the rules above leave open, and the reading the golden, the cycle model and the RTL
//! all implement:
//! - "Every child has now reported" means `reported == children` exactly. A non-root whose
//!   parent port is also set in its child mask is misconfigured: step 3 gives that port the
//!   parent role, so its bit can never be reported and the group never completes (EXIT would be
//!   multicast to the child mask as configured). The engine does not check this.
//! - EXIT goes to the configured child mask (`out_ports = children`); FULL and a forwarded
//!   STATUS_REQ to `1 << parent`; the Lag answer STATUS_RSP to `1 << p`. Every output packet
//!   carries the CGID and the TID `T` of the packet that caused it.
//! - `TidFail` only sets `fail`; the CSM, TID and `reported` keep their values (and are what
//!   `ev_*` and `ReadEntry` show). `GroupFailed` changes nothing and reports the stored state.
//! - A STATUS_REQ whose child bit is clear counts exactly like a FULL, including the FULL or
//!   EXIT it may trigger.
//! - A group's state between packets is Idle with `reported == 0`, Filling, or Full with
//!   `reported == children` (Full only for a non-root); so "bit clear while Full" cannot occur.
//!
//! ## Counters
//!
//! `counter_bits`-wide, saturating, readable and clearable through the configuration port.
//! Counter 0 counts accepted packets; counter `v` (1..=7) counts packets whose verdict has code
//! `v` ([`Verdict::code`]). A packet with verdict `Ok` therefore increments counter 0 only
//! (code 0 is taken by the total); any other packet increments counter 0 and its verdict's.
//! Counters are cleared by `reset` and by `ClearCounters`.
//!
//! ## Configuration port
//!
//! One operation per cycle, with priority over packets (a packet offered in the same cycle is
//! not accepted: `pkt_ready` is low). [`CfgOp`]:
//! - `Write`: writes the table entry of `cfg_cgid` and resets that group's state to Idle, TID 0,
//!   no Failure, nothing reported (joining, re-building and destroying a group all go through it);
//!   answers with the entry and state written;
//! - `ReadEntry`: answers with the entry and the group state;
//! - `ReadCounter`: answers `rsp_counter` = counter `cfg_counter`;
//! - `ClearCounters`: zeroes every counter; answers with all fields zero.
//!
//! Fields of a response that the operation does not produce are zero. `Write` stores the entry
//! as given (reduced to the port widths) even when `cfg_entry_valid` is low or `cfg_parent` is
//! meaningless for a root, and `ReadEntry` returns it as stored: the table is a plain memory,
//! and only `valid` (step 1) and, for a non-root, `parent` (step 3) are interpreted.
//!
//! ## Timing
//!
//! - Synchronous, active-high `reset`. After reset the engine clears its tables, one group per
//!   cycle: `pkt_ready` and `cfg_ready` are low for exactly `groups` cycles after the last reset
//!   cycle, then high (`pkt_ready` is also low in a cycle with `cfg_valid`).
//! - An operation accepted in cycle `t` (`valid && ready`) produces its outputs (`out_*`, `ev_*`
//!   or `rsp_*`) in cycle `t + 2` ([`LATENCY`]); one operation per cycle, sustained, in order.
//!   Outputs not valid in a cycle are all zero.
//! - `cfg_ready` is `init_done` and `pkt_ready` is `init_done && !cfg_valid`, combinationally;
//!   neither is gated by `reset`. The reset edge clears the pipeline, so an operation accepted
//!   in a reset cycle or in the cycle just before one is lost (no outputs, no effect).
//! - Inputs wider than their port are cut to the port width (the RTL port has fewer bits), e.g.
//!   `pkt_port & (radix - 1)`, `pkt_op & 7`, `cfg_children & port_mask()`, `cfg_counter & 7`.
//!   The golden reduces its inputs the same way, so one stimulus drives every level.
//!
//! The cycle-level micro-architecture (reset sweep, two pipeline stages) is described in
//! [`engine`].

pub mod engine;
pub mod golden;
pub mod packet;

pub use packet::{Opcode, Packet};

/// Cycles from accepting an operation to its outputs.
pub const LATENCY: usize = 2;

/// Supported values of `radix` (ports per switch).
pub const RADIX_VALUES: [usize; 4] = [4, 8, 16, 32];
/// Supported values of `groups` (collective groups, i.e. table depth).
pub const GROUP_VALUES: [usize; 4] = [16, 256, 1024, 4096];
/// Supported values of `counter_bits`.
pub const COUNTER_BITS_VALUES: [usize; 2] = [16, 32];
/// Width of the TID, fixed by the protocol (seed `000_…`).
pub const TID_BITS: usize = 2;
/// Width of the opcode field.
pub const OP_BITS: usize = 3;
/// Number of counters.
pub const COUNTERS: usize = 8;

/// Parameters of the switch collective engine. Only the values in [`RADIX_VALUES`],
/// [`GROUP_VALUES`] and [`COUNTER_BITS_VALUES`] are supported (the RTL is monomorphised per
/// combination); [`crate::config`] rejects the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EngineParams {
    /// Ports per switch; also the width of child masks.
    pub radix: usize,
    /// Collective groups (table depth); a CGID is `log2(groups)` bits.
    pub groups: usize,
    /// Width of each drop / event counter.
    pub counter_bits: usize,
}

impl Default for EngineParams {
    fn default() -> Self {
        Self {
            radix: 16,
            groups: 256,
            counter_bits: 32,
        }
    }
}

impl EngineParams {
    /// The small configuration used for the second snapshot and quick tests.
    pub const SMALL: EngineParams = EngineParams {
        radix: 4,
        groups: 16,
        counter_bits: 16,
    };

    /// Bits of a port number.
    pub fn port_bits(&self) -> usize {
        self.radix.trailing_zeros() as usize
    }
    /// Bits of a CGID.
    pub fn cgid_bits(&self) -> usize {
        self.groups.trailing_zeros() as usize
    }
    /// Mask of the valid child-mask bits.
    pub fn port_mask(&self) -> u64 {
        if self.radix == 64 {
            u64::MAX
        } else {
            (1u64 << self.radix) - 1
        }
    }
    /// True if every parameter is one of the supported values (the RTL exists only for those).
    pub fn is_supported(&self) -> bool {
        RADIX_VALUES.contains(&self.radix)
            && GROUP_VALUES.contains(&self.groups)
            && COUNTER_BITS_VALUES.contains(&self.counter_bits)
    }
    /// Largest counter value (counters saturate there).
    pub fn counter_max(&self) -> u64 {
        (1u64 << self.counter_bits) - 1
    }
}

/// CSM states, encoded as on the ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CsmState {
    Idle = 0,
    Filling = 1,
    Full = 2,
    Exiting = 3,
}

impl CsmState {
    pub fn from_code(c: u64) -> CsmState {
        match c & 3 {
            0 => CsmState::Idle,
            1 => CsmState::Filling,
            2 => CsmState::Full,
            _ => CsmState::Exiting,
        }
    }
    /// The ratchet: the one state that may follow this one.
    pub fn next(self) -> CsmState {
        CsmState::from_code(self as u64 + 1)
    }
}

/// What the engine did with an accepted packet; the code is the `ev_verdict` value and the
/// index of the counter it increments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    Ok = 0,
    UnknownCgid = 1,
    NotInTree = 2,
    BadOpcode = 3,
    GroupFailed = 4,
    Stale = 5,
    Lag = 6,
    TidFail = 7,
}

impl Verdict {
    pub const ALL: [Verdict; 8] = [
        Verdict::Ok,
        Verdict::UnknownCgid,
        Verdict::NotInTree,
        Verdict::BadOpcode,
        Verdict::GroupFailed,
        Verdict::Stale,
        Verdict::Lag,
        Verdict::TidFail,
    ];
    pub fn code(self) -> u64 {
        self as u64
    }
    pub fn from_code(c: u64) -> Option<Verdict> {
        Verdict::ALL.get(c as usize).copied()
    }
}

/// Configuration-port operations (`cfg_op`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CfgOp {
    Write = 0,
    ReadEntry = 1,
    ReadCounter = 2,
    ClearCounters = 3,
}

impl CfgOp {
    pub fn from_code(c: u64) -> CfgOp {
        match c & 3 {
            0 => CfgOp::Write,
            1 => CfgOp::ReadEntry,
            2 => CfgOp::ReadCounter,
            _ => CfgOp::ClearCounters,
        }
    }
}

/// A collective forwarding table entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TableEntry {
    pub valid: bool,
    /// Port toward the parent; ignored for the root.
    pub parent: u64,
    /// One bit per child port.
    pub children: u64,
    pub is_root: bool,
}

/// The per-group state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupState {
    pub csm: CsmState,
    pub fail: bool,
    pub tid: u64,
    pub reported: u64,
}

impl Default for GroupState {
    fn default() -> Self {
        Self {
            csm: CsmState::Idle,
            fail: false,
            tid: 0,
            reported: 0,
        }
    }
}

/// Inputs of the engine for one clock cycle. Field widths are those of the RTL ports
/// (`P` = port bits, `G` = CGID bits, `R` = radix); values must fit their widths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EngineIn {
    /// Synchronous, active high.
    pub reset: bool,
    pub pkt_valid: bool,
    /// Ingress port (`P` bits).
    pub pkt_port: u64,
    /// `G` bits.
    pub pkt_cgid: u64,
    /// 2 bits.
    pub pkt_tid: u64,
    /// 3 bits, [`Opcode`] codes; 4..7 are reserved.
    pub pkt_op: u64,
    pub cfg_valid: bool,
    /// 2 bits, [`CfgOp`] codes.
    pub cfg_op: u64,
    /// `G` bits.
    pub cfg_cgid: u64,
    pub cfg_entry_valid: bool,
    /// `P` bits.
    pub cfg_parent: u64,
    /// `R` bits.
    pub cfg_children: u64,
    pub cfg_is_root: bool,
    /// 3 bits: counter index for `ReadCounter`.
    pub cfg_counter: u64,
}

/// Outputs of the engine in one clock cycle (sampled before the clock edge).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EngineOut {
    /// A packet offered this cycle is accepted.
    pub pkt_ready: bool,
    /// A configuration operation offered this cycle is accepted.
    pub cfg_ready: bool,
    pub out_valid: bool,
    /// Egress port mask (`R` bits): one bit for a unicast, the child mask for EXIT.
    pub out_ports: u64,
    pub out_cgid: u64,
    pub out_tid: u64,
    pub out_op: u64,
    pub ev_valid: bool,
    pub ev_cgid: u64,
    /// [`Verdict`] code.
    pub ev_verdict: u64,
    /// [`CsmState`] code after the packet.
    pub ev_state: u64,
    pub ev_tid: u64,
    pub ev_fail: bool,
    pub rsp_valid: bool,
    pub rsp_entry_valid: bool,
    pub rsp_parent: u64,
    pub rsp_children: u64,
    pub rsp_is_root: bool,
    pub rsp_state: u64,
    pub rsp_tid: u64,
    pub rsp_fail: bool,
    pub rsp_reported: u64,
    pub rsp_counter: u64,
}

/// One port of [`EngineIn`] / [`EngineOut`] as the RTL names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortSpec {
    pub name: &'static str,
    pub width: usize,
}

/// Input ports in declaration order (besides `clock`), with widths for `p`. The RTL, the
/// manifest and the Verilator harness all use these names.
pub fn input_ports(p: &EngineParams) -> Vec<PortSpec> {
    let (pb, gb, r) = (p.port_bits(), p.cgid_bits(), p.radix);
    vec![
        PortSpec {
            name: "reset",
            width: 1,
        },
        PortSpec {
            name: "pkt_valid",
            width: 1,
        },
        PortSpec {
            name: "pkt_port",
            width: pb,
        },
        PortSpec {
            name: "pkt_cgid",
            width: gb,
        },
        PortSpec {
            name: "pkt_tid",
            width: TID_BITS,
        },
        PortSpec {
            name: "pkt_op",
            width: OP_BITS,
        },
        PortSpec {
            name: "cfg_valid",
            width: 1,
        },
        PortSpec {
            name: "cfg_op",
            width: 2,
        },
        PortSpec {
            name: "cfg_cgid",
            width: gb,
        },
        PortSpec {
            name: "cfg_entry_valid",
            width: 1,
        },
        PortSpec {
            name: "cfg_parent",
            width: pb,
        },
        PortSpec {
            name: "cfg_children",
            width: r,
        },
        PortSpec {
            name: "cfg_is_root",
            width: 1,
        },
        PortSpec {
            name: "cfg_counter",
            width: 3,
        },
    ]
}

/// Output ports in declaration order, with widths for `p`.
pub fn output_ports(p: &EngineParams) -> Vec<PortSpec> {
    let (pb, gb, r, c) = (p.port_bits(), p.cgid_bits(), p.radix, p.counter_bits);
    let _ = pb;
    vec![
        PortSpec {
            name: "pkt_ready",
            width: 1,
        },
        PortSpec {
            name: "cfg_ready",
            width: 1,
        },
        PortSpec {
            name: "out_valid",
            width: 1,
        },
        PortSpec {
            name: "out_ports",
            width: r,
        },
        PortSpec {
            name: "out_cgid",
            width: gb,
        },
        PortSpec {
            name: "out_tid",
            width: TID_BITS,
        },
        PortSpec {
            name: "out_op",
            width: OP_BITS,
        },
        PortSpec {
            name: "ev_valid",
            width: 1,
        },
        PortSpec {
            name: "ev_cgid",
            width: gb,
        },
        PortSpec {
            name: "ev_verdict",
            width: 3,
        },
        PortSpec {
            name: "ev_state",
            width: 2,
        },
        PortSpec {
            name: "ev_tid",
            width: TID_BITS,
        },
        PortSpec {
            name: "ev_fail",
            width: 1,
        },
        PortSpec {
            name: "rsp_valid",
            width: 1,
        },
        PortSpec {
            name: "rsp_entry_valid",
            width: 1,
        },
        PortSpec {
            name: "rsp_parent",
            width: p.port_bits(),
        },
        PortSpec {
            name: "rsp_children",
            width: r,
        },
        PortSpec {
            name: "rsp_is_root",
            width: 1,
        },
        PortSpec {
            name: "rsp_state",
            width: 2,
        },
        PortSpec {
            name: "rsp_tid",
            width: TID_BITS,
        },
        PortSpec {
            name: "rsp_fail",
            width: 1,
        },
        PortSpec {
            name: "rsp_reported",
            width: r,
        },
        PortSpec {
            name: "rsp_counter",
            width: c,
        },
    ]
}

impl EngineIn {
    /// Values in [`input_ports`] order.
    pub fn to_values(&self) -> Vec<u64> {
        let mut v = vec![0; 14];
        self.write_values(&mut v);
        v
    }

    /// Writes the values in [`input_ports`] order into `out` (at least 14 long) without
    /// allocating: the co-simulation calls this every cycle.
    pub fn write_values(&self, out: &mut [u64]) {
        let v = [
            self.reset as u64,
            self.pkt_valid as u64,
            self.pkt_port,
            self.pkt_cgid,
            self.pkt_tid,
            self.pkt_op,
            self.cfg_valid as u64,
            self.cfg_op,
            self.cfg_cgid,
            self.cfg_entry_valid as u64,
            self.cfg_parent,
            self.cfg_children,
            self.cfg_is_root as u64,
            self.cfg_counter,
        ];
        out[..v.len()].copy_from_slice(&v);
    }
}

impl EngineOut {
    /// Values in [`output_ports`] order.
    pub fn to_values(&self) -> Vec<u64> {
        vec![
            self.pkt_ready as u64,
            self.cfg_ready as u64,
            self.out_valid as u64,
            self.out_ports,
            self.out_cgid,
            self.out_tid,
            self.out_op,
            self.ev_valid as u64,
            self.ev_cgid,
            self.ev_verdict,
            self.ev_state,
            self.ev_tid,
            self.ev_fail as u64,
            self.rsp_valid as u64,
            self.rsp_entry_valid as u64,
            self.rsp_parent,
            self.rsp_children,
            self.rsp_is_root as u64,
            self.rsp_state,
            self.rsp_tid,
            self.rsp_fail as u64,
            self.rsp_reported,
            self.rsp_counter,
        ]
    }

    /// Inverse of [`EngineOut::to_values`].
    pub fn from_values(v: &[u64]) -> EngineOut {
        EngineOut {
            pkt_ready: v[0] != 0,
            cfg_ready: v[1] != 0,
            out_valid: v[2] != 0,
            out_ports: v[3],
            out_cgid: v[4],
            out_tid: v[5],
            out_op: v[6],
            ev_valid: v[7] != 0,
            ev_cgid: v[8],
            ev_verdict: v[9],
            ev_state: v[10],
            ev_tid: v[11],
            ev_fail: v[12] != 0,
            rsp_valid: v[13] != 0,
            rsp_entry_valid: v[14] != 0,
            rsp_parent: v[15],
            rsp_children: v[16],
            rsp_is_root: v[17] != 0,
            rsp_state: v[18],
            rsp_tid: v[19],
            rsp_fail: v[20] != 0,
            rsp_reported: v[21],
            rsp_counter: v[22],
        }
    }
}
