//! # The fabric simulator's kernel
//!
//! Cycle level and activity driven. Time is the switches' clock. A time-ordered queue holds
//! what happens at a future cycle (a packet arriving at the end of a link, a credit coming
//! back from another partition, a process entering a barrier, a node's retry timer, a
//! configuration operation reaching a switch, a message reaching the subnet manager, a fault,
//! a sleeping switch's wake-up); a switch is stepped, one engine clock per cycle, only while
//! it has work (input, configuration, an output of its engine, its replicator or egress
//! queues that can send). When nothing has work the kernel jumps to the next queued event.
//! Same file, same seed: same output, byte for byte, whatever the number of threads.
//!
//! A switch's engine is the transaction-level model
//! ([`netcoll_models::switch_engine::txn`]: the golden's answers at the cycle model's port
//! timing) unless [`RunOptions::levels`] names the switch; then it is the cycle model, the
//! rust-hdl RTL or the Verilog under Verilator, behind the same ports, with the same output.
//! Engines that reduce (`[switch] max_plen` > 0) run the cycle model (the transaction-level
//! model has no payload path), and a reducing switch stays awake until its engine is quiet
//! ([`netcoll_models::switch_engine::model::SwitchEngineModel::quiet`]): a packet with data
//! leaves the engine when its payload path has worked through it, at no cycle the ports can
//! tell in advance.
//!
//! Three things are not events, for speed, and change nothing the output shows:
//! - **Quiet engines.** A cycle in which nothing is offered to an engine with nothing in
//!   flight and nothing queued changes only its time: it is skipped.
//! - **Engines between their answers.** An operation the engine accepts in cycle `t` shows
//!   its results in `t + 4` ([`netcoll_models::switch_engine::LATENCY`]); a switch with
//!   nothing else to do sleeps until the first such cycle, and its engine is clocked through
//!   the cycles in between (with every input low) when it wakes, as after any idle stretch.
//!   An engine shows a packet outside those cycles only from a backlog (a packet it showed,
//!   or one that surfaced, while the replicator was busy), which the switch tracks from the
//!   ports alone, so the rule is the same at every level of the engine.
//! - **Credits.** A credit given back in a window reaches its sender no earlier than the
//!   window's end (a link's latency is at least the window), so credits are collected during
//!   the window and handed to their senders' partitions between windows, with the cycle each
//!   arrives: the sender counts those that have arrived when it wants to send. A sender with
//!   packets waiting is woken when the credit arrives, unless it is a switch that is awake
//!   (it sees the credit when it next decides to sleep, and sets its wake-up by it). Every
//!   partitioning hands over the same credits at the same points, so the rule, and the work
//!   counters, do not depend on how the fabric is cut.
//!
//! [`RunOptions::every_cycle`] turns the first two off (every switch steps, and every engine
//! is clocked, in every cycle): the naive reference the test
//! `skipping_idle_switches_changes_nothing` compares with.
//!
//! ## Partitions, windows and threads
//! The fabric is cut into `threads` partitions (contiguous blocks of switches, each node with
//! its switch); the subnet manager and the safety checker are one more process. Nothing
//! crosses from one partition to another in less than the *window* `W` = the smallest
//! latency of a link or of the management network (of any link, not only of those between
//! partitions, so that every partitioning runs the same windows and stops at the same
//! cycle: the run's counters are then the same too). So the kernel runs
//! all partitions from the earliest pending cycle `t0` to `t0 + W` independently (in
//! parallel, one thread each), then delivers what they sent each other (it lands at or after
//! `t0 + W`) and the credits they gave back, then lets the SM handle its messages of the
//! window (it answers a management hop later, also beyond the window): conservative
//! synchronisation, no rollback.
//!
//! Results do not depend on the partitioning because events are never ordered by where or
//! when they were queued: within a cycle they go by class (faults, checker log, wake-ups for
//! credits, arrivals, management, node software), then by the entity that made them (every switch,
//! node and the SM numbers what it makes). Each entity lives in one partition, so these keys
//! are the same for one partition or many. Random choices are per entity and link direction,
//! seeded from the run's seed. A run cut short (a hang) stops at a cycle computed from the
//! rules (the checker's deadline or `run.max_cycles`), not at a window's end.
//!
//! The same scheme runs across machines: a partition per MPI rank, the window loop as
//! `MPI_Allreduce(min)` for `t0` (each rank's next event and the arrival of each credit it is
//! owed) followed by an all-to-all exchange of the events and credits that crossed partitions
//! (events sorted by key on arrival, so the order is again independent of the exchange), with
//! the SM on rank 0.
//!
//! ## A switch, per cycle
//! 1. Configuration has priority: the oldest operation the SM sent is offered on `cfg_*`.
//! 2. The arbiter offers the head packet of the next non-empty input buffer, round robin from
//!    the port after the last one served; a head older than the packet lifetime is dropped
//!    first (`expired`). When the engine takes it, the buffer's credit goes back over the link.
//!    A packet with data is offered beat by beat (`lanes` words each): once the engine has
//!    taken its first beat, its other beats follow one a cycle with nothing else offered (no
//!    configuration either), and the credit goes back with the last.
//! 3. The engine's output packet (a packet with data once its last beat is out) goes to the
//!    replicator, which places up to `replication`
//!    copies per cycle into the egress queues of its port mask, lowest port first; a copy that
//!    finds its queue full is dropped (`egress_full`) rather than waited for (that is what
//!    makes the fabric deadlock free, see [`crate::sm`]). The engine's `out_ready` is high when
//!    the replicator is empty.
//! 4. Each egress queue sends its head when its link is up, its bandwidth is free and it holds
//!    a credit; the packet arrives `ceil(8 / bandwidth) + latency` cycles later.
//! 5. Events (`ev_*`) are counted per verdict; `TID_FAIL` is sent to the SM as a trap.
//!    Responses (`rsp_*`) go back to the SM.
//!
//! A switch that has been idle is brought up to the current cycle by idle clock cycles
//! before it is stepped, so its engine sees every cycle, as in hardware.
//!
//! ## Order, duplicates and the packet lifetime
//! The 2-bit TID can only tell apart transactions less than two apart, so the fabric keeps
//! two promises:
//! 1. **In order between neighbours.** Every link direction, input buffer, engine and egress
//!    queue is first in, first out, and a duplicate (a fault) is delivered right after its
//!    original, however late, never after a later packet. So when a copy of FULL(`T`) reaches
//!    the parent, the parent has not yet seen the child's FULL(`T + 1`) (sent later): it is at
//!    `T` or `T + 1`, where the copy is a duplicate or stale news. The same holds for a copy of
//!    EXIT(`T`) or STATUS_RSP(`T`) going down. A copy can never alias another transaction.
//! 2. **Packets of an old tree never meet the new one.** A packet lives one hop: it is dropped
//!    wherever it waits once it is older than `latency + ceil(8 / bandwidth) + hol_lifetime`
//!    cycles of the link it travels (the lifetime, as InfiniBand switches drop packets whose
//!    head-of-queue time runs out). On switches that reduce, the serialisation is that of the
//!    longest packet (`8 + 8 · max_plen` bytes), and `egress_depth` times what it takes longer
//!    than a header is added: a packet may wait behind a full egress queue of them. Before programming a rebuilt tree the subnet manager
//!    disables the old one and waits the longest lifetime of any link, so every packet an old
//!    entry produced has arrived (and was dropped: the entries are invalid) or died.

mod control;
mod fifo;
mod part;

use crate::collective::{Collective, Kind, Reduction};
use crate::report::Report;
use crate::sm::Policy;
use crate::spec::{FabricFile, MemberRef, Members};
use crate::topology::{End, Topology};
use crate::FabricError;
use control::Control;
use netcoll_models::config::Config;
use netcoll_models::net::header::Opcode;
use netcoll_models::reduce_alu::repro::ReproPartial;
use netcoll_models::reduce_alu::{AluOp, Dtype};
use netcoll_models::switch_engine::txn::SwitchEngineTxn;
use netcoll_models::switch_engine::{CfgOp, SwitchEngineParams, TableEntry};
use netcoll_testbench::harness::vcd::Tracer;
use netcoll_testbench::harness::Level;
use part::{Part, Stats};
use rand::distributions::Bernoulli;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::mpsc;
use std::sync::Arc;

