//! # Collectives by the NICs and by host software, on the fabric's switches
//!
//! `fabric run --algo switch` (the default) runs a group's collective in the switches' engines
//! ([`crate::sim`]). The same group can instead be run by its members' NICs, the way CORE-Direct
//! offload does it, or by host software over the same NICs, for the comparison that motivates
//! in-network offload:
//!
//! - **`nic`**: every member's host posts the host library's cross-channel schedule
//!   ([`netcoll_models::nic::schedule`]: dissemination barrier, recursive-doubling allreduce,
//!   binomial broadcast) to its NIC and polls one CQE ([`Progress::Nic`]);
//! - **`host`**: the same schedule, each step started by the host: it posts a SEND or CALC,
//!   polls its CQE, polls the counters it waits on ([`Progress::Host`]).
//!
//! The software's cost is `[node] overhead` cycles for each thing it does, as a switch's
//! compute node pays it once to send FULL and once when EXIT arrives: under `nic`, once on
//! entering (before posting) and once on leaving (after the CQE); under `host`, once for each
//! message it sends and each it sees arrive.
//!
//! The NICs are the NIC's cycle model, or for the nodes named in [`OffloadOptions::levels`] its
//! rust-hdl RTL or its Verilog under Verilator, with the same results and cycles. Their messages
//! are unicast, carried by the fabric's switches (rule 5 of [`crate::sm`]: the SM routes the
//! members of the groups that run together along one tree of all of them, up then down, so the
//! forwarding is deadlock free):
//!
//! 1. **Links.** Each direction of a topology link carries one beat (a 64-bit word with its
//!    header as side band) every `ceil(8 / bandwidth)` cycles; a beat arrives `latency` cycles
//!    after it is sent. The link and the input buffer at its end hold `latency +
//!    fabric.unicast_buffer` beats, the sender's credits (a credit is back the cycle its beat
//!    leaves the buffer): a full buffer back-pressures the sender, nothing is dropped.
//! 2. **Switches.** A switch output port takes one message at a time: round robin among the
//!    input ports whose head beat is for it, starting after the last port served; it then
//!    forwards that message's beats, one a cycle as its link allows, until the last. So two
//!    messages' beats never interleave, on a link or at a receive port; a beat that arrives in
//!    one cycle can leave in the next (cut-through).
//! 3. **Runs.** Consecutive groups of the file with no member in common form a *wave* and
//!    run together: their operation `k` starts in the same cycle and their messages share the
//!    switches and links. (A NIC runs one schedule at a time, so groups that share a member
//!    are in different waves.) The waves run one after another, and within a wave the
//!    operations do: operation `k` of every group of the wave that has one, on NICs fresh from
//!    reset (a schedule runs once, on zeroed counters). Every member's setup is done before
//!    any member enters (MPI connects a communicator before using it); then every member
//!    enters in the same cycle. A record's `start` is that cycle and `end` the cycle the
//!    group's last member was done, counted from the run's beginning (the cycles of the runs
//!    before added up).
//! 4. **Inputs and checks.** Member `m` contributes in operation `k` what it would to the
//!    switches ([`Reduction::contribution_chunk`] of the whole vector, seeded by the run's
//!    seed); a REDUCE runs as an allreduce (every member gets the root's result). Every
//!    member's result must equal the checker's fold of the contributions
//!    ([`Reduction::expected_chunk`]) — for a floating-point SUM or PROD, whose bits depend on
//!    the order of combination, every member must get the same bits and a SUM must lie within
//!    the error bound of any order. A barrier member must not be done before every member has
//!    entered. A member whose schedule fails (an error CQE), or a run not over by
//!    `run.max_cycles`, is a violation.
//! 5. **Layout.** The switches carry the 32-bit and narrower types two to a 64-bit word (in
//!    its 32-bit halves; MAXLOC / MINLOC as a word of two values and a word of their two
//!    indices), the NIC's CALC one element a word (in its low bits; MAXLOC / MINLOC as value
//!    then index). So each host lays its vector out for its NIC, one element a word, and packs
//!    its result back ([`nic_words`], [`fabric_words`]), as MPI packs a datatype: the results
//!    compared are in the switches' layout.
//! 6. **Noise.** [`OffloadOptions::noise_prob`] and `noise_cycles` delay a host action (a post,
//!    a poll) now and then, per node from the run's seed; the switches' runs have no noise.
//!
//! Not supported, each refused with an error naming the key: faults (a NIC has no loss
//! timeout, and the NICs do not rebuild anything), REPRO (the NIC's ALU has no REPRO), groups
//! of fewer than 2 or more than 256 members, and anything the host library refuses (e.g. a
//! floating-point type not built into the NIC, `[nic] fp`).

