//! # Subnet manager
//!
//! Plain Rust, no hardware: it knows the topology and which links and switches it has been
//! told are down, builds one spanning tree per collective group, allocates the group's CGID
//! and computes the table entries it writes through each switch's configuration port. The
//! timing of what it does (configuration transactions, traps, queries of the nodes) is the
//! simulator's ([`crate::sim`]); this module is the decisions.
//!
//! ## Trees
//!
//! 1. The tree joins the switches the members are attached to (their *edge* switches) over
//!    live links and switches only.
//! 2. The root is the live switch whose largest hop distance to an edge switch is smallest;
//!    ties go to the higher switch (a spine or core), then, under `least_congested`, to the
//!    switch that roots the fewest groups, then to the lowest index.
//! 3. From the root, switches are reached breadth first; each takes as parent a neighbour one
//!    hop nearer the root: the first by port under `shortest`, the one whose link and switch
//!    carry the fewest groups under `least_congested` (so groups spread over cores and links).
//!    The tree is the union of the paths from the edge switches to the root.
//! 4. Each tree switch's entry: `parent` = its port toward its tree parent (none at the root),
//!    `children` = its ports toward tree children and toward member nodes. Every tree switch
//!    has a child (it lies on a path to a member), so the engine never sees a zero-child entry.
//!
//! **Deadlock freedom.** A group's packets travel only on its tree's edges, and a tree has one
//! route between any pair of members, so no group's traffic can cycle. Between groups, the
//! one shared resource that could close a cycle of waits is a switch's engine, which waits
//! for its output queue; the switch's replicator never waits for an egress queue (a copy that
//! finds its queue full is dropped and counted, and the CSM's retries recover it). So every
//! wait ends at an engine that drains at one packet per cycle: no cycle of waits can form.
//!
//! ## Unicast routes
//!
//! 5. When the NICs run collectives themselves (`fabric run --algo nic` or `host`, see
//!    [`crate::offload`]), their messages are unicast, and the SM writes each switch's
//!    forwarding table for the members of the groups that run together along **one** tree
//!    built by rules 1–3 over all of them (for a group alone, its own tree) ([`tree_routes`]):
//!    at switch `s`, a message for member `m` leaves by the port of the tree's one path from
//!    `s` to `m`. Every route goes up toward that tree's root and then down, never down then
//!    up, so no cycle of links waiting for each other can form — one tree for every group,
//!    since two groups' trees with different roots could together close one — and every route
//!    ends at a receive port that takes its messages whatever its own transmit port waits for
//!    (the NIC is full duplex): the switches forward losslessly, with back-pressure, and
//!    cannot deadlock.

//! ## CGIDs
//!
//! A group's packets carry one CGID on every switch of its tree, so the SM allocates the
//! lowest CGID free on every one of them. Exhaustion is an error that names the switch whose
//! table is full, or says that no single CGID is free on all of them at once.
//!
//! A reduction takes a **pool** of CGIDs (one per chunk in flight, see
//! [`crate::collective`]), all among those with data memory, below the engines' `slots`.
//! On switches that reduce, a barrier group takes its CGID from `slots` up (so that it
//! leaves the data memory to reductions) and from below only when those are gone. Running
//! out of CGIDs with data memory is an error of its own, which says how many the group needs.

use crate::topology::{End, Topology};
use netcoll_models::switch_engine::TableEntry;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A switch's way to its tree parent: (its port, the parent, the link).
type Hop = (usize, usize, usize);

/// How the SM builds a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Shortest,
    LeastCongested,
}

impl Policy {
    /// Parses a policy name.
    pub fn parse(s: &str) -> Option<Policy> {
        match s {
            "shortest" => Some(Policy::Shortest),
            "least_congested" => Some(Policy::LeastCongested),
            _ => None,
        }
    }
}

/// A spanning tree of a group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    pub root: usize,
    /// Switch → its entry (valid).
    pub entries: BTreeMap<usize, TableEntry>,
    /// Links the tree uses (switch-switch and switch-node).
    pub links: BTreeSet<usize>,
}

