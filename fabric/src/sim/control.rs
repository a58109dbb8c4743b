//! The subnet manager as a process of the simulation, and the safety checker.
//!
//! The SM talks to switches and nodes only through the management network (`sm.mgmt_latency`
//! each way): configuration writes to a switch's configuration port (answered when the engine
//! answers), traps from switches (a link down, a TID failure), joins, leaves and "done" from
//! nodes, and its questions to the nodes' software (their TID, during a rebuild). The checker
//! reads the log of entries and releases the nodes write as they happen.

use super::{class, origin_sm, BitSet, CfgReq, Ev, Fabric, Fault, Key, Queue, Scheduled};
use crate::report::{Record, Report, Summary};
use crate::sm::{SubnetManager, Tree};
use netcoll_models::switch_engine::{CfgOp, TableEntry, Verdict};
use std::collections::{BTreeMap, BTreeSet};

/// Violations listed in a report (the rest are counted).
const MAX_VIOLATIONS: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Not joined yet.
    Waiting,
    /// Writing the tree's entries (a join or the second half of a rebuild).
    Programming,
    Running,
    /// Disabling the old tree (entries invalid).
    Quiescing,
    /// Waiting one packet lifetime for what the old tree had in flight.
    Draining,
    /// Asking the members' software for its TID.
    Querying,
    Destroying,
    Gone,
}

struct GroupRt {
    members: BitSet,
    cgid: Option<u64>,
    tree: Option<Tree>,
    phase: Phase,
    pending: usize,
    epoch: u64,
    dirty: bool,
    answers: Vec<u64>,
    done_members: usize,
    /// The checker's view: the barriers some member has entered or released that have not
    /// completed, by index (a few at a time: a short vector, in order).
    open: Vec<Open>,
}

/// An open barrier, as the checker sees it.
struct Open {
    k: u64,
    /// The members that entered it …
    entered: BitSet,
    /// … and those that released it.
    released: BitSet,
    /// Its last entry (`None` while nobody has entered it).
    entry_max: Option<u64>,
}

impl GroupRt {
    fn open(&self, k: u64) -> Option<&Open> {
        self.open.iter().find(|o| o.k == k)
    }

    /// Barrier `k`, opened if it was not.
    fn open_mut(&mut self, k: u64) -> &mut Open {
        let at = self.open.partition_point(|o| o.k < k);
        if self.open.get(at).is_none_or(|o| o.k != k) {
            self.open.insert(
                at,
                Open {
                    k,
                    entered: BitSet::default(),
                    released: BitSet::default(),
                    entry_max: None,
                },
            );
        }
        &mut self.open[at]
    }
}

pub(crate) struct Control<'a> {
    f: &'a Fabric,
    now: u64,
    seq: u64,
    queue: Queue,
    out: Vec<Scheduled>,
    sm: SubnetManager,
    groups: Vec<GroupRt>,
    records: Vec<Record>,
    violations: Vec<String>,
    rebuilds: u64,
    cfg_ops: u64,
    /// Cycles of the discrete faults (link down / up, switch down, leave), sorted.
    fault_times: Vec<u64>,
    end: Option<u64>,
    hang: bool,
    /// [`Control::deadline`], recomputed after every window that handled an event (the run
    /// loop asks for it several times per window).
    deadline: Option<u64>,
}

