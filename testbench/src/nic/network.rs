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
//!   Verilog under Verilator), connected by a crossbar of bounded links ([`Crossbar`]): one
//!   link per (source, destination), `latency` cycles and room for `room` beats, so a full
//!   link back-pressures its sender's `tx_ready`. Each receive port takes whole messages from
//!   its links round robin (a message's beats are never interleaved with another's).
//!   [`run_cycles_on`] is the same over any other [`Interconnect`] (the fabric's switches,
//!   `netcoll_fabric::offload::Unicast`). Each node's
//!   host issues its setup from cycle 1; once every node's setup is done and its start cycle
//!   has come, it *enters* the collective and issues its commands one at a time. How the
//!   schedule then progresses is [`Progress`]:
//!   - [`Progress::Nic`] (offload): the host posts the whole program, then polls its done CQ
//!     every `poll_every` cycles until the CQE arrives;
//!   - [`Progress::Host`] (host software): the host posts the receive buffers, then walks the
//!     schedule itself: each SEND or CALC is posted alone, signaled, and its CQE polled before
//!     the next; a WAIT on a counter becomes polling that counter (`READ_CNT`). The messages,
//!     the CALCs and so the results are the same; what differs is who decides when each step
//!     starts.
//!
//!   Under host progress, the host spends `overhead` cycles on each message (before posting
//!   a SEND / CALC, after seeing one arrive: the software's per-message cost); under either,
//!   before each action it may be away for `noise_cycles` cycles with probability
//!   `noise_prob` (OS noise, seeded per node). Under either it spends `call_overhead` cycles
//!   entering the collective (before its first command after the setup) and leaving it (after
//!   the CQE or counter that ends its part): the library call's own software cost. Last, it
//!   reads its result.
//!   Empty setups or programs are not allowed.
//!
//! A node's [`NodeOutcome`] names the cycle it entered (`entered_at`), the cycle its program's
//! last command was answered (`posted_at`) and the cycle its part was over (`done_at`: its
//! last CQE or counter seen, plus the leaving `call_overhead`).

use super::{cycle_dut, NicDesign};
use crate::harness::Level;
use netcoll_models::net::{Beat, Link};
use netcoll_models::nic::golden::NicGolden;
use netcoll_models::nic::schedule::{HostCommand, NodeProgram};
use netcoll_models::nic::{
    Cqe, HostOp, HostStatus, Message, NicIn, NicOut, NicParams, Opcode, Status, Wqe,
};
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// What one node did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeOutcome {
    /// `OK`, or the status of the CQE that reported a failure (a [`Status`] code).
    pub status: u64,
    /// The last CQE polled: the done CQ's under the offload; under host progress, that of
    /// the node's last SEND or CALC (none for a node that only receives).
    pub cqe: Option<Cqe>,
    /// The words of its result (`NodeProgram::result`).
    pub result: Vec<u64>,
    /// Cycle it began the collective: its setup and every other node's were done and its
    /// start cycle had come (0 for the golden).
    pub entered_at: u64,
    /// Cycle its program's last command was answered (0 for the golden).
    pub posted_at: u64,
    /// Cycle its part was over: its last CQE polled, or (host progress) its last counter
    /// seen to arrive (0 for the golden).
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
    /// Cycles run, up to the last node's `done_at` (0 for the golden).
    pub cycles: u64,
}

impl NetworkRun {
    /// The cycle the last node finished, minus the cycle the last node entered: the
    /// collective's latency once everyone is in.
    pub fn latency(&self) -> u64 {
        let entered = self.nodes.iter().map(|n| n.entered_at).max().unwrap_or(0);
        let done = self.nodes.iter().map(|n| n.done_at).max().unwrap_or(0);
        done.saturating_sub(entered)
    }
}

