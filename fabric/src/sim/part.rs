//! A partition of the fabric: some switches, the nodes attached to them, and the sending side
//! of every link end they own. It runs one window at a time; what it sends to another
//! partition or to the SM goes out at the end of the window (it always lands later).

use super::{
    class, origin_node, BitSet, CfgReq, Ev, Fabric, Fault, Key, Pkt, Queue, Route, RunOptions,
    Scheduled, Target, WindowOut,
};
use crate::node::{NodeCsm, NodeState, Reaction};
use crate::topology::End;
use crate::FabricError;
use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::net::header::Opcode;
use netcoll_models::switch_engine::txn::SwitchEngineTxn;
use netcoll_models::switch_engine::{
    SwitchEngine, SwitchEngineIn, SwitchEngineOut, Verdict, LATENCY,
};
use netcoll_testbench::harness::vcd::Tracer;
use netcoll_testbench::harness::{cycle_sim, Level, Sim};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use smallvec::SmallVec;
use std::collections::{BTreeMap, VecDeque};

/// A switch's collective engine at some level.
pub(crate) trait EngineCore {
    fn clock(&mut self, i: &SwitchEngineIn) -> SwitchEngineOut;
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
    fn clock(&mut self, i: &SwitchEngineIn) -> SwitchEngineOut {
        self.step(i)
    }
    /// Skips an idle stretch in constant time (exactly as idle steps would).
    fn idle(&mut self, n: u64) {
        SwitchEngineTxn::idle(self, n)
    }
    fn quiet(&self) -> bool {
        SwitchEngineTxn::quiet(self)
    }
}

/// An engine that is not plain Rust (the rust-hdl RTL, Verilator); partitions holding one
/// stay on the calling thread.
pub(crate) struct ForeignEngine(Sim<SwitchEngine>);

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
        let sim = cycle_sim::<SwitchEngine>(level, &f.config)
            .map_err(|e| FabricError::Level(format!("switch {name}: {e}")))?;
        Ok(ForeignEngine(match tracer {
            Some(t) => Box::new(t.tap(sim, f.config.switch, &["fabric", name, level.name()])),
            None => sim,
        }))
    }
}