impl<'a> Control<'a> {
    pub fn new(f: &'a Fabric) -> Control<'a> {
        let mut fault_times: Vec<u64> = f
            .faults
            .iter()
            .flat_map(|x| match *x {
                Fault::LinkDown { at, up, .. } => vec![Some(at), up],
                Fault::SwitchDown { at, .. } | Fault::Leave { at, .. } => vec![Some(at)],
                Fault::Loss { .. } | Fault::Dup { .. } => vec![],
            })
            .flatten()
            .collect();
        fault_times.sort_unstable();
        let mut c = Control {
            f,
            now: 0,
            seq: 0,
            queue: Queue::default(),
            out: vec![],
            sm: SubnetManager::new(f.topo.clone(), f.config.switch.groups),
            groups: f
                .groups
                .iter()
                .map(|g| GroupRt {
                    members: g.members.iter().copied().collect(),
                    cgid: None,
                    tree: None,
                    phase: Phase::Waiting,
                    pending: 0,
                    epoch: 0,
                    dirty: false,
                    answers: vec![],
                    done_members: 0,
                    open: vec![],
                })
                .collect(),
            records: vec![],
            violations: vec![],
            rebuilds: 0,
            cfg_ops: 0,
            fault_times,
            end: None,
            hang: false,
            deadline: None,
        };
        for (gi, g) in f.groups.iter().enumerate() {
            // The members' join requests reach the SM one management hop after they ask.
            c.at(g.start + f.file.sm.mgmt_latency, Ev::SmJoin { group: gi });
        }
        c
    }

    fn at(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        let s = Scheduled {
            key: Key::new(t, class::MGMT, origin_sm(self.f), self.seq),
            ev,
        };
        if s.ev.target() == super::Target::Sm {
            self.queue.push(s);
        } else {
            self.out.push(s);
        }
    }

    pub fn push(&mut self, s: Scheduled) {
        self.queue.push(s);
    }

    /// What the SM sent since the last call (the vector keeps its capacity).
    pub fn take_out(&mut self) -> std::vec::Drain<'_, Scheduled> {
        self.out.drain(..)
    }

    pub fn next_time(&self) -> Option<u64> {
        self.queue.next_t()
    }

    pub fn finished(&self) -> bool {
        self.groups.iter().all(|g| g.phase == Phase::Gone)
    }

    pub fn barriers(&self) -> u64 {
        self.records.len() as u64
    }

    /// Handles every event before `t_end`.
    pub fn window(&mut self, t_end: u64) {
        let mut handled = false;
        while let Some(t) = self.queue.next_t().filter(|&t| t < t_end) {
            self.now = t;
            while let Some(s) = self.queue.pop_at(t) {
                handled = true;
                self.handle(s.ev);
                if self.end.is_none() && self.finished() {
                    self.end = Some(self.now);
                }
            }
        }
        if handled {
            self.deadline = self.compute_deadline();
        }
    }

    fn last_fault(&self, t: u64) -> u64 {
        let i = self.fault_times.partition_point(|&x| x <= t);
        if i == 0 {
            0
        } else {
            self.fault_times[i - 1]
        }
    }

    /// The earliest cycle at which a barrier every member has entered, still open, will have
    /// gone unfinished for longer than `run.completion_bound` after its last entry or the
    /// last fault: the run cannot pass after it. The kernel runs up to that cycle exactly, so
    /// where a hang is cut does not depend on how the fabric is partitioned.
    pub fn deadline(&self) -> Option<u64> {
        self.deadline
    }

    /// [`Control::deadline`] from the checker's state (which only events change).
    fn compute_deadline(&self) -> Option<u64> {
        let bound = self.f.file.run.completion_bound;
        let mut best: Option<u64> = None;
        for g in &self.groups {
            for o in &g.open {
                let Some(start) = o.entry_max else {
                    continue;
                };
                if o.entered.len() < g.members.len() {
                    continue;
                }
                // A fault before the deadline moves it.
                let mut d = start + bound;
                loop {
                    let f = self.last_fault(d);
                    let nd = start.max(f) + bound;
                    if nd == d {
                        break;
                    }
                    d = nd;
                }
                best = Some(best.map_or(d, |b| b.min(d)));
            }
        }
        best
    }

    /// Stops the run if a deadline has passed (every event up to `t_end` is handled).
    pub fn stuck(&mut self, t_end: u64) -> bool {
        match self.deadline() {
            Some(d) if d < t_end => {
                self.hang_at(Some(d));
                true
            }
            _ => false,
        }
    }

    pub fn hang_at(&mut self, t: Option<u64>) {
        self.hang = true;
        self.end = Some(t.unwrap_or(self.now));
    }