use crate::collective::{Collective as Coll, Kind, Reduction};
use crate::report::{latency_figures, Record, Report, ResultRecord, Summary};
use crate::sm::{tree_routes, SubnetManager};
use crate::topology::{End, Topology};
use crate::{Fabric, FabricError};
use netcoll_models::net::{Beat, Link};
use netcoll_models::nic::schedule::{self, Collective, ScheduleOptions};
use netcoll_models::nic::Status;
use netcoll_testbench::harness::Level;
use netcoll_testbench::nic::network::{run_cycles_on, Interconnect, NetworkOptions, Progress};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Who runs a group's collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Algo {
    /// The switches' engines ([`crate::sim`]).
    Switch,
    /// The NICs, posted once by each host.
    Nic,
    /// Host software, step by step over the NICs.
    Host,
}

impl Algo {
    pub const ALL: [Algo; 3] = [Algo::Switch, Algo::Nic, Algo::Host];

    pub fn parse(s: &str) -> Option<Algo> {
        Algo::ALL.into_iter().find(|a| a.name() == s)
    }

    pub fn name(self) -> &'static str {
        match self {
            Algo::Switch => "switch",
            Algo::Nic => "nic",
            Algo::Host => "host",
        }
    }
}

/// How an offloaded run goes.
#[derive(Clone, Debug, Default)]
pub struct OffloadOptions {
    pub seed: u64,
    /// Nodes (by name) whose NIC runs at another level than the cycle model (the rust-hdl RTL,
    /// Verilator); for `Algo::Switch`, switches, as [`crate::RunOptions::levels`].
    pub levels: BTreeMap<String, Level>,
    /// OS noise: before each host action, with this probability, the host is away for
    /// `noise_cycles` cycles.
    pub noise_prob: f64,
    pub noise_cycles: u64,
    /// The report keeps every member's result ([`Report::results`], one per operation).
    pub keep_results: bool,
}

fn invalid(key: &str, value: impl ToString, why: impl ToString) -> FabricError {
    FabricError::Invalid {
        key: key.to_string(),
        value: value.to_string(),
        why: why.to_string(),
    }
}

/// The unicast network of rules 1 and 2, for one group: members are numbered as in the
/// group (`0 .. n`), as the NICs' programs number them.
pub struct Unicast {
    /// Per link direction (`2 · link` from end `a`, `2 · link + 1` from end `b`): the beats in
    /// flight and waiting at the far end, with their source member.
    wires: Vec<Link<(usize, Beat)>>,
    /// Cycles between two beats on the direction, and the first cycle it takes the next.
    gap: Vec<u64>,
    free_at: Vec<u64>,
    /// The cycle a switch last took a beat from the direction (one a cycle).
    read_at: Vec<u64>,
    /// `[switch][port]`: the direction arriving at the port, and the one leaving it.
    inputs: Vec<Vec<Option<usize>>>,
    outputs: Vec<Vec<Option<usize>>>,
    /// `[switch][member]`: the port toward the member.
    routes: Vec<Vec<Option<usize>>>,
    /// `[switch][output port]`: the input port whose message it is forwarding, and the input
    /// port its round robin tries first.
    owner: Vec<Vec<Option<usize>>>,
    next_in: Vec<Vec<usize>>,
    /// Per member: the direction from its NIC, and the one toward it.
    tx: Vec<usize>,
    rx: Vec<usize>,
    /// Per member: its group and its index in the group (the NICs' programs address the
    /// members of their group by that index); per group, its members.
    local: Vec<(usize, usize)>,
    members: Vec<Vec<usize>>,
    /// Per direction: the switch at its far end (none for a node's).
    far: Vec<Option<usize>>,
    /// Per switch: beats in the directions arriving at it (a switch with none has nothing to
    /// do in a cycle and is skipped).
    pending: Vec<u32>,
    now: u64,
}