/// Bytes of a collective packet's header on the wire; a payload adds 8 bytes a word.
pub const PACKET_BYTES: u64 = 8;

/// A packet's data: its reduction fields and words (shared by the copies a switch replicates).
#[derive(Debug, PartialEq, Eq)]
pub struct Payload {
    /// `AluOp` code.
    pub rop: u8,
    /// `Dtype` code.
    pub dtype: u8,
    /// `plen` 64-bit words.
    pub words: Vec<u64>,
}

/// A collective packet in the fabric (kept small: the kernel moves many of them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pkt {
    /// The group (below the engine's `groups`, at most 4096).
    pub cgid: u32,
    pub tid: u8,
    pub op: u8,
    /// A duplicate made by a fault: it took no credit, so it gives none back.
    pub extra: bool,
    /// The cycle its sender produced it.
    pub birth: u64,
    /// A reduction's data (`None`: a header alone, `plen` 0).
    pub payload: Option<Arc<Payload>>,
}

impl Pkt {
    /// Payload words.
    pub fn plen(&self) -> u64 {
        self.payload.as_ref().map_or(0, |p| p.words.len() as u64)
    }

    /// Bytes on the wire.
    pub fn bytes(&self) -> u64 {
        PACKET_BYTES + 8 * self.plen()
    }

    /// The header, as an event carries a packet without data.
    fn header(&self) -> Hdr {
        Hdr {
            cgid: self.cgid,
            tid: self.tid,
            op: self.op,
            extra: self.extra,
            birth: self.birth,
        }
    }
}

/// A packet without data as an event carries it (16 bytes, so that events stay at 48).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hdr {
    cgid: u32,
    tid: u8,
    op: u8,
    extra: bool,
    birth: u64,
}

impl Hdr {
    pub fn packet(self) -> Pkt {
        Pkt {
            cgid: self.cgid,
            tid: self.tid,
            op: self.op,
            extra: self.extra,
            birth: self.birth,
            payload: None,
        }
    }
}

/// One end of a link as events carry it, packed in 4 bytes: a switch port (switch index and
/// port below 64) or a node (topologies are validated to fit: fewer than 2^21 switches and
/// nodes, radix at most 32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Dest(u32);

impl Dest {
    const NODE: u32 = 1 << 31;

    pub fn switch(s: usize, port: usize) -> Dest {
        Dest((s as u32) << 6 | port as u32)
    }

    pub fn node(n: usize) -> Dest {
        Dest(Dest::NODE | n as u32)
    }

    pub fn end(self) -> End {
        if self.0 & Dest::NODE != 0 {
            End::Node((self.0 & !Dest::NODE) as usize)
        } else {
            End::Switch((self.0 >> 6) as usize, (self.0 & 63) as usize)
        }
    }
}

impl From<End> for Dest {
    fn from(e: End) -> Dest {
        match e {
            End::Switch(s, p) => Dest::switch(s, p),
            End::Node(n) => Dest::node(n),
        }
    }
}

/// A credit given back over a link: it reaches the sender `to` at cycle `t`, unless the link
/// has failed or come back since it was given (its generation at the giving end was `gen`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CreditRet {
    pub t: u64,
    pub to: Dest,
    pub gen: u32,
}

/// What a partition takes in before a window, or hands out after one: events, and credits
/// given back.
#[derive(Default)]
pub(crate) struct Inbox {
    pub events: Vec<Scheduled>,
    pub credits: Vec<CreditRet>,
}

impl Inbox {
    fn is_empty(&self) -> bool {
        self.events.is_empty() && self.credits.is_empty()
    }
}

/// How a run is made.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub seed: u64,
    /// Switches (by name) that run at another level than the transaction-level model (the
    /// cycle model, the RTL, Verilator).
    pub levels: BTreeMap<String, Level>,
    /// Threads (and partitions of the fabric); the output does not depend on it.
    pub threads: usize,
    /// Steps every switch in every cycle, skipping nothing: the naive reference the kernel's
    /// shortcuts (quiet engines, sleeping switches, idle stretches) are tested against. The
    /// output is the same but for the `steps` and `events` counters; it is much slower.
    pub every_cycle: bool,
    /// Reductions: the report keeps every result each member received
    /// ([`Report::results`]), for tests that check them their own way.
    pub keep_results: bool,
}

/// A validated fabric, ready to run.
#[derive(Clone, Debug)]
pub struct Fabric {
    pub file: FabricFile,
    pub topo: Arc<Topology>,
    pub config: Config,
    /// Per link: the largest age of a packet on it.
    pub lifetime: Vec<u64>,
    /// The longest of them: how long the SM drains a disabled tree.
    pub drain: u64,
    groups: Vec<GroupDef>,
    faults: Vec<Fault>,
}

#[derive(Clone, Debug)]
struct GroupDef {
    name: String,
    members: Vec<usize>,
    /// Operations to run: barriers, or reductions.
    barriers: u64,
    start: u64,
    policy: Policy,
    kind: Kind,
}

impl GroupDef {
    /// The group's CGIDs: one, or a reduction's window.
    fn pool(&self) -> usize {
        match self.kind {
            Kind::Barrier => 1,
            Kind::Reduce(r) => r.window as usize,
        }
    }
}

#[derive(Clone, Debug)]
enum Fault {
    Loss {
        /// The loss rate (`rng.gen_bool(rate)`, set up once).
        rate: Bernoulli,
        op: Option<u64>,
        link: Option<usize>,
        from: u64,
        until: u64,
    },
    Dup {
        rate: Bernoulli,
        op: Option<u64>,
        link: Option<usize>,
        delay: [u64; 2],
        from: u64,
        until: u64,
    },
    LinkDown {
        link: usize,
        at: u64,
        up: Option<u64>,
    },
    SwitchDown {
        switch: usize,
        at: u64,
    },
    Leave {
        node: usize,
        group: Option<usize>,
        at: u64,
    },
}