    fn handle(&mut self, ev: Ev) {
        let mgmt = self.f.file.sm.mgmt_latency;
        match ev {
            Ev::LogEnter { group, node, k } => {
                let g = &mut self.groups[group];
                if !g.members.contains(&node) {
                    return;
                }
                let now = self.now;
                let o = g.open_mut(k);
                o.entered.insert(node);
                o.entry_max = Some(o.entry_max.unwrap_or(0).max(now));
            }
            Ev::LogRelease { group, node, k } => self.release(group, node, k),
            Ev::CfgDone {
                group,
                epoch,
                rejected,
            } => self.cfg_done(group, epoch, rejected),
            Ev::SmJoin { group } => self.program(group, 0),
            Ev::SmDrained { group, epoch } => {
                let g = &mut self.groups[group];
                if g.epoch != epoch || g.phase != Phase::Draining {
                    return;
                }
                // Ask every member's software for its TID (a management round trip).
                g.phase = Phase::Querying;
                g.answers.clear();
                g.pending = g.members.len();
                let members: Vec<usize> = g.members.iter().collect();
                if members.is_empty() {
                    self.program(group, 0);
                }
                for node in members {
                    self.at(self.now + mgmt, Ev::NodeQuery { node, group, epoch });
                }
            }
            Ev::SmTidAnswer { group, epoch, tid } => {
                let g = &mut self.groups[group];
                if g.epoch != epoch || g.phase != Phase::Querying {
                    return;
                }
                g.answers.extend(tid.map(u64::from));
                g.pending = g.pending.saturating_sub(1);
                if g.pending == 0 {
                    let tid = self.tree_tid(group);
                    self.program(group, tid);
                }
            }
            Ev::SmLinkDown { link } => {
                self.sm.set_link(link, false);
                self.repair();
            }
            Ev::SmLinkUp { link } => self.sm.set_link(link, true),
            Ev::SmSwitchDown { sw } => {
                self.sm.kill_switch(sw);
                self.repair();
            }
            Ev::SmTidFail { cgid } => {
                if let Some(g) = self
                    .groups
                    .iter()
                    .position(|g| g.cgid == Some(cgid) && g.tree.is_some())
                {
                    self.rebuild(g);
                }
            }
            Ev::SmLeave { node, group } => {
                if self.groups[group].members.contains(&node) {
                    self.member_gone(group, node);
                    self.rebuild(group);
                }
            }
            Ev::SmNodeDone { group } => {
                self.groups[group].done_members += 1;
                self.maybe_destroy(group);
            }
            _ => unreachable!("partition events never reach the SM"),
        }
    }

    // --- the safety checker ----------------------------------------------------------------------

    /// Node `node` releases barrier `k`: every current member must have entered it.
    fn release(&mut self, group: usize, node: usize, k: u64) {
        let g = &mut self.groups[group];
        if !g.members.contains(&node) {
            return;
        }
        let entered = g.open(k).map_or(0, |o| o.entered.len());
        let members = g.members.len();
        if entered < members {
            self.violations.push(format!(
                "early release: {} left barrier {k} of group {} at cycle {} when {entered} of its {members} members had entered it",
                self.f.topo.node_names[node], self.f.groups[group].name, self.now
            ));
        }
        self.groups[group].open_mut(k).released.insert(node);
        self.barrier_done(group, k);
    }

    fn barrier_done(&mut self, group: usize, k: u64) {
        let g = &mut self.groups[group];
        let Some(at) = g.open.iter().position(|o| o.k == k) else {
            return;
        };
        let released = g.open[at].released.len();
        if released == 0 || released < g.members.len() {
            return;
        }
        let start = g.open.remove(at).entry_max.unwrap_or(0);
        let t = self.now;
        let latency = t.saturating_sub(start);
        let since = t.saturating_sub(start.max(self.last_fault(t)));
        let bound = self.f.file.run.completion_bound;
        if since > bound {
            self.violations.push(format!(
                "slow: barrier {k} of group {} completed {since} cycles after its last entry or fault (bound {bound})",
                self.f.groups[group].name
            ));
        }
        let g = &self.groups[group];
        self.records.push(Record {
            group: self.f.groups[group].name.clone(),
            cgid: g.cgid.unwrap_or(0),
            barrier: k,
            members: g.members.len() as u64,
            start,
            end: t,
            latency,
            latency_ns: latency as f64 * self.f.file.fabric.clock_ns,
        });
    }