impl Unicast {
    /// The network for `groups` (each its members' node indices, in member order; the members
    /// of all of them are numbered one after the other) routed by `routes` ([`tree_routes`]
    /// of all the members in that order), with input buffers of `buffer` beats. A NIC
    /// addresses the members of its own group only, by their index in the group.
    pub fn new(
        topo: &Topology,
        groups: &[&[usize]],
        routes: Vec<Vec<Option<usize>>>,
        buffer: u64,
    ) -> Unicast {
        let hosts: Vec<usize> = groups.concat();
        let mut local = vec![];
        let mut members = vec![];
        for (g, m) in groups.iter().enumerate() {
            members.push((local.len()..local.len() + m.len()).collect());
            local.extend((0..m.len()).map(|j| (g, j)));
        }
        let dirs = 2 * topo.links.len();
        let mut wires = Vec::with_capacity(dirs);
        let mut gap = Vec::with_capacity(dirs);
        for l in &topo.links {
            for _ in 0..2 {
                wires.push(Link::new(l.latency, (l.latency + buffer) as usize));
                gap.push(8u64.div_ceil(l.bandwidth).max(1));
            }
        }
        // The direction leaving end `e` of link `l`, and the one arriving there.
        let leaving = |l: usize, e: End| 2 * l + usize::from(topo.links[l].a != e);
        let arriving = |l: usize, e: End| 2 * l + usize::from(topo.links[l].a == e);
        let ports = |s: usize, dir: &dyn Fn(usize, End) -> usize| -> Vec<Option<usize>> {
            topo.switch_ports[s]
                .iter()
                .enumerate()
                .map(|(p, l)| l.map(|l| dir(l, End::Switch(s, p))))
                .collect()
        };
        let switches = topo.switch_names.len();
        let mut far = vec![None; dirs];
        for (l, link) in topo.links.iter().enumerate() {
            for end in [link.a, link.b] {
                if let End::Switch(s, _) = end {
                    far[arriving(l, end)] = Some(s);
                }
            }
        }
        Unicast {
            wires,
            free_at: vec![0; dirs],
            read_at: vec![u64::MAX; dirs],
            gap,
            inputs: (0..switches).map(|s| ports(s, &arriving)).collect(),
            outputs: (0..switches).map(|s| ports(s, &leaving)).collect(),
            routes,
            owner: (0..switches)
                .map(|s| vec![None; topo.switch_ports[s].len()])
                .collect(),
            next_in: (0..switches)
                .map(|s| vec![0; topo.switch_ports[s].len()])
                .collect(),
            tx: hosts
                .iter()
                .map(|&h| leaving(topo.node_link[h], End::Node(h)))
                .collect(),
            rx: hosts
                .iter()
                .map(|&h| arriving(topo.node_link[h], End::Node(h)))
                .collect(),
            far,
            pending: vec![0; switches],
            local,
            members,
            now: 0,
        }
    }

    fn sendable(&self, dir: usize) -> bool {
        self.wires[dir].can_push() && self.now >= self.free_at[dir]
    }

