//! # Fabric files
//!
//! A fabric file (TOML) says what to build and what to run on it: `[fabric]` the topology and
//! its links, `[node]` the compute nodes' software, `[sm]` the subnet manager, `[[group]]` the
//! collective groups and their barriers, `[[fault]]` the faults, `[run]` the bounds, and
//! optional `[switch]` and `[nic]` tables with the engine's and the NICs' parameters (as in
//! `netcoll.toml`; the NICs' serve `--algo nic` / `host`). Every key is documented in the
//! README ("Fabric files"); unknown keys are errors. This module only reads the text; [`crate::topology`] and [`crate::sim`] validate
//! what the values mean and say which key is wrong.

use serde::Deserialize;

/// A whole fabric file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricFile {
    /// A short name, printed in the summary.
    #[serde(default)]
    pub name: String,
    /// Free text.
    #[serde(default)]
    pub description: String,
    pub fabric: FabricSection,
    #[serde(default)]
    pub node: NodeSection,
    #[serde(default)]
    pub sm: SmSection,
    #[serde(default, rename = "group")]
    pub groups: Vec<GroupSection>,
    #[serde(default, rename = "fault")]
    pub faults: Vec<FaultSection>,
    #[serde(default)]
    pub run: RunSection,
    /// The engine's parameters, as the `[switch]` table of `netcoll.toml`.
    #[serde(default)]
    pub switch: Option<toml::Table>,
    /// The NICs' parameters (`--algo nic` / `host`), as the `[nic]` table of `netcoll.toml`.
    #[serde(default)]
    pub nic: Option<toml::Table>,
}

/// `[fabric]`: the topology and the defaults of its links.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricSection {
    /// `fat_tree`, `dragonfly` or `explicit`.
    pub topology: String,
    /// fat_tree: the switches' radix (even).
    pub k: Option<usize>,
    /// fat_tree: 2 (leaf-spine) or 3 (pods, Al-Fares).
    pub levels: Option<usize>,
    /// fat_tree / dragonfly: populate only the first `hosts` host ports (default: all).
    pub hosts: Option<usize>,
    /// dragonfly: routers per group.
    pub a: Option<usize>,
    /// dragonfly: hosts per router.
    pub p: Option<usize>,
    /// dragonfly: global links per router.
    pub h: Option<usize>,
    /// explicit: switch names.
    #[serde(default)]
    pub switches: Vec<String>,
    /// explicit: compute node names.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// explicit: links.
    #[serde(default, rename = "link")]
    pub links: Vec<LinkSection>,
    /// Clock period in ns (cycles are converted to ns in the report).
    #[serde(default = "default_clock_ns")]
    pub clock_ns: f64,
    /// Default link latency, cycles (wire + PHY, one way).
    #[serde(default = "default_latency")]
    pub latency: u64,
    /// Default link bandwidth, bytes per cycle.
    #[serde(default = "default_bandwidth")]
    pub bandwidth: u64,
    /// Default input buffer depth at each end of a link, packets (the sender's credits).
    #[serde(default = "default_credits")]
    pub credits: u64,
    /// Cycles a packet may spend waiting in queues on its one hop (egress queue at the sender,
    /// input buffer at the receiver, a duplicate's delay) on top of the link's own time; a
    /// packet older than `latency + serialisation + hol_lifetime` is dropped where it waits.
    #[serde(default = "default_hol")]
    pub hol_lifetime: u64,
    /// Copies of a multicast packet a switch places into its egress queues per cycle.
    #[serde(default = "default_replication")]
    pub replication: u64,
    /// Depth of each egress queue, packets (a full queue drops the copy, counted).
    #[serde(default = "default_egress")]
    pub egress_depth: u64,
    /// `--algo nic` / `host`: the input buffer at the end of each link for the NICs' unicast
    /// messages, beats (64-bit words) beyond those in flight (see `crate::offload`).
    #[serde(default = "default_unicast_buffer")]
    pub unicast_buffer: u64,
}

/// One explicit link: `a` and `b` are `"switch:port"` or a node name.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSection {
    pub a: String,
    pub b: String,
    pub latency: Option<u64>,
    pub bandwidth: Option<u64>,
    pub credits: Option<u64>,
}

/// `[node]`: the compute nodes' collective software.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSection {
    /// Software cycles from the last local process entering to FULL on the wire, and from an
    /// Exit arriving to the processes leaving.
    #[serde(default = "default_overhead")]
    pub overhead: u64,
    /// Cycles in Full without news before the node sends FULL again.
    #[serde(default = "default_retry")]
    pub retry_timeout: u64,
    /// Local processes per node (the node's children in the seed's tree).
    #[serde(default = "default_procs")]
    pub procs: u64,
    /// `[min, max]` cycles each process computes between leaving one barrier and entering the
    /// next, drawn uniformly per process and barrier from the run's seed.
    #[serde(default = "default_compute")]
    pub compute: [u64; 2],
    /// Bulk-synchronous pacing: barrier `k`'s processes enter no earlier than `k × interval`
    /// cycles after the node joined (0: no pacing). With `compute = [0, 0]` and an interval
    /// longer than a barrier, every member enters every barrier in the same cycle.
    #[serde(default)]
    pub interval: u64,
}

