//! # What a run prints
//!
//! One [`Record`] per completed collective (a JSON line each), then a [`Summary`]: latency
//! min / median / p99 / max, recoveries (tree rebuilds), node retries, configuration
//! operations, drops per reason, faults injected and the safety verdict with every violation.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One completed collective (a barrier, or a reduction's operation).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Record {
    pub group: String,
    pub cgid: u64,
    /// Index of the barrier (or operation) in its group, from 0.
    pub barrier: u64,
    /// A reduction's vector, bytes per member (absent for a barrier).
    #[serde(skip_serializing_if = "is_zero")]
    pub bytes: u64,
    /// Members when it completed.
    pub members: u64,
    /// The cycle its last member entered (every local process in).
    pub start: u64,
    /// The cycle its last member released its processes.
    pub end: u64,
    /// `end - start`, cycles.
    pub latency: u64,
    /// The same in ns (`fabric.clock_ns` per cycle).
    pub latency_ns: f64,
}

/// Latency min, median, p99 and max of `records` (0 for none): the sorted latencies'
/// elements at rank `round((len − 1) · q)`.
pub fn latency_figures(records: &[Record]) -> [u64; 4] {
    let mut lat: Vec<u64> = records.iter().map(|r| r.latency).collect();
    lat.sort_unstable();
    let pick = |q: f64| -> u64 {
        if lat.is_empty() {
            0
        } else {
            lat[(((lat.len() - 1) as f64) * q).round() as usize]
        }
    };
    [pick(0.0), pick(0.5), pick(0.99), pick(1.0)]
}

/// The run as a whole.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub name: String,
    /// Who ran the collectives: empty for the switches (the default), `nic` (schedules
    /// offloaded to the NICs) or `host` (the same schedules progressed by host software).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub algo: String,
    /// The cycle the run ended.
    pub cycles: u64,
    pub barriers: u64,
    pub latency_min: u64,
    pub latency_median: u64,
    pub latency_p99: u64,
    pub latency_max: u64,
    pub clock_ns: f64,
    /// Trees rebuilt by the subnet manager (after a fault, a TID failure or a member leaving).
    pub rebuilds: u64,
    /// FULLs the nodes sent again after their retry timeout.
    pub retries: u64,
    /// Configuration operations the SM issued.
    pub config_ops: u64,
    /// Packets the fabric dropped, per reason (lifetime, link down, full queues, …).
    pub drops: BTreeMap<String, u64>,
    /// The engines' events, per verdict (the engines' own drops: `STALE`, `UNKNOWN_CGID`,
    /// …; `RETRY`: a retry timer sent FULL again).
    pub verdicts: BTreeMap<String, u64>,
    /// Faults injected, per kind.
    pub faults: BTreeMap<String, u64>,
    /// Kernel events processed, credit returns excepted (most of them are no event: how many
    /// are depends on how the fabric is partitioned).
    pub events: u64,
    /// Packets delivered to the end of a link (a switch port or a node); under `--algo nic` /
    /// `host`, the messages and answers the NICs delivered.
    pub packets: u64,
    /// Switch clock cycles simulated one by one (an idle stretch skipped at once is not
    /// counted).
    pub steps: u64,
    /// Some group reduces (the table then says operations, not barriers).
    #[serde(skip_serializing_if = "is_false")]
    pub reductions: bool,
    /// Reductions: chunk results the members received that the checker compared with its own
    /// fold of the contributions …
    #[serde(skip_serializing_if = "is_zero")]
    pub results_checked: u64,
    /// … and those of operations during which the group's members changed, not compared.
    #[serde(skip_serializing_if = "is_zero")]
    pub results_unchecked: u64,
    /// Chunk results the SM handed to a member that missed them, during a rebuild.
    #[serde(skip_serializing_if = "is_zero")]
    pub results_relayed: u64,
    /// `--algo nic` / `host`: data messages the NICs delivered, and answers (ACKs, NAKs) …
    #[serde(skip_serializing_if = "is_zero")]
    pub messages: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub answers: u64,
    /// … of them receiver-not-ready NAKs (a message that came before its receive buffer was
    /// posted, retried by its sender).
    #[serde(skip_serializing_if = "is_zero")]
    pub rnr_naks: u64,
    /// Safety and liveness violations (empty when safe).
    pub violations: Vec<String>,
    pub safe: bool,
}

