//! `netcoll nic collective`: a collective offloaded to the NICs, on `n` NICs that reach each
//! other over bounded links (`netcoll_testbench::nic::network`), scheduled by the host library
//! (`netcoll_models::nic::schedule`).
//!
//! For each node count: one JSON line per node (its CQE status, when it entered and finished,
//! its result), then a summary line (latency once the last node entered, messages, answers,
//! RNR NAKs). Every node runs the cycle model, except those `--rtl` and `--verilator` name;
//! with any named, the all-model run is made too and the two must be identical, cycle for
//! cycle (exit 1 otherwise). `--golden` also runs golden NICs in `--orders` arrival orders and
//! requires the same results. Inputs are seeded: node `k`'s input word `j` is drawn from
//! `--seed`.

use crate::out::{CliError, Out};
use netcoll_models::config::Config;
use netcoll_models::nic::schedule::{self, Collective, ScheduleOptions, Transport};
use netcoll_models::nic::{NicParams, Status};
use netcoll_models::reduce_alu::{AluOp, Dtype};
use netcoll_testbench::harness::Level;
use netcoll_testbench::nic::network::{
    run_cycles, run_golden, seeded_words, NetworkOptions, Progress,
};
use netcoll_testbench::nic::scenario::status_name;
use std::path::PathBuf;

/// The arguments of `nic collective`.
#[derive(clap::Args, Debug)]
pub struct CollectiveArgs {
    /// barrier, allreduce or broadcast.
    pub algo: String,
    /// Node counts, comma-separated (2 to 256 each).
    #[arg(long, value_delimiter = ',', default_value = "8")]
    pub nodes: Vec<usize>,
    /// allreduce: the operation (MAX, MIN, MAXLOC, MINLOC, SUM, PROD, LAND, LOR, LXOR, BAND,
    /// BOR, BXOR).
    #[arg(long, default_value = "SUM")]
    pub op: String,
    /// allreduce: the element type (i32, u32, i64, u64, f16, bf16, f32, f64).
    #[arg(long, default_value = "i64")]
    pub dtype: String,
    /// allreduce: elements; broadcast: words.
    #[arg(long, default_value_t = 16)]
    pub count: u64,
    /// broadcast: the root node.
    #[arg(long, default_value_t = 0)]
    pub root: usize,
    /// broadcast: the tree's radix (2: binomial).
    #[arg(long, default_value_t = 2)]
    pub radix: usize,
    /// Nodes that run the rust-hdl RTL (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub rtl: Vec<usize>,
    /// Nodes that run the emitted Verilog under Verilator (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub verilator: Vec<usize>,
    /// Also run golden NICs and require the same results.
    #[arg(long)]
    pub golden: bool,
    /// With --golden: arrival orders to try.
    #[arg(long, default_value_t = 3)]
    pub orders: u64,
    /// Cycles a link takes.
    #[arg(long, default_value_t = 8)]
    pub latency: u64,
    /// Beats a link holds.
    #[arg(long, default_value_t = 16)]
    pub room: usize,
    /// Seed of the inputs, of the golden's arrival orders and of the OS noise.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The NICs of this parameter file's [nic] table [default: the built-in one].
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Print only the summary lines.
    #[arg(long)]
    pub summary: bool,
    /// Who progresses the schedule, comma-separated: nic (the NIC runs the posted schedule:
    /// offload), host (host software posts each step after polling the last).
    #[arg(long, value_delimiter = ',', default_value = "nic")]
    pub by: Vec<String>,
    /// --by host: host cycles spent on each message (before sending one, after seeing one
    /// arrive).
    #[arg(long, default_value_t = 0)]
    pub overhead: u64,
    /// OS noise: the probability, before each host action, that the host is away.
    #[arg(long, default_value_t = 0.0)]
    pub noise_prob: f64,
    /// OS noise: how many cycles the host is away.
    #[arg(long, default_value_t = 0)]
    pub noise_cycles: u64,
    /// Write the summaries as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Plot latency against node count, one line per progress mode, to FILE (SVG).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// How a node keeps its steps' receive buffers apart: qp (a QP per step) or channels
    /// (one QP for every step, DCT-like: each step's buffer is its counter's receive
    /// channel).
    #[arg(long, default_value = "qp")]
    pub transport: String,
}