/// What the SM could not do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SmError {
    #[error("node {node} is unreachable: {why}")]
    Unreachable { node: String, why: String },
    #[error("no CGID for the group: switch {switch}'s table is full ({groups} of {groups} groups in use)")]
    TableFull { switch: String, groups: usize },
    #[error("no CGID for the group: every switch of its tree has a free entry, but no CGID is free on all {switches} of them at once ({detail})")]
    NoCommonCgid { switches: usize, detail: String },
    #[error("no CGIDs with data memory for the reduction: it needs {needed} (its window) free on every switch of its tree among the {slots} groups with data memory ([switch] slots), and {free} are ({detail})")]
    NoDataCgid {
        needed: usize,
        slots: usize,
        free: usize,
        detail: String,
    },
    #[error("a group needs at least one member")]
    NoMembers,
}

/// The subnet manager's view of the fabric.
#[derive(Clone, Debug)]
pub struct SubnetManager {
    topo: std::sync::Arc<Topology>,
    groups: usize,
    /// CGIDs `0 .. slots` have data memory (0: the switches do not reduce).
    slots: usize,
    dead_links: BTreeSet<usize>,
    dead_switches: BTreeSet<usize>,
    used: Vec<BTreeSet<u64>>,
    link_load: Vec<u32>,
    switch_load: Vec<u32>,
    root_load: Vec<u32>,
}

impl SubnetManager {
    /// A manager for `topo` whose switches have `groups` table entries each.
    pub fn new(topo: std::sync::Arc<Topology>, groups: usize) -> SubnetManager {
        let ns = topo.switch_names.len();
        let nl = topo.links.len();
        SubnetManager {
            topo,
            groups,
            slots: 0,
            dead_links: BTreeSet::new(),
            dead_switches: BTreeSet::new(),
            used: vec![BTreeSet::new(); ns],
            link_load: vec![0; nl],
            switch_load: vec![0; ns],
            root_load: vec![0; ns],
        }
    }

    /// The same, for switches that reduce: CGIDs `0 .. slots` have data memory.
    pub fn with_slots(mut self, slots: usize) -> SubnetManager {
        self.slots = slots.min(self.groups);
        self
    }

    /// Marks a link down (or up again).
    pub fn set_link(&mut self, link: usize, up: bool) {
        if up {
            self.dead_links.remove(&link);
        } else {
            self.dead_links.insert(link);
        }
    }

    /// Marks a switch failed (for good).
    pub fn kill_switch(&mut self, s: usize) {
        self.dead_switches.insert(s);
    }

    /// Whether a tree uses a dead link or switch.
    pub fn is_broken(&self, t: &Tree) -> bool {
        t.links.iter().any(|l| self.dead_links.contains(l))
            || t.entries.keys().any(|s| self.dead_switches.contains(s))
    }

    /// Whether a switch is known to be dead.
    pub fn switch_dead(&self, s: usize) -> bool {
        self.dead_switches.contains(&s)
    }

    /// Whether a node can be reached at all (its link and edge switch are alive).
    pub fn reachable(&self, node: usize) -> Result<(), SmError> {
        let (s, port) = self.topo.node_attachment(node);
        let name = self.topo.node_names[node].clone();
        if self.dead_switches.contains(&s) {
            return Err(SmError::Unreachable {
                node: name,
                why: format!("its switch {} has failed", self.topo.switch_names[s]),
            });
        }
        if self.dead_links.contains(&self.topo.node_link[node]) {
            return Err(SmError::Unreachable {
                node: name,
                why: format!("its link {}:{port} is down", self.topo.switch_names[s]),
            });
        }
        Ok(())
    }

    fn alive(&self, s: usize) -> bool {
        !self.dead_switches.contains(&s)
    }

    /// Hop distances from `r` over live switches and links.
    fn bfs(&self, r: usize) -> Vec<Option<u64>> {
        self.bfs_within(r, u64::MAX)
    }

    /// Hop distances from `r` over live switches and links, up to `limit` hops (switches
    /// farther away are `None`).
    fn bfs_within(&self, r: usize, limit: u64) -> Vec<Option<u64>> {
        let mut dist = vec![None; self.topo.switch_names.len()];
        dist[r] = Some(0);
        let mut q = VecDeque::from([r]);
        while let Some(s) = q.pop_front() {
            let d = dist[s].unwrap_or(0);
            if d >= limit {
                continue;
            }
            for (_, t, _, l) in self.topo.switch_neighbours(s) {
                if dist[t].is_none() && self.alive(t) && !self.dead_links.contains(&l) {
                    dist[t] = Some(d + 1);
                    q.push_back(t);
                }
            }
        }
        dist
    }