    /// Rule 2 at switch `s`, output port `q`.
    fn forward(&mut self, s: usize, q: usize) {
        let Some(out) = self.outputs[s][q] else {
            return;
        };
        let ports = self.inputs[s].len();
        if self.owner[s][q].is_none() {
            let first = self.next_in[s][q];
            self.owner[s][q] = (0..ports).map(|j| (first + j) % ports).find(|&i| {
                self.inputs[s][i]
                    .and_then(|d| self.wires[d].front())
                    .is_some_and(|(_, b)| self.routes[s][b.node as usize] == Some(q))
            });
        }
        let Some(i) = self.owner[s][q] else {
            return;
        };
        let Some(input) = self.inputs[s][i] else {
            return;
        };
        if self.wires[input].front().is_none()
            || self.read_at[input] == self.now
            || !self.sendable(out)
        {
            return;
        }
        self.read_at[input] = self.now;
        let Some(item) = self.wires[input].pop() else {
            return;
        };
        let last = item.1.last;
        self.pending[s] -= 1;
        if self.wires[out].push(item).is_ok() {
            self.free_at[out] = self.now + self.gap[out];
            if let Some(t) = self.far[out] {
                self.pending[t] += 1;
            }
        }
        if last {
            self.owner[s][q] = None;
            self.next_in[s][q] = (i + 1) % ports;
        }
    }
}

impl Interconnect for Unicast {
    fn can_send(&self, src: usize, _dst: usize) -> bool {
        self.sendable(self.tx[src])
    }

    fn send(&mut self, src: usize, dst: usize, beat: Beat) -> Result<(), String> {
        let (g, j) = self.local[src];
        let Some(&to) = self.members[g].get(dst) else {
            return Err(format!(
                "member {j} of group {g} sent to member {dst}, which does not exist"
            ));
        };
        let dir = self.tx[src];
        self.free_at[dir] = self.now + self.gap[dir];
        self.wires[dir]
            .push((
                src,
                Beat {
                    node: to as u64,
                    ..beat
                },
            ))
            .map_err(|_| "a link took a beat it had no room for".to_string())?;
        if let Some(s) = self.far[dir] {
            self.pending[s] += 1;
        }
        Ok(())
    }

    fn offered(&mut self, dst: usize) -> Option<Beat> {
        self.wires[self.rx[dst]].front().map(|&(src, b)| Beat {
            node: self.local[src].1 as u64,
            ..b
        })
    }

    fn take(&mut self, dst: usize) {
        self.wires[self.rx[dst]].pop();
    }

    fn tick(&mut self) {
        for s in 0..self.outputs.len() {
            if self.pending[s] == 0 {
                continue;
            }
            for q in 0..self.outputs[s].len() {
                self.forward(s, q);
            }
        }
        for w in &mut self.wires {
            w.tick();
        }
        self.now += 1;
    }
}

/// Whether `r`'s words carry two elements each (rule 5); not a broadcast's, which are opaque.
fn packed(r: &Reduction) -> bool {
    r.collective != Coll::Broadcast && r.dtype.bits() <= 32
}

/// A member's vector in the switches' layout, laid out for its NIC (rule 5).
pub fn nic_words(r: &Reduction, words: &[u64]) -> Vec<u64> {
    if !packed(r) {
        return words.to_vec();
    }
    let halves = |w: u64| [w & 0xFFFF_FFFF, w >> 32];
    if r.op.is_loc() {
        words
            .chunks(2)
            .flat_map(|p| {
                let (v, i) = (halves(p[0]), halves(p.get(1).copied().unwrap_or(0)));
                [v[0], i[0], v[1], i[1]]
            })
            .collect()
    } else {
        words.iter().flat_map(|&w| halves(w)).collect()
    }
}

/// The inverse of [`nic_words`]: a result in the NIC's layout, packed as the switches'.
pub fn fabric_words(r: &Reduction, words: &[u64]) -> Vec<u64> {
    if !packed(r) {
        return words.to_vec();
    }
    let pack = |lo: u64, hi: u64| (lo & 0xFFFF_FFFF) | (hi & 0xFFFF_FFFF) << 32;
    if r.op.is_loc() {
        words
            .chunks(4)
            .flat_map(|q| {
                let at = |i: usize| q.get(i).copied().unwrap_or(0);
                [pack(at(0), at(2)), pack(at(1), at(3))]
            })
            .collect()
    } else {
        words
            .chunks(2)
            .map(|p| pack(p[0], p.get(1).copied().unwrap_or(0)))
            .collect()
    }
}