    /// A member left (or cannot be reached): it no longer counts in open barriers.
    fn member_gone(&mut self, group: usize, node: usize) {
        let g = &mut self.groups[group];
        if !g.members.remove(node) {
            return;
        }
        // It no longer counts in any open barrier.
        for o in g.open.iter_mut() {
            o.entered.remove(node);
            o.released.remove(node);
        }
        let open: Vec<u64> = g.open.iter().map(|o| o.k).collect();
        for k in open {
            self.barrier_done(group, k);
        }
        self.maybe_destroy(group);
    }

    /// The TID to program a rebuilt tree at: members' TIDs are at most one transaction apart
    /// (mod 4), and the tree's is the later one (a member behind it missed an Exit and will be
    /// answered Lag).
    fn tree_tid(&mut self, group: usize) -> u64 {
        let v: Vec<u64> = self.groups[group]
            .answers
            .iter()
            .copied()
            .collect::<BTreeSet<u64>>()
            .into_iter()
            .collect();
        match v.as_slice() {
            [] => 0,
            [t] => *t,
            [a, b] if b - a == 1 => *b,
            [a, b] if b - a == 3 => *a,
            _ => {
                self.violations.push(format!(
                    "protocol: the members of group {} are at TIDs {v:?}, more than one transaction apart",
                    self.f.groups[group].name
                ));
                v[0]
            }
        }
    }

    // --- the subnet manager --------------------------------------------------------------------

    fn send_cfg(&mut self, group: usize, sw: usize, cgid: u64, entry: TableEntry, tid: u64) {
        let epoch = self.groups[group].epoch;
        let req = CfgReq {
            group,
            epoch,
            op: CfgOp::Write,
            cgid,
            entry,
            tid,
        };
        self.cfg_ops += 1;
        self.at(
            self.now + self.f.file.sm.mgmt_latency,
            Ev::Cfg {
                sw,
                req: Box::new(req),
            },
        );
    }

    /// Builds the group's tree and programs it at `tid`.
    fn program(&mut self, group: usize, tid: u64) {
        let mgmt = self.f.file.sm.mgmt_latency;
        let members: Vec<usize> = self.groups[group].members.iter().collect();
        // Members that cannot be reached any more leave the group (their software is told).
        let mut reachable = vec![];
        for m in members {
            if self.sm.reachable(m).is_ok() {
                reachable.push(m);
            } else {
                self.member_gone(group, m);
                self.at(self.now + mgmt, Ev::NodeDetach { node: m, group });
            }
        }
        if reachable.is_empty() {
            self.groups[group].phase = Phase::Gone;
            return;
        }
        let policy = self.f.groups[group].policy;
        let tree = self.sm.build_tree(&reachable, policy).and_then(|tree| {
            let keep = self.groups[group].cgid;
            self.sm.allocate(&tree, keep).map(|c| (tree, c))
        });
        let (tree, cgid) = match tree {
            Ok(x) => x,
            Err(e) => {
                self.violations.push(format!(
                    "subnet manager: group {}: {e}",
                    self.f.groups[group].name
                ));
                self.groups[group].phase = Phase::Gone;
                return;
            }
        };
        self.sm.commit(cgid, &tree);
        let g = &mut self.groups[group];
        g.epoch += 1;
        g.phase = Phase::Programming;
        g.pending = tree.entries.len();
        g.cgid = Some(cgid);
        let entries: Vec<(usize, TableEntry)> =
            tree.entries.iter().map(|(&s, &e)| (s, e)).collect();
        g.tree = Some(tree);
        for (s, e) in entries {
            self.send_cfg(group, s, cgid, e, tid);
        }
    }