    /// Builds the tree of `members` (node indices) under `policy` (rules 1–4 of the module
    /// docs).
    pub fn build_tree(&self, members: &[usize], policy: Policy) -> Result<Tree, SmError> {
        if members.is_empty() {
            return Err(SmError::NoMembers);
        }
        for &m in members {
            self.reachable(m)?;
        }
        let edges: BTreeSet<usize> = members
            .iter()
            .map(|&m| self.topo.node_attachment(m).0)
            .collect();
        // Rule 2: the root: the least key over the live switches. Candidates are tried in
        // the order of the key's tail (height, load, index), so a later one wins only with a
        // strictly smaller eccentricity: its search stops a hop short of the best so far,
        // and a lower bound (its distance to two far-apart member switches) skips most
        // without a search. The result is the plain minimum over every switch.
        let tail = |r: usize| {
            let load = match policy {
                Policy::Shortest => 0,
                Policy::LeastCongested => self.root_load[r],
            };
            (std::cmp::Reverse(self.topo.switch_height[r]), load, r)
        };
        let mut candidates: Vec<usize> = (0..self.topo.switch_names.len())
            .filter(|&s| self.alive(s))
            .collect();
        candidates.sort_by_key(|&r| tail(r));
        let far_apart = {
            let e0 = edges.iter().next().copied().unwrap_or(0);
            let d0 = self.bfs(e0);
            let e1 = edges
                .iter()
                .copied()
                .max_by_key(|&e| (d0[e], std::cmp::Reverse(e)))
                .unwrap_or(e0);
            [d0, self.bfs(e1)]
        };
        let mut best: Option<(u64, usize)> = None;
        for r in candidates {
            let Some(lower) = far_apart
                .iter()
                .map(|d| d[r])
                .collect::<Option<Vec<u64>>>()
                .and_then(|v| v.into_iter().max())
            else {
                continue;
            };
            if best.is_some_and(|(e, _)| lower >= e) {
                continue;
            }
            let limit = best.map_or(u64::MAX, |(e, _)| e - 1);
            let dist = self.bfs_within(r, limit);
            let Some(ecc) = edges.iter().map(|&e| dist[e]).collect::<Option<Vec<u64>>>() else {
                continue;
            };
            best = Some((ecc.into_iter().max().unwrap_or(0), r));
        }
        let Some((_, root)) = best else {
            let m = members[0];
            return Err(SmError::Unreachable {
                node: self.topo.node_names[m].clone(),
                why: "no live switch reaches every member's switch".to_string(),
            });
        };
        let dist = self.bfs(root);
        // Rule 3: each switch's parent, one hop nearer the root.
        let mut parent: BTreeMap<usize, Hop> = BTreeMap::new();
        let mut tree_sw: BTreeSet<usize> = BTreeSet::new();
        for &e in &edges {
            let mut s = e;
            while s != root && !parent.contains_key(&s) {
                let d = dist[s].unwrap_or(0);
                let mut choice: Option<((u32, usize), Hop)> = None;
                for (port, t, _, l) in self.topo.switch_neighbours(s) {
                    if self.dead_links.contains(&l)
                        || !self.alive(t)
                        || dist[t] != Some(d.wrapping_sub(1))
                    {
                        continue;
                    }
                    let cost = match policy {
                        Policy::Shortest => 0,
                        Policy::LeastCongested => self.link_load[l] + self.switch_load[t],
                    };
                    if choice.is_none_or(|(c, _)| (cost, port) < c) {
                        choice = Some(((cost, port), (port, t, l)));
                    }
                }
                let Some((_, pick)) = choice else {
                    unreachable!("a switch at distance d > 0 has a neighbour at d - 1");
                };
                parent.insert(s, pick);
                tree_sw.insert(s);
                s = pick.1;
            }
            tree_sw.insert(s);
        }
        tree_sw.insert(root);
        // Rule 4: the entries.
        let mut entries: BTreeMap<usize, TableEntry> = tree_sw
            .iter()
            .map(|&s| {
                (
                    s,
                    TableEntry {
                        valid: true,
                        parent: 0,
                        children: 0,
                        is_root: s == root,
                    },
                )
            })
            .collect();
        let mut links = BTreeSet::new();
        for (&s, &(port, p, l)) in &parent {
            links.insert(l);
            let back = match self.topo.links[l].other(End::Switch(s, port)) {
                End::Switch(_, bp) => bp,
                End::Node(_) => unreachable!("parents are switches"),
            };
            if let Some(e) = entries.get_mut(&s) {
                e.parent = port as u64;
            }
            if let Some(e) = entries.get_mut(&p) {
                e.children |= 1 << back;
            }
        }
        for &m in members {
            let (s, port) = self.topo.node_attachment(m);
            links.insert(self.topo.node_link[m]);
            if let Some(e) = entries.get_mut(&s) {
                e.children |= 1 << port;
            }
        }
        Ok(Tree {
            root,
            entries,
            links,
        })
    }

