//! The subnet manager as a process of the simulation, and the safety checker.
//!
//! The SM talks to switches and nodes only through the management network (`sm.mgmt_latency`
//! each way): configuration writes to a switch's configuration port (answered when the engine
//! answers), traps from switches (a link down, a TID failure), joins, leaves and "done" from
//! nodes, and its questions to the nodes' software (their TID, during a rebuild). The checker
//! reads the log of entries and releases the nodes write as they happen.

use super::{
    class, origin_sm, BitSet, CfgReq, ChunkResult, Ev, Fabric, Fault, Key, Queue, Relay,
    RunOptions, Scheduled, TidAnswer,
};
use crate::collective::{digest, Kind};
use crate::report::{Record, Report, ResultRecord, Summary};
use crate::sm::{SubnetManager, Tree};
use netcoll_models::switch_engine::{CfgOp, TableEntry, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

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
    /// The group's CGIDs (one, or a reduction's pool; empty before its first tree).
    cgids: Vec<u64>,
    tree: Option<Tree>,
    phase: Phase,
    pending: usize,
    epoch: u64,
    dirty: bool,
    /// The members' answers to a rebuild's query.
    answers: Vec<TidAnswer>,
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
    /// A reduction's operation during which the members changed: its results are not checked.
    unchecked: bool,
    /// A reduction: the digest of each chunk's result, as the checker folds it.
    folds: BTreeMap<u64, u64>,
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
                    unchecked: false,
                    folds: BTreeMap::new(),
                },
            );
        }
        &mut self.open[at]
    }
}

