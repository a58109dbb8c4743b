//! # NICs on a network
//!
//! Runs one host program per node ([`NodeProgram`], e.g. a collective schedule of
//! [`netcoll_models::nic::schedule`]) on `n` NICs that can all reach each other, and reports
//! what each node computed and when it finished. Two drivers, so the levels can be compared:
//!
//! - [`run_golden`]: `n` golden NICs; every message waits in a first-in first-out channel per
//!   (source, destination), and the next message delivered is drawn from the non-empty
//!   channels with a seeded random generator, so each seed is another arrival order (the order
//!   between one sender and one receiver is kept, as on a real path).
//! - [`run_cycles`]: `n` NICs at cycle levels chosen per node (cycle model, rust-hdl RTL,
//!   Verilog under Verilator), connected by a crossbar of bounded links ([`Link`]): one link
//!   per (source, destination), `latency` cycles and room for `room` beats, so a full link
//!   back-pressures its sender's `tx_ready`. Each receive port takes whole messages from its
//!   links round robin (a message's beats are never interleaved with another's). Each node's
//!   host issues its setup from cycle 1; once every node's setup is done, it issues its
//!   commands from its start cycle on, one at a time, then polls its done CQ every
//!   `poll_every` cycles until the CQE arrives, then reads its result. Empty setups or
//!   programs are not allowed.
//!
//! A node's [`NodeOutcome`] names the cycle its last command was answered (`posted_at`: the
//! node has entered the collective) and the cycle its CQE was polled (`done_at`).

use super::{cycle_dut, NicDesign};
use crate::harness::Level;
use netcoll_models::net::{Beat, Link};
use netcoll_models::nic::golden::NicGolden;
use netcoll_models::nic::schedule::{HostCommand, NodeProgram};
use netcoll_models::nic::{Cqe, HostOp, HostStatus, Message, NicIn, NicOut, NicParams, Status};
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// What one node did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeOutcome {
    /// The first CQE of the node's done CQ.
    pub cqe: Cqe,
    /// The words of its result (`NodeProgram::result`).
    pub result: Vec<u64>,
    /// Cycle its last command was answered (0 for the golden).
    pub posted_at: u64,
    /// Cycle its CQE was polled (0 for the golden).
    pub done_at: u64,
}

/// What a network run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetworkRun {
    pub nodes: Vec<NodeOutcome>,
    /// Data messages delivered.
    pub messages: u64,
    /// Answers delivered (ACKs and NAKs), and of them the RNR NAKs.
    pub answers: u64,
    pub rnr_naks: u64,
    /// Cycles run (0 for the golden).
    pub cycles: u64,
}

impl NetworkRun {
    /// The cycle the last node finished, minus the cycle the last node entered: the
    /// collective's latency once everyone is in.
    pub fn latency(&self) -> u64 {
        let entered = self.nodes.iter().map(|n| n.posted_at).max().unwrap_or(0);
        let done = self.nodes.iter().map(|n| n.done_at).max().unwrap_or(0);
        done.saturating_sub(entered)
    }
}

fn count(run: &mut NetworkRun, m: &Message) {
    if m.kind_nak {
        run.answers += 1;
        run.rnr_naks += u64::from(m.data.first() == Some(&Status::RnrNak.code()));
    } else {
        run.messages += 1;
    }
}

/// Runs `programs` on golden NICs with arrival order `seed` (see the module docs). An error if
/// a command is refused, a message names a node that does not exist, or a node ends without
/// its CQE.
pub fn run_golden(
    programs: &[NodeProgram],
    p: &NicParams,
    seed: u64,
) -> Result<NetworkRun, String> {
    const MAX_DELIVERIES: u64 = 10_000_000;
    let n = programs.len();
    let mut nodes: Vec<NicGolden> = (0..n).map(|_| NicGolden::new(*p)).collect();
    for (k, prog) in programs.iter().enumerate() {
        for c in prog.setup.iter().chain(&prog.commands) {
            let (status, _) = nodes[k].host(c.op as u64, c.arg, c.w0, c.w1);
            if status != HostStatus::Ok.code() {
                return Err(refused(k, c, status));
            }
        }
    }
    // channels[src * n + dst]
    let mut channels: Vec<VecDeque<Message>> = vec![VecDeque::new(); n * n];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut run = NetworkRun::default();
    loop {
        for (k, node) in nodes.iter_mut().enumerate() {
            node.run();
            for m in node.take_sent() {
                let dst = m.node as usize;
                if dst >= n {
                    return Err(format!("node {k} sent to node {dst}, which does not exist"));
                }
                channels[k * n + dst].push_back(Message {
                    node: k as u64,
                    ..m
                });
            }
        }
        let ready: Vec<usize> = (0..n * n).filter(|&c| !channels[c].is_empty()).collect();
        if ready.is_empty() {
            break;
        }
        if run.messages + run.answers >= MAX_DELIVERIES {
            return Err(format!(
                "no end after {MAX_DELIVERIES} messages (seed {seed})"
            ));
        }
        let c = ready[rng.gen_range(0..ready.len())];
        let m = channels[c].pop_front().expect("non-empty");
        count(&mut run, &m);
        nodes[c % n].deliver(&m);
    }
    for (k, prog) in programs.iter().enumerate() {
        let node = &mut nodes[k];
        let (status, data) = node.host(HostOp::PollCq as u64, prog.done_cq, 0, 0);
        if status != HostStatus::Ok.code() {
            return Err(format!(
                "node {k}: no completion on CQ {} (seed {seed})",
                prog.done_cq
            ));
        }
        let (addr, len) = prog.result;
        let result = (addr..addr + len).map(|a| node.mem(a as usize)).collect();
        run.nodes.push(NodeOutcome {
            cqe: Cqe::decode(data),
            result,
            posted_at: 0,
            done_at: 0,
        });
    }
    Ok(run)
}