    /// The lowest CGID free on every switch of `tree`, `keep` first if it is free everywhere
    /// (a rebuilt group keeps its CGID when it can).
    pub fn allocate(&self, tree: &Tree, keep: Option<u64>) -> Result<u64, SmError> {
        let keep: Vec<u64> = keep.into_iter().collect();
        Ok(self.allocate_pool(tree, &keep, 1, false)?[0])
    }

    /// `n` CGIDs free on every switch of `tree`: those of `keep` that still are (a rebuilt
    /// group keeps its CGIDs when it can), then the lowest free ones. With `data` (a
    /// reduction's pool) only CGIDs with data memory; without, on switches that reduce, the
    /// others first (see "CGIDs" above).
    pub fn allocate_pool(
        &self,
        tree: &Tree,
        keep: &[u64],
        n: usize,
        data: bool,
    ) -> Result<Vec<u64>, SmError> {
        let free = |c: u64| tree.entries.keys().all(|&s| !self.used[s].contains(&c));
        let (groups, slots) = (self.groups as u64, self.slots as u64);
        let limit = if data { slots } else { groups };
        let mut got: Vec<u64> = keep
            .iter()
            .copied()
            .filter(|&c| c < limit && free(c))
            .take(n)
            .collect();
        if got.len() == n {
            return Ok(got);
        }
        for &s in tree.entries.keys() {
            if self.used[s].len() + n - got.len() > self.groups {
                return Err(SmError::TableFull {
                    switch: self.topo.switch_names[s].clone(),
                    groups: self.groups,
                });
            }
        }
        let order: Vec<u64> = if data {
            (0..slots).collect()
        } else {
            (slots..groups).chain(0..slots).collect()
        };
        for c in order {
            if got.len() == n {
                break;
            }
            if !got.contains(&c) && free(c) {
                got.push(c);
            }
        }
        if got.len() == n {
            return Ok(got);
        }
        let detail = tree
            .entries
            .keys()
            .take(4)
            .map(|&s| format!("{} uses {}", self.topo.switch_names[s], self.used[s].len()))
            .collect::<Vec<_>>()
            .join(", ");
        Err(if data {
            SmError::NoDataCgid {
                needed: n,
                slots: self.slots,
                free: got.len(),
                detail,
            }
        } else {
            SmError::NoCommonCgid {
                switches: tree.entries.len(),
                detail,
            }
        })
    }

    /// Records that `cgid` is in use on `tree`'s switches.
    pub fn commit(&mut self, cgid: u64, tree: &Tree) {
        self.commit_pool(&[cgid], tree);
    }

    /// Records that a group's CGIDs are in use on `tree`'s switches (its tree's load counts
    /// once).
    pub fn commit_pool(&mut self, cgids: &[u64], tree: &Tree) {
        for &s in tree.entries.keys() {
            self.used[s].extend(cgids.iter().copied());
            self.switch_load[s] += 1;
        }
        for &l in &tree.links {
            self.link_load[l] += 1;
        }
        self.root_load[tree.root] += 1;
    }

    /// Forgets a group's CGIDs on `tree`'s switches (destroy, or before a rebuild).
    pub fn release(&mut self, cgids: &[u64], tree: &Tree) {
        for &s in tree.entries.keys() {
            for c in cgids {
                self.used[s].remove(c);
            }
            self.switch_load[s] = self.switch_load[s].saturating_sub(1);
        }
        for &l in &tree.links {
            self.link_load[l] = self.link_load[l].saturating_sub(1);
        }
        self.root_load[tree.root] = self.root_load[tree.root].saturating_sub(1);
    }
}

