//! # Topologies
//!
//! The graph a fabric file describes: switches with numbered ports, compute nodes with one
//! port each, and full-duplex links between them with a latency, a bandwidth and a buffer
//! depth at each end. Three ways to write it:
//!
//! - **`fat_tree`**, radix `k` (even): `levels = 2` is a leaf-spine, `k` leaves with `k/2` nodes
//!   each on ports `0..k/2` and an uplink to every one of the `k/2` spines on ports `k/2..k`
//!   (spine `j`'s port `i` goes to leaf `i`): `k²/2` nodes. `levels = 3` is Al-Fares' k-ary fat
//!   tree: `k` pods of `k/2` edge and `k/2` aggregation switches, `(k/2)²` cores; edge ports
//!   `0..k/2` to nodes and `k/2..k` to the pod's aggregation switches, aggregation ports
//!   `0..k/2` to the pod's edges and `k/2..k` to cores, core `(i, j)` (named `core{i*k/2+j}`)
//!   port `p` to pod `p`'s aggregation switch `i` (its port `k/2 + j`): `k³/4` nodes.
//! - **`dragonfly`** `(a, p, h)`: `g = a·h + 1` groups of `a` routers; router ports `0..p` to
//!   nodes, `p..p+a-1` to the other routers of its group (all to all), `p+a-1..p+a-1+h` global;
//!   group `G`'s global link `j` (router `j / h`, port `p + a - 1 + j % h`) goes to group
//!   `(G + j + 1) mod g`, arriving as that group's global link `g - 2 - j`.
//! - **`explicit`**: `switches`, `nodes` and `[[fabric.link]]` with `a` / `b` each
//!   `"switch:port"` or a node name.
//!
//! `hosts = N` keeps only the first `N` node positions of a generated topology (in switch and
//! port order). Nodes are numbered in that order and named `h0, h1, …`.
//!
//! Validation (one-line errors naming the key): a radix above the engine's, a port used twice,
//! a port beyond the radix, a node on two links or on none, unknown names, zero latency or
//! bandwidth or credits, and a disconnected graph.

use crate::spec::FabricSection;
use crate::FabricError;
use std::collections::BTreeMap;

/// One end of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum End {
    /// Switch index, port.
    Switch(usize, usize),
    /// Node index (a node has one port).
    Node(usize),
}

/// A full-duplex link; each direction has the same figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub a: End,
    pub b: End,
    /// Cycles from the last byte leaving one end to its arrival at the other.
    pub latency: u64,
    /// Bytes per cycle.
    pub bandwidth: u64,
    /// Input buffer depth at the receiving end, packets: the sender's credits.
    pub credits: u64,
}

impl Link {
    /// The end opposite `e`.
    pub fn other(&self, e: End) -> End {
        if self.a == e {
            self.b
        } else {
            self.a
        }
    }
}

/// The validated graph.
#[derive(Clone, Debug)]
pub struct Topology {
    pub switch_names: Vec<String>,
    /// Height of each switch in its topology (0 = attached to nodes; a spine or core is
    /// higher). The SM prefers high roots.
    pub switch_height: Vec<u32>,
    pub node_names: Vec<String>,
    pub links: Vec<Link>,
    /// `switch_ports[s][port]` = the link on that port.
    pub switch_ports: Vec<Vec<Option<usize>>>,
    /// `node_link[n]` = the node's link.
    pub node_link: Vec<usize>,
}

fn invalid(key: &str, value: impl ToString, why: impl ToString) -> FabricError {
    FabricError::Invalid {
        key: key.to_string(),
        value: value.to_string(),
        why: why.to_string(),
    }
}

/// A link as written: its ends, its optional latency, bandwidth and credits, and its key.
type Wire = (End, End, Option<u64>, Option<u64>, Option<u64>, String);

struct Builder {
    switch_names: Vec<String>,
    switch_height: Vec<u32>,
    node_names: Vec<String>,
    links: Vec<Wire>,
}

impl Builder {
    fn switch(&mut self, name: String, height: u32) -> usize {
        self.switch_names.push(name);
        self.switch_height.push(height);
        self.switch_names.len() - 1
    }
    fn link(&mut self, a: End, b: End) {
        let key = format!("fabric.link[{}]", self.links.len());
        self.links.push((a, b, None, None, None, key));
    }
}