pub(crate) struct Control<'a> {
    f: &'a Fabric,
    /// The run's seed (the reductions' contributions) and whether results are kept.
    seed: u64,
    keep_results: bool,
    results: Vec<ResultRecord>,
    results_checked: u64,
    results_unchecked: u64,
    results_relayed: u64,
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
    pub fn new(f: &'a Fabric, opts: &RunOptions) -> Control<'a> {
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
        let slots = if f.config.switch.reduces() {
            f.config.switch.slots
        } else {
            0
        };
        let mut c = Control {
            f,
            seed: opts.seed,
            keep_results: opts.keep_results,
            results: vec![],
            results_checked: 0,
            results_unchecked: 0,
            results_relayed: 0,
            now: 0,
            seq: 0,
            queue: Queue::default(),
            out: vec![],
            sm: SubnetManager::new(f.topo.clone(), f.config.switch.groups).with_slots(slots),
            groups: f
                .groups
                .iter()
                .map(|g| GroupRt {
                    members: g.members.iter().copied().collect(),
                    cgids: vec![],
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
            Ev::SmJoin { group } => self.program(group, &[]),
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
                    self.program(group, &[]);
                }
                for node in members {
                    self.at(self.now + mgmt, Ev::NodeQuery { node, group, epoch });
                }
            }
            Ev::SmTidAnswer {
                group,
                epoch,
                answer,
            } => {
                let g = &mut self.groups[group];
                if g.epoch != epoch || g.phase != Phase::Querying {
                    return;
                }
                // (A member that has left answers no TID.)
                if !answer.tids.is_empty() {
                    g.answers.push(*answer);
                }
                g.pending = g.pending.saturating_sub(1);
                if g.pending == 0 {
                    let tids = self.rebuilt_tids(group);
                    self.program(group, &tids);
                }
            }
            Ev::LogResult {
                group,
                node,
                result,
            } => self.result(group, node, *result),
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
                    .position(|g| g.cgids.contains(&cgid) && g.tree.is_some())
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
            cgid: g.cgids.first().copied().unwrap_or(0),
            barrier: k,
            bytes: match self.f.groups[group].kind {
                Kind::Barrier => 0,
                Kind::Reduce(r) => 8 * r.words,
            },
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
        // It no longer counts in any open barrier (and what a reduction open now computes
        // depends on when the tree changes: it is not checked).
        for o in g.open.iter_mut() {
            o.entered.remove(node);
            o.released.remove(node);
            o.unchecked = true;
        }
        let open: Vec<u64> = g.open.iter().map(|o| o.k).collect();
        for k in open {
            self.barrier_done(group, k);
        }
        self.maybe_destroy(group);
    }

    /// The TIDs to program a rebuilt tree at, one per CGID of the group, from the members'
    /// answers; a member one transaction behind on a reduction's CGID is handed the result it
    /// missed by a member that has it (the new tree holds no retained result to answer its
    /// retry with).
    fn rebuilt_tids(&mut self, group: usize) -> Vec<u64> {
        let mgmt = self.f.file.sm.mgmt_latency;
        let n = self.f.groups[group].pool();
        let answers = std::mem::take(&mut self.groups[group].answers);
        let mut tids = Vec::with_capacity(n);
        for j in 0..n {
            let of: Vec<u64> = answers
                .iter()
                .filter_map(|a| a.tids.get(j).map(|&t| u64::from(t)))
                .collect();
            let tid = self.tree_tid(group, &of);
            tids.push(tid);
            if !matches!(self.f.groups[group].kind, Kind::Reduce(_)) {
                continue;
            }
            let behind = (tid + 3) & 3;
            let donor = answers.iter().find_map(|a| {
                a.last
                    .get(j)
                    .cloned()
                    .flatten()
                    .filter(|(t, _)| u64::from(*t) == behind)
            });
            for a in &answers {
                let node = &a.node;
                if a.tids.get(j).map(|&t| u64::from(t)) != Some(behind) {
                    continue;
                }
                match &donor {
                    Some((t, payload)) => {
                        self.results_relayed += 1;
                        self.at(
                        self.now + mgmt,
                        Ev::NodeRelay {
                            node: *node,
                            group,
                            relay: Box::new(Relay {
                                slot: j,
                                tid: *t,
                                payload: payload.clone(),
                            }),
                        },
                    )
                    }
                    None => self.violations.push(format!(
                        "subnet manager: {} is one transaction behind on CGID {j} of group {}'s pool and no member holds the result it missed",
                        self.f.topo.node_names[*node], self.f.groups[group].name
                    )),
                }
            }
        }
        tids
    }

    /// The TID to program a rebuilt tree at, from the members' TIDs `of`: they are at most
    /// one transaction apart (mod 4), and the tree's is the later one (a member behind it
    /// missed an Exit and will be answered Lag).
    fn tree_tid(&mut self, group: usize, of: &[u64]) -> u64 {
        let v: Vec<u64> = of
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

    /// A member's result of a chunk: compared with the checker's own fold of the members'
    /// contributions (computed once per chunk).
    fn result(&mut self, group: usize, node: usize, res: ChunkResult) {
        let Kind::Reduce(r) = self.f.groups[group].kind else {
            return;
        };
        if !self.groups[group].members.contains(&node) {
            return;
        }
        if self.keep_results {
            self.results.push(ResultRecord {
                group: self.f.groups[group].name.clone(),
                node: self.f.topo.node_names[node].clone(),
                op: res.k,
                chunk: res.chunk,
                words: res
                    .words
                    .as_ref()
                    .map(|p| p.words.clone())
                    .unwrap_or_default(),
                values: match (r.repro, &res.words) {
                    (Some(_), Some(p)) => r.result(&p.words).unwrap_or_default(),
                    _ => vec![],
                },
            });
        }
        let g = &mut self.groups[group];
        let cached = {
            let o = g.open_mut(res.k);
            if o.unchecked {
                self.results_unchecked += 1;
                return;
            }
            o.folds.get(&res.chunk).copied()
        };
        let members: Vec<usize> = g.members.iter().collect();
        let expected = match cached {
            Some(d) => d,
            // SUM and PROD over a floating-point type: the bits depend on the order the
            // switches combined in, so the first member's result is the one every other member
            // must receive, and a SUM's is checked against the error bound of any order.
            None if r.order_dependent() => {
                let Some(d) = res.digest else {
                    self.violations.push(format!(
                        "lost result: {} completed without the chunk's data",
                        self.f.topo.node_names[node]
                    ));
                    return;
                };
                let words = res
                    .words
                    .as_ref()
                    .map(|p| p.words.clone())
                    .unwrap_or_default();
                for (e, got, exact) in
                    r.sum_outside_bound(self.seed, group, &members, res.k, res.chunk, &words)
                {
                    self.violations.push(format!(
                        "wrong result: {} in operation {} of group {}, chunk {}: element {e} is {got}, farther from the exact sum {exact} than any order of additions makes it",
                        self.f.topo.node_names[node], res.k, self.f.groups[group].name, res.chunk
                    ));
                }
                self.groups[group]
                    .open_mut(res.k)
                    .folds
                    .insert(res.chunk, d);
                d
            }
            None => {
                let d = digest(&r.expected_chunk(self.seed, group, &members, res.k, res.chunk));
                self.groups[group]
                    .open_mut(res.k)
                    .folds
                    .insert(res.chunk, d);
                d
            }
        };
        let name = |s: &Self| {
            format!(
                "{} in operation {} of group {}, chunk {}",
                s.f.topo.node_names[node], res.k, s.f.groups[group].name, res.chunk
            )
        };
        match res.digest {
            Some(d) if d == expected => self.results_checked += 1,
            Some(d) => self.violations.push(format!(
                "wrong result: {} received data of digest {d:#018x}, {} {expected:#018x}",
                name(self),
                if r.order_dependent() {
                    "another member of the group received"
                } else {
                    "the fold of the members' contributions has"
                }
            )),
            None => self.violations.push(format!(
                "lost result: {} completed without the chunk's data",
                name(self)
            )),
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

    /// Builds the group's tree and programs it, CGID `j` of the group at `tids[j]` (0 where
    /// `tids` has none).
    fn program(&mut self, group: usize, tids: &[u64]) {
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
        let def = &self.f.groups[group];
        let (n, data) = (def.pool(), matches!(def.kind, Kind::Reduce(_)));
        let tree = self.sm.build_tree(&reachable, policy).and_then(|tree| {
            let keep = &self.groups[group].cgids;
            self.sm
                .allocate_pool(&tree, keep, n, data)
                .map(|c| (tree, c))
        });
        let (tree, cgids) = match tree {
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
        self.sm.commit_pool(&cgids, &tree);
        let g = &mut self.groups[group];
        g.epoch += 1;
        g.phase = Phase::Programming;
        g.pending = tree.entries.len() * cgids.len();
        g.cgids = cgids.clone();
        let entries: Vec<(usize, TableEntry)> =
            tree.entries.iter().map(|(&s, &e)| (s, e)).collect();
        g.tree = Some(tree);
        for (s, e) in entries {
            for (j, &cgid) in cgids.iter().enumerate() {
                let tid = tids.get(j).copied().unwrap_or(0);
                self.send_cfg(group, s, cgid, e, tid);
            }
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
                let cgids = Arc::new(g.cgids.clone());
                let members: Vec<usize> = g.members.iter().collect();
                let dirty = std::mem::take(&mut g.dirty);
                for node in members {
                    let cgids = cgids.clone();
                    self.at(self.now + mgmt, Ev::NodeStart { node, group, cgids });
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
        let cgids = self.groups[group].cgids.clone();
        self.sm.release(&cgids, &tree);
        let alive: Vec<usize> = tree
            .entries
            .keys()
            .copied()
            .filter(|&s| !self.sm.switch_dead(s))
            .collect();
        let g = &mut self.groups[group];
        g.epoch += 1;
        g.phase = Phase::Quiescing;
        g.pending = alive.len() * cgids.len();
        if alive.is_empty() {
            g.phase = Phase::Draining;
            let e = g.epoch;
            self.at(self.now + self.f.drain, Ev::SmDrained { group, epoch: e });
            return;
        }
        for s in alive {
            for &cgid in &cgids {
                self.send_cfg(group, s, cgid, TableEntry::default(), 0);
            }
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
        let cgids = g.cgids.clone();
        self.sm.release(&cgids, &tree);
        let g = &mut self.groups[group];
        g.epoch += 1;
        g.phase = Phase::Destroying;
        g.pending = tree.entries.len() * cgids.len();
        for &s in tree.entries.keys() {
            for &cgid in &cgids {
                self.send_cfg(group, s, cgid, TableEntry::default(), 0);
            }
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
        let [lat_min, lat_median, lat_p99, lat_max] = crate::report::latency_figures(&self.records);
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
            latency_min: lat_min,
            latency_median: lat_median,
            latency_p99: lat_p99,
            latency_max: lat_max,
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
            reductions: self
                .f
                .groups
                .iter()
                .any(|g| matches!(g.kind, Kind::Reduce(_))),
            results_checked: self.results_checked,
            results_unchecked: self.results_unchecked,
            results_relayed: self.results_relayed,
            algo: String::new(),
            messages: 0,
            answers: 0,
            rnr_naks: 0,
            safe: violations.is_empty(),
            violations,
        };
        Report {
            records: self.records.clone(),
            summary: s,
            results: self.results.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::contribution;
    use netcoll_models::config::Config;

    /// The checker, fed by hand: a right result counts, a wrong one and one without data are
    /// violations, and after a member leaves, the operation open then is not checked.
    #[test]
    fn the_checker_catches_wrong_and_lost_results() {
        let text = "[fabric]\ntopology = 'fat_tree'\nk = 4\nlevels = 2\n[switch]\nmax_plen = 8\n[[group]]\nmembers = [0, 1, 2]\ncollective = 'allreduce'\nop = 'SUM'\ndtype = 'u64'\nwords = 2\noperations = 2\n";
        let f = Fabric::new(crate::parse(text).unwrap(), Config::default()).unwrap();
        let seed = 9;
        let mut c = Control::new(
            &f,
            &RunOptions {
                seed,
                ..Default::default()
            },
        );
        let mut seq = 0;
        let mut log = |c: &mut Control, t: u64, ev: Ev| {
            seq += 1;
            c.push(Scheduled {
                key: Key::new(t, class::LOG_RELEASE, 0, seq),
                ev,
            });
            c.window(t + 1);
        };
        // The sum of the three members' words, worked out here.
        let sum = |k: u64| -> Vec<u64> {
            (0..2)
                .map(|i| (0..3).fold(0u64, |a, n| a.wrapping_add(contribution(seed, 0, n, k, i))))
                .collect()
        };
        let result = |k: u64, d: Option<u64>| ChunkResult {
            k,
            chunk: 0,
            digest: d,
            words: None,
        };
        for node in 0..3 {
            log(
                &mut c,
                10,
                Ev::LogEnter {
                    group: 0,
                    node,
                    k: 0,
                },
            );
        }
        let right = digest(&sum(0));
        let wrong = digest(&[sum(0)[0], sum(0)[1] ^ 1]);
        for (node, d) in [(0, Some(right)), (1, Some(wrong)), (2, None)] {
            let result = Box::new(result(0, d));
            log(
                &mut c,
                20,
                Ev::LogResult {
                    group: 0,
                    node,
                    result,
                },
            );
        }
        assert_eq!(c.results_checked, 1);
        assert_eq!(c.violations.len(), 2, "{:?}", c.violations);
        assert!(c.violations[0].starts_with("wrong result: h1 in operation 0 of group g0, chunk 0"));
        assert!(c.violations[1].starts_with("lost result: h2 in operation 0"));
        // Operation 1: node 2 leaves while it is open.
        log(
            &mut c,
            30,
            Ev::LogEnter {
                group: 0,
                node: 0,
                k: 1,
            },
        );
        c.member_gone(0, 2);
        let result = Box::new(result(1, Some(0)));
        log(
            &mut c,
            40,
            Ev::LogResult {
                group: 0,
                node: 0,
                result,
            },
        );
        assert_eq!((c.results_checked, c.results_unchecked), (1, 1));
        assert_eq!(c.violations.len(), 2);
    }
}