/// `n` vectors of `words` seeded words: ChaCha8 from `seed`, node by node, word by word, each
/// a random `u64` shifted right by a random 0..64 (so small and large values both occur).
pub fn seeded_words(n: usize, words: usize, seed: u64) -> Vec<Vec<u64>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            (0..words)
                .map(|_| rng.gen::<u64>() >> rng.gen_range(0..64))
                .collect()
        })
        .collect()
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
    // Only a node that was just given a message can have more to do: run every node once,
    // then each receiver after its delivery.
    let mut to_run: Vec<usize> = (0..n).collect();
    loop {
        for k in to_run.drain(..) {
            let node = &mut nodes[k];
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
        to_run.push(c % n);
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
        let cqe = Cqe::decode(data);
        run.nodes.push(NodeOutcome {
            status: cqe.status,
            cqe: Some(cqe),
            result,
            entered_at: 0,
            posted_at: 0,
            done_at: 0,
        });
    }
    Ok(run)
}

fn refused(node: usize, c: &HostCommand, status: u64) -> String {
    let name = super::scenario::host_status_name(status);
    format!("node {node}: {} {} answered {name}", c.op.name(), c.arg)
}

/// Who progresses a node's schedule (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Progress {
    /// The host posts the whole schedule; the NIC runs it (cross-channel offload).
    #[default]
    Nic,
    /// The host runs the schedule in software: it posts each SEND / CALC alone (signaled) and
    /// polls its completion, and polls the counter where the schedule has a WAIT.
    Host,
}

impl Progress {
    pub fn name(self) -> &'static str {
        match self {
            Progress::Nic => "nic",
            Progress::Host => "host",
        }
    }
}

/// How [`run_cycles`] connects and drives the nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkOptions {
    /// Cycles from a transmit port to the receive port at the other end of a link.
    pub latency: u64,
    /// Beats a link holds (in flight and waiting): the sender's credits.
    pub room: usize,
    /// The cycle each node's host starts (missing nodes start at 0).
    pub start: Vec<u64>,
    /// Cycles between two polls (of a CQ or a counter).
    pub poll_every: u64,
    /// A run that has not ended by then is an error (a hang).
    pub max_cycles: u64,
    pub progress: Progress,
    /// Host progress only: host cycles spent on each message, before posting a SEND / CALC
    /// and after seeing one arrive (the software's per-message cost, LogP's `o`). Posting an
    /// offloaded schedule costs only the host port's cycles.
    pub overhead: u64,
    /// Either progress: host cycles spent entering the collective and leaving it (see the
    /// module docs).
    pub call_overhead: u64,
    /// OS noise: before each host action, with this probability, the host is away for
    /// `noise_cycles` cycles (drawn per node from `seed`).
    pub noise_prob: f64,
    pub noise_cycles: u64,
    pub seed: u64,
}

impl Default for NetworkOptions {
    fn default() -> Self {
        NetworkOptions {
            latency: 8,
            room: 16,
            start: vec![],
            poll_every: 4,
            max_cycles: 2_000_000,
            progress: Progress::Nic,
            overhead: 0,
            call_overhead: 0,
            noise_prob: 0.0,
            noise_cycles: 0,
            seed: 0,
        }
    }
}

/// One thing a node's host does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Command(HostCommand),
    /// Poll counter `counter` until it reaches `at_least`.
    WaitCounter {
        counter: u64,
        at_least: u64,
    },
    /// Poll CQ `cq` until it yields a CQE.
    Complete {
        cq: u64,
    },
    /// Read data-memory word `addr` into the result.
    Read {
        addr: u64,
    },
}