/// What the host library runs for a group, and where a member's vector goes.
fn schedule_of(f: &Fabric, g: usize) -> Result<(Collective, Option<Reduction>), FabricError> {
    let key = format!("group[{g}]");
    Ok(match f.kind(g) {
        Kind::Barrier => (Collective::Barrier, None),
        Kind::Reduce(r) => {
            if r.repro.is_some() {
                return Err(invalid(
                    &format!("{key}.op"),
                    "\"REPRO\"",
                    "the NICs have no REPRO; use --algo switch",
                ));
            }
            let whole = Reduction {
                chunk: r.words,
                window: 1,
                ..r
            };
            let narrow = r.dtype.bits() <= 32;
            let c = match r.collective {
                Coll::AllReduce | Coll::Reduce => Collective::Allreduce {
                    op: r.op,
                    dtype: r.dtype,
                    // Elements (pairs for MAXLOC / MINLOC) at one a word (rule 5).
                    count: r.words * if narrow { 2 } else { 1 } / if r.op.is_loc() { 2 } else { 1 },
                },
                Coll::Broadcast => Collective::Broadcast {
                    root: f.members(g).iter().position(|&m| m == r.root).unwrap_or(0),
                    radix: 2,
                    count: r.words,
                },
            };
            (c, Some(whole))
        }
    })
}

