//! A partition of the fabric: some switches, the nodes attached to them, and the sending side
//! of every link end they own. It runs one window at a time; what it sends to another
//! partition or to the SM goes out at the end of the window (it always lands later), and so do
//! the credits it gives back (see "Credits" in [`super`]).
//!
//! Everything the kernel touches for a packet on one hop lives with the end that touches it: a
//! switch port holds its input buffer, its egress queue and credits, and its [`LinkEnd`] (the
//! link's figures and the state of the direction leaving the port); a node holds its own. A hop
//! reads no table of the topology.

use super::fifo::Fifo;
use super::{
    class, origin_node, BitSet, CfgReq, CreditRet, Dest, Ev, Fabric, Fault, Inbox, Key, Payload,
    Pkt, Queue, Route, RunOptions, Scheduled, Target, TidAnswer, WindowOut, PACKET_BYTES,
};
use crate::collective::{digest, Kind, Reduction};
use crate::node::{ChunkSlot, NodeCsm, NodeState, Reaction};
use crate::topology::End;
use crate::FabricError;
use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::net::header::Opcode;
use netcoll_models::switch_engine::model::SwitchEngineModel;
use netcoll_models::switch_engine::txn::{FabricOut, SwitchEngineTxn};
use netcoll_models::switch_engine::{SwitchEngine, SwitchEngineIn, Verdict, LATENCY};
use netcoll_testbench::harness::vcd::Tracer;
use netcoll_testbench::harness::{cycle_sim, Level, Sim};
use rand::distributions::Bernoulli;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use smallvec::SmallVec;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// A switch's collective engine at some level, as the fabric drives it.
pub(crate) trait EngineCore {
    /// One clock cycle; what the fabric reads of its outputs.
    fn clock(&mut self, i: &SwitchEngineIn) -> FabricOut;
    /// Nothing in flight, nothing to show, and an idle cycle would change nothing but the
    /// time (so a cycle with nothing offered can be skipped with [`Self::idle`]).
    fn quiet(&self) -> bool {
        false
    }
    /// `n` cycles with no input.
    fn idle(&mut self, n: u64) {
        let i = SwitchEngineIn::default();
        for _ in 0..n {
            self.clock(&i);
        }
    }
}

/// Model switches run the transaction-level model: the cycle model's ports at the cost of one
/// golden step per operation.
impl EngineCore for SwitchEngineTxn {
    fn clock(&mut self, i: &SwitchEngineIn) -> FabricOut {
        self.step_fabric(i)
    }
    /// Skips an idle stretch in constant time (exactly as idle steps would).
    fn idle(&mut self, n: u64) {
        SwitchEngineTxn::idle(self, n)
    }
    fn quiet(&self) -> bool {
        SwitchEngineTxn::quiet(self)
    }
}

/// An engine behind the generic port interface: the cycle model (which every reducing engine
/// runs: the transaction-level model has no payload path), the rust-hdl RTL or Verilator.
/// Partitions holding one stay on the calling thread.
pub(crate) enum ForeignEngine {
    /// The cycle model, held as itself so that the fabric can ask it whether it is quiet.
    Model(Box<SwitchEngineModel>),
    Other(Sim<SwitchEngine>),
}

impl ForeignEngine {
    /// Switch `s` at the level `opts.levels` gives it, recorded into `tracer` if there is one.
    pub fn new(
        f: &Fabric,
        opts: &RunOptions,
        tracer: Option<&Tracer>,
        s: usize,
    ) -> Result<ForeignEngine, FabricError> {
        let name = &f.topo.switch_names[s];
        let level = opts.levels.get(name).copied().unwrap_or(Level::Model);
        if level == Level::Model && tracer.is_none() {
            return Ok(ForeignEngine::Model(Box::new(SwitchEngineModel::new(
                f.config.switch,
            ))));
        }
        let sim = cycle_sim::<SwitchEngine>(level, &f.config)
            .map_err(|e| FabricError::Level(format!("switch {name}: {e}")))?;
        Ok(ForeignEngine::Other(match tracer {
            Some(t) => Box::new(t.tap(sim, f.config.switch, &["fabric", name, level.name()])),
            None => sim,
        }))
    }
}

impl EngineCore for ForeignEngine {
    fn clock(&mut self, i: &SwitchEngineIn) -> FabricOut {
        match self {
            ForeignEngine::Model(m) => FabricOut::from(&m.step(i)),
            ForeignEngine::Other(sim) => FabricOut::from(&sim.step(i)),
        }
    }
    /// The cycle model knows; another level is never taken to be quiet.
    fn quiet(&self) -> bool {
        match self {
            ForeignEngine::Model(m) => m.quiet(),
            ForeignEngine::Other(_) => false,
        }
    }
}

/// Counters a partition keeps; summed over partitions at the end.
#[derive(Default, Debug)]
pub(crate) struct Stats {
    pub drops: BTreeMap<&'static str, u64>,
    /// Per verdict code (counted for every packet: an array, not a map).
    pub verdicts: [u64; 16],
    pub faults: BTreeMap<&'static str, u64>,
    pub retries: u64,
    pub events: u64,
    pub packets: u64,
    pub steps: u64,
}

impl Stats {
    pub fn add(&mut self, o: Stats) {
        for (mine, theirs) in [(&mut self.drops, o.drops), (&mut self.faults, o.faults)] {
            for (k, v) in theirs {
                *mine.entry(k).or_insert(0) += v;
            }
        }
        for (mine, theirs) in self.verdicts.iter_mut().zip(o.verdicts) {
            *mine += theirs;
        }
        self.retries += o.retries;
        self.events += o.events;
        self.packets += o.packets;
        self.steps += o.steps;
    }
}

fn count(map: &mut BTreeMap<&'static str, u64>, k: &'static str) {
    count_n(map, k, 1);
}

fn count_n(map: &mut BTreeMap<&'static str, u64>, k: &'static str, n: u64) {
    *map.entry(k).or_insert(0) += n;
}

/// One end of a link as the switch port or node that owns it holds it: the link's figures, and
/// the state of the direction that leaves this end. Both ends see every failure and repair of
/// the link in the same cycle (the fault list sends each end its own event), so their `up` and
/// `gen` agree whenever a packet or a credit is sent.
struct LinkEnd {
    /// The link (`NO_LINK`: a switch port with none).
    link: u32,
    up: bool,
    /// Counts the failures and repairs this end has seen: what was sent before one is dropped.
    gen: u32,
    /// The other end.
    peer: Dest,
    latency: u64,
    /// Serialisation of a packet without data, cycles …
    ser: u64,
    /// … and the link's bandwidth, bytes a cycle (for one with data).
    bw: u64,
    /// The largest age of a packet on this link.
    lifetime: u64,
    /// The buffer depth at each end (the sender's full credits).
    credits: u64,
    /// The last arrival of this direction (links are FIFO).
    last_arrival: u64,
    /// This direction's random stream for loss and duplicates.
    rng: Pcg32,
}

const NO_LINK: u32 = u32::MAX;

impl LinkEnd {
    /// End `e` of `link` (seeded as the direction `e` sends: `a`'s is 0).
    fn new(f: &Fabric, seed: u64, link: usize, e: End) -> LinkEnd {
        let l = f.topo.links[link];
        let d = u64::from(e != l.a);
        LinkEnd {
            link: link as u32,
            up: true,
            gen: 0,
            peer: l.other(e).into(),
            latency: l.latency,
            ser: super::ser(PACKET_BYTES, l.bandwidth),
            bw: l.bandwidth,
            lifetime: f.lifetime[link],
            credits: l.credits,
            last_arrival: 0,
            rng: Pcg32::seed_from_u64(
                seed.wrapping_add(0x5851_f42d_4c95_7f2du64.wrapping_mul(2 * link as u64 + d + 1)),
            ),
        }
    }

    /// A switch port with no link.
    fn none() -> LinkEnd {
        LinkEnd {
            link: NO_LINK,
            up: false,
            gen: 0,
            peer: Dest::node(0),
            latency: 0,
            ser: 0,
            bw: 1,
            lifetime: 0,
            credits: 0,
            last_arrival: 0,
            rng: Pcg32::seed_from_u64(0),
        }
    }

    fn live(&self) -> bool {
        self.up && self.link != NO_LINK
    }