impl Topology {
    /// Builds and validates the topology of `[fabric]`; `engine_radix` is the switch engine's
    /// port count.
    pub fn build(f: &FabricSection, engine_radix: usize) -> Result<Topology, FabricError> {
        let mut b = Builder {
            switch_names: vec![],
            switch_height: vec![],
            node_names: vec![],
            links: vec![],
        };
        let need = |v: Option<usize>, key: &str| {
            v.ok_or_else(|| invalid(key, "(absent)", "required by this topology"))
        };
        match f.topology.as_str() {
            "fat_tree" => {
                let k = need(f.k, "fabric.k")?;
                if k < 2 || k % 2 != 0 {
                    return Err(invalid("fabric.k", k, "must be even and at least 2"));
                }
                if k > engine_radix {
                    return Err(invalid(
                        "fabric.k",
                        k,
                        format!(
                            "above the switch engine's radix {engine_radix} (set [switch] radix)"
                        ),
                    ));
                }
                let levels = need(f.levels, "fabric.levels")?;
                let h = k / 2;
                let mut host_slots: Vec<End> = vec![];
                match levels {
                    2 => {
                        let leaves: Vec<usize> =
                            (0..k).map(|i| b.switch(format!("leaf{i}"), 0)).collect();
                        let spines: Vec<usize> =
                            (0..h).map(|j| b.switch(format!("spine{j}"), 1)).collect();
                        for (i, &l) in leaves.iter().enumerate() {
                            for port in 0..h {
                                host_slots.push(End::Switch(l, port));
                            }
                            for (j, &s) in spines.iter().enumerate() {
                                b.link(End::Switch(l, h + j), End::Switch(s, i));
                            }
                        }
                    }
                    3 => {
                        let mut edges = vec![];
                        let mut aggs = vec![];
                        for pod in 0..k {
                            edges.push(
                                (0..h)
                                    .map(|i| b.switch(format!("edge{}", pod * h + i), 0))
                                    .collect::<Vec<_>>(),
                            );
                            aggs.push(
                                (0..h)
                                    .map(|i| b.switch(format!("agg{}", pod * h + i), 1))
                                    .collect::<Vec<_>>(),
                            );
                        }
                        let cores: Vec<usize> = (0..h * h)
                            .map(|c| b.switch(format!("core{c}"), 2))
                            .collect();
                        for pod in 0..k {
                            for (e, &edge) in edges[pod].iter().enumerate() {
                                for port in 0..h {
                                    host_slots.push(End::Switch(edge, port));
                                }
                                for (a, &agg) in aggs[pod].iter().enumerate() {
                                    b.link(End::Switch(edge, h + a), End::Switch(agg, e));
                                }
                            }
                            for (a, &agg) in aggs[pod].iter().enumerate() {
                                for j in 0..h {
                                    b.link(
                                        End::Switch(agg, h + j),
                                        End::Switch(cores[a * h + j], pod),
                                    );
                                }
                            }
                        }
                    }
                    other => return Err(invalid("fabric.levels", other, "must be 2 or 3")),
                }
                attach_hosts(&mut b, &host_slots, f.hosts)?;
            }
            "dragonfly" => {
                let a = need(f.a, "fabric.a")?;
                let p = need(f.p, "fabric.p")?;
                let h = need(f.h, "fabric.h")?;
                for (key, v) in [("fabric.a", a), ("fabric.p", p), ("fabric.h", h)] {
                    if v == 0 {
                        return Err(invalid(key, v, "must be at least 1"));
                    }
                }
                let radix = p + a - 1 + h;
                if radix > engine_radix {
                    return Err(invalid(
                        "fabric.a",
                        a,
                        format!(
                            "routers need p + a - 1 + h = {radix} ports, above the switch engine's radix {engine_radix} (set [switch] radix)"
                        ),
                    ));
                }
                let g = a * h + 1;
                let routers: Vec<Vec<usize>> = (0..g)
                    .map(|gr| (0..a).map(|r| b.switch(format!("r{gr}.{r}"), 0)).collect())
                    .collect();
                let mut host_slots = vec![];
                for group in &routers {
                    for &router in group {
                        for port in 0..p {
                            host_slots.push(End::Switch(router, port));
                        }
                    }
                    // Local all-to-all: router r's local port to router s is p + (s if s < r
                    // else s - 1).
                    for r in 0..a {
                        for s in r + 1..a {
                            b.link(
                                End::Switch(group[r], p + s - 1),
                                End::Switch(group[s], p + r),
                            );
                        }
                    }
                }
                for g1 in 0..g {
                    for j in 0..a * h {
                        let g2 = (g1 + j + 1) % g;
                        if g1 < g2 {
                            let j2 = g - 2 - j;
                            let e1 = End::Switch(routers[g1][j / h], p + a - 1 + j % h);
                            let e2 = End::Switch(routers[g2][j2 / h], p + a - 1 + j2 % h);
                            b.link(e1, e2);
                        }
                    }
                }
                attach_hosts(&mut b, &host_slots, f.hosts)?;
            }
            "explicit" => {
                let mut names = BTreeMap::new();
                for (i, s) in f.switches.iter().enumerate() {
                    if names.insert(s.clone(), End::Switch(i, 0)).is_some() {
                        return Err(invalid(
                            &format!("fabric.switches[{i}]"),
                            quoted(s),
                            "a name used twice",
                        ));
                    }
                    b.switch(s.clone(), 0);
                }
                for (i, n) in f.nodes.iter().enumerate() {
                    if names.insert(n.clone(), End::Node(i)).is_some() {
                        return Err(invalid(
                            &format!("fabric.nodes[{i}]"),
                            quoted(n),
                            "a name used twice",
                        ));
                    }
                    b.node_names.push(n.clone());
                }
                if f.switches.is_empty() {
                    return Err(invalid(
                        "fabric.switches",
                        "[]",
                        "an explicit fabric needs at least one switch",
                    ));
                }
                for (i, l) in f.links.iter().enumerate() {
                    let end = |text: &str, key: &str| -> Result<End, FabricError> {
                        if let Some((s, port)) = text.rsplit_once(':') {
                            let Some(End::Switch(si, _)) = names.get(s) else {
                                return Err(invalid(
                                    key,
                                    quoted(text),
                                    "not a switch of fabric.switches",
                                ));
                            };
                            let port: usize = port.parse().map_err(|_| {
                                invalid(key, quoted(text), "the port after `:` must be a number")
                            })?;
                            if port >= engine_radix {
                                return Err(invalid(
                                    key,
                                    quoted(text),
                                    format!("port {port} is beyond the switch engine's radix {engine_radix} (set [switch] radix)"),
                                ));
                            }
                            Ok(End::Switch(*si, port))
                        } else {
                            match names.get(text) {
                                Some(End::Node(n)) => Ok(End::Node(*n)),
                                Some(End::Switch(..)) => Err(invalid(
                                    key,
                                    quoted(text),
                                    "a switch end needs a port: \"name:port\"",
                                )),
                                None => Err(invalid(
                                    key,
                                    quoted(text),
                                    "not a name of fabric.nodes, or \"switch:port\"",
                                )),
                            }
                        }
                    };
                    let ka = format!("fabric.link[{i}].a");
                    let kb = format!("fabric.link[{i}].b");
                    let a = end(&l.a, &ka)?;
                    let e = end(&l.b, &kb)?;
                    if matches!((a, e), (End::Node(_), End::Node(_))) {
                        return Err(invalid(
                            &kb,
                            quoted(&l.b),
                            "a link between two nodes (nodes attach to switches)",
                        ));
                    }
                    b.links.push((
                        a,
                        e,
                        l.latency,
                        l.bandwidth,
                        l.credits,
                        format!("fabric.link[{i}]"),
                    ));
                }
            }
            other => {
                return Err(invalid(
                    "fabric.topology",
                    quoted(other),
                    "must be one of fat_tree, dragonfly, explicit",
                ))
            }
        }
        Self::finish(b, f, engine_radix)
    }