/// The host's actions for `prog` under `progress`; the index of the first action after the
/// setup, and of the last posting action (the program's last command).
fn actions(prog: &NodeProgram, progress: Progress) -> Result<(Vec<Action>, usize, usize), String> {
    let mut a: Vec<Action> = prog.setup.iter().map(|&c| Action::Command(c)).collect();
    let first = a.len();
    match progress {
        Progress::Nic => {
            a.extend(prog.commands.iter().map(|&c| Action::Command(c)));
        }
        Progress::Host => {
            for &c in &prog.commands {
                if c.op != HostOp::PostSq {
                    a.push(Action::Command(c));
                    continue;
                }
                let w = Wqe::decode(c.w0, c.w1);
                if w.opcode == Opcode::Wait as u64 {
                    if w.mode != 1 {
                        return Err("the host progresses only WAITs on counters".into());
                    }
                    a.push(Action::WaitCounter {
                        counter: w.index,
                        at_least: w.value,
                    });
                } else {
                    let (w0, w1) = Wqe {
                        signaled: true,
                        ..w
                    }
                    .encode();
                    a.push(Action::Command(HostCommand { w0, w1, ..c }));
                    a.push(Action::Complete { cq: prog.done_cq });
                }
            }
        }
    }
    let last_post = a.len() - 1;
    if progress == Progress::Nic {
        a.push(Action::Complete { cq: prog.done_cq });
    }
    let (addr, len) = prog.result;
    a.extend((addr..addr + len).map(|addr| Action::Read { addr }));
    Ok((a, first, last_post))
}

struct Host {
    actions: Vec<Action>,
    /// The next action.
    at: usize,
    first: usize,
    last_post: usize,
    /// An action's command was taken and its response is awaited.
    pending: bool,
    /// No action before this cycle (overhead, noise, the poll interval).
    ready_at: u64,
    rng: rand_chacha::ChaCha8Rng,
    status: u64,
    cqe: Option<Cqe>,
    result: Vec<u64>,
    entered_at: u64,
    posted_at: u64,
    done_at: u64,
}

impl Host {
    fn done(&self) -> bool {
        self.at == self.actions.len()
    }

    /// The command of the next action.
    fn command(&self) -> Option<HostCommand> {
        let c = |op, arg| HostCommand {
            op,
            arg,
            w0: 0,
            w1: 0,
        };
        match *self.actions.get(self.at)? {
            Action::Command(cmd) => Some(cmd),
            Action::WaitCounter { counter, .. } => Some(c(HostOp::ReadCnt, counter)),
            Action::Complete { cq } => Some(c(HostOp::PollCq, cq)),
            Action::Read { addr } => Some(c(HostOp::ReadMem, addr)),
        }
    }

    /// After the action that ended the node's part (none but result reads follow): the
    /// software leaves the call.
    fn leave(&mut self, o: &NetworkOptions) {
        if matches!(self.actions.get(self.at), None | Some(Action::Read { .. })) {
            self.done_at += o.call_overhead;
            self.ready_at += o.call_overhead;
        }
    }

    /// Moves to the next action: in host progress, after the software's overhead for the
    /// message it just saw arrive or is about to send; then perhaps after the noise.
    fn advance(&mut self, cycle: u64, o: &NetworkOptions) {
        let received = matches!(self.actions[self.at], Action::WaitCounter { .. });
        self.at += 1;
        self.ready_at = cycle + 1;
        let sends = matches!(
            self.actions.get(self.at),
            Some(Action::Command(HostCommand {
                op: HostOp::PostSq,
                ..
            }))
        );
        if o.progress == Progress::Host {
            self.ready_at += o.overhead * (u64::from(received) + u64::from(sends));
        }
        if o.noise_prob > 0.0 && self.rng.gen_bool(o.noise_prob.min(1.0)) {
            self.ready_at += o.noise_cycles;
        }
    }
}

/// Runs `programs` on NICs at `levels` (one per node) connected by a [`Crossbar`] of `o`'s
/// links, as in the module docs.
pub fn run_cycles(
    programs: &[NodeProgram],
    p: &NicParams,
    levels: &[Level],
    o: &NetworkOptions,
) -> Result<NetworkRun, String> {
    let mut net = Crossbar::new(programs.len(), o.latency, o.room);
    run_cycles_on(programs, p, levels, o, &mut net)
}