fn refused(node: usize, c: &HostCommand, status: u64) -> String {
    let name = HostStatus::ALL
        .iter()
        .find(|s| s.code() == status)
        .map_or("?", |s| s.name());
    format!("node {node}: {} {} answered {name}", c.op.name(), c.arg)
}

/// How [`run_cycles`] connects and drives the nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkOptions {
    /// Cycles from a transmit port to the receive port at the other end of a link.
    pub latency: u64,
    /// Beats a link holds (in flight and waiting): the sender's credits.
    pub room: usize,
    /// The cycle each node's host starts (missing nodes start at 0).
    pub start: Vec<u64>,
    /// Cycles between two polls of the done CQ.
    pub poll_every: u64,
    /// A run that has not ended by then is an error (a hang).
    pub max_cycles: u64,
}

impl Default for NetworkOptions {
    fn default() -> Self {
        NetworkOptions {
            latency: 8,
            room: 16,
            start: vec![],
            poll_every: 4,
            max_cycles: 2_000_000,
        }
    }
}

/// Where a node's host is in its program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Issuing command `i` of the setup.
    Setup(usize),
    /// Setup done, waiting for the start cycle.
    Ready,
    /// Issuing command `i` of the program.
    Post(usize),
    /// Polling the done CQ, next at this cycle.
    Poll(u64),
    /// Reading result word `i`.
    Read(u64),
    Done,
}

struct Host {
    phase: Phase,
    /// A command was taken and its response is awaited.
    pending: bool,
    cqe: Option<Cqe>,
    result: Vec<u64>,
    posted_at: u64,
    done_at: u64,
}