/// A group's collective, validated against the switch engine (see [`crate::collective`]).
fn group_kind(
    gi: usize,
    g: &crate::spec::GroupSection,
    members: &[usize],
    sw: &SwitchEngineParams,
    node_index: &dyn Fn(&str, &MemberRef) -> Result<usize, FabricError>,
) -> Result<Kind, FabricError> {
    let key = |k: &str| format!("group[{gi}].{k}");
    let name = g.collective.as_deref().unwrap_or("barrier");
    let collective = Collective::parse(name).ok_or_else(|| {
        invalid(
            &key("collective"),
            format!("{name:?}"),
            "must be one of barrier, allreduce, reduce, broadcast",
        )
    })?;
    let Some(collective) = collective else {
        for (k, given) in [
            ("op", g.op.is_some()),
            ("dtype", g.dtype.is_some()),
            ("words", g.words.is_some()),
            ("chunk", g.chunk.is_some()),
            ("window", g.window.is_some()),
            ("root", g.root.is_some()),
        ] {
            if given {
                return Err(invalid(
                    &key(k),
                    "(given)",
                    "only for a reduction (collective = allreduce, reduce or broadcast)",
                ));
            }
        }
        return Ok(Kind::Barrier);
    };
    if !sw.reduces() {
        return Err(invalid(
            &key("collective"),
            format!("{name:?}"),
            "needs switches that reduce: set [switch] max_plen (8 to 128)",
        ));
    }
    let op_name = g.op.as_deref().unwrap_or("SUM");
    let repro_op = op_name == "REPRO";
    let mut op = if repro_op {
        AluOp::Sum
    } else {
        AluOp::ALL
            .iter()
            .copied()
            .find(|o| o.name() == op_name)
            .ok_or_else(|| {
                invalid(
                    &key("op"),
                    format!("{op_name:?}"),
                    "must be one of MAX, MIN, MAXLOC, MINLOC, SUM, PROD, LAND, LOR, LXOR, BAND, BOR, BXOR, REPRO",
                )
            })?
    };
    if collective == Collective::Broadcast {
        if g.op.is_some() {
            return Err(invalid(
                &key("op"),
                format!("{op_name:?}"),
                "a broadcast combines with BOR (leave `op` out)",
            ));
        }
        op = AluOp::BOr;
    }
    let dt_name = g
        .dtype
        .as_deref()
        .unwrap_or(if repro_op { "f64" } else { "i64" });
    let (dtype, repro) = if repro_op {
        let t = Dtype::ALL
            .iter()
            .find(|d| d.name() == dt_name)
            .and_then(|d| d.fp())
            .ok_or_else(|| {
                invalid(
                    &key("dtype"),
                    format!("{dt_name:?}"),
                    "must be one of f16, bf16, f32, f64 for op = \"REPRO\"",
                )
            })?;
        (Dtype::U64, Some(t))
    } else {
        let d = Dtype::ALL
            .iter()
            .copied()
            .find(|d| d.name() == dt_name)
            .ok_or_else(|| {
                invalid(
                    &key("dtype"),
                    format!("{dt_name:?}"),
                    "must be one of i32, u32, i64, u64, f16, bf16, f32, f64",
                )
            })?;
        if d.fp().is_some() {
            if !sw.reduces_fp() {
                return Err(invalid(
                    &key("dtype"),
                    format!("{dt_name:?}"),
                    "needs switches with the floating-point types: set [switch] fp = 1 (or use op = \"REPRO\", which needs no switch support)",
                ));
            }
            if !sw.alu().builds(d) {
                let k = SwitchEngineParams::KEYS
                    .iter()
                    .find(|k| k.name == "fp_types");
                let built = k.map_or(String::new(), |k| k.show(sw.fp_types));
                return Err(invalid(
                    &key("dtype"),
                    format!("{dt_name:?}"),
                    format!("is not among the switches' [switch] fp_types ({built}): add it there, or use op = \"REPRO\""),
                ));
            }
            if !d.defines(op) {
                return Err(invalid(
                    &key("op"),
                    format!("{op_name:?}"),
                    format!("is not defined on {dt_name}: one of MAX, MIN, MAXLOC, MINLOC, SUM, PROD, REPRO"),
                ));
            }
        }
        (d, None)
    };
    // REPRO: words and chunks are whole partials of `per` words.
    let per = repro.map_or(1, |t| ReproPartial::wire_words(t) as u64);
    let max = sw.max_plen as u64;
    if per > max {
        return Err(invalid(
            &key("dtype"),
            format!("{dt_name:?}"),
            format!(
                "REPRO over {dt_name} needs [switch] max_plen of at least {per} (one element's partial); it is {max}"
            ),
        ));
    }
    let words = g.words.unwrap_or(per);
    if words == 0 || !words.is_multiple_of(per) {
        return Err(invalid(
            &key("words"),
            words,
            if per == 1 {
                "must be at least 1".to_string()
            } else {
                format!("must be a positive multiple of {per} (the words of one {dt_name} REPRO partial)")
            },
        ));
    }
    let chunk = g.chunk.unwrap_or(max.min(words) / per * per);
    if chunk == 0 || chunk > max || !chunk.is_multiple_of(per) {
        return Err(invalid(
            &key("chunk"),
            chunk,
            if per == 1 {
                format!("must be 1 to {max} (the engine's max_plen)")
            } else {
                format!("must be a multiple of {per} (one {dt_name} REPRO partial) up to {max} (the engine's max_plen)")
            },
        ));
    }
    if op.is_loc() {
        // A value and its index travel as a pair of words, a pair to a beat.
        if words % 2 == 1 || chunk % 2 == 1 {
            return Err(invalid(
                &key(if words % 2 == 1 { "words" } else { "chunk" }),
                if words % 2 == 1 { words } else { chunk },
                "must be even for MAXLOC / MINLOC (value and index words)",
            ));
        }
        if sw.lanes < 2 {
            return Err(invalid(
                &key("op"),
                format!("{op_name:?}"),
                "needs [switch] lanes of 2 or 4 (a value and its index in one beat)",
            ));
        }
    }
    let chunks = words.div_ceil(chunk);
    let window = g.window.unwrap_or(8.min(chunks));
    if window == 0 || window > chunks || window > sw.slots as u64 {
        return Err(invalid(
            &key("window"),
            window,
            format!(
                "must be 1 to {} (the chunks, {chunks}, and the switches' slots, {})",
                chunks.min(sw.slots as u64),
                sw.slots
            ),
        ));
    }
    let root = match &g.root {
        None => members[0],
        Some(m) => {
            let r = node_index(&key("root"), m)?;
            if !members.contains(&r) {
                return Err(invalid(&key("root"), r, "must be a member of the group"));
            }
            r
        }
    };
    if collective == Collective::AllReduce && g.root.is_some() {
        return Err(invalid(
            &key("root"),
            "(given)",
            "only for reduce and broadcast",
        ));
    }
    Ok(Kind::Reduce(Reduction {
        collective,
        op,
        dtype,
        words,
        chunk,
        window,
        root,
        repro,
    }))
}

fn invalid(key: &str, value: impl ToString, why: impl ToString) -> FabricError {
    FabricError::Invalid {
        key: key.to_string(),
        value: value.to_string(),
        why: why.to_string(),
    }
}

fn opcode(key: &str, s: &str) -> Result<u64, FabricError> {
    Opcode::ALL
        .iter()
        .find(|o| o.name() == s)
        .map(|o| o.code())
        .ok_or_else(|| {
            invalid(
                key,
                format!("{s:?}"),
                "must be one of FULL, EXIT, STATUS_REQ, STATUS_RSP",
            )
        })
}

/// A fabric file's own `[name]` table (`switch`, `nic`), read as that table of a parameter
/// file.
fn own_table(name: &str, t: &toml::Table) -> Result<Config, FabricError> {
    let text = toml::to_string(&toml::Table::from_iter([(
        name.to_string(),
        toml::Value::Table(t.clone()),
    )]))
    .map_err(|e| invalid(name, "(table)", e))?;
    Config::parse(&text, &format!("the fabric file's [{name}] table"))
        .map_err(|e| FabricError::Config(e.to_string()))
}