    /// Cycles `pkt` takes to serialise onto the link.
    fn ser_of(&self, pkt: &Pkt) -> u64 {
        if pkt.payload.is_none() {
            self.ser
        } else {
            super::ser(pkt.bytes(), self.bw)
        }
    }

    fn fail(&mut self) {
        if self.up {
            self.up = false;
            self.gen += 1;
        }
    }
}

/// The sending side of one link end, its first `N` queued packets inline.
struct TxPort<const N: usize> {
    queue: Fifo<N>,
    credits: u64,
    free_at: u64,
    /// Credits on their way back over the link: the cycle each arrives. At most the link's
    /// credits (4 by default, inline).
    returns: SmallVec<[u64; 4]>,
}

impl<const N: usize> TxPort<N> {
    fn new(credits: u64) -> Self {
        TxPort {
            queue: Fifo::default(),
            credits,
            free_at: 0,
            returns: SmallVec::new(),
        }
    }

    /// The credits held at cycle `now`, those that have come back by then included.
    fn credits_at(&mut self, now: u64) -> u64 {
        if !self.returns.is_empty() {
            let before = self.returns.len();
            self.returns.retain(|t| *t > now);
            self.credits += (before - self.returns.len()) as u64;
        }
        self.credits
    }

    /// A sender with packets and no credit: the cycle the next credit comes back, if one is
    /// on its way.
    fn blocked_until(&self) -> Option<u64> {
        (!self.queue.is_empty() && self.credits == 0)
            .then(|| self.returns.iter().copied().min())
            .flatten()
    }

    /// The link restarts: full credits, nothing on its way back.
    fn reset(&mut self, credits: u64) {
        self.credits = credits;
        self.returns.clear();
    }
}

/// A switch port: its link end, its input buffer, its egress queue (each buffer holds
/// the default 4 credits' worth inline).
#[repr(C)]
struct Port {
    end: LinkEnd,
    inq: Fifo<4>,
    tx: TxPort<4>,
}

/// The cycles in which the operations an engine has accepted show their results, oldest
/// first: at most one operation a cycle, each for `LATENCY` cycles, so a small ring.
#[derive(Default)]
struct Surfacing {
    at: [u64; 8],
    head: u8,
    len: u8,
}

impl Surfacing {
    fn push(&mut self, t: u64) {
        debug_assert!((self.len as usize) < self.at.len());
        self.at[(self.head + self.len) as usize % 8] = t;
        self.len += 1;
    }
    fn front(&self) -> Option<u64> {
        (self.len > 0).then(|| self.at[self.head as usize])
    }
    fn pop(&mut self) {
        self.head = (self.head + 1) % 8;
        self.len -= 1;
    }
}

struct Switch<E> {
    engine: E,
    alive: bool,
    /// The engine has been clocked for every cycle before this one.
    clocked_to: u64,
    /// Bit `p`: `ports[p].inq` holds a packet.
    in_mask: u64,
    /// Bit `p`: `ports[p].tx` holds a packet.
    out_mask: u64,
    rr: usize,
    repl: Option<(Pkt, u64)>,
    /// When the accepted operations show their results: a switch with nothing else to do
    /// sleeps until the first.
    surfacing: Surfacing,
    /// The engine's output queue may hold a packet besides the one it shows: set when its
    /// output was not taken (`out_ready` low) in a cycle where it showed one or an operation
    /// surfaced, cleared when it shows none to a ready replicator. While it is clear, the
    /// engine shows packets only in the cycles `surfacing` lists (each taken at once).
    backlog: bool,
    seq: u64,
    ports: Vec<Port>,
    cfg: VecDeque<CfgReq>,
    cfg_wait: VecDeque<CfgReq>,
    /// A reducing engine: the packet whose beats it is taking …
    feed: Option<Box<Feed>>,
    /// … and the output packet with data it is showing, beat by beat.
    collect: Option<Box<Collect>>,
}

/// A packet with data whose first beat the engine has taken: it takes the rest one a cycle
/// (nothing else is offered meanwhile), and the input buffer's place is given back with the
/// last.
struct Feed {
    pkt: Pkt,
    /// The next beat, and the packet's beats.
    next: u64,
    beats: u64,
    /// The input port it came from (its credit goes back with the last beat).
    port: usize,
}

/// An output packet with data, its words as its beats have come.
struct Collect {
    words: Vec<u64>,
}

struct NodeRt {
    end: LinkEnd,
    /// A node queues a packet only while it waits for a credit …
    tx: TxPort<2>,
    /// … and a reduction's chunks it is to send, `(group, slot)`, after those: a chunk's
    /// packet is made when the link takes it (from the slot's state then, so that it never
    /// carries a CGID of an older tree), as a NIC reads a send from host memory.
    chunks: VecDeque<(usize, usize)>,
    /// The cycle of the node's next queued [`Ev::NodePump`], if one is queued (so that one
    /// pump at a time is queued, however often the node is asked to send).
    pump_at: Option<u64>,
    rng: Pcg32,
    seq: u64,
    groups: NodeGroups,
}

/// A node's groups by group index, in index order (a node is in a few groups: a short
/// vector is faster to search than a map, and the first is kept inline, in the node's own
/// cache lines).
struct NodeGroups(SmallVec<[(usize, NodeGroup); 1]>);

impl NodeGroups {
    fn get(&self, g: &usize) -> Option<&NodeGroup> {
        self.0.iter().find(|(i, _)| i == g).map(|(_, x)| x)
    }
    fn get_mut(&mut self, g: &usize) -> Option<&mut NodeGroup> {
        self.0.iter_mut().find(|(i, _)| i == g).map(|(_, x)| x)
    }
    fn keys(&self) -> impl Iterator<Item = &usize> {
        self.0.iter().map(|(i, _)| i)
    }
    fn iter_mut(&mut self) -> impl Iterator<Item = (&usize, &mut NodeGroup)> {
        self.0.iter_mut().map(|(i, x)| (&*i, x))
    }
}

struct NodeGroup {
    csm: NodeCsm,
    cgid: Option<u64>,
    /// The armed retry: barrier and deadline (cleared by the release).
    retry: Option<(u64, u64)>,
    /// The cycle of the pending retry timer event, if one is queued.
    timer_at: Option<u64>,
    /// The cycle the node learnt its CGID (the origin of `node.interval`).
    joined_at: u64,
    /// A reduction group: its chunks (rules 6 to 9 of [`crate::node`]).
    red: Option<Box<NodeRed>>,
}

impl NodeGroup {
    /// Which of the group's CGIDs `cgid` is (0 for a barrier's only one).
    fn slot_of(&self, cgid: u64) -> Option<usize> {
        match &self.red {
            Some(r) => r.pool.iter().position(|&c| c == cgid),
            None => (self.cgid == Some(cgid)).then_some(0),
        }
    }
}

/// A node's part in a reduction group.
struct NodeRed {
    r: Reduction,
    /// The pool's CGIDs, from the SM (empty before the first tree).
    pool: Vec<u64>,
    slots: Vec<SlotRt>,
    /// Chunks of the current operation whose results have come.
    done: u64,
}

/// One CGID of the pool at a node.
#[derive(Default)]
struct SlotRt {
    csm: ChunkSlot,
    /// The contribution in flight (a retry sends it again) …
    sent: Option<Arc<Payload>>,
    /// … and when it is sent again.
    retry_at: Option<u64>,
    /// The last result received on this CGID, with its transaction's TID (rule 7).
    last: Option<(u8, Arc<Payload>)>,
    /// In the node's queue of chunks to send.
    queued: bool,
}

/// A loss or duplicate fault, as a sender draws it for each packet.
#[derive(Clone, Copy)]
struct RateFault {
    rate: Bernoulli,
    /// `Some(delay range)`: a duplicate fault; `None`: a loss.
    dup: Option<[u64; 2]>,
    op: Option<u64>,
    link: Option<usize>,
    from: u64,
    until: u64,
}

impl RateFault {
    fn hits(&self, now: u64, on: u32, op: u64) -> bool {
        now >= self.from
            && now < self.until
            && self.link.is_none_or(|l| l == on as usize)
            && self.op.is_none_or(|x| x == op)
    }
}