impl EngineCore for ForeignEngine {
    fn clock(&mut self, i: &SwitchEngineIn) -> SwitchEngineOut {
        self.0.step(i)
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
    *map.entry(k).or_insert(0) += 1;
}

/// A link as one partition sees it (one cache line).
#[repr(align(64))]
struct LinkState {
    up: bool,
    /// Counts the link's failures and repairs: what was in flight before one is dropped.
    gen: u32,
    /// Per direction (sent from `a`, from `b`): the last arrival (links are FIFO).
    last_arrival: [u64; 2],
    /// Per direction: the random stream of its loss and duplicate faults.
    rng: [Pcg32; 2],
}

/// The sending side of one link end.
#[derive(Clone, Debug)]
struct TxPort {
    queue: VecDeque<Pkt>,
    credits: u64,
    free_at: u64,
    /// Credits on their way back over the link: the cycle each arrives (a receiver in the same
    /// partition puts them here rather than queueing an event per packet). At most the link's
    /// credits (4 by default, inline).
    returns: SmallVec<[u64; 4]>,
}

impl TxPort {
    fn new(credits: u64) -> TxPort {
        TxPort {
            queue: VecDeque::new(),
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
}

struct Switch<E> {
    engine: E,
    alive: bool,
    /// The engine has been clocked for every cycle before this one.
    clocked_to: u64,
    inq: Vec<VecDeque<Pkt>>,
    /// Bit `p`: `inq[p]` holds a packet.
    in_mask: u64,
    /// Bit `p`: `tx[p]` holds a packet.
    out_mask: u64,
    rr: usize,
    cfg: VecDeque<CfgReq>,
    cfg_wait: VecDeque<CfgReq>,
    repl: Option<(Pkt, u64)>,
    tx: Vec<TxPort>,
    /// The cycles in which the operations the engine has accepted show their results (an
    /// event, a response, an output packet), oldest first: a switch with nothing else to do
    /// sleeps until the first of them.
    surfacing: VecDeque<u64>,
    /// The engine's output queue may hold a packet besides the one it shows: set when its
    /// output was not taken (`out_ready` low) in a cycle where it showed one or an operation
    /// surfaced, cleared when it shows none to a ready replicator. While it is clear, the
    /// engine shows packets only in the cycles `surfacing` lists (each taken at once).
    backlog: bool,
    seq: u64,
}

struct NodeRt {
    tx: TxPort,
    rng: Pcg32,
    groups: NodeGroups,
    seq: u64,
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
    /// Per link, what this partition knows of it (one cache line each).
    links: Vec<LinkState>,
    out: Vec<Scheduled>,
    stats: Stats,
    /// Switches are stepped in every cycle: the engines' retry timer is on (it ticks in idle
    /// cycles), or [`RunOptions::every_cycle`].
    every_cycle: bool,
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
            let radix = t.switch_ports[s].len();
            switches.push(Some(Switch {
                engine: e,
                alive: true,
                clocked_to: 1,
                inq: vec![VecDeque::new(); radix],
                in_mask: 0,
                out_mask: 0,
                rr: 0,
                cfg: VecDeque::new(),
                cfg_wait: VecDeque::new(),
                repl: None,
                tx: (0..radix)
                    .map(|p| TxPort::new(t.switch_ports[s][p].map_or(0, |l| t.links[l].credits)))
                    .collect(),
                surfacing: VecDeque::new(),
                backlog: false,
                seq: 0,
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
                                },
                            )
                        })
                        .collect();
                    NodeRt {
                        groups: NodeGroups(groups),
                        tx: TxPort::new(t.links[t.node_link[n]].credits),
                        rng: Pcg32::seed_from_u64(
                            opts.seed ^ 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(n as u64 + 1),
                        ),
                        seq: 0,
                    }
                })
            })
            .collect();
        let links = (0..t.links.len() as u64)
            .map(|l| {
                let s = |d: u64| {
                    Pcg32::seed_from_u64(
                        opts.seed
                            .wrapping_add(0x5851_f42d_4c95_7f2du64.wrapping_mul(2 * l + d + 1)),
                    )
                };
                LinkState {
                    up: true,
                    gen: 0,
                    last_arrival: [0, 0],
                    rng: [s(0), s(1)],
                }
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
            links,
            out: vec![],
            stats: Stats::default(),
            every_cycle: f.config.switch.retry_timer_on() || opts.every_cycle,
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
                        fault(&mut p, at, Ev::LinkDown { link, at_end: e });
                        if let Some(u) = up {
                            fault(&mut p, u, Ev::LinkUp { link, at_end: e });
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
                                    at_end: other,
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

    pub fn push(&mut self, s: Scheduled) {
        self.queue.push(s);
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
        // it compiles to about 5 % fewer instructions in the bench (callgrind).
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

    /// Runs every cycle before `t_end`. `spare` is an empty vector for what the partition sends
    /// out (the last window's, handed back so that its capacity is kept).
    pub fn window(
        &mut self,
        t_end: u64,
        incoming: &mut Vec<Scheduled>,
        spare: Vec<Scheduled>,
    ) -> WindowOut {
        for s in incoming.drain(..) {
            self.queue.push(s);
        }
        if self.out.capacity() == 0 {
            self.out = spare;
        }
        while let Some(t) = self.next_time().filter(|&t| t < t_end) {
            self.now = t;
            while let Some(s) = self.queue.pop_at(t) {
                // Credit returns are not counted: within a partition most are no event at
                // all, so counting those that are would make the count depend on how the
                // fabric is partitioned.
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
            out: std::mem::take(&mut self.out),
            next: self.next_time(),
        }
    }

    fn handle(&mut self, ev: Ev) {
        let mgmt = self.f.file.sm.mgmt_latency;
        let now = self.now;
        match ev {
            Ev::Arrive { link, to, gen, pkt } => {
                let (link, to) = (link as usize, to.end());
                self.stats.packets += 1;
                if gen != self.links[link].gen || !self.links[link].up {
                    count(&mut self.stats.drops, "link_down");
                    return;
                }
                match to {
                    End::Switch(s, port) => {
                        let credits = self.f.topo.links[link].credits as usize;
                        let Some(sw) = self.switches[s].as_mut().filter(|x| x.alive) else {
                            count(&mut self.stats.drops, "switch_down");
                            return;
                        };
                        if pkt.extra && sw.inq[port].len() >= 2 * credits {
                            count(&mut self.stats.drops, "overflow");
                            return;
                        }
                        sw.inq[port].push_back(pkt);
                        sw.in_mask |= 1 << port;
                        self.active.insert(s);
                    }
                    End::Node(n) => {
                        // A node takes every packet at once: the credit goes straight back.
                        let l = self.f.topo.links[link];
                        if !pkt.extra {
                            self.return_credit(
                                now + l.latency,
                                Origin::Node(n),
                                link,
                                l.other(to),
                                gen,
                            );
                        }
                        self.node_receive(n, pkt);
                    }
                }
            }
            Ev::Credit { link, to, gen } => {
                if gen != self.links[link as usize].gen {
                    return;
                }
                match to.end() {
                    End::Switch(s, port) => {
                        if let Some(sw) = self.switches[s].as_mut() {
                            sw.tx[port].credits += 1;
                            if !sw.tx[port].queue.is_empty() {
                                self.active.insert(s);
                            }
                        }
                    }
                    End::Node(n) => {
                        if let Some(node) = self.nodes[n].as_mut() {
                            node.tx.credits += 1;
                        }
                        self.node_pump(n);
                    }
                }
            }
            Ev::LinkDown { link, at_end } => self.link_down(link, at_end),
            Ev::LinkUp { link, at_end } => {
                self.links[link].up = true;
                self.links[link].gen += 1;
                // Both ends flushed what they held when the link went down: full credits.
                let credits = self.f.topo.links[link].credits;
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
                            sw.tx[p].credits = credits;
                            sw.tx[p].returns.clear();
                            self.active.insert(s);
                        }
                    }
                    End::Node(n) => {
                        if let Some(node) = self.nodes[n].as_mut() {
                            node.tx.credits = credits;
                            node.tx.returns.clear();
                        }
                        self.node_pump(n);
                    }
                }
            }
            Ev::SwitchDown { sw } => {
                count(&mut self.stats.faults, "switch_down");
                if let Some(x) = self.switches[sw].as_mut() {
                    x.alive = false;
                }
                self.active.remove(sw);
                for port in 0..self.f.topo.switch_ports[sw].len() {
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
            Ev::NodePump { node } => self.node_pump(node),
            Ev::NodeStart { node, group, cgid } => {
                let Some(ng) = self.nodes[node]
                    .as_mut()
                    .and_then(|r| r.groups.get_mut(&group))
                else {
                    return;
                };
                let first = ng.cgid.is_none();
                ng.cgid = Some(cgid);
                if first {
                    ng.joined_at = now;
                    self.node_schedule_entries(node, group, now);
                }
            }
            Ev::NodeQuery { node, group, epoch } => {
                let tid = self.nodes[node]
                    .as_ref()
                    .and_then(|r| r.groups.get(&group))
                    .filter(|g| !matches!(g.csm.state, NodeState::Left))
                    .map(|g| g.csm.tid);
                self.at(
                    now + mgmt,
                    class::MGMT,
                    Origin::Node(node),
                    Ev::SmTidAnswer { group, epoch, tid },
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
            _ => unreachable!("the SM's events never reach a partition"),
        }
    }

    fn link_down(&mut self, link: usize, at_end: End) {
        if self.links[link].up {
            self.links[link].up = false;
            self.links[link].gen += 1;
        }
        // What this end holds from the link is lost with it (so credits restart full).
        match at_end {
            End::Switch(s, p) => {
                if let Some(sw) = self.switches[s].as_mut() {
                    // Credits still on their way belong to the link as it was.
                    sw.tx[p].returns.clear();
                    let n = sw.inq[p].len() as u64;
                    sw.inq[p].clear();
                    sw.in_mask &= !(1 << p);
                    *self.stats.drops.entry("link_down").or_insert(0) += n;
                    let alive = sw.alive;
                    if alive && self.reports(link, at_end) {
                        let t = self.now + self.f.file.sm.mgmt_latency;
                        self.at(t, class::MGMT, Origin::Switch(s), Ev::SmLinkDown { link });
                    }
                }
            }
            End::Node(n) => {
                if let Some(node) = self.nodes[n].as_mut() {
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
        };
        rt.tx.queue.push_back(pkt);
        self.node_pump(node);
    }

    fn node_pump(&mut self, n: usize) {
        let link = self.f.topo.node_link[n];
        let lifetime = self.f.lifetime[link];
        let ser = self.f.ser(link);
        let now = self.now;
        loop {
            let Some(rt) = self.nodes[n].as_mut() else {
                return;
            };
            if !(self.links[link].up && rt.tx.credits_at(now) > 0 && rt.tx.free_at <= now) {
                break;
            }
            let Some(pkt) = rt.tx.queue.pop_front() else {
                break;
            };
            if now - pkt.birth > lifetime {
                count(&mut self.stats.drops, "expired");
                continue;
            }
            rt.tx.credits -= 1;
            rt.tx.free_at = now + ser;
            self.transmit(link, End::Node(n), pkt);
        }
        let Some(rt) = self.nodes[n].as_ref() else {
            return;
        };
        let again = if !self.links[link].up {
            None
        } else if !rt.tx.queue.is_empty() && rt.tx.credits > 0 {
            Some(rt.tx.free_at.max(now + 1))
        } else {
            rt.tx.blocked_until()
        };
        if let Some(t) = again {
            self.at(t, class::NODE, Origin::Node(n), Ev::NodePump { node: n });
        }
    }

    fn node_receive(&mut self, n: usize, pkt: Pkt) {
        let link = self.f.topo.node_link[n];
        if self.now - pkt.birth > self.f.lifetime[link] {
            count(&mut self.stats.drops, "expired");
            return;
        }
        let overhead = self.f.file.node.overhead;
        let mgmt = self.f.file.sm.mgmt_latency;
        let now = self.now;
        let Some(rt) = self.nodes[n].as_mut() else {
            return;
        };
        let Some((&group, ng)) = rt
            .groups
            .iter_mut()
            .find(|(_, g)| g.cgid == Some(pkt.cgid.into()))
        else {
            count(&mut self.stats.drops, "node_unknown_cgid");
            return;
        };
        match ng.csm.on_packet(pkt.op.into(), pkt.tid.into()) {
            Reaction::Release { k } => {
                ng.retry = None;
                let done = ng.csm.state == NodeState::Done;
                let release_at = now + overhead;
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
            Reaction::Ignored => count(&mut self.stats.drops, "node_stale"),
        }
    }

    // --- links -----------------------------------------------------------------------------------

    /// Sends `pkt` from `from` over `link`, in order after everything sent that way before
    /// (a duplicate arrives right after its original, delayed, and delays what follows).
    fn transmit(&mut self, link: usize, from: End, pkt: Pkt) {
        let l = self.f.topo.links[link];
        let to = l.other(from);
        let dir = usize::from(from != l.a);
        let now = self.now;
        let origin = match from {
            End::Switch(s, _) => Origin::Switch(s),
            End::Node(n) => Origin::Node(n),
        };
        let arrive = (now + self.f.ser(link) + l.latency).max(self.links[link].last_arrival[dir]);
        let mut lost = false;
        let mut dup: Option<u64> = None;
        let rng = &mut self.links[link].rng[dir];
        for f in &self.f.faults {
            match *f {
                Fault::Loss { rate, .. }
                    if f.hits(now, link, pkt.op.into()) && rng.sample(rate) =>
                {
                    lost = true
                }
                Fault::Dup { rate, delay, .. }
                    if f.hits(now, link, pkt.op.into()) && rng.sample(rate) =>
                {
                    dup = Some(if delay[1] > delay[0] {
                        rng.gen_range(delay[0]..=delay[1])
                    } else {
                        delay[0]
                    });
                }
                _ => {}
            }
        }
        let gen = self.links[link].gen;
        self.links[link].last_arrival[dir] = arrive;
        if lost {
            count(&mut self.stats.faults, "loss");
            // The credit was spent on a packet that never arrives: the link layer gives it
            // back (as a receiver that dropped it would).
            if !pkt.extra {
                self.return_credit(arrive + l.latency, origin, link, from, gen);
            }
        }
        let deliver = |this: &mut Self, t: u64, pkt: Pkt| {
            let ev = Ev::Arrive {
                link: link as u32,
                to: to.into(),
                gen,
                pkt,
            };
            this.at(t, class::ARRIVE, origin, ev);
        };
        if !lost {
            deliver(self, arrive, pkt);
        }
        if let Some(d) = dup {
            count(&mut self.stats.faults, "duplicate");
            let copy = arrive + d;
            self.links[link].last_arrival[dir] = copy;
            deliver(self, copy, Pkt { extra: true, ..pkt });
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
        let cfg = sw.cfg.front().copied();
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
        // The arbiter: the next non-empty input buffer after the last one served.
        let mut offered = None;
        let mut expired: Vec<(usize, bool)> = vec![];
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
                let lifetime = self.f.topo.switch_ports[s][p].map_or(0, |l| self.f.lifetime[l]);
                while let Some(h) = sw.inq[p].front() {
                    if now - h.birth > lifetime {
                        expired.push((p, h.extra));
                        sw.inq[p].pop_front();
                    } else {
                        break;
                    }
                }
                match sw.inq[p].front() {
                    Some(h) => {
                        offered = Some((p, *h));
                        break 'scan;
                    }
                    None => sw.in_mask &= !(1 << p),
                }
            }
        }
        if let Some((p, h)) = offered {
            i.pkt_valid = true;
            i.pkt_port = p as u64;
            i.pkt_cgid = h.cgid.into();
            i.pkt_tid = h.tid.into();
            i.pkt_op = h.op.into();
        }
        // The replicator takes the engine's output packet when it has finished the last one.
        i.out_ready = sw.repl.is_none();
        let o = if !self.every_cycle && cfg.is_none() && offered.is_none() && sw.engine.quiet() {
            // The outputs are all low (the ready signals answer nothing offered).
            sw.engine.idle(1);
            SwitchEngineOut::default()
        } else {
            sw.engine.clock(&i)
        };
        sw.clocked_to = now + 1;
        let mut accepted = None;
        if cfg.is_some() && o.cfg_ready {
            if let Some(c) = sw.cfg.pop_front() {
                sw.cfg_wait.push_back(c);
            }
            sw.surfacing.push_back(now + LATENCY as u64);
        } else if let Some((p, _)) = offered {
            if o.pkt_ready {
                let extra = sw.inq[p].pop_front().is_some_and(|h| h.extra);
                if sw.inq[p].is_empty() {
                    sw.in_mask &= !(1 << p);
                }
                sw.rr = p;
                accepted = Some((p, extra));
                sw.surfacing.push_back(now + LATENCY as u64);
            }
        }
        let mut surfaced = false;
        while sw.surfacing.front().is_some_and(|&t| t <= now) {
            sw.surfacing.pop_front();
            surfaced = true;
        }
        sw.backlog = if i.out_ready {
            sw.backlog && o.out_valid
        } else {
            sw.backlog || o.out_valid || surfaced
        };
        if o.out_valid && i.out_ready {
            sw.repl = Some((
                Pkt {
                    // Engine outputs are port-width: a CGID below 4096, 2-bit TID, 3-bit op.
                    cgid: o.out_cgid as u32,
                    tid: o.out_tid as u8,
                    op: o.out_op as u8,
                    birth: now,
                    extra: false,
                },
                o.out_ports,
            ));
        }
        let rsp = if o.rsp_valid {
            sw.cfg_wait.pop_front()
        } else {
            None
        };
        for (p, extra) in expired.iter().copied().chain(accepted) {
            if !extra {
                self.credit_back(s, p);
            }
        }
        for _ in &expired {
            count(&mut self.stats.drops, "expired");
        }
        if let Some(c) = rsp {
            self.at(
                now + mgmt,
                class::MGMT,
                Origin::Switch(s),
                Ev::CfgDone {
                    group: c.group,
                    epoch: c.epoch,
                    rejected: o.rsp_rejected,
                },
            );
        }
        if o.ev_valid {
            self.stats.verdicts[(o.ev_verdict & 15) as usize] += 1;
            if o.ev_verdict == Verdict::TidFail.code() {
                self.at(
                    now + mgmt,
                    class::MGMT,
                    Origin::Switch(s),
                    Ev::SmTidFail { cgid: o.ev_cgid },
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
            if !self.f.topo.switch_ports[s][p].is_some_and(|l| self.links[l].up) {
                continue;
            }
            if sw.tx[p].credits_at(now) > 0 {
                egress_ready = true;
                break;
            }
            if let Some(t) = sw.tx[p].blocked_until() {
                credit_due = Some(credit_due.map_or(t, |d| d.min(t)));
            }
        }
        // With the retry timer on, the engine works in every idle cycle (its ticks). An
        // engine with a backlog may show a packet in any cycle; without one, only when an
        // operation surfaces (a wake-up below).
        let busy = self.every_cycle
            || sw.in_mask != 0
            || !sw.cfg.is_empty()
            || sw.repl.is_some()
            || sw.backlog
            || egress_ready;
        if !busy {
            // Until an accepted operation shows its results the engine's outputs stay idle:
            // it is clocked through those cycles at once when the switch wakes (as it is
            // when a packet arrives). A port waiting for a credit wakes it when it comes.
            self.active.remove(s);
            let wake = sw
                .surfacing
                .front()
                .copied()
                .into_iter()
                .chain(credit_due)
                .min();
            if let Some(t) = wake {
                self.at(t, class::NODE, Origin::Switch(s), Ev::Wake { sw: s });
            }
        }
    }

    fn credit_back(&mut self, s: usize, port: usize) {
        let Some(link) = self.f.topo.switch_ports[s][port] else {
            return;
        };
        let l = self.f.topo.links[link];
        let to = l.other(End::Switch(s, port));
        let gen = self.links[link].gen;
        self.return_credit(self.now + l.latency, Origin::Switch(s), link, to, gen);
    }

    /// A credit for `link` reaches its sender `to` at cycle `t`: straight into the sender's
    /// returns when this partition holds it (with a wake-up if the sender is waiting for
    /// it), else as an event.
    fn return_credit(&mut self, t: u64, origin: Origin, link: usize, to: End, gen: u32) {
        let local = match to {
            End::Switch(s, p) => self.switches[s].as_mut().map(|x| &mut x.tx[p]),
            End::Node(n) => self.nodes[n].as_mut().map(|x| &mut x.tx),
        };
        let Some(tx) = local else {
            self.at(
                t,
                class::CREDIT,
                origin,
                Ev::Credit {
                    link: link as u32,
                    to: to.into(),
                    gen,
                },
            );
            return;
        };
        let waiting = !tx.queue.is_empty();
        tx.returns.push(t);
        if waiting {
            match to {
                End::Switch(s, _) => self.at(t, class::CREDIT, origin, Ev::Wake { sw: s }),
                End::Node(n) => self.at(t, class::CREDIT, origin, Ev::NodePump { node: n }),
            }
        }
    }

    fn replicate(&mut self, s: usize) {
        let per_cycle = self.f.file.fabric.replication;
        let depth = self.f.file.fabric.egress_depth as usize;
        let Some(sw) = self.switches[s].as_mut() else {
            return;
        };
        let Some((pkt, mut mask)) = sw.repl else {
            return;
        };
        let mut placed = 0;
        while mask != 0 && placed < per_cycle {
            let p = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            placed += 1;
            if p >= sw.tx.len() {
                continue;
            }
            if sw.tx[p].queue.len() >= depth {
                count(&mut self.stats.drops, "egress_full");
            } else {
                sw.tx[p].queue.push_back(pkt);
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
            let link = self.f.topo.switch_ports[s][p];
            let Some(link) = link.filter(|&l| self.links[l].up) else {
                let n = sw.tx[p].queue.len() as u64;
                sw.tx[p].queue.clear();
                sw.out_mask &= !(1 << p);
                *self.stats.drops.entry("link_down").or_insert(0) += n;
                continue;
            };
            let tx = &mut sw.tx[p];
            if tx.free_at > now || tx.credits_at(now) == 0 {
                continue;
            }
            let Some(pkt) = tx.queue.pop_front() else {
                continue;
            };
            if tx.queue.is_empty() {
                sw.out_mask &= !(1 << p);
            }
            if now - pkt.birth > self.f.lifetime[link] {
                count(&mut self.stats.drops, "expired");
                continue;
            }
            tx.credits -= 1;
            tx.free_at = now + self.f.ser(link);
            self.transmit(link, End::Switch(s, p), pkt);
        }
    }
}

/// Who made an event (its count orders events of one cycle and class).
#[derive(Clone, Copy)]
enum Origin {
    Switch(usize),
    Node(usize),
}