    fn finish(b: Builder, f: &FabricSection, engine_radix: usize) -> Result<Topology, FabricError> {
        for (key, v) in [
            ("fabric.latency", f.latency),
            ("fabric.bandwidth", f.bandwidth),
            ("fabric.credits", f.credits),
            ("fabric.replication", f.replication),
            ("fabric.egress_depth", f.egress_depth),
            ("fabric.unicast_buffer", f.unicast_buffer),
        ] {
            if v == 0 {
                return Err(invalid(key, v, "must be at least 1"));
            }
        }
        if !(f.clock_ns > 0.0 && f.clock_ns.is_finite()) {
            return Err(invalid(
                "fabric.clock_ns",
                f.clock_ns,
                "must be a positive number of ns",
            ));
        }
        let ns = b.switch_names.len();
        let mut switch_ports: Vec<Vec<Option<usize>>> = vec![vec![None; engine_radix]; ns];
        let mut node_link: Vec<Option<usize>> = vec![None; b.node_names.len()];
        let mut links = vec![];
        for (li, (a, e, lat, bw, cr, key)) in b.links.iter().enumerate() {
            for (end, side) in [(a, "a"), (e, "b")] {
                match *end {
                    End::Switch(s, port) => {
                        if let Some(prev) = switch_ports[s][port] {
                            return Err(invalid(
                                &format!("{key}.{side}"),
                                quoted(&format!("{}:{port}", b.switch_names[s])),
                                format!("port already used by fabric.link[{prev}]"),
                            ));
                        }
                        switch_ports[s][port] = Some(li);
                    }
                    End::Node(n) => {
                        if let Some(prev) = node_link[n] {
                            return Err(invalid(
                                &format!("{key}.{side}"),
                                quoted(&b.node_names[n]),
                                format!("a node has one port, already used by fabric.link[{prev}]"),
                            ));
                        }
                        node_link[n] = Some(li);
                    }
                }
            }
            let latency = lat.unwrap_or(f.latency);
            let bandwidth = bw.unwrap_or(f.bandwidth);
            let credits = cr.unwrap_or(f.credits);
            for (k, v) in [
                ("latency", latency),
                ("bandwidth", bandwidth),
                ("credits", credits),
            ] {
                if v == 0 {
                    return Err(invalid(&format!("{key}.{k}"), v, "must be at least 1"));
                }
            }
            links.push(Link {
                a: *a,
                b: *e,
                latency,
                bandwidth,
                credits,
            });
        }
        let mut nl = vec![];
        for (n, l) in node_link.iter().enumerate() {
            match l {
                Some(l) => nl.push(*l),
                None => {
                    return Err(invalid(
                        "fabric.link",
                        quoted(&b.node_names[n]),
                        "this node is on no link",
                    ))
                }
            }
        }
        let t = Topology {
            switch_names: b.switch_names,
            switch_height: b.switch_height,
            node_names: b.node_names,
            links,
            switch_ports,
            node_link: nl,
        };
        t.check_connected()?;
        Ok(t)
    }