pub(crate) struct Part<'a, E> {
    f: &'a Fabric,
    route: &'a Route,
    pub id: usize,
    now: u64,
    queue: Queue,
    /// The switches with work (stepped in index order every cycle).
    active: BitSet,
    /// The switches stepped this cycle (kept to reuse its allocation).
    stepping: Vec<usize>,
    switches: Vec<Option<Switch<E>>>,
    nodes: Vec<Option<NodeRt>>,
    /// The loss and duplicate faults, in the order of the fault list.
    rate_faults: Vec<RateFault>,
    out: Vec<Scheduled>,
    /// Credits given back in this window (each reaches its sender at or after its end).
    credits: Vec<CreditRet>,
    /// Wake-ups that credits handed in at the start of a window call for (kept for its
    /// allocation).
    credit_wakes: Vec<(Dest, u64)>,
    stats: Stats,
    /// Switches are stepped in every cycle: the engines' retry timer is on (it ticks in idle
    /// cycles), or [`RunOptions::every_cycle`].
    every_cycle: bool,
    /// The engines reduce (see "busy" in [`Part::step_switch`]).
    reducing: bool,
    /// The run's seed (the reductions' contributions).
    seed: u64,
    keep_results: bool,
}

impl<'a, E: EngineCore> Part<'a, E> {
    pub fn new(
        f: &'a Fabric,
        id: usize,
        route: &'a Route,
        opts: &RunOptions,
        mut engine: impl FnMut(usize) -> Result<E, FabricError>,
    ) -> Result<Part<'a, E>, FabricError> {
        let t = &f.topo;
        let mut switches = vec![];
        for s in 0..t.switch_names.len() {
            if route.part_of_switch[s] != id {
                switches.push(None);
                continue;
            }
            let mut e = engine(s)?;
            // Every engine is reset in cycle 0 (its table sweep follows).
            e.clock(&SwitchEngineIn {
                reset: true,
                ..Default::default()
            });
            let ports = (0..t.switch_ports[s].len())
                .map(|p| {
                    let end = match t.switch_ports[s][p] {
                        Some(l) => LinkEnd::new(f, opts.seed, l, End::Switch(s, p)),
                        None => LinkEnd::none(),
                    };
                    Port {
                        tx: TxPort::new(end.credits),
                        inq: Fifo::default(),
                        end,
                    }
                })
                .collect();
            switches.push(Some(Switch {
                engine: e,
                alive: true,
                clocked_to: 1,
                in_mask: 0,
                out_mask: 0,
                rr: 0,
                repl: None,
                surfacing: Surfacing::default(),
                backlog: false,
                seq: 0,
                ports,
                cfg: VecDeque::new(),
                cfg_wait: VecDeque::new(),
                feed: None,
                collect: None,
            }));
        }
        let mut groups_of_node: Vec<Vec<usize>> = vec![vec![]; t.node_names.len()];
        for (gi, g) in f.groups.iter().enumerate() {
            for &m in &g.members {
                groups_of_node[m].push(gi);
            }
        }
        let nodes = (0..t.node_names.len())
            .map(|n| {
                (route.part_of_node[n] == id).then(|| {
                    let groups = groups_of_node[n]
                        .iter()
                        .map(|&gi| {
                            let g = &f.groups[gi];
                            (
                                gi,
                                NodeGroup {
                                    csm: NodeCsm::new(f.file.node.procs, g.barriers, 0),
                                    cgid: None,
                                    retry: None,
                                    timer_at: None,
                                    joined_at: 0,
                                    red: match g.kind {
                                        Kind::Barrier => None,
                                        Kind::Reduce(r) => Some(Box::new(NodeRed {
                                            r,
                                            pool: vec![],
                                            slots: (0..r.window)
                                                .map(|_| SlotRt::default())
                                                .collect(),
                                            done: 0,
                                        })),
                                    },
                                },
                            )
                        })
                        .collect();
                    let end = LinkEnd::new(f, opts.seed, t.node_link[n], End::Node(n));
                    NodeRt {
                        groups: NodeGroups(groups),
                        chunks: VecDeque::new(),
                        pump_at: None,
                        tx: TxPort::new(end.credits),
                        end,
                        rng: Pcg32::seed_from_u64(
                            opts.seed ^ 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(n as u64 + 1),
                        ),
                        seq: 0,
                    }
                })
            })
            .collect();
        let rate_faults = f
            .faults
            .iter()
            .filter_map(|fl| match *fl {
                Fault::Loss {
                    rate,
                    op,
                    link,
                    from,
                    until,
                } => Some(RateFault {
                    rate,
                    dup: None,
                    op,
                    link,
                    from,
                    until,
                }),
                Fault::Dup {
                    rate,
                    op,
                    link,
                    delay,
                    from,
                    until,
                } => Some(RateFault {
                    rate,
                    dup: Some(delay),
                    op,
                    link,
                    from,
                    until,
                }),
                _ => None,
            })
            .collect();
        let mut p = Part {
            f,
            route,
            id,
            now: 0,
            queue: Queue::default(),
            active: BitSet::default(),
            stepping: vec![],
            switches,
            nodes,
            rate_faults,
            out: vec![],
            credits: vec![],
            credit_wakes: vec![],
            stats: Stats::default(),
            every_cycle: f.config.switch.retry_timer_on() || opts.every_cycle,
            reducing: f.config.switch.reduces(),
            seed: opts.seed,
            keep_results: opts.keep_results,
        };
        if p.every_cycle {
            for s in 0..t.switch_names.len() {
                if route.part_of_switch[s] == id {
                    p.active.insert(s);
                }
            }
        }
        // The fault list, as each partition sees it: a link fails at both of its ends.
        let mut seq = 0;
        let mut fault = |p: &mut Part<'a, E>, t: u64, ev: Ev| {
            seq += 1;
            if p.route.part_of(&ev) == p.id {
                p.queue.push(Scheduled {
                    key: Key::new(t, class::FAULT, super::ORIGIN_FAULTS, seq),
                    ev,
                });
            }
        };
        for fl in &f.faults {
            match *fl {
                Fault::LinkDown { link, at, up } => {
                    let l = t.links[link];
                    for e in [l.a, l.b] {
                        let at_end = e.into();
                        fault(&mut p, at, Ev::LinkDown { link, at_end });
                        if let Some(u) = up {
                            fault(&mut p, u, Ev::LinkUp { link, at_end });
                        }
                    }
                }
                Fault::SwitchDown { switch, at } => {
                    fault(&mut p, at, Ev::SwitchDown { sw: switch });
                    for port in 0..t.switch_ports[switch].len() {
                        if let Some(link) = t.switch_ports[switch][port] {
                            let other = t.links[link].other(End::Switch(switch, port));
                            fault(
                                &mut p,
                                at,
                                Ev::LinkDown {
                                    link,
                                    at_end: other.into(),
                                },
                            );
                        }
                    }
                }
                Fault::Leave { node, group, at } => fault(&mut p, at, Ev::Leave { node, group }),
                Fault::Loss { .. } | Fault::Dup { .. } => {}
            }
        }
        Ok(p)
    }

    pub fn next_time(&self) -> Option<u64> {
        if !self.active.is_empty() && !self.queue.due_by(self.now) {
            // The switches work in the next cycle; no event can come before it.
            return Some(self.now + 1);
        }
        self.queue.next_t()
    }

    pub fn take_stats(&mut self) -> Stats {
        std::mem::take(&mut self.stats)
    }

    /// Schedules `ev` at `t`, made by `origin` (its own count orders it).
    #[inline(always)]
    fn at(&mut self, t: u64, class: u8, origin: Origin, ev: Ev) {
        let seq = match origin {
            Origin::Switch(s) => self.switches[s].as_mut().map_or(0, |x| {
                x.seq += 1;
                x.seq
            }),
            Origin::Node(n) => self.nodes[n].as_mut().map_or(0, |x| {
                x.seq += 1;
                x.seq
            }),
        };
        let origin = match origin {
            Origin::Switch(s) => s as u64,
            Origin::Node(n) => origin_node(self.f, n),
        };
        // `Route::part_of` answers the same; spelled out here, on the kernel's hottest path,
        // it compiles to fewer instructions.
        let mine = match ev.target() {
            Target::Switch(s) => self.route.part_of_switch[s] == self.id,
            Target::Node(n) => self.route.part_of_node[n] == self.id,
            Target::Sm => false,
        };
        let s = Scheduled {
            key: Key::new(t, class, origin, seq),
            ev,
        };
        if mine {
            self.queue.push(s);
        } else {
            self.out.push(s);
        }
    }

    /// Runs every cycle before `t_end`, after taking in what other partitions and the SM sent
    /// it. `spare` holds emptied vectors for what it sends out (the last window's, handed back
    /// so that their capacity is kept).
    pub fn window(&mut self, t_end: u64, inbox: &mut Inbox, spare: Inbox) -> WindowOut {
        for s in inbox.events.drain(..) {
            self.queue.push(s);
        }
        self.take_credits(&mut inbox.credits);
        if self.out.capacity() == 0 {
            self.out = spare.events;
        }
        if self.credits.capacity() == 0 {
            self.credits = spare.credits;
        }
        while let Some(t) = self.next_time().filter(|&t| t < t_end) {
            self.now = t;
            while let Some(s) = self.queue.pop_at(t) {
                // The wake-ups credits call for are not counted (as credits are not).
                if s.key.class() != class::CREDIT {
                    self.stats.events += 1;
                }
                self.handle(s.ev);
            }
            let mut act = std::mem::take(&mut self.stepping);
            act.clear();
            self.active.append_to(&mut act);
            for &s in &act {
                self.stats.steps += 1;
                self.step_switch(s);
            }
            self.stepping = act;
        }
        WindowOut {
            part: self.id,
            out: Inbox {
                events: std::mem::take(&mut self.out),
                credits: std::mem::take(&mut self.credits),
            },
            next: self.next_time(),
        }
    }

    /// Credits given back in the last window (by this partition or another) reach their
    /// senders: each is held until the cycle it arrives, and a sender with packets waiting is
    /// woken then. This runs between windows, so its effect does not depend on which
    /// partition gave the credit back.
    fn take_credits(&mut self, credits: &mut Vec<CreditRet>) {
        if credits.is_empty() {
            return;
        }
        // The order the credits come in makes no difference: a sender's returns are a set,
        // and the wake-ups are sorted below.
        let mut wakes = std::mem::take(&mut self.credit_wakes);
        for c in credits.drain(..) {
            // A credit of a link that failed (or came back) since it was given is void.
            let wake = match c.to.end() {
                End::Switch(s, p) => {
                    let Some(sw) = self.switches[s].as_mut() else {
                        continue;
                    };
                    let port = &mut sw.ports[p];
                    if port.end.gen != c.gen {
                        continue;
                    }
                    port.tx.returns.push(c.t);
                    // A switch that works in the next cycle sees the credit when it next
                    // decides to sleep (and sets its wake-up by it).
                    let awake = self.active.contains(&s);
                    (!awake && !port.tx.queue.is_empty()).then_some(Dest::switch(s, 0))
                }
                End::Node(n) => {
                    let Some(node) = self.nodes[n].as_mut() else {
                        continue;
                    };
                    if node.end.gen != c.gen {
                        continue;
                    }
                    node.tx.returns.push(c.t);
                    (!node.tx.queue.is_empty() || !node.chunks.is_empty()).then_some(c.to)
                }
            };
            if let Some(who) = wake {
                wakes.push((who, c.t));
            }
        }
        wakes.sort_unstable();
        wakes.dedup();
        for (who, t) in wakes.drain(..) {
            match who.end() {
                End::Switch(s, _) => {
                    self.at(t, class::CREDIT, Origin::Switch(s), Ev::Wake { sw: s })
                }
                End::Node(n) => {
                    self.at(t, class::CREDIT, Origin::Node(n), Ev::NodePump { node: n })
                }
            }
        }
        self.credit_wakes = wakes;
    }

    /// Gives a credit back over a link: it reaches the sender `to` at cycle `t` if the link
    /// (generation `gen` at the giving end) is still the same then.
    fn give_credit(&mut self, t: u64, to: Dest, gen: u32) {
        self.credits.push(CreditRet { t, to, gen });
    }

    fn handle(&mut self, ev: Ev) {
        let mgmt = self.f.file.sm.mgmt_latency;
        let now = self.now;
        match ev {
            Ev::Arrive { to, gen, pkt } => self.arrive(to, gen, pkt.packet()),
            Ev::ArriveData { to, gen, pkt } => self.arrive(to, gen, *pkt),
            Ev::LinkDown { link, at_end } => self.link_down(link, at_end.end()),
            Ev::LinkUp { link, at_end } => {
                let at_end = at_end.end();
                // Both ends flushed what they held when the link went down: full credits.
                let end = match at_end {
                    End::Switch(s, p) => self.switches[s].as_mut().map(|x| &mut x.ports[p].end),
                    End::Node(n) => self.nodes[n].as_mut().map(|x| &mut x.end),
                };
                if let Some(end) = end {
                    end.up = true;
                    end.gen += 1;
                }
                if self.reports(link, at_end) {
                    let t = now + mgmt;
                    let origin = match at_end {
                        End::Switch(s, _) => Origin::Switch(s),
                        End::Node(n) => Origin::Node(n),
                    };
                    self.at(t, class::MGMT, origin, Ev::SmLinkUp { link });
                }
                match at_end {
                    End::Switch(s, p) => {
                        if let Some(sw) = self.switches[s].as_mut().filter(|x| x.alive) {
                            let port = &mut sw.ports[p];
                            port.tx.reset(port.end.credits);
                            self.active.insert(s);
                        }
                    }
                    End::Node(n) => {
                        if let Some(node) = self.nodes[n].as_mut() {
                            node.tx.reset(node.end.credits);
                        }
                        self.node_pump(n);
                    }
                }
            }
            Ev::SwitchDown { sw } => {
                count(&mut self.stats.faults, "switch_down");
                let ports = match self.switches[sw].as_mut() {
                    Some(x) => {
                        x.alive = false;
                        x.ports.len()
                    }
                    None => 0,
                };
                self.active.remove(sw);
                for port in 0..ports {
                    if let Some(link) = self.f.topo.switch_ports[sw][port] {
                        self.link_down(link, End::Switch(sw, port));
                    }
                }
                // Its neighbours see their links go dark; the SM hears of the switch.
                self.at(
                    now + mgmt,
                    class::MGMT,
                    Origin::Switch(sw),
                    Ev::SmSwitchDown { sw },
                );
            }
            Ev::Leave { node, group } => {
                count(&mut self.stats.faults, "leave");
                let Some(rt) = self.nodes[node].as_mut() else {
                    return;
                };
                let gs: Vec<usize> = rt
                    .groups
                    .keys()
                    .copied()
                    .filter(|g| group.is_none_or(|x| x == *g))
                    .collect();
                for g in gs {
                    let Some(ng) = self.nodes[node].as_mut().and_then(|r| r.groups.get_mut(&g))
                    else {
                        continue;
                    };
                    if matches!(ng.csm.state, NodeState::Done | NodeState::Left) {
                        continue;
                    }
                    ng.csm.leave();
                    self.at(
                        now + mgmt,
                        class::MGMT,
                        Origin::Node(node),
                        Ev::SmLeave { node, group: g },
                    );
                }
            }
            Ev::Cfg { sw, req } => match self.switches[sw].as_mut().filter(|x| x.alive) {
                Some(x) => {
                    x.cfg.push_back(*req);
                    self.active.insert(sw);
                }
                // Nothing answers for a dead switch; the SM counts it done (it heard of the
                // failure and leaves the switch out of the next tree).
                None => self.at(
                    now + mgmt,
                    class::MGMT,
                    Origin::Switch(sw),
                    Ev::CfgDone {
                        group: req.group,
                        epoch: req.epoch,
                        rejected: false,
                    },
                ),
            },
            Ev::Wake { sw } => {
                if self.switches[sw].as_ref().is_some_and(|x| x.alive) {
                    self.active.insert(sw);
                }
            }
            Ev::Enter { node, group, k } => self.node_enter(node, group, k),
            Ev::NodeSend { node, group, k } => {
                let Some(ng) = self.nodes[node].as_ref().and_then(|r| r.groups.get(&group)) else {
                    return;
                };
                if ng.csm.state != NodeState::Full || ng.csm.k != k {
                    return;
                }
                if let Some(red) = &ng.red {
                    // Rule 6: the first `window` chunks at once.
                    let first = red.r.window.min(red.r.chunks());
                    if let Some(red) = self.node_red(node, group) {
                        red.done = 0;
                    }
                    for c in 0..first {
                        self.send_chunk(node, group, k, c);
                    }
                    return;
                }
                self.node_send_full(node, group);
                self.arm_retry(node, group, k);
            }
            Ev::NodeRetry { node, group } => {
                let Some(ng) = self.nodes[node]
                    .as_mut()
                    .and_then(|r| r.groups.get_mut(&group))
                else {
                    return;
                };
                ng.timer_at = None;
                if ng.red.is_some() {
                    self.retry_chunks(node, group);
                    return;
                }
                let Some((k, at)) = ng.retry else {
                    return;
                };
                if at > now {
                    // Re-armed since this timer was set: wait for the new deadline.
                    self.set_retry_timer(node, group, at);
                    return;
                }
                ng.retry = None;
                if ng.csm.k != k || !ng.csm.wants_retry() {
                    return;
                }
                self.stats.retries += 1;
                self.node_send_full(node, group);
                self.arm_retry(node, group, k);
            }
            Ev::NodePump { node } => {
                if let Some(rt) = self.nodes[node].as_mut() {
                    if rt.pump_at == Some(now) {
                        rt.pump_at = None;
                    }
                }
                self.node_pump(node)
            }
            Ev::NodeStart { node, group, cgids } => {
                let Some(ng) = self.nodes[node]
                    .as_mut()
                    .and_then(|r| r.groups.get_mut(&group))
                else {
                    return;
                };
                let first = ng.cgid.is_none();
                ng.cgid = cgids.first().copied();
                if let Some(red) = ng.red.as_mut() {
                    red.pool = cgids.to_vec();
                }
                if first {
                    ng.joined_at = now;
                    self.node_schedule_entries(node, group, now);
                }
            }
            Ev::NodeQuery { node, group, epoch } => {
                let g = self.nodes[node]
                    .as_ref()
                    .and_then(|r| r.groups.get(&group))
                    .filter(|g| !matches!(g.csm.state, NodeState::Left));
                let (tids, last) = match g {
                    None => (vec![], vec![]),
                    Some(g) => match &g.red {
                        None => (vec![g.csm.tid as u8], vec![None]),
                        Some(red) => (
                            red.slots.iter().map(|x| x.csm.tid as u8).collect(),
                            red.slots.iter().map(|x| x.last.clone()).collect(),
                        ),
                    },
                };
                let answer = Box::new(TidAnswer { node, tids, last });
                self.at(
                    now + mgmt,
                    class::MGMT,
                    Origin::Node(node),
                    Ev::SmTidAnswer {
                        group,
                        epoch,
                        answer,
                    },
                );
            }
            Ev::NodeDetach { node, group } => {
                if let Some(ng) = self.nodes[node]
                    .as_mut()
                    .and_then(|r| r.groups.get_mut(&group))
                {
                    ng.csm.leave();
                }
            }
            Ev::NodeRelay { node, group, relay } => {
                let Some(red) = self.node_red(node, group) else {
                    return;
                };
                let Some(slot) = red.slots.get_mut(relay.slot) else {
                    return;
                };
                let tid = relay.tid;
                if let Some((k, c)) = slot.csm.on_packet(Opcode::StatusRsp.code(), tid.into()) {
                    self.chunk_done(node, group, relay.slot, tid, k, c, Some(relay.payload));
                }
            }
            _ => unreachable!("the SM's events never reach a partition"),
        }
    }

    /// `pkt` reaches the end `to` of a link (sent at its generation `gen`).
    fn arrive(&mut self, to: Dest, gen: u32, pkt: Pkt) {
        let now = self.now;
        self.stats.packets += 1;
        match to.end() {
            End::Switch(s, port) => {
                let Some(sw) = self.switches[s].as_mut() else {
                    return;
                };
                let pt = &mut sw.ports[port];
                if gen != pt.end.gen || !pt.end.up {
                    count(&mut self.stats.drops, "link_down");
                    return;
                }
                if !sw.alive {
                    count(&mut self.stats.drops, "switch_down");
                    return;
                }
                if pkt.extra && pt.inq.len() as u64 >= 2 * pt.end.credits {
                    count(&mut self.stats.drops, "overflow");
                    return;
                }
                pt.inq.push_back(pkt);
                sw.in_mask |= 1 << port;
                self.active.insert(s);
            }
            End::Node(n) => {
                let Some(node) = self.nodes[n].as_ref() else {
                    return;
                };
                if gen != node.end.gen || !node.end.up {
                    count(&mut self.stats.drops, "link_down");
                    return;
                }
                // A node takes every packet at once: the credit goes straight back.
                if !pkt.extra {
                    let (t, peer, gen) = (now + node.end.latency, node.end.peer, node.end.gen);
                    self.give_credit(t, peer, gen);
                }
                self.node_receive(n, pkt);
            }
        }
    }

    fn link_down(&mut self, link: usize, at_end: End) {
        // What this end holds from the link is lost with it (so credits restart full).
        match at_end {
            End::Switch(s, p) => {
                if let Some(sw) = self.switches[s].as_mut() {
                    let port = &mut sw.ports[p];
                    port.end.fail();
                    // Credits still on their way belong to the link as it was.
                    port.tx.returns.clear();
                    let n = port.inq.len() as u64;
                    port.inq.clear();
                    sw.in_mask &= !(1 << p);
                    count_n(&mut self.stats.drops, "link_down", n);
                    let alive = sw.alive;
                    if alive && self.reports(link, at_end) {
                        let t = self.now + self.f.file.sm.mgmt_latency;
                        self.at(t, class::MGMT, Origin::Switch(s), Ev::SmLinkDown { link });
                    }
                }
            }
            End::Node(n) => {
                if let Some(node) = self.nodes[n].as_mut() {
                    node.end.fail();
                    node.tx.queue.clear();
                    node.tx.returns.clear();
                }
            }
        }
    }

    /// Whether this end of `link` tells the SM about it: the switch end with the lowest index
    /// (a link to a node is reported by its switch), so each change is reported once.
    fn reports(&self, link: usize, at_end: End) -> bool {
        let l = self.f.topo.links[link];
        let reporter = match (l.a, l.b) {
            (End::Switch(a, _), End::Switch(b, _)) => a.min(b),
            (End::Switch(a, _), End::Node(_)) | (End::Node(_), End::Switch(a, _)) => a,
            (End::Node(_), End::Node(_)) => return false,
        };
        matches!(at_end, End::Switch(s, _) if s == reporter)
            && self.switches[reporter].as_ref().is_some_and(|x| x.alive)
    }

    // --- nodes -----------------------------------------------------------------------------------

    fn arm_retry(&mut self, node: usize, group: usize, k: u64) {
        let timeout = self.f.file.node.retry_timeout;
        let Some(ng) = self.nodes[node]
            .as_mut()
            .and_then(|r| r.groups.get_mut(&group))
        else {
            return;
        };
        let deadline = self.now + timeout;
        ng.retry = Some((k, deadline));
        // One timer event at a time: a later deadline is picked up when it fires.
        if ng.timer_at.is_none() {
            self.set_retry_timer(node, group, deadline);
        }
    }

    /// Queues the retry timer event of `node` in `group` at cycle `at`.
    fn set_retry_timer(&mut self, node: usize, group: usize, at: u64) {
        if let Some(ng) = self.nodes[node]
            .as_mut()
            .and_then(|r| r.groups.get_mut(&group))
        {
            ng.timer_at = Some(at);
        }
        self.at(
            at,
            class::NODE,
            Origin::Node(node),
            Ev::NodeRetry { node, group },
        );
    }

    /// Schedules the entries of the node's processes into its next barrier, computing from
    /// cycle `now`.
    fn node_schedule_entries(&mut self, node: usize, group: usize, now: u64) {
        let [lo, hi] = self.f.file.node.compute;
        let procs = self.f.file.node.procs.max(1);
        let interval = self.f.file.node.interval;
        let Some(rt) = self.nodes[node].as_mut() else {
            return;
        };
        let Some(ng) = rt.groups.get(&group) else {
            return;
        };
        if ng.csm.state != NodeState::Idle {
            return;
        }
        let k = ng.csm.k;
        let paced = ng.joined_at + k * interval;
        for _ in 0..procs {
            let Some(rt) = self.nodes[node].as_mut() else {
                return;
            };
            let c = if hi > lo {
                rt.rng.gen_range(lo..=hi)
            } else {
                lo
            };
            let t = (now + c).max(paced);
            self.at(
                t,
                class::NODE,
                Origin::Node(node),
                Ev::Enter { node, group, k },
            );
        }
    }

    fn node_enter(&mut self, node: usize, group: usize, k: u64) {
        let overhead = self.f.file.node.overhead;
        let now = self.now;
        let Some(ng) = self.nodes[node]
            .as_mut()
            .and_then(|r| r.groups.get_mut(&group))
        else {
            return;
        };
        if ng.csm.k != k {
            return;
        }
        if ng.csm.enter() {
            self.at(
                now,
                class::LOG_ENTER,
                Origin::Node(node),
                Ev::LogEnter { group, node, k },
            );
            self.at(
                now + overhead,
                class::NODE,
                Origin::Node(node),
                Ev::NodeSend { node, group, k },
            );
        }
    }

    fn node_send_full(&mut self, node: usize, group: usize) {
        let now = self.now;
        let Some(rt) = self.nodes[node].as_mut() else {
            return;
        };
        let Some(ng) = rt.groups.get(&group) else {
            return;
        };
        let Some(cgid) = ng.cgid else { return };
        let pkt = Pkt {
            // The SM allocates CGIDs below the engines' `groups` (at most 4096).
            cgid: cgid as u32,
            tid: ng.csm.tid as u8,
            op: Opcode::Full.code() as u8,
            birth: now,
            extra: false,
            payload: None,
        };
        rt.tx.queue.push_back(pkt);
        self.node_pump(node);
    }

    fn node_pump(&mut self, n: usize) {
        let now = self.now;
        loop {
            let Some(rt) = self.nodes[n].as_mut() else {
                return;
            };
            if !(rt.end.up && rt.tx.credits_at(now) > 0 && rt.tx.free_at <= now) {
                break;
            }
            let pkt = match rt.tx.queue.pop_front() {
                Some(p) => p,
                None => match next_chunk(rt, now) {
                    Some(p) => p,
                    None => break,
                },
            };
            if now - pkt.birth > rt.end.lifetime {
                count(&mut self.stats.drops, "expired");
                continue;
            }
            rt.tx.credits -= 1;
            rt.tx.free_at = now + rt.end.ser_of(&pkt);
            self.transmit(Dest::node(n), pkt);
        }
        let Some(rt) = self.nodes[n].as_mut() else {
            return;
        };
        let work = !rt.tx.queue.is_empty() || !rt.chunks.is_empty();
        let again = if !rt.end.up || !work {
            None
        } else if rt.tx.credits > 0 {
            Some(rt.tx.free_at.max(now + 1))
        } else {
            rt.tx.returns.iter().copied().min()
        };
        // A pump already queued by then does it.
        if let Some(t) = again.filter(|&t| rt.pump_at.is_none_or(|p| p > t)) {
            rt.pump_at = Some(t);
            self.at(t, class::NODE, Origin::Node(n), Ev::NodePump { node: n });
        }
    }

    fn node_receive(&mut self, n: usize, pkt: Pkt) {
        let now = self.now;
        let Some(rt) = self.nodes[n].as_mut() else {
            return;
        };
        if now - pkt.birth > rt.end.lifetime {
            count(&mut self.stats.drops, "expired");
            return;
        }
        let Some((&group, ng, slot)) = rt
            .groups
            .iter_mut()
            .find_map(|(g, x)| x.slot_of(pkt.cgid.into()).map(|j| (g, x, j)))
        else {
            count(&mut self.stats.drops, "node_unknown_cgid");
            return;
        };
        if let Some(red) = ng.red.as_mut() {
            // Rule 7, while the processes are in the operation.
            let done = (ng.csm.state == NodeState::Full)
                .then(|| red.slots[slot].csm.on_packet(pkt.op.into(), pkt.tid.into()))
                .flatten();
            match done {
                Some((k, c)) => self.chunk_done(n, group, slot, pkt.tid, k, c, pkt.payload),
                None => count(&mut self.stats.drops, "node_stale"),
            }
            return;
        }
        match ng.csm.on_packet(pkt.op.into(), pkt.tid.into()) {
            Reaction::Release { k } => {
                ng.retry = None;
                self.node_released(n, group, k);
            }
            Reaction::Ignored => count(&mut self.stats.drops, "node_stale"),
        }
    }

    /// The node's processes leave operation `k` (after the overhead) and go on to the next,
    /// or tell the SM they are done.
    fn node_released(&mut self, n: usize, group: usize, k: u64) {
        let overhead = self.f.file.node.overhead;
        let mgmt = self.f.file.sm.mgmt_latency;
        let Some(ng) = self.nodes[n].as_ref().and_then(|r| r.groups.get(&group)) else {
            return;
        };
        let done = ng.csm.state == NodeState::Done;
        let release_at = self.now + overhead;
        self.at(
            release_at,
            class::LOG_RELEASE,
            Origin::Node(n),
            Ev::LogRelease { group, node: n, k },
        );
        if done {
            self.at(
                release_at + mgmt,
                class::MGMT,
                Origin::Node(n),
                Ev::SmNodeDone { group },
            );
        } else {
            // The processes compute from their release on.
            self.node_schedule_entries(n, group, release_at);
        }
    }

    fn node_red(&mut self, n: usize, group: usize) -> Option<&mut NodeRed> {
        self.nodes[n]
            .as_mut()
            .and_then(|r| r.groups.get_mut(&group))
            .and_then(|g| g.red.as_deref_mut())
    }

    /// Rule 6: the node sends its contribution to chunk `c` of operation `k`, on the slot
    /// `c mod window`, and arms the slot's retry.
    fn send_chunk(&mut self, n: usize, group: usize, k: u64, c: u64) {
        let now = self.now;
        let deadline = now + self.f.file.node.retry_timeout;
        let seed = self.seed;
        let Some(rt) = self.nodes[n].as_mut() else {
            return;
        };
        let Some(ng) = rt.groups.get_mut(&group) else {
            return;
        };
        let Some(red) = ng.red.as_deref_mut() else {
            return;
        };
        let r = red.r;
        let j = (c % r.window) as usize;
        if red.pool.is_empty() {
            return;
        }
        let payload = Arc::new(Payload {
            rop: r.op.code() as u8,
            dtype: r.dtype.code() as u8,
            words: r.contribution_chunk(seed, group, n, k, c),
        });
        let slot = &mut red.slots[j];
        slot.csm.send(k, c);
        slot.sent = Some(payload);
        slot.retry_at = Some(deadline);
        let queue = !std::mem::replace(&mut slot.queued, true);
        let timer = ng.timer_at.is_none();
        if queue {
            rt.chunks.push_back((group, j));
        }
        if timer {
            self.set_retry_timer(n, group, deadline);
        }
        self.node_pump(n);
    }

    /// Rule 8: the slots whose deadline has come send their FULL again; the timer is set for
    /// the next deadline.
    fn retry_chunks(&mut self, n: usize, group: usize) {
        let now = self.now;
        let timeout = self.f.file.node.retry_timeout;
        let Some(rt) = self.nodes[n].as_mut() else {
            return;
        };
        let Some(ng) = rt.groups.get_mut(&group) else {
            return;
        };
        let live = ng.csm.state == NodeState::Full;
        let Some(red) = ng.red.as_deref_mut() else {
            return;
        };
        let mut next: Option<u64> = None;
        let mut resent = 0;
        for (j, slot) in red.slots.iter_mut().enumerate() {
            let (Some(at), Some(_), true) = (slot.retry_at, &slot.sent, live) else {
                slot.retry_at = None;
                continue;
            };
            let at = if at <= now {
                resent += 1;
                if !std::mem::replace(&mut slot.queued, true) {
                    rt.chunks.push_back((group, j));
                }
                slot.retry_at = Some(now + timeout);
                now + timeout
            } else {
                at
            };
            next = Some(next.map_or(at, |x| x.min(at)));
        }
        self.stats.retries += resent;
        if let Some(t) = next {
            self.set_retry_timer(n, group, t);
        }
        if resent > 0 {
            self.node_pump(n);
        }
    }

    /// Rule 7: chunk `c` of operation `k` completed on slot `j` (transaction `tid`) with
    /// `payload`. The member logs what it got, the slot takes its next chunk, and the last
    /// chunk completes the operation (rule 9).
    #[allow(clippy::too_many_arguments)]
    fn chunk_done(
        &mut self,
        n: usize,
        group: usize,
        j: usize,
        tid: u8,
        k: u64,
        c: u64,
        payload: Option<Arc<Payload>>,
    ) {
        let now = self.now;
        let keep = self.keep_results;
        let Some(ng) = self.nodes[n]
            .as_mut()
            .and_then(|r| r.groups.get_mut(&group))
        else {
            return;
        };
        let Some(red) = ng.red.as_deref_mut() else {
            return;
        };
        let r = red.r;
        let (_, words) = r.chunk_span(c);
        let shaped = payload.as_ref().filter(|p| {
            p.words.len() as u64 == words
                && u64::from(p.rop) == r.op.code()
                && u64::from(p.dtype) == r.dtype.code()
        });
        let digest_of = shaped.and_then(|p| r.result(&p.words)).map(|v| digest(&v));
        let slot = &mut red.slots[j];
        slot.sent = None;
        slot.retry_at = None;
        if let Some(p) = &payload {
            slot.last = Some((tid, p.clone()));
        }
        red.done += 1;
        let all = red.done >= r.chunks();
        let next = c + r.window;
        self.at(
            now,
            class::LOG_RELEASE,
            Origin::Node(n),
            Ev::LogResult {
                group,
                node: n,
                result: Box::new(super::ChunkResult {
                    k,
                    chunk: c,
                    digest: digest_of,
                    // The checker bounds an order-dependent result by its words.
                    words: if keep || r.order_dependent() {
                        payload
                    } else {
                        None
                    },
                }),
            },
        );
        if next < r.chunks() {
            self.send_chunk(n, group, k, next);
        }
        if all {
            let Some(ng) = self.nodes[n]
                .as_mut()
                .and_then(|r| r.groups.get_mut(&group))
            else {
                return;
            };
            if let Reaction::Release { k } = ng.csm.complete() {
                self.node_released(n, group, k);
            }
        }
    }

    // --- links -----------------------------------------------------------------------------------

    /// Sends `pkt` from the link end `from` (a switch port or a node), in order after
    /// everything sent that way before (a duplicate arrives right after its original, delayed,
    /// and delays what follows).
    fn transmit(&mut self, from: Dest, pkt: Pkt) {
        let now = self.now;
        let (origin, end) = match from.end() {
            End::Switch(s, p) => (
                Origin::Switch(s),
                self.switches[s].as_mut().map(|x| &mut x.ports[p].end),
            ),
            End::Node(n) => (Origin::Node(n), self.nodes[n].as_mut().map(|x| &mut x.end)),
        };
        let Some(end) = end else {
            return;
        };
        let arrive = (now + end.ser_of(&pkt) + end.latency).max(end.last_arrival);
        let mut lost = false;
        let mut dup: Option<u64> = None;
        for f in &self.rate_faults {
            if f.hits(now, end.link, pkt.op.into()) && end.rng.sample(f.rate) {
                match f.dup {
                    None => lost = true,
                    Some(delay) => {
                        dup = Some(if delay[1] > delay[0] {
                            end.rng.gen_range(delay[0]..=delay[1])
                        } else {
                            delay[0]
                        });
                    }
                }
            }
        }
        end.last_arrival = arrive;
        if let Some(d) = dup {
            end.last_arrival = arrive + d;
        }
        let (peer, gen, latency) = (end.peer, end.gen, end.latency);
        let copy = dup.map(|_| Pkt {
            extra: true,
            ..pkt.clone()
        });
        if lost {
            count(&mut self.stats.faults, "loss");
            // The credit was spent on a packet that never arrives: the link layer gives it
            // back (as a receiver that dropped it would).
            if !pkt.extra {
                self.give_credit(arrive + latency, from, gen);
            }
        } else {
            self.at(arrive, class::ARRIVE, origin, Ev::arrive(peer, gen, pkt));
        }
        if let (Some(d), Some(pkt)) = (dup, copy) {
            count(&mut self.stats.faults, "duplicate");
            self.at(
                arrive + d,
                class::ARRIVE,
                origin,
                Ev::arrive(peer, gen, pkt),
            );
        }
    }

    // --- switches --------------------------------------------------------------------------------

    fn step_switch(&mut self, s: usize) {
        let now = self.now;
        let mgmt = self.f.file.sm.mgmt_latency;
        let Some(sw) = self.switches[s].as_mut() else {
            return;
        };
        if !sw.alive {
            self.active.remove(s);
            return;
        }
        // Idle clock cycles since the engine last ran.
        if sw.clocked_to < now {
            sw.engine.idle(now - sw.clocked_to);
            sw.clocked_to = now;
        }
        let mut i = SwitchEngineIn::default();
        // Nothing else is offered while a packet's beats go in (its beats are consecutive).
        let cfg = match sw.feed {
            None => sw.cfg.front().copied(),
            Some(_) => None,
        };
        if let Some(c) = cfg {
            i.cfg_valid = true;
            i.cfg_op = c.op.code();
            i.cfg_cgid = c.cgid;
            i.cfg_entry_valid = c.entry.valid;
            i.cfg_parent = c.entry.parent;
            i.cfg_children = c.entry.children;
            i.cfg_is_root = c.entry.is_root;
            i.cfg_tid = c.tid;
        }
        let lanes = self.f.config.switch.lanes;
        // The arbiter: the next non-empty input buffer after the last one served. Heads older
        // than the packet lifetime are dropped first (their credits go back).
        let mut offered = None;
        let mut expired = 0;
        if let Some(fd) = &sw.feed {
            i.pkt_valid = true;
            fill_beat(&mut i.pkt_data, &fd.pkt, fd.next, lanes);
        } else {
            let after = if sw.rr + 1 >= 64 {
                0
            } else {
                !0u64 << (sw.rr + 1)
            };
            let mut order = [sw.in_mask & after, sw.in_mask & !after];
            'scan: for part in order.iter_mut() {
                while *part != 0 {
                    let p = part.trailing_zeros() as usize;
                    *part &= *part - 1;
                    let port = &mut sw.ports[p];
                    while let Some(h) = port.inq.front() {
                        if now - h.birth <= port.end.lifetime {
                            break;
                        }
                        expired += 1;
                        if !h.extra {
                            self.credits.push(CreditRet {
                                t: now + port.end.latency,
                                to: port.end.peer,
                                gen: port.end.gen,
                            });
                        }
                        port.inq.pop_front();
                    }
                    match port.inq.front() {
                        Some(h) => {
                            offered = Some(p);
                            i.pkt_valid = true;
                            i.pkt_port = p as u64;
                            i.pkt_cgid = h.cgid.into();
                            i.pkt_tid = h.tid.into();
                            i.pkt_op = h.op.into();
                            if let Some(d) = &h.payload {
                                i.pkt_plen = d.words.len() as u64;
                                i.pkt_rop = d.rop.into();
                                i.pkt_dtype = d.dtype.into();
                                fill_beat(&mut i.pkt_data, h, 0, lanes);
                            }
                            break 'scan;
                        }
                        None => sw.in_mask &= !(1 << p),
                    }
                }
            }
        }
        // The replicator takes the engine's output packet when it has finished the last one.
        i.out_ready = sw.repl.is_none();
        let o = if !self.every_cycle
            && cfg.is_none()
            && offered.is_none()
            && sw.feed.is_none()
            && sw.engine.quiet()
        {
            // The outputs are all low (the ready signals answer nothing offered).
            sw.engine.idle(1);
            FabricOut::default()
        } else {
            sw.engine.clock(&i)
        };
        sw.clocked_to = now + 1;
        if cfg.is_some() && o.cfg_ready {
            if let Some(c) = sw.cfg.pop_front() {
                sw.cfg_wait.push_back(c);
            }
            sw.surfacing.push(now + LATENCY as u64);
        } else if let Some(fd) = sw.feed.as_mut() {
            if o.pkt_ready {
                fd.next += 1;
                if fd.next >= fd.beats {
                    if let Some(fd) = sw.feed.take().filter(|fd| !fd.pkt.extra) {
                        let end = &sw.ports[fd.port].end;
                        self.credits.push(CreditRet {
                            t: now + end.latency,
                            to: end.peer,
                            gen: end.gen,
                        });
                    }
                }
            }
        } else if let Some(p) = offered {
            if o.pkt_ready {
                let port = &mut sw.ports[p];
                if let Some(h) = port.inq.pop_front() {
                    let beats = self.f.config.switch.beats(h.plen());
                    if beats > 1 {
                        sw.feed = Some(Box::new(Feed {
                            pkt: h,
                            next: 1,
                            beats,
                            port: p,
                        }));
                    } else if !h.extra {
                        self.credits.push(CreditRet {
                            t: now + port.end.latency,
                            to: port.end.peer,
                            gen: port.end.gen,
                        });
                    }
                }
                if port.inq.is_empty() {
                    sw.in_mask &= !(1 << p);
                }
                sw.rr = p;
                sw.surfacing.push(now + LATENCY as u64);
            }
        }
        let mut surfaced = false;
        while sw.surfacing.front().is_some_and(|t| t <= now) {
            sw.surfacing.pop();
            surfaced = true;
        }
        sw.backlog = if i.out_ready {
            sw.backlog && o.out.is_some()
        } else {
            sw.backlog || o.out.is_some() || surfaced
        };
        if let (Some(out), true) = (o.out, i.out_ready) {
            // Engine outputs are port-width: a CGID below 4096, 2-bit TID, 3-bit op.
            let pkt = |payload| Pkt {
                cgid: out.cgid as u32,
                tid: out.tid as u8,
                op: out.op as u8,
                birth: now,
                extra: false,
                payload,
            };
            if out.plen == 0 {
                sw.repl = Some((pkt(None), out.ports));
            } else {
                // A packet with data leaves the engine with its last beat.
                let c = sw.collect.get_or_insert_with(|| {
                    Box::new(Collect {
                        words: Vec::with_capacity(out.plen as usize + lanes),
                    })
                });
                c.words.extend_from_slice(&out.data[..lanes]);
                if c.words.len() as u64 >= out.plen {
                    let mut words = sw.collect.take().map(|c| c.words).unwrap_or_default();
                    words.truncate(out.plen as usize);
                    let data = Payload {
                        rop: out.rop as u8,
                        dtype: out.dtype as u8,
                        words,
                    };
                    sw.repl = Some((pkt(Some(Arc::new(data))), out.ports));
                }
            }
        }
        let rsp = match o.rsp {
            Some(rejected) => sw.cfg_wait.pop_front().map(|c| (c, rejected)),
            None => None,
        };
        if expired > 0 {
            count_n(&mut self.stats.drops, "expired", expired);
        }
        if let Some((c, rejected)) = rsp {
            self.at(
                now + mgmt,
                class::MGMT,
                Origin::Switch(s),
                Ev::CfgDone {
                    group: c.group,
                    epoch: c.epoch,
                    rejected,
                },
            );
        }
        if let Some((verdict, cgid)) = o.ev {
            self.stats.verdicts[(verdict & 15) as usize] += 1;
            if verdict == Verdict::TidFail.code() {
                self.at(
                    now + mgmt,
                    class::MGMT,
                    Origin::Switch(s),
                    Ev::SmTidFail { cgid },
                );
            }
        }
        self.replicate(s);
        self.egress(s);
        let Some(sw) = self.switches[s].as_mut() else {
            return;
        };
        // Egress ports with packets to send on a live link: ready (a credit in hand) or
        // waiting for the next credit to come back.
        let mut egress_ready = false;
        let mut credit_due: Option<u64> = None;
        let mut m = sw.out_mask;
        while m != 0 {
            let p = m.trailing_zeros() as usize;
            m &= m - 1;
            let port = &mut sw.ports[p];
            if !port.end.live() {
                continue;
            }
            if port.tx.credits_at(now) > 0 {
                egress_ready = true;
                break;
            }
            if let Some(t) = port.tx.blocked_until() {
                credit_due = Some(credit_due.map_or(t, |d| d.min(t)));
            }
        }
        // With the retry timer on, the engine works in every idle cycle (its ticks). An
        // engine with a backlog may show a packet in any cycle; without one, only when an
        // operation surfaces (a wake-up below).
        // A reducing engine shows a packet with data when its payload path has worked through
        // it, at no cycle the ports can tell: the switch stays awake until the engine is quiet.
        let busy = self.every_cycle
            || sw.in_mask != 0
            || !sw.cfg.is_empty()
            || sw.repl.is_some()
            || sw.backlog
            || egress_ready
            || sw.feed.is_some()
            || sw.collect.is_some()
            || (self.reducing && !sw.engine.quiet());
        if !busy {
            // Until an accepted operation shows its results the engine's outputs stay idle:
            // it is clocked through those cycles at once when the switch wakes (as it is
            // when a packet arrives). A port waiting for a credit wakes it when it comes.
            self.active.remove(s);
            let wake = sw.surfacing.front().into_iter().chain(credit_due).min();
            if let Some(t) = wake {
                self.at(t, class::NODE, Origin::Switch(s), Ev::Wake { sw: s });
            }
        }
    }

    fn replicate(&mut self, s: usize) {
        let per_cycle = self.f.file.fabric.replication;
        let depth = self.f.file.fabric.egress_depth as usize;
        let Some(sw) = self.switches[s].as_mut() else {
            return;
        };
        let Some((pkt, mut mask)) = sw.repl.take() else {
            return;
        };
        let mut placed = 0;
        while mask != 0 && placed < per_cycle {
            let p = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            placed += 1;
            let Some(port) = sw.ports.get_mut(p) else {
                continue;
            };
            if port.tx.queue.len() >= depth {
                count(&mut self.stats.drops, "egress_full");
            } else {
                port.tx.queue.push_back(pkt.clone());
                sw.out_mask |= 1 << p;
            }
        }
        sw.repl = if mask == 0 { None } else { Some((pkt, mask)) };
    }

    fn egress(&mut self, s: usize) {
        let now = self.now;
        let mut m = self.switches[s].as_ref().map_or(0, |x| x.out_mask);
        while m != 0 {
            let p = m.trailing_zeros() as usize;
            m &= m - 1;
            let Some(sw) = self.switches[s].as_mut() else {
                return;
            };
            let port = &mut sw.ports[p];
            if !port.end.live() {
                let n = port.tx.queue.len() as u64;
                port.tx.queue.clear();
                sw.out_mask &= !(1 << p);
                count_n(&mut self.stats.drops, "link_down", n);
                continue;
            }
            let tx = &mut port.tx;
            if tx.free_at > now || tx.credits_at(now) == 0 {
                continue;
            }
            let Some(pkt) = tx.queue.pop_front() else {
                continue;
            };
            if tx.queue.is_empty() {
                sw.out_mask &= !(1 << p);
            }
            if now - pkt.birth > port.end.lifetime {
                count(&mut self.stats.drops, "expired");
                continue;
            }
            tx.credits -= 1;
            tx.free_at = now + port.end.ser_of(&pkt);
            self.transmit(Dest::switch(s, p), pkt);
        }
    }
}