impl Fabric {
    /// Validates a fabric file against the engine and NIC parameters of `config` (the file's
    /// own `[switch]` and `[nic]` tables, when present, override them).
    pub fn new(file: FabricFile, config: Config) -> Result<Fabric, FabricError> {
        let mut config = config;
        if let Some(t) = &file.switch {
            config.switch = own_table("switch", t)?.switch;
        }
        if let Some(t) = &file.nic {
            config.nic = own_table("nic", t)?.nic;
        }
        let topo = Arc::new(Topology::build(&file.fabric, config.switch.radix)?);
        let entities = topo.switch_names.len() + topo.node_names.len() + 1;
        if entities as u64 >= ORIGIN_FAULTS {
            return Err(invalid(
                "fabric",
                format!("{entities} switches, nodes and the SM"),
                format!("at most {} in one fabric", ORIGIN_FAULTS - 1),
            ));
        }
        let hol = file.fabric.hol_lifetime;
        // A packet's lifetime covers the serialisation of the longest one, and its wait behind
        // a full egress queue of them beyond what headers alone would take.
        let max_bytes = PACKET_BYTES + 8 * config.switch.max_plen as u64;
        let depth = file.fabric.egress_depth;
        let lifetime: Vec<u64> = topo
            .links
            .iter()
            .map(|l| {
                let (long, short) = (ser(max_bytes, l.bandwidth), ser(PACKET_BYTES, l.bandwidth));
                l.latency + long + hol + depth * (long - short)
            })
            .collect();
        let drain = lifetime.iter().copied().max().unwrap_or(0);
        let default_policy = Policy::parse(&file.sm.policy).ok_or_else(|| {
            invalid(
                "sm.policy",
                format!("{:?}", file.sm.policy),
                "must be shortest or least_congested",
            )
        })?;
        if file.sm.mgmt_latency == 0 {
            return Err(invalid("sm.mgmt_latency", 0, "must be at least 1"));
        }
        let n = &file.node;
        if n.retry_timeout == 0 {
            return Err(invalid("node.retry_timeout", 0, "must be at least 1"));
        }
        if n.compute[0] > n.compute[1] {
            return Err(invalid(
                "node.compute",
                format!("{:?}", n.compute),
                "must be [min, max] with min <= max",
            ));
        }
        let node_index = |key: &str, m: &MemberRef| -> Result<usize, FabricError> {
            match m {
                MemberRef::Index(i) if (*i as usize) < topo.node_names.len() => Ok(*i as usize),
                MemberRef::Index(i) => Err(invalid(
                    key,
                    i,
                    format!("must be a node index below {}", topo.node_names.len()),
                )),
                MemberRef::Name(s) => topo
                    .node_names
                    .iter()
                    .position(|x| x == s)
                    .ok_or_else(|| invalid(key, format!("{s:?}"), "not a node of the fabric")),
            }
        };
        let mut groups = vec![];
        for (gi, g) in file.groups.iter().enumerate() {
            let key = format!("group[{gi}].members");
            let members: Vec<usize> = match &g.members {
                Members::Text(t) if t == "all" => (0..topo.node_names.len()).collect(),
                Members::Text(t) => {
                    let parsed = t.split_once("..").and_then(|(a, b)| {
                        Some((
                            a.trim().parse::<usize>().ok()?,
                            b.trim().parse::<usize>().ok()?,
                        ))
                    });
                    match parsed {
                        Some((a, b)) if a < b && b <= topo.node_names.len() => (a..b).collect(),
                        _ => {
                            return Err(invalid(
                                &key,
                                format!("{t:?}"),
                                format!(
                                "must be \"all\", \"a..b\" with a < b <= {}, or a list of nodes",
                                topo.node_names.len()
                            ),
                            ))
                        }
                    }
                }
                Members::List(l) => {
                    let mut v = vec![];
                    for (i, m) in l.iter().enumerate() {
                        let n = node_index(&format!("{key}[{i}]"), m)?;
                        if v.contains(&n) {
                            return Err(invalid(
                                &format!("{key}[{i}]"),
                                &topo.node_names[n],
                                "a member listed twice",
                            ));
                        }
                        v.push(n);
                    }
                    v
                }
            };
            if members.is_empty() {
                return Err(invalid(&key, "[]", "a group needs at least one member"));
            }
            let policy = match &g.policy {
                None => default_policy,
                Some(p) => Policy::parse(p).ok_or_else(|| {
                    invalid(
                        &format!("group[{gi}].policy"),
                        format!("{p:?}"),
                        "must be shortest or least_congested",
                    )
                })?,
            };
            let name = if g.name.is_empty() {
                format!("g{gi}")
            } else {
                g.name.clone()
            };
            let count = match (g.barriers, g.operations) {
                (Some(n), None) | (None, Some(n)) => n,
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        &format!("group[{gi}].operations"),
                        "(both given)",
                        "give `barriers` or `operations`, not both",
                    ))
                }
                (None, None) => {
                    return Err(invalid(
                        &format!("group[{gi}].operations"),
                        "(absent)",
                        "required: how many operations (or `barriers`) the group runs",
                    ))
                }
            };
            let kind = group_kind(gi, g, &members, &config.switch, &node_index)?;
            groups.push(GroupDef {
                name,
                members,
                barriers: count,
                start: g.start,
                policy,
                kind,
            });
        }
        if groups.is_empty() {
            return Err(invalid(
                "group",
                "(none)",
                "a fabric file needs at least one [[group]]",
            ));
        }
        let mut faults = vec![];
        for (fi, f) in file.faults.iter().enumerate() {
            let key = |k: &str| format!("fault[{fi}].{k}");
            let link = |v: &Option<String>| -> Result<Option<usize>, FabricError> {
                match v {
                    None => Ok(None),
                    Some(t) => topo.link_by_text(t).map(Some).ok_or_else(|| {
                        invalid(
                            &key("link"),
                            format!("{t:?}"),
                            "must be \"switch:port\" of a port with a link",
                        )
                    }),
                }
            };
            let rate = |r: Option<f64>| -> Result<Bernoulli, FabricError> {
                match r {
                    Some(r) => Bernoulli::new(r)
                        .map_err(|_| invalid(&key("rate"), r, "must be a probability in [0, 1]")),
                    None => Err(invalid(&key("rate"), "(absent)", "required by this fault")),
                }
            };
            let op = match &f.op {
                None => None,
                Some(o) => Some(opcode(&key("op"), o)?),
            };
            let at = |v: Option<u64>| {
                v.ok_or_else(|| invalid(&key("at"), "(absent)", "required by this fault"))
            };
            let from = f.from.unwrap_or(0);
            let until = f.until.unwrap_or(u64::MAX);
            faults.push(match f.kind.as_str() {
                "loss" => Fault::Loss {
                    rate: rate(f.rate)?,
                    op,
                    link: link(&f.link)?,
                    from,
                    until,
                },
                "duplicate" => {
                    let delay = f.delay.unwrap_or([1, 1]);
                    if delay[0] > delay[1] {
                        return Err(invalid(
                            &key("delay"),
                            format!("{delay:?}"),
                            "must be [min, max] with min <= max",
                        ));
                    }
                    Fault::Dup {
                        rate: rate(f.rate)?,
                        op,
                        link: link(&f.link)?,
                        delay,
                        from,
                        until,
                    }
                }
                "link_down" => {
                    let l = link(&f.link)?.ok_or_else(|| {
                        invalid(&key("link"), "(absent)", "required by link_down")
                    })?;
                    let at = at(f.at)?;
                    if f.up.is_some_and(|u| u <= at) {
                        return Err(invalid(&key("up"), f.up.unwrap_or(0), "must be after `at`"));
                    }
                    Fault::LinkDown {
                        link: l,
                        at,
                        up: f.up,
                    }
                }
                "switch_down" => {
                    let s = f.switch.as_deref().ok_or_else(|| {
                        invalid(&key("switch"), "(absent)", "required by switch_down")
                    })?;
                    let sw = topo.switch_by_name(s).ok_or_else(|| {
                        invalid(
                            &key("switch"),
                            format!("{s:?}"),
                            "not a switch of the fabric",
                        )
                    })?;
                    Fault::SwitchDown {
                        switch: sw,
                        at: at(f.at)?,
                    }
                }
                "leave" => {
                    let n = f
                        .node
                        .as_ref()
                        .ok_or_else(|| invalid(&key("node"), "(absent)", "required by leave"))?;
                    let node = node_index(&key("node"), n)?;
                    let group = match &f.group {
                        None => None,
                        Some(g) => {
                            Some(groups.iter().position(|x| &x.name == g).ok_or_else(|| {
                                invalid(&key("group"), format!("{g:?}"), "not a group of the file")
                            })?)
                        }
                    };
                    Fault::Leave {
                        node,
                        group,
                        at: at(f.at)?,
                    }
                }
                other => {
                    return Err(invalid(
                        &key("kind"),
                        format!("{other:?}"),
                        "must be one of loss, duplicate, link_down, switch_down, leave",
                    ))
                }
            });
        }
        Ok(Fabric {
            file,
            topo,
            config,
            lifetime,
            drain,
            groups,
            faults,
        })
    }

    /// Runs the fabric to completion (or to `run.max_cycles`); `progress` hears the cycle
    /// reached and the barriers completed now and then.
    pub fn run(
        &self,
        opts: &RunOptions,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Report, FabricError> {
        run(self, opts, None, progress)
    }

    /// [`Fabric::run`], recording every cycle of the switches named in `opts.levels` (at
    /// whatever level) into `tracer`, scope `fabric / <switch> / <level>`.
    pub fn run_traced(
        &self,
        opts: &RunOptions,
        tracer: &Tracer,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Report, FabricError> {
        run(self, opts, Some(tracer), progress)
    }
}

impl Fabric {
    /// The first reduction group from index `from` on, with its reduction.
    pub fn reduction(&self, from: usize) -> Option<(usize, Reduction)> {
        self.groups
            .iter()
            .enumerate()
            .skip(from)
            .find_map(|(i, g)| match g.kind {
                Kind::Reduce(r) => Some((i, r)),
                Kind::Barrier => None,
            })
    }

    /// What group `g` runs.
    pub fn kind(&self, g: usize) -> Kind {
        self.groups[g].kind
    }

    /// Group `g`'s members (node indices).
    pub fn members(&self, g: usize) -> &[usize] {
        &self.groups[g].members
    }

    /// Group `g`'s name as records show it.
    pub fn group_name(&self, g: usize) -> &str {
        &self.groups[g].name
    }

    /// The number of groups.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// The operations group `g` runs (barriers or reductions).
    pub fn operations(&self, g: usize) -> u64 {
        self.groups[g].barriers
    }

    /// Group `g`'s tree policy.
    pub fn policy(&self, g: usize) -> Policy {
        self.groups[g].policy
    }

    /// Whether the file injects faults.
    pub fn has_faults(&self) -> bool {
        !self.faults.is_empty()
    }
}

/// Cycles to serialise `bytes` at `bw` bytes a cycle.
pub(crate) fn ser(bytes: u64, bw: u64) -> u64 {
    bytes.div_ceil(bw)
}

// --- the kernel's vocabulary -------------------------------------------------------------------

/// The order of events: by cycle, then class, then the entity that made the event and that
/// entity's own count. Every entity lives in exactly one partition and counts what it makes,
/// so the order (and the whole run) is the same however the fabric is partitioned. The last
/// three are packed into one word (class: 3 bits, origin: [`ORIGIN_BITS`], count: the rest),
/// so that keys compare in two instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Key {
    pub t: u64,
    rest: u64,
}