/// Runs `programs` on NICs at `levels` (one per node) connected by `net` (`o.latency` and
/// `o.room` are the crossbar's and not used here).
pub fn run_cycles_on(
    programs: &[NodeProgram],
    p: &NicParams,
    levels: &[Level],
    o: &NetworkOptions,
    net: &mut dyn Interconnect,
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
    let mut hosts: Vec<Host> = vec![];
    for (k, prog) in programs.iter().enumerate() {
        let (actions, first, last_post) =
            actions(prog, o.progress).map_err(|e| format!("node {k}: {e}"))?;
        hosts.push(Host {
            actions,
            at: 0,
            first,
            last_post,
            pending: false,
            ready_at: 1,
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(
                o.seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            ),
            status: Status::Ok.code(),
            cqe: None,
            result: vec![],
            entered_at: 0,
            posted_at: 0,
            done_at: 0,
        });
    }
    let mut run = NetworkRun::default();
    let mut assemble: Vec<netcoll_models::net::Reassembler> =
        (0..n).map(|_| Default::default()).collect();
    let mut cycle = 0;
    while hosts.iter().any(|h| !h.done()) {
        if cycle >= o.max_cycles {
            let stuck: Vec<String> = hosts
                .iter()
                .enumerate()
                .filter(|(_, h)| !h.done())
                .map(|(k, h)| format!("node {k} (at {:?})", h.actions[h.at]))
                .collect();
            return Err(format!(
                "not over after {} cycles: {}",
                o.max_cycles,
                stuck.join(", ")
            ));
        }
        // Every node's QPs are configured before any node posts (see `NodeProgram::setup`).
        let setup_done = hosts.iter().all(|h| h.at >= h.first);
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
                tx_ready: dst.is_some_and(|d| net.can_send(k, d)),
                ..Default::default()
            };
            let rx = net.offered(k);
            if let Some(b) = &rx {
                i = i.with_rx(b);
            }
            let h = &mut hosts[k];
            let start = o.start.get(k).copied().unwrap_or(0);
            let gate = h.at == h.first && !(setup_done && cycle >= start);
            if h.at == h.first && !gate && h.entered_at == 0 {
                h.entered_at = cycle;
                h.ready_at = h.ready_at.max(cycle) + o.call_overhead;
            }
            if !h.pending && !gate && cycle >= h.ready_at {
                if let Some(c) = h.command() {
                    i.host_valid = true;
                    i.host_op = c.op as u64;
                    i.host_arg = c.arg;
                    i.host_w0 = c.w0;
                    i.host_w1 = c.w1;
                }
            }
            if i.host_valid && out.host_ready {
                h.pending = true;
            }
            if i.rx_valid && out.rx_ready {
                net.take(k);
            }
            if let (Some(b), Some(d)) = (beat, dst) {
                if i.tx_ready {
                    if let Some(m) = assemble[k].push(&b)? {
                        count(&mut run, &m);
                    }
                    net.send(k, d, b)?;
                }
            }
            let during = designs[k].step(&i);
            if during.host_rsp_valid {
                h.pending = false;
                let (status, data) = (during.host_rsp_status, during.host_rsp_data);
                let ok = status == HostStatus::Ok.code();
                match h.actions[h.at] {
                    Action::Command(c) => {
                        if !ok {
                            return Err(refused(k, &c, status));
                        }
                        if h.at == h.last_post {
                            h.posted_at = cycle;
                        }
                        h.advance(cycle, o);
                    }
                    Action::WaitCounter { at_least, .. } => {
                        if data >= at_least {
                            h.done_at = cycle;
                            h.advance(cycle, o);
                            h.leave(o);
                        } else {
                            h.ready_at = cycle + o.poll_every;
                        }
                    }
                    Action::Complete { .. } if status == HostStatus::Empty.code() => {
                        h.ready_at = cycle + o.poll_every;
                    }
                    Action::Complete { .. } => {
                        let cqe = Cqe::decode(data);
                        h.cqe = Some(cqe);
                        h.done_at = cycle;
                        if cqe.status == Status::Ok.code() {
                            h.advance(cycle, o);
                            h.leave(o);
                        } else {
                            // A failed work request: the node's part is over.
                            h.status = cqe.status;
                            h.at = h.actions.len();
                        }
                    }
                    Action::Read { .. } => {
                        h.result.push(data);
                        h.advance(cycle, o);
                    }
                }
            }
        }
        net.tick();
        cycle += 1;
    }
    // A node whose part ends in the software's leaving overhead is done after its last command.
    run.cycles = hosts.iter().map(|h| h.done_at + 1).fold(cycle, u64::max);
    run.nodes = hosts
        .into_iter()
        .map(|h| NodeOutcome {
            status: h.status,
            cqe: h.cqe,
            result: h.result,
            entered_at: h.entered_at,
            posted_at: h.posted_at,
            done_at: h.done_at,
        })
        .collect();
    Ok(run)
}