fn by_name<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    key: &str,
    v: &str,
) -> Result<T, CliError> {
    all.iter()
        .copied()
        .find(|&x| name(x).eq_ignore_ascii_case(v))
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|&x| name(x)).collect();
            CliError::Usage(format!(
                "--{key}: `{v}` is not allowed; allowed: {}",
                names.join(", ")
            ))
        })
}

fn collective(a: &CollectiveArgs) -> Result<Collective, CliError> {
    match a.algo.as_str() {
        "barrier" => Ok(Collective::Barrier),
        "allreduce" => Ok(Collective::Allreduce {
            op: by_name(AluOp::ALL, AluOp::name, "op", &a.op)?,
            dtype: by_name(Dtype::ALL, Dtype::name, "dtype", &a.dtype)?,
            count: a.count,
        }),
        "broadcast" => Ok(Collective::Broadcast {
            root: a.root,
            radix: a.radix,
            count: a.count,
        }),
        other => Err(CliError::Usage(format!(
            "`{other}` is not a collective; allowed: barrier, allreduce, broadcast"
        ))),
    }
}

fn progress_modes(a: &CollectiveArgs) -> Result<Vec<Progress>, CliError> {
    let mut v = vec![];
    for b in &a.by {
        let m = match b.as_str() {
            "nic" => Progress::Nic,
            "host" => Progress::Host,
            other => {
                return Err(CliError::Usage(format!(
                    "--by: `{other}` is not allowed; allowed: nic, host"
                )))
            }
        };
        if !v.contains(&m) {
            v.push(m);
        }
    }
    if !(0.0..=1.0).contains(&a.noise_prob) {
        return Err(CliError::Usage(format!(
            "--noise-prob: {} is not allowed; allowed: 0 to 1",
            a.noise_prob
        )));
    }
    Ok(v)
}