/// Bits of an origin id: switches, nodes, the SM and the fault list (validated in
/// [`Fabric::new`]).
pub(crate) const ORIGIN_BITS: u32 = 21;
const SEQ_BITS: u32 = 64 - 3 - ORIGIN_BITS;

impl Key {
    pub fn class(&self) -> u8 {
        (self.rest >> 61) as u8
    }

    pub fn new(t: u64, class: u8, origin: u64, seq: u64) -> Key {
        debug_assert!(class < 8 && origin < 1 << ORIGIN_BITS && seq < 1 << SEQ_BITS);
        Key {
            t,
            rest: (class as u64) << 61 | origin << SEQ_BITS | (seq & ((1 << SEQ_BITS) - 1)),
        }
    }
}

/// Classes, in the order they are handled within a cycle.
pub(crate) mod class {
    /// A fault of the fault list (links, switches, members).
    pub const FAULT: u8 = 0;
    /// Checker log: a member entered a barrier (before releases of the same cycle).
    pub const LOG_ENTER: u8 = 1;
    /// Checker log: a member released a barrier.
    pub const LOG_RELEASE: u8 = 2;
    /// A sender woken by a credit coming back (not counted among the events).
    pub const CREDIT: u8 = 3;
    pub const ARRIVE: u8 = 4;
    /// The management network: configuration, SM to node, node or switch to SM.
    pub const MGMT: u8 = 5;
    /// A node's own timers and software steps.
    pub const NODE: u8 = 6;
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct CfgReq {
    pub group: usize,
    pub epoch: u64,
    pub op: CfgOp,
    pub cgid: u64,
    pub entry: TableEntry,
    pub tid: u64,
}

/// Everything that happens at a cycle, addressed to a switch, a node or the SM.
#[derive(Clone, Debug)]
pub(crate) enum Ev {
    // To a switch or a node (in their partition).
    /// A packet reaches the end `to` of a link; `gen` is the link's generation when it was
    /// sent (a failure or repair since voids it).
    Arrive {
        to: Dest,
        gen: u32,
        pkt: Hdr,
    },
    /// The same for a packet with data.
    ArriveData {
        to: Dest,
        gen: u32,
        pkt: Box<Pkt>,
    },
    LinkDown {
        link: usize,
        at_end: Dest,
    },
    LinkUp {
        link: usize,
        at_end: Dest,
    },
    SwitchDown {
        sw: usize,
    },
    Leave {
        node: usize,
        group: Option<usize>,
    },
    Cfg {
        sw: usize,
        req: Box<CfgReq>,
    },
    /// A sleeping switch's engine shows the results of an operation it accepted.
    Wake {
        sw: usize,
    },
    Enter {
        node: usize,
        group: usize,
        k: u64,
    },
    NodeSend {
        node: usize,
        group: usize,
        k: u64,
    },
    NodeRetry {
        node: usize,
        group: usize,
    },
    NodePump {
        node: usize,
    },
    /// The group's tree is ready: its CGIDs (one, or a reduction's pool).
    NodeStart {
        node: usize,
        group: usize,
        cgids: Arc<Vec<u64>>,
    },
    /// The SM hands a node the result of a chunk it missed (see [`Relay`]).
    NodeRelay {
        node: usize,
        group: usize,
        relay: Box<Relay>,
    },
    NodeQuery {
        node: usize,
        group: usize,
        epoch: u64,
    },
    NodeDetach {
        node: usize,
        group: usize,
    },
    // To the SM (and its safety checker).
    LogEnter {
        group: usize,
        node: usize,
        k: u64,
    },
    LogRelease {
        group: usize,
        node: usize,
        k: u64,
    },
    CfgDone {
        group: usize,
        epoch: u64,
        rejected: bool,
    },
    SmJoin {
        group: usize,
    },
    SmDrained {
        group: usize,
        epoch: u64,
    },
    /// A node's answer to [`Ev::NodeQuery`].
    SmTidAnswer {
        group: usize,
        epoch: u64,
        answer: Box<TidAnswer>,
    },
    /// A member's result of a reduction's chunk, for the checker.
    LogResult {
        group: usize,
        node: usize,
        result: Box<ChunkResult>,
    },
    SmLinkUp {
        link: usize,
    },
    SmLinkDown {
        link: usize,
    },
    SmSwitchDown {
        sw: usize,
    },
    SmTidFail {
        cgid: u64,
    },
    SmLeave {
        node: usize,
        group: usize,
    },
    SmNodeDone {
        group: usize,
    },
}

/// What a node's software tells the SM during a rebuild: per CGID of the group (one, or a
/// reduction's pool) its TID, and the last result it received on it with that result's TID
/// (nothing if it has left the group).
#[derive(Clone, Debug)]
pub(crate) struct TidAnswer {
    pub node: usize,
    pub tids: Vec<u8>,
    pub last: Vec<Option<(u8, Arc<Payload>)>>,
}

/// The result of transaction `tid` of a reduction's CGID `slot` (of its pool), from a member
/// that received it, for a member that missed it: a rebuilt tree holds no retained result to
/// answer the member's retry with.
#[derive(Clone, Debug)]
pub(crate) struct Relay {
    pub slot: usize,
    pub tid: u8,
    pub payload: Arc<Payload>,
}

/// What a member received as the result of chunk `chunk` of operation `k`: the digest of its
/// words (`None`: an answer without the chunk's data, or with data of another shape), and,
/// when the run keeps them ([`RunOptions::keep_results`]), the words.
#[derive(Clone, Debug)]
pub(crate) struct ChunkResult {
    pub k: u64,
    pub chunk: u64,
    pub digest: Option<u64>,
    pub words: Option<Arc<Payload>>,
}

/// Who handles an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    Switch(usize),
    Node(usize),
    Sm,
}

impl Ev {
    /// `pkt` arriving at `to`, sent at generation `gen` of its link.
    pub fn arrive(to: Dest, gen: u32, pkt: Pkt) -> Ev {
        if pkt.payload.is_some() {
            Ev::ArriveData {
                to,
                gen,
                pkt: Box::new(pkt),
            }
        } else {
            Ev::Arrive {
                to,
                gen,
                pkt: pkt.header(),
            }
        }
    }