    fn cfg_done(&mut self, group: usize, epoch: u64, rejected: bool) {
        let mgmt = self.f.file.sm.mgmt_latency;
        if rejected {
            self.violations.push(format!(
                "subnet manager: a switch rejected an entry of group {}",
                self.f.groups[group].name
            ));
        }
        let g = &mut self.groups[group];
        if g.epoch != epoch {
            return;
        }
        g.pending = g.pending.saturating_sub(1);
        if g.pending > 0 {
            return;
        }
        match g.phase {
            Phase::Programming => {
                g.phase = Phase::Running;
                let cgid = g.cgid.unwrap_or(0);
                let members: Vec<usize> = g.members.iter().collect();
                let dirty = std::mem::take(&mut g.dirty);
                for node in members {
                    self.at(self.now + mgmt, Ev::NodeStart { node, group, cgid });
                }
                if dirty {
                    self.rebuild(group);
                } else {
                    self.maybe_destroy(group);
                }
            }
            Phase::Quiescing => {
                g.phase = Phase::Draining;
                let e = g.epoch;
                self.at(self.now + self.f.drain, Ev::SmDrained { group, epoch: e });
            }
            Phase::Destroying => g.phase = Phase::Gone,
            _ => {}
        }
    }

    /// Rebuilds every group whose tree uses something the SM now knows is dead.
    fn repair(&mut self) {
        for g in 0..self.groups.len() {
            let broken = self.groups[g]
                .tree
                .as_ref()
                .is_some_and(|t| self.sm.is_broken(t));
            let unreachable = self.groups[g]
                .members
                .iter()
                .any(|m| self.sm.reachable(m).is_err());
            if broken || unreachable {
                self.rebuild(g);
            }
        }
    }

    /// Disables the old tree (entries invalid), drains it for a packet lifetime, reads the
    /// members' TID, programs the new tree at that TID.
    fn rebuild(&mut self, group: usize) {
        match self.groups[group].phase {
            Phase::Running => {}
            Phase::Gone | Phase::Destroying | Phase::Waiting => return,
            _ => {
                self.groups[group].dirty = true;
                return;
            }
        }
        self.rebuilds += 1;
        let Some(tree) = self.groups[group].tree.take() else {
            return;
        };
        let cgid = self.groups[group].cgid.unwrap_or(0);
        self.sm.release(cgid, &tree);
        let alive: Vec<usize> = tree
            .entries
            .keys()
            .copied()
            .filter(|&s| !self.sm.switch_dead(s))
            .collect();
        let g = &mut self.groups[group];
        g.epoch += 1;
        g.phase = Phase::Quiescing;
        g.pending = alive.len();
        if alive.is_empty() {
            g.phase = Phase::Draining;
            let e = g.epoch;
            self.at(self.now + self.f.drain, Ev::SmDrained { group, epoch: e });
            return;
        }
        for s in alive {
            self.send_cfg(group, s, cgid, TableEntry::default(), 0);
        }
    }

    fn maybe_destroy(&mut self, group: usize) {
        let g = &mut self.groups[group];
        if g.phase != Phase::Running || g.done_members < g.members.len() {
            return;
        }
        // Every member is done: destroy the group (entries cleared).
        let Some(tree) = g.tree.take() else {
            g.phase = Phase::Gone;
            return;
        };
        let cgid = g.cgid.unwrap_or(0);
        self.sm.release(cgid, &tree);
        let g = &mut self.groups[group];
        g.epoch += 1;
        g.phase = Phase::Destroying;
        g.pending = tree.entries.len();
        for &s in tree.entries.keys() {
            self.send_cfg(group, s, cgid, TableEntry::default(), 0);
        }
    }