impl Fabric {
    /// Runs every group's operations by the NICs (`Algo::Nic`) or by host software
    /// (`Algo::Host`), as the module docs say; `progress` hears the cycles run and the
    /// operations done. `Algo::Switch` is [`Fabric::run`].
    pub fn run_offloaded(
        &self,
        algo: Algo,
        o: &OffloadOptions,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Report, FabricError> {
        let progress_mode = match algo {
            Algo::Switch => {
                return self.run(
                    &crate::RunOptions {
                        seed: o.seed,
                        levels: o.levels.clone(),
                        keep_results: o.keep_results,
                        ..Default::default()
                    },
                    progress,
                )
            }
            Algo::Nic => Progress::Nic,
            Algo::Host => Progress::Host,
        };
        if let Some(fault) = self.file.faults.first() {
            return Err(invalid(
                "fault[0].kind",
                format!("{:?}", fault.kind),
                format!(
                    "--algo {} runs fabrics without faults (a NIC has no loss timeout); use --algo switch",
                    algo.name()
                ),
            ));
        }
        for name in o.levels.keys() {
            if !self.topo.node_names.contains(name) {
                return Err(invalid(
                    "--levels",
                    name,
                    format!(
                        "with --algo {} name nodes (e.g. {})",
                        algo.name(),
                        self.topo.node_names[0]
                    ),
                ));
            }
        }
        let p = self.config.nic;
        let mut plans = vec![];
        for g in 0..self.groups() {
            let members = self.members(g);
            let (c, r) = schedule_of(self, g)?;
            let words = c.words();
            let opts = ScheduleOptions {
                input: 0,
                output: words,
                scratch: 2 * words,
                ..Default::default()
            };
            let progs = schedule::build(&c, members.len(), &p, &opts).map_err(|e| {
                invalid(
                    &format!("group[{g}]"),
                    format!("{} ({} members)", self.group_name(g), members.len()),
                    format!("the host library cannot schedule it for the NICs: {e}"),
                )
            })?;
            plans.push((c, r, opts, progs));
        }
        // Rule 3: waves of consecutive groups with no member in common.
        let mut waves: Vec<Vec<usize>> = vec![];
        for g in 0..self.groups() {
            let disjoint = |h: &usize| {
                self.members(*h)
                    .iter()
                    .all(|m| !self.members(g).contains(m))
            };
            match waves.last_mut() {
                Some(w) if w.iter().all(disjoint) => w.push(g),
                _ => waves.push(vec![g]),
            }
        }
        let level_of = |m: &usize| {
            o.levels
                .get(&self.topo.node_names[*m])
                .copied()
                .unwrap_or(Level::Model)
        };
        let mut records = vec![];
        let mut results = vec![];
        let mut violations = vec![];
        let (mut messages, mut answers, mut rnr_naks, mut checked) = (0, 0, 0, 0);
        let mut offset = 0u64;
        for wave in &waves {
            // Rule 5: one tree over every member of the wave (a lone group's own tree).
            let first = wave[0];
            let everyone: Vec<usize> = wave
                .iter()
                .flat_map(|&g| self.members(g).iter().copied())
                .collect();
            let sm = SubnetManager::new(Arc::clone(&self.topo), self.config.switch.groups);
            let tree = sm.build_tree(&everyone, self.policy(first)).map_err(|e| {
                invalid(
                    &format!("group[{first}].members"),
                    self.group_name(first),
                    e,
                )
            })?;
            let operations = wave.iter().map(|&g| self.operations(g)).max().unwrap_or(0);
            for k in 0..operations {
                let active: Vec<usize> = wave
                    .iter()
                    .copied()
                    .filter(|&g| self.operations(g) > k)
                    .collect();
                let mut progs = vec![];
                let mut levels = vec![];
                let mut groups: Vec<&[usize]> = vec![];
                for &g in &active {
                    let (c, r, opts, base) = &plans[g];
                    let members = self.members(g);
                    let mut mine = base.clone();
                    if let Some(r) = r {
                        let at = match c {
                            Collective::Broadcast { .. } => opts.output,
                            _ => opts.input,
                        };
                        for (j, &m) in members.iter().enumerate() {
                            if !matches!(c, Collective::Broadcast { root, .. } if *root != j) {
                                let words = r.contribution_chunk(o.seed, g, m, k, 0);
                                mine[j].write_first(at, &nic_words(r, &words));
                            }
                        }
                    }
                    progs.extend(mine);
                    levels.extend(members.iter().map(level_of));
                    groups.push(members);
                }
                let net_opts = NetworkOptions {
                    progress: progress_mode,
                    overhead: match algo {
                        Algo::Host => self.file.node.overhead,
                        _ => 0,
                    },
                    call_overhead: match algo {
                        Algo::Nic => self.file.node.overhead,
                        _ => 0,
                    },
                    noise_prob: o.noise_prob,
                    noise_cycles: o.noise_cycles,
                    seed: o.seed ^ ((first as u64) << 40) ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    max_cycles: self.file.run.max_cycles.saturating_sub(offset),
                    ..Default::default()
                };
                let hosts = groups.concat();
                let routes = tree_routes(&self.topo, &tree, &hosts);
                let mut net =
                    Unicast::new(&self.topo, &groups, routes, self.file.fabric.unicast_buffer);
                let mut run = match run_cycles_on(&progs, &p, &levels, &net_opts, &mut net) {
                    Ok(run) => run,
                    Err(e) => {
                        let names: Vec<&str> = active.iter().map(|&g| self.group_name(g)).collect();
                        violations
                            .push(format!("group {} operation {k}: {e}", names.join(" and ")));
                        break;
                    }
                };
                messages += run.messages;
                answers += run.answers;
                rnr_naks += run.rnr_naks;
                let mut at = 0;
                for &g in &active {
                    let members = self.members(g);
                    let nodes = &mut run.nodes[at..at + members.len()];
                    at += members.len();
                    let name = self.group_name(g).to_string();
                    let r = &plans[g].1;
                    let entered = nodes.iter().map(|n| n.entered_at).max().unwrap_or(0);
                    let done = nodes.iter().map(|n| n.done_at).max().unwrap_or(0);
                    for (j, node) in nodes.iter().enumerate() {
                        let who = &self.topo.node_names[members[j]];
                        if node.status != Status::Ok.code() {
                            violations.push(format!(
                                "group {name} operation {k}: member {who} failed with status {}",
                                netcoll_testbench::nic::scenario::status_name(node.status)
                            ));
                        } else if r.is_none() && node.done_at < entered {
                            violations.push(format!(
                                "group {name} barrier {k}: member {who} was done at cycle {} before the last member entered at {entered}",
                                node.done_at
                            ));
                        }
                    }
                    if let Some(r) = r {
                        for node in nodes.iter_mut() {
                            node.result = fabric_words(r, &node.result);
                        }
                        checked += members.len() as u64;
                        violations.extend(check(r, o.seed, g, members, k, nodes, &name));
                        if o.keep_results {
                            for (j, node) in nodes.iter().enumerate() {
                                results.push(ResultRecord {
                                    group: name.clone(),
                                    node: self.topo.node_names[members[j]].clone(),
                                    op: k,
                                    chunk: 0,
                                    words: node.result.clone(),
                                    values: vec![],
                                });
                            }
                        }
                    }
                    let latency = done.saturating_sub(entered);
                    records.push(Record {
                        group: name,
                        cgid: 0,
                        barrier: k,
                        bytes: 8 * r.as_ref().map_or(0, |r| r.words),
                        members: members.len() as u64,
                        start: offset + entered,
                        end: offset + done,
                        latency,
                        latency_ns: latency as f64 * self.file.fabric.clock_ns,
                    });
                }
                offset += run.cycles;
                progress(offset, records.len() as u64);
            }
        }
        let [latency_min, latency_median, latency_p99, latency_max] = latency_figures(&records);
        let summary = Summary {
            name: self.file.name.clone(),
            algo: algo.name().to_string(),
            cycles: offset,
            barriers: records.len() as u64,
            latency_min,
            latency_median,
            latency_p99,
            latency_max,
            clock_ns: self.file.fabric.clock_ns,
            rebuilds: 0,
            retries: 0,
            config_ops: 0,
            drops: BTreeMap::new(),
            verdicts: BTreeMap::new(),
            faults: BTreeMap::new(),
            events: 0,
            packets: messages + answers,
            steps: 0,
            reductions: (0..self.groups()).any(|g| matches!(self.kind(g), Kind::Reduce(_))),
            results_checked: checked,
            results_unchecked: 0,
            results_relayed: 0,
            messages,
            answers,
            rnr_naks,
            safe: violations.is_empty(),
            violations,
        };
        Ok(Report {
            records,
            summary,
            results,
        })
    }
}

/// Rule 4's check of operation `k`'s results (`r` is the whole vector as one chunk).
fn check(
    r: &Reduction,
    seed: u64,
    g: usize,
    members: &[usize],
    k: u64,
    nodes: &[netcoll_testbench::nic::network::NodeOutcome],
    name: &str,
) -> Vec<String> {
    let mut bad = vec![];
    let first = &nodes[0].result;
    let expected = if r.order_dependent() {
        let outside = r.sum_outside_bound(seed, g, members, k, 0, first);
        if let Some((e, got, exact)) = outside.first() {
            bad.push(format!(
                "group {name} operation {k}: element {e} of the sum is {got}, farther from the exact {exact} than any order of additions"
            ));
        }
        first.clone()
    } else {
        r.expected_chunk(seed, g, members, k, 0)
    };
    for (j, node) in nodes.iter().enumerate() {
        if node.status == Status::Ok.code() && node.result != expected {
            bad.push(format!(
                "group {name} operation {k}: member {j}'s result differs from {}",
                if r.order_dependent() {
                    "member 0's"
                } else {
                    "the fold of the contributions"
                }
            ));
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm::Policy;

    /// Every member of a three-level fat tree sends three messages of 1 to 5 beats to every
    /// other, one message at a time, through input buffers of one beat, to receivers that
    /// take a beat only every other cycle: everything arrives, each message whole (its beats
    /// one after the other at the receive port) and each sender's messages to a receiver in
    /// the order sent, with no deadlock.
    #[test]
    fn all_to_all_through_one_beat_buffers_arrives_whole_and_in_order() {
        let file = crate::parse(
            "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 3\nlatency = 3\nbandwidth = 4\n\
             [[group]]\nmembers = 'all'\nbarriers = 1\n",
        )
        .expect("fabric file");
        let topo = Arc::new(Topology::build(&file.fabric, 64).expect("topology"));
        let hosts: Vec<usize> = (0..topo.node_names.len()).collect();
        let n = hosts.len();
        let tree = SubnetManager::new(Arc::clone(&topo), 64)
            .build_tree(&hosts, Policy::Shortest)
            .expect("tree");
        let mut net = Unicast::new(&topo, &[&hosts], tree_routes(&topo, &tree, &hosts), 1);
        let len = |s: usize, d: usize, m: usize| 1 + (s + d + m) % 5;
        // Each sender's messages: (destination, index), destinations rotating.
        let queues: Vec<Vec<(usize, usize)>> = (0..n)
            .map(|s| {
                (0..3)
                    .flat_map(|m| (1..n).map(move |j| ((s + j) % n, m)))
                    .collect()
            })
            .collect();
        let mut at = vec![(0usize, 0usize); n]; // (message, beat) each sender is at
        let mut got: Vec<Vec<(usize, usize, usize)>> = vec![vec![]; n]; // (src, m, beat)
        let total: usize = (0..n)
            .map(|s| queues[s].iter().map(|&(d, m)| len(s, d, m)).sum::<usize>())
            .sum();
        let mut received = 0;
        let mut cycle = 0u64;
        while received < total {
            assert!(
                cycle < 100_000,
                "deadlock: {received} of {total} beats after {cycle} cycles"
            );
            for (d, got) in got.iter_mut().enumerate() {
                if cycle.is_multiple_of(2) {
                    if let Some(b) = net.offered(d) {
                        got.push((
                            b.node as usize,
                            (b.data >> 8) as usize,
                            (b.data & 0xFF) as usize,
                        ));
                        assert_eq!(
                            b.last,
                            (b.data & 0xFF) as usize + 1
                                == len(b.node as usize, d, (b.data >> 8) as usize)
                        );
                        net.take(d);
                        received += 1;
                    }
                }
            }
            for s in 0..n {
                let (i, beat) = at[s];
                let Some(&(d, m)) = queues[s].get(i) else {
                    continue;
                };
                if net.can_send(s, d) {
                    let l = len(s, d, m);
                    let b = Beat {
                        node: d as u64,
                        last: beat + 1 == l,
                        data: (m << 8 | beat) as u64,
                        ..Default::default()
                    };
                    net.send(s, d, b).expect("room");
                    at[s] = if beat + 1 == l {
                        (i + 1, 0)
                    } else {
                        (i, beat + 1)
                    };
                }
            }
            net.tick();
            cycle += 1;
        }
        for (d, beats) in got.iter().enumerate() {
            let mut next = vec![0usize; n]; // the next message expected from each source
            let mut k = 0;
            while k < beats.len() {
                let (s, m, _) = beats[k];
                assert_eq!(m, next[s], "to {d}: from {s} out of order");
                for b in 0..len(s, d, m) {
                    assert_eq!(beats[k + b], (s, m, b), "to {d}: a message interleaved");
                }
                k += len(s, d, m);
                next[s] += 1;
            }
            for (s, &c) in next.iter().enumerate() {
                assert_eq!(c, if s == d { 0 } else { 3 }, "to {d} from {s}");
            }
        }
    }

    /// The layout for the NIC and back (rule 5), on hand-written words.
    #[test]
    fn narrow_vectors_are_laid_out_one_element_a_word_and_packed_back() {
        let r = |op, dtype| Reduction {
            collective: Coll::AllReduce,
            op,
            dtype,
            repro: None,
            words: 2,
            chunk: 2,
            window: 1,
            root: 0,
        };
        use netcoll_models::reduce_alu::{AluOp, Dtype};
        let sum = r(AluOp::Sum, Dtype::I32);
        assert_eq!(
            nic_words(&sum, &[0x2222_2222_1111_1111, 0x4444_4444_3333_3333]),
            [0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444]
        );
        let loc = r(AluOp::MaxLoc, Dtype::U32);
        // Values (5, 6) with indices (1, 2): pairs (5, 1), (6, 2).
        let fabric = [6 << 32 | 5, 2 << 32 | 1];
        assert_eq!(nic_words(&loc, &fabric), [5, 1, 6, 2]);
        for (x, words) in [(&sum, &[9u64, 8][..]), (&loc, &fabric[..])] {
            assert_eq!(fabric_words(x, &nic_words(x, words)), words);
        }
        let wide = r(AluOp::MaxLoc, Dtype::I64);
        assert_eq!(nic_words(&wide, &[7, 3]), [7, 3]);
    }
}