    pub fn target(&self) -> Target {
        match *self {
            Ev::Arrive { to, .. } | Ev::ArriveData { to, .. } => end_target(to.end()),
            Ev::LinkDown { at_end, .. } | Ev::LinkUp { at_end, .. } => end_target(at_end.end()),
            Ev::SwitchDown { sw } | Ev::Cfg { sw, .. } | Ev::Wake { sw } => Target::Switch(sw),
            Ev::Leave { node, .. }
            | Ev::Enter { node, .. }
            | Ev::NodeSend { node, .. }
            | Ev::NodeRetry { node, .. }
            | Ev::NodePump { node }
            | Ev::NodeStart { node, .. }
            | Ev::NodeRelay { node, .. }
            | Ev::NodeQuery { node, .. }
            | Ev::NodeDetach { node, .. } => Target::Node(node),
            _ => Target::Sm,
        }
    }
}

fn end_target(e: End) -> Target {
    match e {
        End::Switch(s, _) => Target::Switch(s),
        End::Node(n) => Target::Node(n),
    }
}

/// 48 bytes (a test keeps it so): the queue moves many of them.
pub(crate) struct Scheduled {
    pub key: Key,
    pub ev: Ev,
}
impl PartialEq for Scheduled {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Scheduled {
    /// Reversed, so that `BinaryHeap` pops the earliest key.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.key.cmp(&self.key)
    }
}

/// Slots of the timing wheel (a power of two): events this close to the current cycle go in
/// a slot, later ones in a heap. It covers the usual node retry timeouts.
const WHEEL: usize = 8192;

/// An event queue: a timing wheel of [`WHEEL`] one-cycle slots for the near future (most
/// events: link latencies, engine latency, node overheads and timers), a heap beyond, and a
/// bitmap of the slots that hold events, so that the next busy cycle is found in a few word
/// scans. Events of one cycle are handled in key order, an event added to the current cycle
/// included.
///
/// A slot's events lie side by side in one vector, in the order they were queued: when the
/// queue moves to a cycle it reads them in one pass (which the processor's prefetcher
/// follows) and sorts their keys' packed tails with their positions. Emptied vectors are
/// kept for the next slot that gets an event, the most recently emptied first (its memory is
/// still in the cache).
pub(crate) struct Queue {
    /// Events of `cur_t` (taken as they are handled) …
    cur: Vec<Option<Scheduled>>,
    /// … and their order: the keys' packed tails with the position in `cur`, sorted so that
    /// the smallest key is last.
    cur_order: Vec<(u64, u32)>,
    cur_t: u64,
    /// `wheel[t % WHEEL]`: the events at `t`, for `cur_t < t < cur_t + WHEEL`.
    wheel: Vec<Vec<Option<Scheduled>>>,
    /// Bit `t % WHEEL`: `wheel[t % WHEEL]` holds events …
    busy: Vec<u64>,
    /// … and bit `w`: `busy[w]` is not zero (so the next busy slot is a few word scans away).
    summary: Vec<u64>,
    /// Emptied slot vectors, with their capacity.
    spare: Vec<Vec<Option<Scheduled>>>,
    far: BinaryHeap<Scheduled>,
}

impl Default for Queue {
    fn default() -> Self {
        Queue {
            cur: vec![],
            cur_order: vec![],
            cur_t: 0,
            wheel: (0..WHEEL).map(|_| vec![]).collect(),
            busy: vec![0; WHEEL / 64],
            summary: vec![0; WHEEL / 64 / 64],
            spare: vec![],
            far: BinaryHeap::new(),
        }
    }
}

impl Queue {
    #[inline(always)]
    pub fn push(&mut self, s: Scheduled) {
        let t = s.key.t;
        if t <= self.cur_t {
            let rest = s.key.rest;
            let at = self.cur_order.partition_point(|x| x.0 > rest);
            self.cur_order.insert(at, (rest, self.cur.len() as u32));
            self.cur.push(Some(s));
        } else if t < self.cur_t + WHEEL as u64 {
            let slot = t as usize % WHEEL;
            let v = &mut self.wheel[slot];
            if v.capacity() == 0 {
                if let Some(spare) = self.spare.pop() {
                    *v = spare;
                }
            }
            v.push(Some(s));
            self.mark(slot);
        } else {
            self.far.push(s);
        }
    }

    /// The first busy wheel slot after `cur_t`, as a cycle.
    fn next_in_wheel(&self) -> Option<u64> {
        let start = (self.cur_t as usize + 1) % WHEEL;
        let (w0, b0) = (start / 64, start % 64);
        // The word holding `start` (bits from `start` on), then the busy words after it (from
        // the summary), then the wrapped-round words up to and including `start`'s.
        let first = self.busy[w0] & (!0u64 << b0);
        let found = if first != 0 {
            w0 * 64 + first.trailing_zeros() as usize
        } else {
            let w = self
                .next_busy_word(w0 + 1, WHEEL / 64)
                .or_else(|| self.next_busy_word(0, w0 + 1))?;
            let mut bits = self.busy[w];
            if w == w0 {
                bits &= !(!0u64 << b0);
            }
            if bits == 0 {
                return None;
            }
            w * 64 + bits.trailing_zeros() as usize
        };
        let ahead = (found + WHEEL - start) % WHEEL;
        Some(self.cur_t + 1 + ahead as u64)
    }

    /// The first word index in `from..to` whose `busy` word is not zero.
    fn next_busy_word(&self, from: usize, to: usize) -> Option<usize> {
        let mut w = from;
        while w < to {
            let (i, b) = (w / 64, w % 64);
            let bits = self.summary[i] & (!0u64 << b);
            if bits != 0 {
                let found = i * 64 + bits.trailing_zeros() as usize;
                return (found < to).then_some(found);
            }
            w = (i + 1) * 64;
        }
        None
    }

    fn mark(&mut self, slot: usize) {
        self.busy[slot / 64] |= 1 << (slot % 64);
        self.summary[slot / 4096] |= 1 << (slot / 64 % 64);
    }

    fn unmark(&mut self, slot: usize) {
        self.busy[slot / 64] &= !(1 << (slot % 64));
        if self.busy[slot / 64] == 0 {
            self.summary[slot / 4096] &= !(1 << (slot / 64 % 64));
        }
    }

    pub fn next_t(&self) -> Option<u64> {
        if !self.cur_order.is_empty() {
            return Some(self.cur_t);
        }
        let near = self.next_in_wheel();
        let far = self.far.peek().map(|s| s.key.t);
        near.into_iter().chain(far).min()
    }

    /// Whether an event is queued for cycle `t` or before it.
    pub fn due_by(&self, t: u64) -> bool {
        if !self.cur_order.is_empty() {
            return true;
        }
        let in_wheel = t > self.cur_t && t < self.cur_t + WHEEL as u64 && {
            let slot = t as usize % WHEEL;
            self.busy[slot / 64] & (1 << (slot % 64)) != 0
        };
        in_wheel || self.far.peek().is_some_and(|s| s.key.t <= t)
    }

    /// The earliest event if it is at cycle `t` (`t` is never before an event still queued).
    #[inline(always)]
    pub fn pop_at(&mut self, t: u64) -> Option<Scheduled> {
        if t != self.cur_t {
            if !self.cur_order.is_empty() || !self.due_by(t) {
                // (A cycle with no event leaves `cur_t` behind: it only bounds the wheel.)
                return None;
            }
            self.advance(t);
        }
        let (_, i) = self.cur_order.pop()?;
        self.cur[i as usize].take()
    }

    /// Moves to cycle `t`, which has events: they become the current ones, in key order.
    fn advance(&mut self, t: u64) {
        self.cur_t = t;
        let slot = t as usize % WHEEL;
        self.unmark(slot);
        let mut v = std::mem::take(&mut self.wheel[slot]);
        while self.far.peek().is_some_and(|s| s.key.t == t) {
            if let Some(s) = self.far.pop() {
                v.push(Some(s));
            }
        }
        // One cycle: the keys differ in their packed tails only.
        self.cur_order.clear();
        self.cur_order.extend(
            v.iter()
                .enumerate()
                .filter_map(|(i, s)| s.as_ref().map(|s| (s.key.rest, i as u32))),
        );
        if self.cur_order.len() > 1 {
            self.cur_order
                .sort_unstable_by_key(|&(rest, _)| std::cmp::Reverse(rest));
        }
        // The emptied vector of the last busy cycle is kept, with its capacity.
        let mut old = std::mem::replace(&mut self.cur, v);
        if old.capacity() > 0 {
            old.clear();
            self.spare.push(old);
        }
    }
}