/// The packet of the next chunk in `rt`'s queue that still has to go (its slot may have
/// completed, or the node left, since it was queued), made at cycle `now`.
fn next_chunk(rt: &mut NodeRt, now: u64) -> Option<Pkt> {
    while let Some((group, j)) = rt.chunks.pop_front() {
        let Some(ng) = rt.groups.get_mut(&group) else {
            continue;
        };
        let live = ng.csm.state == NodeState::Full;
        let Some(red) = ng.red.as_deref_mut() else {
            continue;
        };
        let cgid = red.pool.get(j).copied();
        let Some(slot) = red.slots.get_mut(j) else {
            continue;
        };
        slot.queued = false;
        let (Some(cgid), Some(data), true) = (cgid, &slot.sent, live) else {
            continue;
        };
        return Some(Pkt {
            cgid: cgid as u32,
            tid: slot.csm.tid as u8,
            op: Opcode::Full.code() as u8,
            extra: false,
            birth: now,
            payload: Some(data.clone()),
        });
    }
    None
}

/// Beat `j` of `pkt`'s payload: its words `j·lanes ..` (zero past the end).
fn fill_beat(data: &mut [u64; 4], pkt: &Pkt, j: u64, lanes: usize) {
    let words = pkt.payload.as_ref().map_or(&[][..], |d| &d.words[..]);
    for (k, w) in data.iter_mut().enumerate().take(lanes) {
        *w = words.get(j as usize * lanes + k).copied().unwrap_or(0);
    }
}

/// Who made an event (its count orders events of one cycle and class).
#[derive(Clone, Copy)]
enum Origin {
    Switch(usize),
    Node(usize),
}