    fn check_connected(&self) -> Result<(), FabricError> {
        let ns = self.switch_names.len();
        let total = ns + self.node_names.len();
        let idx = |e: End| match e {
            End::Switch(s, _) => s,
            End::Node(n) => ns + n,
        };
        let mut adj = vec![vec![]; total];
        for l in &self.links {
            adj[idx(l.a)].push(idx(l.b));
            adj[idx(l.b)].push(idx(l.a));
        }
        let mut seen = vec![false; total];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(v) = stack.pop() {
            for &w in &adj[v] {
                if !seen[w] {
                    seen[w] = true;
                    stack.push(w);
                }
            }
        }
        if let Some(v) = seen.iter().position(|s| !s) {
            let name = if v < ns {
                &self.switch_names[v]
            } else {
                &self.node_names[v - ns]
            };
            return Err(invalid(
                "fabric",
                quoted(name),
                format!(
                    "the graph is disconnected: {name} cannot reach {}",
                    self.switch_names[0]
                ),
            ));
        }
        Ok(())
    }

    /// The switch a node is attached to, and the port.
    pub fn node_attachment(&self, n: usize) -> (usize, usize) {
        match self.links[self.node_link[n]].other(End::Node(n)) {
            End::Switch(s, p) => (s, p),
            End::Node(_) => unreachable!("links between two nodes are rejected"),
        }
    }

    /// Switch neighbours of switch `s`: `(port, neighbour, neighbour's port, link)`.
    pub fn switch_neighbours(
        &self,
        s: usize,
    ) -> impl Iterator<Item = (usize, usize, usize, usize)> + '_ {
        self.switch_ports[s]
            .iter()
            .enumerate()
            .filter_map(move |(port, l)| {
                let l = (*l)?;
                match self.links[l].other(End::Switch(s, port)) {
                    End::Switch(t, tp) => Some((port, t, tp, l)),
                    End::Node(_) => None,
                }
            })
    }

    /// The index of a switch by name.
    pub fn switch_by_name(&self, name: &str) -> Option<usize> {
        self.switch_names.iter().position(|n| n == name)
    }

    /// The link on `"switch:port"`.
    pub fn link_by_text(&self, text: &str) -> Option<usize> {
        let (s, p) = text.rsplit_once(':')?;
        let s = self.switch_by_name(s)?;
        let p: usize = p.parse().ok()?;
        *self.switch_ports[s].get(p)?
    }

    /// `"switch:port"` of a link end (a node's name for a node).
    pub fn end_text(&self, e: End) -> String {
        match e {
            End::Switch(s, p) => format!("{}:{p}", self.switch_names[s]),
            End::Node(n) => self.node_names[n].clone(),
        }
    }
}