/// A set of small indices (switches, nodes) as a bitmap: membership, insertion and removal
/// in a word operation, iteration in index order.
#[derive(Clone, Debug, Default)]
pub(crate) struct BitSet {
    bits: Vec<u64>,
    len: usize,
}

impl BitSet {
    /// Adds `n`; whether it was new.
    #[inline]
    pub fn insert(&mut self, n: usize) -> bool {
        if self.bits.len() <= n / 64 {
            self.bits.resize(n / 64 + 1, 0);
        }
        let (w, b) = (n / 64, 1u64 << (n % 64));
        let new = self.bits[w] & b == 0;
        self.bits[w] |= b;
        self.len += usize::from(new);
        new
    }

    /// Removes `n`; whether it was there.
    pub fn remove(&mut self, n: usize) -> bool {
        let had = self.contains(&n);
        if had {
            self.bits[n / 64] &= !(1u64 << (n % 64));
            self.len -= 1;
        }
        had
    }

    pub fn contains(&self, n: &usize) -> bool {
        self.bits
            .get(n / 64)
            .is_some_and(|w| w & (1u64 << (n % 64)) != 0)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends the members to `v`, in ascending order.
    pub fn append_to(&self, v: &mut Vec<usize>) {
        v.reserve(self.len);
        for (i, &w) in self.bits.iter().enumerate() {
            let mut m = w;
            while m != 0 {
                v.push(i * 64 + m.trailing_zeros() as usize);
                m &= m - 1;
            }
        }
    }

    /// The members, in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits
            .iter()
            .enumerate()
            .filter(|(_, &w)| w != 0)
            .flat_map(|(i, &w)| {
                let mut m = w;
                std::iter::from_fn(move || {
                    (m != 0).then(|| {
                        let b = m.trailing_zeros() as usize;
                        m &= m - 1;
                        i * 64 + b
                    })
                })
            })
    }
}

impl FromIterator<usize> for BitSet {
    fn from_iter<I: IntoIterator<Item = usize>>(items: I) -> BitSet {
        let mut set = BitSet::default();
        for n in items {
            set.insert(n);
        }
        set
    }
}

/// Origin ids: switches `0..S`, nodes `S..S+N`, the SM, the fault list.
pub(crate) fn origin_node(f: &Fabric, n: usize) -> u64 {
    (f.topo.switch_names.len() + n) as u64
}
pub(crate) fn origin_sm(f: &Fabric) -> u64 {
    (f.topo.switch_names.len() + f.topo.node_names.len()) as u64
}
pub(crate) const ORIGIN_FAULTS: u64 = (1 << ORIGIN_BITS) - 1;

// --- the run: partitions in windows ---------------------------------------------------------------

/// What a partition hands back after a window.
struct WindowOut {
    part: usize,
    /// What it sent to other partitions and the SM, and the credits it gave back.
    out: Inbox,
    next: Option<u64>,
}

enum Cmd {
    Window {
        t_end: u64,
        inbox: Inbox,
        /// The partition's last outgoing vectors, emptied (their capacity is reused).
        spare: Inbox,
    },
    Finish,
}