    /// Link failures and repairs the fault list made before cycle `ran_to` (every cycle the
    /// partitions ran), each counted once per link however the fabric is partitioned: a
    /// `link_down` takes a live link down (a `switch_down` takes down each live link of the
    /// switch), a `link_up` brings a dead one back. Faults of one cycle act in list order.
    fn link_faults(&self, ran_to: u64) -> (u64, u64) {
        let t = &self.f.topo;
        let mut acts: Vec<(u64, usize, usize, bool)> = vec![];
        for (i, f) in self.f.faults.iter().enumerate() {
            match *f {
                Fault::LinkDown { link, at, up } => {
                    acts.push((at, i, link, false));
                    if let Some(u) = up {
                        acts.push((u, i, link, true));
                    }
                }
                Fault::SwitchDown { switch, at } => {
                    for &l in t.switch_ports[switch].iter().flatten() {
                        acts.push((at, i, l, false));
                    }
                }
                _ => {}
            }
        }
        acts.sort_by_key(|&(at, i, _, _)| (at, i));
        let mut down = BTreeSet::new();
        let (mut downs, mut ups) = (0, 0);
        for (_, _, l, up) in acts.into_iter().filter(|a| a.0 < ran_to) {
            if up && down.remove(&l) {
                ups += 1;
            } else if !up && down.insert(l) {
                downs += 1;
            }
        }
        (downs, ups)
    }

    pub fn report(&self, mut stats: super::part::Stats, ran_to: u64) -> Report {
        let (downs, ups) = self.link_faults(ran_to);
        for (kind, n) in [("link_down", downs), ("link_up", ups)] {
            if n > 0 {
                stats.faults.insert(kind, n);
            }
        }
        let mut lat: Vec<u64> = self.records.iter().map(|r| r.latency).collect();
        lat.sort_unstable();
        let pick = |q: f64| -> u64 {
            if lat.is_empty() {
                0
            } else {
                lat[(((lat.len() - 1) as f64) * q).round() as usize]
            }
        };
        let mut violations: Vec<String> = self
            .violations
            .iter()
            .take(MAX_VIOLATIONS)
            .cloned()
            .collect();
        if self.violations.len() > MAX_VIOLATIONS {
            violations.push(format!(
                "… and {} more violations",
                self.violations.len() - MAX_VIOLATIONS
            ));
        }
        if self.hang {
            for (gi, g) in self.groups.iter().enumerate() {
                if g.phase != Phase::Gone {
                    let open: Vec<String> = g
                        .open
                        .iter()
                        .filter(|o| o.entry_max.is_some())
                        .map(|o| o.k.to_string())
                        .take(3)
                        .collect();
                    violations.push(format!(
                        "hang: group {} did not finish by cycle {} (SM phase {:?}; open barriers {}; {} of {} members done)",
                        self.f.groups[gi].name,
                        self.end.unwrap_or(self.now),
                        g.phase,
                        if open.is_empty() { "none".to_string() } else { open.join(", ") },
                        g.done_members,
                        g.members.len()
                    ));
                }
            }
        }
        let named = |m: &BTreeMap<&'static str, u64>| -> BTreeMap<String, u64> {
            m.iter().map(|(k, v)| (k.to_string(), *v)).collect()
        };
        let s = Summary {
            name: self.f.file.name.clone(),
            cycles: self.end.unwrap_or(self.now),
            barriers: self.records.len() as u64,
            latency_min: lat.first().copied().unwrap_or(0),
            latency_median: pick(0.5),
            latency_p99: pick(0.99),
            latency_max: lat.last().copied().unwrap_or(0),
            clock_ns: self.f.file.fabric.clock_ns,
            rebuilds: self.rebuilds,
            retries: stats.retries,
            config_ops: self.cfg_ops,
            drops: named(&stats.drops),
            verdicts: stats
                .verdicts
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(code, &n)| {
                    let name = Verdict::from_code(code as u64)
                        .map_or_else(|| format!("verdict {code}"), |v| v.name().to_string());
                    (name, n)
                })
                .collect(),
            faults: named(&stats.faults),
            events: stats.events,
            packets: stats.packets,
            steps: stats.steps,
            safe: violations.is_empty(),
            violations,
        };
        Report {
            records: self.records.clone(),
            summary: s,
        }
    }
}