/// `netcoll nic collective`.
pub fn run(a: &CollectiveArgs, out: &mut Out) -> Result<bool, CliError> {
    let c = collective(a)?;
    let modes = progress_modes(a)?;
    let p: NicParams = match &a.config {
        Some(path) => {
            Config::from_file(path)
                .map_err(|e| CliError::Input(e.to_string()))?
                .nic
        }
        None => NicParams::default(),
    };
    let opts = ScheduleOptions {
        transport: by_name(
            &[Transport::QpPerStep, Transport::Channels],
            |t| t.name(),
            "transport",
            &a.transport,
        )?,
        ..Default::default()
    };
    let mut ok = true;
    let mut points: Vec<Point> = vec![];
    for &n in &a.nodes {
        for (flag, list) in [("rtl", &a.rtl), ("verilator", &a.verilator)] {
            if let Some(k) = list.iter().find(|&&k| k >= n) {
                return Err(CliError::Usage(format!(
                    "--{flag}: node {k} does not exist (nodes = {n})"
                )));
            }
        }
        let mut progs =
            schedule::build(&c, n, &p, &opts).map_err(|e| CliError::Input(e.to_string()))?;
        // Each node's input (allreduce) or the root's buffer (broadcast), seeded.
        let data = seeded_words(n, c.words() as usize, a.seed);
        let at = match c {
            Collective::Broadcast { .. } => opts.output,
            _ => opts.input,
        };
        for (k, prog) in progs.iter_mut().enumerate() {
            if !matches!(c, Collective::Broadcast { root, .. } if root != k) {
                prog.write_first(at, &data[k]);
            }
        }
        let levels: Vec<Level> = (0..n)
            .map(|k| {
                if a.verilator.contains(&k) {
                    Level::Verilator
                } else if a.rtl.contains(&k) {
                    Level::Rtl
                } else {
                    Level::Model
                }
            })
            .collect();
        let fail = |e: String| CliError::Failed(format!("{} of {n} nodes: {e}", c.name()));
        let mut golden_results = None;
        for &mode in &modes {
            let net = NetworkOptions {
                latency: a.latency,
                room: a.room,
                progress: mode,
                overhead: a.overhead,
                noise_prob: a.noise_prob,
                noise_cycles: a.noise_cycles,
                seed: a.seed,
                ..Default::default()
            };
            let tag = format!("{n} nodes, by {}", mode.name());
            let run = run_cycles(&progs, &p, &levels, &net).map_err(fail)?;
            if levels.iter().any(|&l| l != Level::Model) {
                let model = run_cycles(&progs, &p, &vec![Level::Model; n], &net).map_err(fail)?;
                if model != run {
                    eprintln!(
                        "netcoll nic collective: {tag}: the run with RTL / Verilator nodes differs from the all-model run"
                    );
                    ok = false;
                } else {
                    eprintln!(
                        "netcoll nic collective: {tag}: the run with RTL / Verilator nodes equals the all-model run, cycle for cycle"
                    );
                }
            }
            if a.golden && golden_results.is_none() {
                let mut results = vec![];
                for order in 0..a.orders {
                    let g = run_golden(&progs, &p, a.seed + order).map_err(fail)?;
                    results.push(g);
                }
                golden_results = Some(results);
            }
            if let Some(gs) = &golden_results {
                let same = gs.iter().all(|g| {
                    g.nodes
                        .iter()
                        .zip(&run.nodes)
                        .all(|(x, y)| x.result == y.result && x.status == y.status)
                });
                ok &= same;
                eprintln!(
                    "netcoll nic collective: {tag}: the golden gives {} results in {} arrival orders",
                    if same { "the same" } else { "other" },
                    a.orders
                );
            }
            if !a.summary {
                for (k, node) in run.nodes.iter().enumerate() {
                    let line = serde_json::json!({
                        "node": k,
                        "by": mode.name(),
                        "level": levels[k].name(),
                        "status": status_name(node.status),
                        "entered_at": node.entered_at,
                        "done_at": node.done_at,
                        "result": node.result,
                    });
                    out.line(&line.to_string())?;
                }
            }
            ok &= run.nodes.iter().all(|x| x.status == Status::Ok.code());
            let point = Point {
                by: mode.name(),
                nodes: n,
                latency: run.latency(),
                cycles: run.cycles,
                messages: run.messages,
                answers: run.answers,
                rnr_naks: run.rnr_naks,
                all_ok: run.nodes.iter().all(|x| x.status == Status::Ok.code()),
            };
            let mut line =
                serde_json::to_value(&point).map_err(|e| CliError::Failed(e.to_string()))?;
            line["collective"] = c.name().into();
            out.line(&line.to_string())?;
            points.push(point);
        }
    }
    if let Some(path) = &a.csv {
        std::fs::write(path, csv(c.name(), &points))
            .map_err(|e| CliError::Input(format!("writing {}: {e}", path.display())))?;
        eprintln!("netcoll nic collective: wrote {}", path.display());
    }
    if let Some(path) = &a.svg {
        svg(c.name(), &points, path)
            .map_err(|e| CliError::Input(format!("writing {}: {e}", path.display())))?;
        eprintln!("netcoll nic collective: wrote {}", path.display());
    }
    Ok(ok)
}

/// One run's summary.
#[derive(Clone, Debug, serde::Serialize)]
struct Point {
    by: &'static str,
    nodes: usize,
    /// Cycles from the last node's entry to the last node's completion.
    latency: u64,
    cycles: u64,
    messages: u64,
    answers: u64,
    rnr_naks: u64,
    all_ok: bool,
}

fn csv(collective: &str, points: &[Point]) -> String {
    let mut s =
        String::from("collective,by,nodes,latency_cycles,messages,answers,rnr_naks,all_ok\n");
    for p in points {
        s.push_str(&format!(
            "{collective},{},{},{},{},{},{},{}\n",
            p.by, p.nodes, p.latency, p.messages, p.answers, p.rnr_naks, p.all_ok
        ));
    }
    s
}

fn svg(collective: &str, points: &[Point], path: &std::path::Path) -> Result<(), String> {
    // One line per mode, the modes in alphabetical order.
    let mut points: Vec<&Point> = points.iter().collect();
    points.sort_by_key(|p| p.by);
    let names: Vec<String> = points.iter().map(|p| format!("by {}", p.by)).collect();
    let named: Vec<(&str, f64, f64)> = points
        .iter()
        .zip(&names)
        .map(|(p, name)| (name.as_str(), p.nodes as f64, p.latency as f64))
        .collect();
    netcoll_fabric::sweep::plot_lines(
        &format!("{collective} latency vs node count"),
        ("nodes", "latency (cycles)"),
        &netcoll_fabric::sweep::lines_by_name(&named),
        path,
    )
}