fn attach_hosts(b: &mut Builder, slots: &[End], hosts: Option<usize>) -> Result<(), FabricError> {
    let n = hosts.unwrap_or(slots.len());
    if n == 0 || n > slots.len() {
        return Err(invalid(
            "fabric.hosts",
            n,
            format!("must be 1..={} for this topology", slots.len()),
        ));
    }
    for (i, &slot) in slots.iter().take(n).enumerate() {
        b.node_names.push(format!("h{i}"));
        b.link(slot, End::Node(i));
    }
    Ok(())
}

fn quoted(s: &str) -> String {
    format!("{s:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(text: &str) -> FabricSection {
        let f: crate::spec::FabricFile = toml::from_str(text).expect("test file parses");
        f.fabric
    }

    #[test]
    fn fat_trees_have_the_textbook_sizes() {
        let t =
            Topology::build(&section("[fabric]\ntopology='fat_tree'\nk=4\nlevels=2"), 16).unwrap();
        // k leaves + k/2 spines; k²/2 nodes; k/2·k uplinks + k²/2 node links.
        assert_eq!(
            (t.switch_names.len(), t.node_names.len(), t.links.len()),
            (6, 8, 8 + 8)
        );
        let t =
            Topology::build(&section("[fabric]\ntopology='fat_tree'\nk=4\nlevels=3"), 16).unwrap();
        // 5k²/4 switches, k³/4 nodes, k³/4 edge-agg + k³/4 agg-core + k³/4 node links.
        assert_eq!(
            (t.switch_names.len(), t.node_names.len(), t.links.len()),
            (20, 16, 48)
        );
        // Core 3's port 2 goes to pod 2's aggregation switch 1 (core (1, 1)), its port 2 + 1.
        let core3 = t.switch_by_name("core3").unwrap();
        let l = t.switch_ports[core3][2].unwrap();
        assert_eq!(
            t.end_text(t.links[l].other(End::Switch(core3, 2))),
            "agg5:3"
        );
    }

    #[test]
    fn dragonfly_wires_every_group_pair_once() {
        let t =
            Topology::build(&section("[fabric]\ntopology='dragonfly'\na=2\np=1\nh=1"), 4).unwrap();
        // g = 3 groups of 2 routers: 3 local links, 3 global links, 6 nodes.
        assert_eq!(
            (t.switch_names.len(), t.node_names.len(), t.links.len()),
            (6, 6, 3 + 3 + 6)
        );
        let mut pairs = vec![];
        for l in &t.links {
            if let (End::Switch(a, _), End::Switch(b, _)) = (l.a, l.b) {
                let (ga, gb) = (a / 2, b / 2);
                if ga != gb {
                    pairs.push((ga.min(gb), ga.max(gb)));
                }
            }
        }
        pairs.sort();
        assert_eq!(pairs, vec![(0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn errors_name_the_key() {
        let e = |text: &str| Topology::build(&section(text), 16).unwrap_err().to_string();
        assert!(e("[fabric]\ntopology='fat_tree'\nk=32\nlevels=2")
            .contains("fabric.k = 32: above the switch engine's radix 16"));
        assert!(e("[fabric]\ntopology='fat_tree'\nk=4\nlevels=4").starts_with("fabric.levels = 4"));
        assert!(e("[fabric]\ntopology='ring'").starts_with("fabric.topology = \"ring\""));
        let twice = "[fabric]\ntopology='explicit'\nswitches=['s']\nnodes=['a','b']\n[[fabric.link]]\na='s:0'\nb='a'\n[[fabric.link]]\na='s:0'\nb='b'";
        assert_eq!(
            e(twice),
            "fabric.link[1].a = \"s:0\": port already used by fabric.link[0]"
        );
        let apart = "[fabric]\ntopology='explicit'\nswitches=['s','t']\nnodes=['a','b']\n[[fabric.link]]\na='s:0'\nb='a'\n[[fabric.link]]\na='t:0'\nb='b'";
        assert!(e(apart).contains("the graph is disconnected: t cannot reach s"));
        let far = "[fabric]\ntopology='explicit'\nswitches=['s']\nnodes=['a']\n[[fabric.link]]\na='s:16'\nb='a'";
        assert!(e(far).contains("port 16 is beyond the switch engine's radix 16"));
    }
}