/// What carries the NICs' beats in [`run_cycles_on`]. Nodes are numbered `0 .. n` as the
/// programs are; a beat is sent with `node` = its destination and offered with `node` = its
/// source. Within a cycle every node is offered, may take and may send (in node order), then
/// [`Interconnect::tick`] moves the cycle on. A beat sent in a cycle is offered no earlier
/// than the next, and the beats of two messages never interleave at a receive port.
pub trait Interconnect {
    /// Whether a beat from `src` to `dst` would be taken this cycle (`tx_ready`).
    fn can_send(&self, src: usize, dst: usize) -> bool;
    /// Takes a beat from `src` to `dst` (only after [`Interconnect::can_send`] said yes).
    fn send(&mut self, src: usize, dst: usize, beat: Beat) -> Result<(), String>;
    /// The beat offered to `dst`'s receive port this cycle, if any (`node` = its source).
    fn offered(&mut self, dst: usize) -> Option<Beat>;
    /// `dst` took the beat it was offered.
    fn take(&mut self, dst: usize);
    /// The cycle ends.
    fn tick(&mut self);
}

/// Every node reaches every other over a link of its own (see the module docs): `latency`
/// cycles, room for `room` beats (in flight and waiting), whole messages taken round robin
/// at each receive port.
pub struct Crossbar {
    n: usize,
    /// Link `src * n + dst`.
    links: Vec<Link<Beat>>,
    /// The source whose message each receive port is taking, and where round robin resumes.
    taking: Vec<Option<usize>>,
    next_src: Vec<usize>,
}

impl Crossbar {
    pub fn new(n: usize, latency: u64, room: usize) -> Crossbar {
        Crossbar {
            n,
            links: (0..n * n).map(|_| Link::new(latency, room)).collect(),
            taking: vec![None; n],
            next_src: vec![0; n],
        }
    }
}

impl Interconnect for Crossbar {
    fn can_send(&self, src: usize, dst: usize) -> bool {
        self.links[src * self.n + dst].can_push()
    }

    fn send(&mut self, src: usize, dst: usize, beat: Beat) -> Result<(), String> {
        let arriving = Beat {
            node: src as u64,
            ..beat
        };
        self.links[src * self.n + dst]
            .push(arriving)
            .map_err(|_| "a link took a beat it had no room for".to_string())
    }

    fn offered(&mut self, dst: usize) -> Option<Beat> {
        let n = self.n;
        // Keep taking the message begun, else the next source (round robin) with a beat.
        if self.taking[dst].is_none() {
            self.taking[dst] = (0..n)
                .map(|j| (self.next_src[dst] + j) % n)
                .find(|&s| self.links[s * n + dst].front().is_some());
        }
        self.taking[dst].and_then(|s| self.links[s * n + dst].front().copied())
    }

    fn take(&mut self, dst: usize) {
        let n = self.n;
        let Some(s) = self.taking[dst] else {
            return;
        };
        if let Some(b) = self.links[s * n + dst].pop() {
            if b.last {
                self.taking[dst] = None;
                self.next_src[dst] = (s + 1) % n;
            }
        }
    }

    fn tick(&mut self) {
        for l in &mut self.links {
            l.tick();
        }
    }
}