/// Runs `programs` on NICs at `levels` (one per node) connected as in the module docs.
pub fn run_cycles(
    programs: &[NodeProgram],
    p: &NicParams,
    levels: &[Level],
    o: &NetworkOptions,
) -> Result<NetworkRun, String> {
    let n = programs.len();
    if levels.len() != n {
        return Err(format!("{} levels for {n} nodes", levels.len()));
    }
    if let Some(k) = programs
        .iter()
        .position(|p| p.setup.is_empty() || p.commands.is_empty())
    {
        return Err(format!("node {k}: an empty setup or program"));
    }
    let mut designs: Vec<NicDesign> = levels
        .iter()
        .map(|&l| cycle_dut(l, p)?.ok_or_else(|| format!("{l:?} is not a cycle level")))
        .collect::<Result<_, _>>()?;
    let mut links: Vec<Link<Beat>> = (0..n * n).map(|_| Link::new(o.latency, o.room)).collect();
    // The source whose message each receive port is taking, and where round robin resumes.
    let mut taking: Vec<Option<usize>> = vec![None; n];
    let mut next_src: Vec<usize> = vec![0; n];
    let mut hosts: Vec<Host> = (0..n)
        .map(|_| Host {
            phase: Phase::Setup(0),
            pending: false,
            cqe: None,
            result: vec![],
            posted_at: 0,
            done_at: 0,
        })
        .collect();
    let mut run = NetworkRun::default();
    let mut assemble: Vec<netcoll_models::net::Reassembler> =
        (0..n).map(|_| Default::default()).collect();
    let mut cycle = 0;
    while hosts.iter().any(|h| h.phase != Phase::Done) {
        if cycle >= o.max_cycles {
            let stuck: Vec<String> = hosts
                .iter()
                .enumerate()
                .filter(|(_, h)| h.phase != Phase::Done)
                .map(|(k, h)| format!("node {k} ({:?})", h.phase))
                .collect();
            return Err(format!(
                "not over after {} cycles: {}",
                o.max_cycles,
                stuck.join(", ")
            ));
        }
        // Every node's QPs are configured before any node posts (see `NodeProgram::setup`).
        let setup_done = hosts.iter().all(|h| !matches!(h.phase, Phase::Setup(_)));
        for k in 0..n {
            let out: NicOut = if cycle == 0 {
                NicOut::default()
            } else {
                designs[k].peek()
            };
            let beat = out.tx_beat();
            let dst = beat.map(|b| b.node as usize);
            if let Some(d) = dst {
                if d >= n {
                    return Err(format!("node {k} sent to node {d}, which does not exist"));
                }
            }
            let mut i = NicIn {
                reset: cycle == 0,
                tx_ready: dst.is_some_and(|d| links[k * n + d].can_push()),
                ..Default::default()
            };
            // The receive port: keep taking the message it has begun, else the next source
            // (round robin) with a beat waiting.
            if taking[k].is_none() {
                taking[k] = (0..n)
                    .map(|j| (next_src[k] + j) % n)
                    .find(|&s| links[s * n + k].front().is_some());
            }
            let rx = taking[k].and_then(|s| links[s * n + k].front().copied());
            if let Some(b) = &rx {
                i = i.with_rx(b);
            }
            let h = &mut hosts[k];
            let start = o.start.get(k).copied().unwrap_or(0);
            if h.phase == Phase::Ready && cycle >= start && setup_done {
                h.phase = Phase::Post(0);
            }
            let offer: Option<HostCommand> = match h.phase {
                _ if h.pending || cycle == 0 => None,
                Phase::Setup(c) => Some(programs[k].setup[c]),
                Phase::Post(c) => Some(programs[k].commands[c]),
                Phase::Poll(at) if cycle >= at => Some(HostCommand {
                    op: HostOp::PollCq,
                    arg: programs[k].done_cq,
                    w0: 0,
                    w1: 0,
                }),
                Phase::Read(w) => Some(HostCommand {
                    op: HostOp::ReadMem,
                    arg: programs[k].result.0 + w,
                    w0: 0,
                    w1: 0,
                }),
                _ => None,
            };
            if let Some(c) = offer {
                i.host_valid = true;
                i.host_op = c.op as u64;
                i.host_arg = c.arg;
                i.host_w0 = c.w0;
                i.host_w1 = c.w1;
            }
            if i.host_valid && out.host_ready {
                h.pending = true;
            }
            if i.rx_valid && out.rx_ready {
                let s = taking[k].expect("a source is offered");
                let b = links[s * n + k].pop().expect("offered");
                if b.last {
                    taking[k] = None;
                    next_src[k] = (s + 1) % n;
                }
            }
            if let (Some(b), Some(d)) = (beat, dst) {
                if i.tx_ready {
                    if let Some(m) = assemble[k].push(&b)? {
                        count(&mut run, &m);
                    }
                    let arriving = Beat {
                        node: k as u64,
                        ..b
                    };
                    if links[k * n + d].push(arriving).is_err() {
                        return Err("a link took a beat it had no room for".into());
                    }
                }
            }
            let during = designs[k].step(&i);
            if during.host_rsp_valid {
                h.pending = false;
                let (status, data) = (during.host_rsp_status, during.host_rsp_data);
                h.phase = match h.phase {
                    Phase::Setup(c) => {
                        if status != HostStatus::Ok.code() {
                            return Err(refused(k, &programs[k].setup[c], status));
                        }
                        if c + 1 == programs[k].setup.len() {
                            Phase::Ready
                        } else {
                            Phase::Setup(c + 1)
                        }
                    }
                    Phase::Post(c) => {
                        if status != HostStatus::Ok.code() {
                            return Err(refused(k, &programs[k].commands[c], status));
                        }
                        if c + 1 == programs[k].commands.len() {
                            h.posted_at = cycle;
                            Phase::Poll(cycle + 1)
                        } else {
                            Phase::Post(c + 1)
                        }
                    }
                    Phase::Poll(_) if status == HostStatus::Empty.code() => {
                        Phase::Poll(cycle + o.poll_every)
                    }
                    Phase::Poll(_) => {
                        h.cqe = Some(Cqe::decode(data));
                        h.done_at = cycle;
                        if programs[k].result.1 == 0 {
                            Phase::Done
                        } else {
                            Phase::Read(0)
                        }
                    }
                    Phase::Read(w) => {
                        h.result.push(data);
                        if w + 1 == programs[k].result.1 {
                            Phase::Done
                        } else {
                            Phase::Read(w + 1)
                        }
                    }
                    Phase::Ready | Phase::Done => h.phase,
                };
            }
        }
        for l in &mut links {
            l.tick();
        }
        cycle += 1;
    }
    run.cycles = cycle;
    run.nodes = hosts
        .into_iter()
        .map(|h| NodeOutcome {
            cqe: h.cqe.expect("polled before done"),
            result: h.result,
            posted_at: h.posted_at,
            done_at: h.done_at,
        })
        .collect();
    Ok(run)
}