/// `[sm]`: the subnet manager.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmSection {
    /// One-way latency of the management path (SM to a switch's configuration port or to a
    /// node's software, and back), cycles.
    #[serde(default = "default_mgmt")]
    pub mgmt_latency: u64,
    /// Default tree policy: `shortest` or `least_congested`.
    #[serde(default = "default_policy")]
    pub policy: String,
}

/// `[[group]]`: a collective group and its operations (barriers, or reductions).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSection {
    #[serde(default)]
    pub name: String,
    /// `"all"`, `"a..b"` (host indices, half open) or a list of host indices or names.
    pub members: Members,
    /// Operations to run (the collective's, barriers by default); `operations` says the same.
    pub barriers: Option<u64>,
    pub operations: Option<u64>,
    /// `barrier` (default), `allreduce`, `reduce` or `broadcast` (see
    /// [`crate::collective`]).
    pub collective: Option<String>,
    /// Reductions: the operation, `SUM` (default), `PROD`, `MAX`, `MIN`, `MAXLOC`, `MINLOC`,
    /// `LAND`, `LOR`, `LXOR`, `BAND`, `BOR`, `BXOR` (a broadcast combines with `BOR`).
    pub op: Option<String>,
    /// Reductions: the element type, `i64` (default), `u64`, `i32`, `u32`.
    pub dtype: Option<String>,
    /// Reductions: 64-bit words of each member's vector (default 1).
    pub words: Option<u64>,
    /// Reductions: words per packet (default: as many as the engine takes, `[switch]
    /// max_plen`, at most `words`).
    pub chunk: Option<u64>,
    /// Reductions: chunks in flight, a CGID of the group's pool each (default 8, at most the
    /// number of chunks).
    pub window: Option<u64>,
    /// reduce / broadcast: the member that receives / sends (index or name; default the first
    /// member).
    pub root: Option<MemberRef>,
    /// Cycle at which the nodes ask the SM to join.
    #[serde(default)]
    pub start: u64,
    /// Tree policy (default: `[sm] policy`).
    pub policy: Option<String>,
}

/// Group membership as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Members {
    Text(String),
    List(Vec<MemberRef>),
}

/// One member: a host index or a node name.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum MemberRef {
    Index(u64),
    Name(String),
}

/// `[[fault]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultSection {
    /// `loss`, `duplicate`, `link_down`, `switch_down` or `leave`.
    pub kind: String,
    /// loss / duplicate: probability per packet and link traversal.
    pub rate: Option<f64>,
    /// loss / duplicate: only packets of this opcode (`FULL`, `EXIT`, `STATUS_REQ`,
    /// `STATUS_RSP`).
    pub op: Option<String>,
    /// loss / duplicate / link_down: the link on `"switch:port"` (loss / duplicate: every link
    /// when absent).
    pub link: Option<String>,
    /// duplicate: `[min, max]` extra cycles of the copy.
    pub delay: Option<[u64; 2]>,
    /// switch_down: the switch.
    pub switch: Option<String>,
    /// leave: the node (index or name).
    pub node: Option<MemberRef>,
    /// leave: the group (default: every group of the node).
    pub group: Option<String>,
    /// link_down / switch_down / leave: the cycle it happens.
    pub at: Option<u64>,
    /// link_down: the cycle the link comes back (never when absent).
    pub up: Option<u64>,
    /// loss / duplicate: active from this cycle (default 0).
    pub from: Option<u64>,
    /// loss / duplicate: active until this cycle (default: forever).
    pub until: Option<u64>,
}

/// `[run]`: bounds.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// The run fails (a hang) if it has not finished by this cycle.
    #[serde(default = "default_max_cycles")]
    pub max_cycles: u64,
    /// Every barrier must complete within this many cycles after the later of its last
    /// member's entry and the last discrete fault (link down or up, switch down, a member
    /// leaving; loss and duplicates are background, not events): the liveness bound.
    #[serde(default = "default_completion")]
    pub completion_bound: u64,
}

fn default_clock_ns() -> f64 {
    1.0
}
fn default_latency() -> u64 {
    10
}
fn default_bandwidth() -> u64 {
    8
}
fn default_credits() -> u64 {
    4
}
fn default_hol() -> u64 {
    256
}
fn default_replication() -> u64 {
    4
}
fn default_egress() -> u64 {
    8
}
fn default_unicast_buffer() -> u64 {
    16
}
fn default_overhead() -> u64 {
    10
}
fn default_retry() -> u64 {
    2000
}
fn default_procs() -> u64 {
    1
}
fn default_compute() -> [u64; 2] {
    [0, 0]
}
fn default_mgmt() -> u64 {
    50
}
fn default_policy() -> String {
    "shortest".to_string()
}
fn default_max_cycles() -> u64 {
    100_000_000
}
fn default_completion() -> u64 {
    200_000
}

impl Default for NodeSection {
    fn default() -> Self {
        toml::from_str("").expect("every [node] key has a default")
    }
}
impl Default for SmSection {
    fn default() -> Self {
        toml::from_str("").expect("every [sm] key has a default")
    }
}
impl Default for RunSection {
    fn default() -> Self {
        toml::from_str("").expect("every [run] key has a default")
    }
}