/// The unicast forwarding tables along `tree` (rule 5): `routes[s][j]` is the port by which
/// switch `s` forwards a message for `hosts[j]`, for the switches of the tree (`None` at the
/// others, and for a member the tree does not reach).
pub fn tree_routes(topo: &Topology, tree: &Tree, hosts: &[usize]) -> Vec<Vec<Option<usize>>> {
    let mut routes = vec![vec![None; hosts.len()]; topo.switch_names.len()];
    // The tree's links at each end.
    let mut at: BTreeMap<End, Vec<usize>> = BTreeMap::new();
    for &l in &tree.links {
        at.entry(topo.links[l].a).or_default().push(l);
        at.entry(topo.links[l].b).or_default().push(l);
    }
    for (j, &h) in hosts.iter().enumerate() {
        // Breadth first from the member: each switch reached through a port forwards there.
        let mut queue = VecDeque::from([End::Node(h)]);
        let mut seen = BTreeSet::from([End::Node(h)]);
        while let Some(e) = queue.pop_front() {
            let ends: Vec<End> = match e {
                End::Node(_) => vec![e],
                End::Switch(s, _) => (0..topo.switch_ports[s].len())
                    .map(|p| End::Switch(s, p))
                    .collect(),
            };
            for here in ends {
                for &l in at.get(&here).map_or(&[][..], |v| &v[..]) {
                    let there = topo.links[l].other(here);
                    if let End::Switch(s, p) = there {
                        if seen.insert(End::Switch(s, 0)) {
                            routes[s][j] = Some(p);
                            queue.push_back(End::Switch(s, 0));
                        }
                    }
                }
            }
        }
    }
    routes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn fat_tree(k: usize, levels: usize) -> Arc<Topology> {
        let text = format!("[fabric]\ntopology='fat_tree'\nk={k}\nlevels={levels}");
        let f: crate::spec::FabricFile = toml::from_str(&text).unwrap();
        Arc::new(Topology::build(&f.fabric, 16).unwrap())
    }

    /// The root rule 2 asks for, the naive way: a full search from every live switch, the
    /// least (eccentricity over the members' switches, taller first, load, index).
    fn naive_root(sm: &SubnetManager, members: &[usize], policy: Policy) -> Option<usize> {
        if members.iter().any(|&m| sm.reachable(m).is_err()) {
            return None;
        }
        let edges: BTreeSet<usize> = members
            .iter()
            .map(|&m| sm.topo.node_attachment(m).0)
            .collect();
        (0..sm.topo.switch_names.len())
            .filter(|&r| sm.alive(r))
            .filter_map(|r| {
                let d = sm.bfs(r);
                let ecc = edges.iter().map(|&e| d[e]).collect::<Option<Vec<u64>>>()?;
                let load = match policy {
                    Policy::Shortest => 0,
                    Policy::LeastCongested => sm.root_load[r],
                };
                Some((
                    ecc.into_iter().max().unwrap_or(0),
                    std::cmp::Reverse(sm.topo.switch_height[r]),
                    load,
                    r,
                ))
            })
            .min()
            .map(|k| k.3)
    }

    #[test]
    fn the_root_is_the_naive_minimum() {
        use rand::{Rng, SeedableRng};
        for (text, seed) in [
            ("topology='fat_tree'\nk=4\nlevels=3", 1u64),
            ("topology='fat_tree'\nk=6\nlevels=3\nhosts=40", 2),
            ("topology='fat_tree'\nk=8\nlevels=2", 3),
            ("topology='dragonfly'\na=4\np=2\nh=2", 4),
        ] {
            let f: crate::spec::FabricFile = toml::from_str(&format!("[fabric]\n{text}")).unwrap();
            let t = Arc::new(Topology::build(&f.fabric, 16).unwrap());
            let mut rng = rand_pcg::Pcg32::seed_from_u64(seed);
            let mut sm = SubnetManager::new(t.clone(), 16);
            let mut rooted = 0;
            for round in 0..40 {
                let n = t.node_names.len();
                let size = rng.gen_range(1..=n);
                let mut members: Vec<usize> = (0..n).filter(|_| rng.gen_bool(0.5)).collect();
                members.truncate(size);
                if members.is_empty() {
                    members.push(rng.gen_range(0..n));
                }
                let policy = if round % 2 == 0 {
                    Policy::Shortest
                } else {
                    Policy::LeastCongested
                };
                let want = naive_root(&sm, &members, policy);
                let got = sm.build_tree(&members, policy).ok().map(|x| x.root);
                assert_eq!(got, want, "{text}, seed {seed}, round {round}: {members:?}");
                rooted += usize::from(got.is_some());
                if let Ok(tree) = sm.build_tree(&members, policy) {
                    sm.commit(round, &tree);
                }
                // Now and then a link or a switch fails (trees must avoid them).
                if round % 7 == 6 {
                    let l = rng.gen_range(0..t.links.len());
                    sm.set_link(l, false);
                }
                if round == 20 {
                    sm.kill_switch(rng.gen_range(0..t.switch_names.len()));
                }
            }
            assert!(
                rooted >= 20,
                "{text}: only {rooted} of 40 groups had a tree"
            );
        }
    }

    #[test]
    fn leaf_spine_tree_is_rooted_at_a_spine_with_two_levels() {
        let t = fat_tree(4, 2);
        let sm = SubnetManager::new(t.clone(), 16);
        // Nodes 0 and 2 sit on leaf0 and leaf1 (two per leaf).
        let tree = sm.build_tree(&[0, 2], Policy::Shortest).unwrap();
        assert_eq!(t.switch_names[tree.root], "spine0");
        assert_eq!(tree.entries.len(), 3);
        let leaf0 = &tree.entries[&0];
        // leaf0: node 0 on port 0 is its child, its parent is spine0 on port 2.
        assert_eq!(
            (leaf0.parent, leaf0.children, leaf0.is_root),
            (2, 0b1, false)
        );
        // spine0's ports 0 and 1 go to leaf0 and leaf1.
        assert_eq!(tree.entries[&tree.root].children, 0b11);
        // Members on one leaf: the leaf is the root.
        let tree = sm.build_tree(&[0, 1], Policy::Shortest).unwrap();
        assert_eq!(
            (t.switch_names[tree.root].as_str(), tree.entries.len()),
            ("leaf0", 1)
        );
    }

    #[test]
    fn least_congested_spreads_roots_and_a_dead_link_is_avoided() {
        let t = fat_tree(4, 2);
        let mut sm = SubnetManager::new(t.clone(), 16);
        let all: Vec<usize> = (0..8).collect();
        let a = sm.build_tree(&all, Policy::LeastCongested).unwrap();
        sm.commit(0, &a);
        let b = sm.build_tree(&all, Policy::LeastCongested).unwrap();
        assert_ne!(a.root, b.root, "the second group goes to the other spine");
        // leaf0's uplink to spine0 (port 2) fails: a shortest tree now roots at spine1.
        let l = t.switch_ports[0][2].unwrap();
        sm.set_link(l, false);
        assert!(sm.is_broken(&a));
        let c = sm.build_tree(&all, Policy::Shortest).unwrap();
        assert_eq!(t.switch_names[c.root], "spine1");
        assert!(!c.links.contains(&l));
    }

    #[test]
    fn cgid_exhaustion_names_the_switch() {
        let t = fat_tree(4, 2);
        let mut sm = SubnetManager::new(t, 2);
        let tree = sm.build_tree(&[0, 1], Policy::Shortest).unwrap();
        for c in 0..2 {
            let got = sm.allocate(&tree, None).unwrap();
            assert_eq!(got, c);
            sm.commit(got, &tree);
        }
        let e = sm.allocate(&tree, None).unwrap_err().to_string();
        assert_eq!(
            e,
            "no CGID for the group: switch leaf0's table is full (2 of 2 groups in use)"
        );
    }

    /// Reductions take their pools below `slots`, barriers from `slots` up first; a pool
    /// that does not fit says how many it needs and how many are free.
    #[test]
    fn pools_take_the_cgids_with_data_memory() {
        let t = fat_tree(4, 2);
        let mut sm = SubnetManager::new(t, 8).with_slots(4);
        let tree = sm.build_tree(&[0, 1], Policy::Shortest).unwrap();
        let barrier = sm.allocate(&tree, None).unwrap();
        assert_eq!(barrier, 4);
        sm.commit(barrier, &tree);
        let pool = sm.allocate_pool(&tree, &[], 3, true).unwrap();
        assert_eq!(pool, vec![0, 1, 2]);
        sm.commit_pool(&pool, &tree);
        // One CGID with data memory is left (3).
        let e = sm
            .allocate_pool(&tree, &[], 2, true)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "no CGIDs with data memory for the reduction: it needs 2 (its window) free on \
                 every switch of its tree among the 4 groups with data memory ([switch] slots), \
                 and 1 are ("
            ),
            "{e}"
        );
        // A rebuild keeps what it can, in its order.
        sm.release(&pool, &tree);
        assert_eq!(
            sm.allocate_pool(&tree, &[2, 0], 2, true).unwrap(),
            vec![2, 0]
        );
        assert_eq!(
            sm.allocate_pool(&tree, &[2, 7], 2, true).unwrap(),
            vec![2, 0]
        );
    }
}