fn run(
    f: &Fabric,
    opts: &RunOptions,
    tracer: Option<&Tracer>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Report, FabricError> {
    let t = &f.topo;
    for name in opts.levels.keys() {
        if t.switch_by_name(name).is_none() {
            return Err(invalid(
                "--levels",
                format!("{name:?}"),
                "not a switch of the fabric",
            ));
        }
    }
    // Partitions: contiguous blocks of switches (generated topologies number them pod by pod),
    // each node with its switch.
    let nparts = opts.threads.max(1).min(t.switch_names.len());
    let ns = t.switch_names.len();
    let part_of_switch: Vec<usize> = (0..ns).map(|s| s * nparts / ns).collect();
    let part_of_node: Vec<usize> = (0..t.node_names.len())
        .map(|n| part_of_switch[t.node_attachment(n).0])
        .collect();
    // The window: no event crosses partitions in less than this many cycles. It is the
    // same however the fabric is cut (the shortest link of all, not only of those between
    // partitions), so that every partitioning stops at the same cycle: the run's counters
    // (packets, drops) include what happened up to the end of the last window.
    let window = t
        .links
        .iter()
        .map(|l| l.latency.max(1))
        .chain([f.file.sm.mgmt_latency.max(1)])
        .min()
        .unwrap_or(1);
    let route = Route {
        part_of_switch,
        part_of_node,
    };
    let mut control = Control::new(f, opts);
    let mut model_parts: Vec<Part<SwitchEngineTxn>> = vec![];
    let mut foreign_parts: Vec<Part<part::ForeignEngine>> = vec![];
    for p in 0..nparts {
        // A switch named in `levels` runs behind the generic interface (and can be traced);
        // its partition stays on this thread. So does every switch of a reducing engine: the
        // transaction-level model has no payload path, they run the cycle model.
        let foreign = f.config.switch.reduces()
            || (0..ns).any(|s| {
                route.part_of_switch[s] == p && opts.levels.contains_key(&t.switch_names[s])
            });
        if foreign {
            foreign_parts.push(Part::new(f, p, &route, opts, |s| {
                if opts.levels.contains_key(&t.switch_names[s]) {
                    part::ForeignEngine::new(f, opts, tracer, s)
                } else {
                    part::ForeignEngine::new(f, opts, None, s)
                }
            })?);
        } else {
            model_parts.push(Part::new(f, p, &route, opts, |_| {
                Ok(SwitchEngineTxn::new(f.config.switch))
            })?);
        }
    }
    // Every partition's first events are its own (faults and node starts come from the SM).
    let mut next: Vec<Option<u64>> = vec![None; nparts];
    for p in &model_parts {
        next[p.id] = p.next_time();
    }
    for p in &foreign_parts {
        next[p.id] = p.next_time();
    }
    let threads = opts.threads.max(1);
    let mut stats = Stats::default();
    // The partitions have run every cycle before this one.
    let mut ran_to = 0;
    std::thread::scope(|scope| -> Result<(), FabricError> {
        // Model partitions but the first go to worker threads when there is more than one
        // thread; the others (and all, with one thread) run on this one.
        let mut local_models = vec![];
        let mut workers: Vec<(usize, mpsc::Sender<Cmd>)> = vec![];
        let (res_tx, res_rx) = mpsc::channel::<(WindowOut, Option<Stats>)>();
        for (i, p) in model_parts.into_iter().enumerate() {
            // The first runs on this thread, which would otherwise only wait for the others.
            if threads > 1 && i > 0 {
                let (tx, rx) = mpsc::channel::<Cmd>();
                let res_tx = res_tx.clone();
                let id = p.id;
                let mut p = p;
                scope.spawn(move || {
                    while let Ok(cmd) = rx.recv() {
                        match cmd {
                            Cmd::Window {
                                t_end,
                                mut inbox,
                                spare,
                            } => {
                                let out = p.window(t_end, &mut inbox, spare);
                                if res_tx.send((out, None)).is_err() {
                                    return;
                                }
                            }
                            Cmd::Finish => {
                                let _ = res_tx.send((
                                    WindowOut {
                                        part: p.id,
                                        out: Inbox::default(),
                                        next: None,
                                    },
                                    Some(p.take_stats()),
                                ));
                                return;
                            }
                        }
                    }
                });
                workers.push((id, tx));
            } else {
                local_models.push(p);
            }
        }
        let mut last_progress = 0;
        // Per partition, what it takes in before its next window: events and credits. What
        // reaches it lands at or after the end of the window that sent it, so it waits here.
        let mut inboxes: Vec<Inbox> = (0..nparts).map(|_| Inbox::default()).collect();
        // Per partition, its last window's outgoing vectors, emptied and handed back (so that
        // no window allocates them again).
        let mut spares: Vec<Inbox> = (0..nparts).map(|_| Inbox::default()).collect();
        let mut outs: Vec<WindowOut> = Vec::with_capacity(nparts);
        let earliest = |next: &mut Option<u64>, t: u64| {
            *next = Some(next.map_or(t, |n| n.min(t)));
        };
        loop {
            for s in control.take_out() {
                let pid = route.part_of(&s.ev);
                earliest(&mut next[pid], s.key.t);
                inboxes[pid].events.push(s);
            }
            if control.finished() {
                break;
            }
            let t0 = next
                .iter()
                .flatten()
                .copied()
                .chain(control.next_time())
                .min();
            let Some(t0) = t0 else {
                control.hang_at(None);
                break;
            };
            if t0 > f.file.run.max_cycles {
                control.hang_at(Some(f.file.run.max_cycles));
                break;
            }
            // Windows end at a deadline or the last cycle, so that a run is cut at the same
            // cycle however it is partitioned.
            if control.stuck(t0) {
                break;
            }
            let limit = control
                .deadline()
                .unwrap_or(u64::MAX)
                .min(f.file.run.max_cycles)
                .saturating_add(1);
            let t_end = (t0 + window).min(limit).max(t0 + 1);
            for (id, tx) in &workers {
                let inbox = std::mem::take(&mut inboxes[*id]);
                let spare = std::mem::take(&mut spares[*id]);
                if tx
                    .send(Cmd::Window {
                        t_end,
                        inbox,
                        spare,
                    })
                    .is_err()
                {
                    return Err(FabricError::Level(
                        "a fabric worker thread stopped".to_string(),
                    ));
                }
            }
            ran_to = t_end;
            for p in local_models.iter_mut() {
                let spare = std::mem::take(&mut spares[p.id]);
                outs.push(p.window(t_end, &mut inboxes[p.id], spare));
            }
            for p in foreign_parts.iter_mut() {
                let spare = std::mem::take(&mut spares[p.id]);
                outs.push(p.window(t_end, &mut inboxes[p.id], spare));
            }
            for _ in &workers {
                match res_rx.recv() {
                    Ok((o, _)) => outs.push(o),
                    Err(_) => {
                        return Err(FabricError::Level(
                            "a fabric worker thread stopped".to_string(),
                        ))
                    }
                }
            }
            // What crossed partitions lands at or after t_end (that is what the window is).
            for o in &outs {
                next[o.part] = o.next;
            }
            for mut o in outs.drain(..) {
                for s in o.out.events.drain(..) {
                    if s.ev.target() == Target::Sm {
                        control.push(s);
                    } else {
                        let pid = route.part_of(&s.ev);
                        earliest(&mut next[pid], s.key.t);
                        inboxes[pid].events.push(s);
                    }
                }
                for c in o.out.credits.drain(..) {
                    // A credit may wake its sender when it arrives.
                    let pid = route.part_of_end(c.to.end());
                    earliest(&mut next[pid], c.t);
                    inboxes[pid].credits.push(c);
                }
                debug_assert!(o.out.is_empty());
                spares[o.part] = o.out;
            }
            control.window(t_end);
            if control.stuck(t_end) {
                break;
            }
            if t_end - last_progress >= 100_000 {
                last_progress = t_end;
                progress(t_end, control.barriers());
            }
        }
        for (_, tx) in &workers {
            let _ = tx.send(Cmd::Finish);
        }
        for _ in &workers {
            if let Ok((_, Some(s))) = res_rx.recv() {
                stats.add(s);
            }
        }
        for p in local_models.iter_mut() {
            stats.add(p.take_stats());
        }
        for p in foreign_parts.iter_mut() {
            stats.add(p.take_stats());
        }
        Ok(())
    })?;
    Ok(control.report(stats, ran_to))
}

/// Which partition holds each switch and node.
pub(crate) struct Route {
    pub part_of_switch: Vec<usize>,
    pub part_of_node: Vec<usize>,
}

impl Route {
    pub fn part_of(&self, ev: &Ev) -> usize {
        match ev.target() {
            Target::Switch(s) => self.part_of_switch[s],
            Target::Node(n) => self.part_of_node[n],
            Target::Sm => usize::MAX,
        }
    }

    pub fn part_of_end(&self, e: End) -> usize {
        match e {
            End::Switch(s, _) => self.part_of_switch[s],
            End::Node(n) => self.part_of_node[n],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg32;
    use std::collections::BTreeSet;

    /// The queue moves events by value: they stay at 48 bytes (a packed end of a link, 32-bit
    /// generations, no event with a wide payload).
    #[test]
    fn an_event_takes_48_bytes() {
        assert_eq!(std::mem::size_of::<Scheduled>(), 48);
        assert_eq!(std::mem::size_of::<Option<Scheduled>>(), 48);
    }

    /// An event almost a full wheel ahead sits in the word of the cycle after the current
    /// one, before it: the search must wrap round to it.
    #[test]
    fn the_queue_finds_an_event_almost_a_lap_ahead() {
        let mut q = Queue::default();
        let at = |t| Scheduled {
            key: Key::new(t, 0, 0, t),
            ev: Ev::Wake { sw: 0 },
        };
        q.push(at(5));
        assert_eq!(q.pop_at(5).map(|s| s.key.t), Some(5));
        // Slot 3: in the word of cycle 6, before it.
        q.push(at(5 + WHEEL as u64 - 2));
        assert_eq!(q.next_t(), Some(5 + WHEEL as u64 - 2));
    }

    /// The queue against a naive reference (every pending key in one ordered set), used as the
    /// kernel uses it: pop every event of the next busy cycle, pushing new ones (some into the
    /// current cycle, some near, some beyond the wheel), with cycles that have none in between.
    #[test]
    fn the_queue_pops_in_key_order() {
        for seed in [1u64, 2, 3] {
            let mut rng = Pcg32::seed_from_u64(seed);
            let mut q = Queue::default();
            let mut naive: BTreeSet<Key> = BTreeSet::new();
            let mut seq = 0u64;
            let mut push = |q: &mut Queue, naive: &mut BTreeSet<Key>, t: u64, rng: &mut Pcg32| {
                seq += 1;
                let key = Key::new(t, rng.gen_range(0..7), rng.gen_range(0..1000), seq);
                naive.insert(key);
                q.push(Scheduled {
                    key,
                    ev: Ev::Wake { sw: 0 },
                });
            };
            for _ in 0..200 {
                let t = rng.gen_range(0..3 * WHEEL as u64);
                push(&mut q, &mut naive, t, &mut rng);
            }
            let mut popped = 0;
            let mut now = 0;
            while let Some(t) = q.next_t() {
                assert_eq!(
                    Some(t),
                    naive.first().map(|k| k.t),
                    "seed {seed}: next cycle"
                );
                // A cycle with nothing queued pops nothing.
                if t > now + 1 {
                    assert!(q.pop_at(t - 1).is_none(), "seed {seed}");
                }
                now = t;
                while let Some(s) = q.pop_at(t) {
                    assert_eq!(Some(s.key), naive.pop_first(), "seed {seed}: at {t}");
                    popped += 1;
                    if popped < 20_000 {
                        let d = match rng.gen_range(0..10) {
                            0 => 0,
                            1 => rng.gen_range(WHEEL as u64..3 * WHEEL as u64),
                            // Spread over the wheel, so that busy slots wrap round it.
                            2 | 3 => rng.gen_range(300..WHEEL as u64),
                            // Almost a lap ahead: into the current cycle's word, before it.
                            4 => rng.gen_range(WHEEL as u64 - 64..WHEEL as u64),
                            _ => rng.gen_range(1..300),
                        };
                        for _ in 0..rng.gen_range(0..4) {
                            push(&mut q, &mut naive, t + d, &mut rng);
                        }
                    }
                }
            }
            assert!(naive.is_empty() && popped > 20_000, "seed {seed}: {popped}");
        }
    }
}