/// A chunk result a member received (kept with [`crate::sim::RunOptions::keep_results`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResultRecord {
    pub group: String,
    pub node: String,
    /// The operation's index in its group, and the chunk's in the vector.
    pub op: u64,
    pub chunk: u64,
    /// The words received (empty: the answer carried none).
    pub words: Vec<u64>,
    /// REPRO: the elements the member rounds from the words (empty for the other operations).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<u64>,
}

/// Records and summary of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub records: Vec<Record>,
    pub summary: Summary,
    /// Every chunk result, in the order received (empty unless kept).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<ResultRecord>,
}

impl Report {
    /// Every record as a JSON line.
    pub fn json_lines(&self) -> String {
        let mut s = String::new();
        for r in &self.records {
            s.push_str(&serde_json::to_string(r).unwrap_or_default());
            s.push('\n');
        }
        s
    }

    /// The summary as a table for people.
    pub fn table(&self) -> String {
        let m = &self.summary;
        let ns = |c: u64| c as f64 * m.clock_ns;
        let mut s = String::new();
        let by = match m.algo.as_str() {
            "nic" => " (by the NICs)",
            "host" => " (by host software)",
            _ => "",
        };
        let _ = writeln!(
            s,
            "fabric {}{by} — {} {} in {} cycles ({:.1} µs)",
            m.name,
            m.barriers,
            if m.reductions {
                "operations"
            } else {
                "barriers"
            },
            m.cycles,
            ns(m.cycles) / 1000.0
        );
        let _ = writeln!(s, "{:<22} {:>12} {:>12}", "latency", "cycles", "ns");
        for (k, v) in [
            ("min", m.latency_min),
            ("median", m.latency_median),
            ("p99", m.latency_p99),
            ("max", m.latency_max),
        ] {
            let _ = writeln!(s, "  {:<20} {:>12} {:>12.1}", k, v, ns(v));
        }
        let _ = writeln!(s, "{:<22} {:>12}", "rebuilds", m.rebuilds);
        let _ = writeln!(s, "{:<22} {:>12}", "node retries", m.retries);
        let _ = writeln!(s, "{:<22} {:>12}", "configuration ops", m.config_ops);
        if m.reductions {
            let _ = writeln!(s, "reduction results");
            let _ = writeln!(s, "  {:<20} {:>12}", "checked", m.results_checked);
            let _ = writeln!(s, "  {:<20} {:>12}", "not checked", m.results_unchecked);
            let _ = writeln!(s, "  {:<20} {:>12}", "relayed by the SM", m.results_relayed);
        }
        if !m.algo.is_empty() {
            let _ = writeln!(s, "{:<22} {:>12}", "messages", m.messages);
            let _ = writeln!(s, "{:<22} {:>12}", "answers", m.answers);
            let _ = writeln!(s, "  {:<20} {:>12}", "RNR NAKs", m.rnr_naks);
        }
        let _ = writeln!(s, "drops");
        if m.drops.is_empty() {
            let _ = writeln!(s, "  (none)");
        }
        for (k, v) in &m.drops {
            let _ = writeln!(s, "  {:<20} {:>12}", k, v);
        }
        let _ = writeln!(s, "engine verdicts");
        for (k, v) in &m.verdicts {
            let _ = writeln!(s, "  {:<20} {:>12}", k, v);
        }
        let _ = writeln!(s, "faults injected");
        if m.faults.is_empty() {
            let _ = writeln!(s, "  (none)");
        }
        for (k, v) in &m.faults {
            let _ = writeln!(s, "  {:<20} {:>12}", k, v);
        }
        let _ = writeln!(
            s,
            "safety: {}",
            if m.safe {
                "SAFE (no violation)".to_string()
            } else {
                format!("VIOLATED ({})", m.violations.len())
            }
        );
        for v in &m.violations {
            let _ = writeln!(s, "  {v}");
        }
        s
    }
}
