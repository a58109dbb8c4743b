//! # Collective schedules: the host library
//!
//! Turns a collective over `n` NICs (barrier, allreduce, broadcast) into one host program per
//! node: the host commands that configure the QPs (once, when the nodes' communicator is
//! made), then those that post the receive buffers and the *schedule*, a list of
//! cross-channel work requests on one send queue that the NIC then runs with no host
//! involvement (CORE-Direct's model, seed `004_…`). The host's only other work is to poll one
//! completion queue for the schedule's single CQE. The programs are plain data
//! ([`HostCommand`]s), so any driver can run them: the golden, the cycle model, the RTL or the
//! Verilog, alone or in a network.
//!
//! ## Rules
//!
//! 1. **Nodes.** Node `i` (0 ≤ `i` < `n`, 2 ≤ `n` ≤ 256) is the NIC whose messages are
//!    addressed to node id `i`.
//! 2. **Queues.** QP 0's send queue runs the schedule and sends every message; its CQ is CQ 0,
//!    which receives exactly one CQE, from the schedule's last work request, when the node's
//!    part is over (or an error CQE first if something failed: "signaled or failed"). The
//!    message of step `s` (a round, or the pre / post step below) arrives at QP `1 + s` of its
//!    receiver, whose RQ holds that step's receive buffer (reporting to CQ 1, unsignaled), and
//!    increments the receiver's counter `s`; the step's WAIT waits for that counter to reach 1.
//!    So a node receives at most one message per QP and the receive buffers never depend on
//!    the order in which messages from different senders arrive. With
//!    [`Transport::Channels`] (the seed's DCT-like single QP) every message goes to QP 0
//!    instead, and step `s`'s buffer is the receive channel of counter `s`, armed for QP 0
//!    where this rule posts the RECV: the same independence of arrival order, with one QP
//!    and one CQ (the schedule's) whatever the number of steps; only counters scale. A program runs once, on NICs
//!    whose counters `0 .. steps` are zero (as after reset): clearing them for the next
//!    collective needs a quiet network, or the next collective takes other counters.
//! 3. **Reliability.** Every QP is reliable with `rnr_retry = 7` (retry for ever) and
//!    [`ScheduleOptions::rnr_delay`]: a message that arrives before its receive buffer is
//!    posted (a node that started late) is NAKed `RNR_NAK` and sent again, never lost. Each
//!    message is therefore answered, and the send queue waits for the answer before its next
//!    work request.
//! 4. **Barrier** (dissemination, any `n`): `R = ⌈log2 n⌉` rounds; in round `r` node `i`
//!    sends an empty message to node `(i + 2^r) mod n` and waits for the one from
//!    `(i − 2^r) mod n`. The last WAIT is signaled. No node's CQE is written before every
//!    node has started its schedule (each node hears, through ⌈log2 n⌉ relays, from all).
//! 5. **Allreduce** (recursive doubling): `P` is the largest power of two ≤ `n`, `R =
//!    log2 P`. A node `i ≥ P` (an *extra*) sends its input to node `i − P` (the pre step) and
//!    waits for the result, which arrives in its `output` (the post step; its WAIT is
//!    signaled). A node `i < n − P` first waits for its extra's vector and combines it with its
//!    input. In round `r` node `i < P` sends its current vector to `i XOR 2^r`, waits for the
//!    partner's, and computes `current op received` with CALC into the next buffer, the last
//!    round into `output` (signaled); a vector is sent by the CALC that computed it (CALC to a
//!    peer), so a round is one WAIT and one CALC. A node with an extra sends it `output` last.
//!    Every node ends with the same `output`, bit for bit, also for the floating-point types:
//!    both partners of a round combine the same two vectors, and `a op b = b op a` exactly.
//! 6. **Broadcast** (k-nomial tree of radix `k` ≥ 2 rooted at `root`): with `v = (i − root)
//!    mod n` written in base `k`, the parent of `v ≠ 0` is `v` with its lowest non-zero digit
//!    cleared, and `v`'s children are `v + j·k^e` (< `n`, 1 ≤ `j` < `k`) for every digit
//!    position `e` below that digit (every position for the root), sent largest subtree first.
//!    A non-root node waits for its parent's message in `output`, then sends `output` to its
//!    children. `output` is the buffer, MPI's: the root's data is its `output`.
//! 7. **Buffers.** Vectors are `count` elements (MAXLOC / MINLOC: `2 · count` words). A node
//!    reads `input`, writes `output` and uses words from `scratch` for its receive buffers and
//!    intermediate vectors ([`NodeProgram::scratch_words`]); everything must fit in data
//!    memory.
//! 8. **Limits**, refused with a [`ScheduleError`] that names the value and what is allowed:
//!    at most [`WQ_DEPTH`] work requests on one queue (the schedule is posted whole, with no
//!    host involvement afterwards), the NIC's QPs and counters, message and CALC lengths of
//!    16 bits, floating-point types only on a NIC built with them.
//!
//! ## Readings of the specification
//!
//! - The seed's CALC sends its result to a peer: rule 5's "CALC to a peer" is how the NIC
//!   forwards what it computed without the host, so the schedule needs no SEND after a CALC.
//! - One QP per step, not one per peer: a node talks to one peer per step in these
//!   algorithms, so the QPs needed grow with the number of steps (`log2 n`), not with `n`.

use super::{HostOp, NicParams, QpConfig, RxChannel, Wqe, WQ_DEPTH};
use crate::reduce_alu::{AluOp, Dtype};

/// One host command: `op` with its argument and words, as on the `host_*` ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostCommand {
    pub op: HostOp,
    pub arg: u64,
    pub w0: u64,
    pub w1: u64,
}

impl HostCommand {
    fn new(op: HostOp, arg: u64, (w0, w1): (u64, u64)) -> HostCommand {
        HostCommand { op, arg, w0, w1 }
    }
}

/// A collective operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    Barrier,
    /// Every node's `output` = the reduction of every node's `input` (`count` elements).
    Allreduce {
        op: AluOp,
        dtype: Dtype,
        count: u64,
    },
    /// Every node's `output` = the root's `output` (`count` 64-bit words).
    Broadcast {
        root: usize,
        radix: usize,
        count: u64,
    },
}

impl Collective {
    /// Words of a node's vector: allreduce's input and result (MAXLOC / MINLOC: pairs),
    /// broadcast's buffer; none for a barrier.
    pub fn words(&self) -> u64 {
        match *self {
            Collective::Barrier => 0,
            Collective::Allreduce { op, count, .. } => count * if op.is_loc() { 2 } else { 1 },
            Collective::Broadcast { count, .. } => count,
        }
    }

    /// The name used on the command line and in reports.
    pub fn name(&self) -> &'static str {
        match self {
            Collective::Barrier => "barrier",
            Collective::Allreduce { .. } => "allreduce",
            Collective::Broadcast { .. } => "broadcast",
        }
    }
}

/// Where a node's data lives, and the retry delay of its reliable QPs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduleOptions {
    /// Data-memory address of the node's input vector (allreduce).
    pub input: u64,
    /// Data-memory address of the result (allreduce, broadcast).
    pub output: u64,
    /// First data-memory word of the receive buffers and intermediate vectors.
    pub scratch: u64,
    /// Cycles between an RNR NAK and the retry (16 bits).
    pub rnr_delay: u64,
    /// How the steps' messages reach their receive buffers (rule 2).
    pub transport: Transport,
}

/// Rule 2's two ways of keeping a node's receive buffers apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Transport {
    /// A QP per step, whose RQ holds the step's buffer: `1 + steps` QPs, 2 CQs.
    #[default]
    QpPerStep,
    /// One QP for everything (DCT-like): the step's buffer is the receive channel of its
    /// counter, armed for QP 0 (see "Receive channels" in [`super`]): 1 QP, 1 CQ.
    Channels,
}

impl Transport {
    /// The name used on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Transport::QpPerStep => "qp",
            Transport::Channels => "channels",
        }
    }
}

impl Default for ScheduleOptions {
    fn default() -> Self {
        ScheduleOptions {
            input: 0,
            output: 0x100,
            scratch: 0x200,
            rnr_delay: 32,
            transport: Transport::QpPerStep,
        }
    }
}

/// One node's host program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeProgram {
    /// Configures the QPs; issued by every node before any node issues `commands` (as MPI
    /// connects a communicator's QPs when it makes the communicator): a message must find
    /// its QP reliable to be retried rather than discarded.
    pub setup: Vec<HostCommand>,
    /// Issued in order: post the receive buffers, then the schedule (which starts it).
    pub commands: Vec<HostCommand>,
    /// The CQ to poll: its first CQE ends the node's part (status `OK`) or reports a failure.
    pub done_cq: u64,
    /// The result, `(address, words)`: empty for a barrier.
    pub result: (u64, u64),
    /// Words used from `scratch`.
    pub scratch_words: u64,
    /// Work requests in the schedule.
    pub wqes: usize,
}

impl NodeProgram {
    /// Writes `words` to data memory from `addr` first (a node's input, a root's buffer).
    pub fn write_first(&mut self, addr: u64, words: &[u64]) {
        let writes = words.iter().zip(addr..).map(|(&w, a)| HostCommand {
            op: HostOp::WriteMem,
            arg: a,
            w0: w,
            w1: 0,
        });
        self.commands.splice(0..0, writes);
    }
}

/// A schedule that cannot be built, naming the value and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("nodes = {0}: 2 to 256 allowed")]
    Nodes(usize),
    #[error("count = {0}: 1 to {1} allowed")]
    Count(u64, u64),
    #[error("root = {root}: 0 to {} allowed (nodes = {nodes})", nodes - 1)]
    Root { root: usize, nodes: usize },
    #[error("radix = {0}: 2 to 256 allowed")]
    Radix(usize),
    #[error("rnr_delay = {0}: 0 to 65535 allowed")]
    RnrDelay(u64),
    #[error("dtype = {0}: the NIC is built without it ([nic] fp = 1 and fp_types name it)")]
    Dtype(&'static str),
    #[error("op = {0}: not defined on {1} (MAX, MIN, MAXLOC, MINLOC, SUM, PROD allowed)")]
    Op(&'static str, &'static str),
    #[error("{what}: {need} needed, the NIC has {have} ([nic] {key})")]
    Resource {
        what: &'static str,
        key: &'static str,
        need: u64,
        have: u64,
    },
    #[error("node {node}: {need} work requests on one send queue, at most {WQ_DEPTH} allowed (fewer nodes, or another radix)")]
    Depth { node: usize, need: usize },
    #[error("buffers up to word {end} (`{what}`), data memory has {have} words")]
    Memory {
        what: &'static str,
        end: u64,
        have: u64,
    },
}

/// What the steps of rule 2 are: the receive QP and counter of step `s`.
fn step_qp(s: u64) -> u64 {
    1 + s
}

/// The largest power of two ≤ `n` (≥ 1): allreduce's `P`.
fn largest_power_of_two(n: usize) -> usize {
    1 << (usize::BITS - 1 - n.leading_zeros())
}

/// `⌈log2 n⌉`.
fn ceil_log2(n: usize) -> u64 {
    (usize::BITS - (n - 1).leading_zeros()) as u64
}

/// One node's program under construction.
struct Builder {
    setup: Vec<HostCommand>,
    commands: Vec<HostCommand>,
    sq: Vec<Wqe>,
    /// Rule 2 with [`Transport::Channels`].
    channels: bool,
}

impl Builder {
    fn new(qps: u64, o: &ScheduleOptions) -> Builder {
        let (rnr_delay, channels) = (o.rnr_delay, o.transport == Transport::Channels);
        let qps = if channels { 1 } else { qps };
        let cfg = |rq_cq| {
            QpConfig {
                sq_cq: 0,
                rq_cq,
                sq_managed: 0,
                rq_managed: 0,
                plain: 0,
                rc: 1,
                rnr_retry: 7,
                rnr_delay,
            }
            .pack()[0]
        };
        let setup = (0..qps)
            .map(|qp| HostCommand::new(HostOp::ConfigQp, qp, (cfg(u64::from(qp > 0)), 0)))
            .collect();
        Builder {
            setup,
            commands: vec![],
            sq: vec![],
            channels,
        }
    }

    /// The QP step `step`'s message goes to.
    fn step_qp(&self, step: u64) -> u64 {
        if self.channels {
            0
        } else {
            step_qp(step)
        }
    }

    fn recv(&mut self, step: u64, addr: u64, len: u64) {
        if self.channels {
            let chan = RxChannel {
                addr,
                len,
                qp: 0,
                armed: 1,
            };
            self.commands.push(HostCommand::new(
                HostOp::SetChannel,
                step,
                (chan.pack()[0], 0),
            ));
            return;
        }
        let w = Wqe::recv(addr, len, false).encode();
        self.commands
            .push(HostCommand::new(HostOp::PostRq, step_qp(step), w));
    }

    /// Sends `(addr, len)` to node `dst` as step `step`'s message: the CALC that just
    /// computed that buffer sends it, or a SEND.
    fn send(&mut self, (addr, len): (u64, u64), dst: usize, step: u64) {
        let (dst, qp) = (dst as u64, self.step_qp(step));
        if let Some(last) = self.sq.last_mut() {
            if last.opcode == super::Opcode::Calc as u64 && last.mode == 0 && last.dst_addr == addr
            {
                last.mode = 1;
                last.dst = dst;
                last.qp = qp;
                last.cnt_en = true;
                last.cnt = step;
                return;
            }
        }
        self.sq
            .push(Wqe::send(addr, len, dst, qp, Some(step), false));
    }

    fn wait(&mut self, step: u64) {
        self.sq.push(Wqe::wait_counter(step, 1, false));
    }

    fn finish(mut self, result: (u64, u64), scratch_words: u64) -> NodeProgram {
        if let Some(last) = self.sq.last_mut() {
            last.signaled = true;
        }
        let wqes = self.sq.len();
        for w in &self.sq {
            self.commands
                .push(HostCommand::new(HostOp::PostSq, 0, w.encode()));
        }
        NodeProgram {
            setup: self.setup,
            commands: self.commands,
            done_cq: 0,
            result,
            scratch_words,
            wqes,
        }
    }
}

/// The host programs of collective `c` over `nodes` NICs with parameters `p`.
pub fn build(
    c: &Collective,
    nodes: usize,
    p: &NicParams,
    o: &ScheduleOptions,
) -> Result<Vec<NodeProgram>, ScheduleError> {
    if !(2..=256).contains(&nodes) {
        return Err(ScheduleError::Nodes(nodes));
    }
    if o.rnr_delay > 0xFFFF {
        return Err(ScheduleError::RnrDelay(o.rnr_delay));
    }
    const MAX_LEN: u64 = 0xFFFF;
    let steps = match *c {
        Collective::Barrier => ceil_log2(nodes),
        Collective::Allreduce { op, dtype, count } => {
            let per_element = if op.is_loc() { 2 } else { 1 };
            if count == 0 || c.words() > MAX_LEN {
                return Err(ScheduleError::Count(count, MAX_LEN / per_element));
            }
            if !p.alu().builds(dtype) {
                return Err(ScheduleError::Dtype(dtype.name()));
            }
            if !dtype.defines(op) {
                return Err(ScheduleError::Op(op.name(), dtype.name()));
            }
            let power = largest_power_of_two(nodes);
            ceil_log2(power) + u64::from(power < nodes)
        }
        Collective::Broadcast { root, radix, count } => {
            if root >= nodes {
                return Err(ScheduleError::Root { root, nodes });
            }
            if !(2..=256).contains(&radix) {
                return Err(ScheduleError::Radix(radix));
            }
            if count == 0 || count > MAX_LEN {
                return Err(ScheduleError::Count(count, MAX_LEN));
            }
            1
        }
    };
    let need = |what, key, need: u64, have: usize| {
        if need > have as u64 {
            Err(ScheduleError::Resource {
                what,
                key,
                need,
                have: have as u64,
            })
        } else {
            Ok(())
        }
    };
    let channels = o.transport == Transport::Channels;
    need("QPs", "qps", if channels { 1 } else { 1 + steps }, p.qps)?;
    need("counters", "counters", steps, p.counters)?;
    need("CQs", "cqs", if channels { 1 } else { 2 }, p.cqs)?;
    let qps = 1 + steps;
    let programs: Vec<NodeProgram> = (0..nodes)
        .map(|i| match *c {
            Collective::Barrier => barrier(i, nodes, qps, o),
            Collective::Allreduce { op, dtype, count } => {
                allreduce(i, nodes, qps, (op, dtype, count), o)
            }
            Collective::Broadcast { root, radix, count } => {
                broadcast(i, nodes, qps, (root, radix, count), o)
            }
        })
        .collect();
    for (node, prog) in programs.iter().enumerate() {
        if prog.wqes > WQ_DEPTH {
            return Err(ScheduleError::Depth {
                node,
                need: prog.wqes,
            });
        }
        let have = p.dmem_words as u64;
        let (addr, len) = prog.result;
        let spans = [
            ("output", addr + len),
            ("scratch", o.scratch + prog.scratch_words),
        ];
        for (what, end) in spans {
            if end > have {
                return Err(ScheduleError::Memory { what, end, have });
            }
        }
        if let Collective::Allreduce { .. } = c {
            let end = o.input + c.words();
            if end > have {
                return Err(ScheduleError::Memory {
                    what: "input",
                    end,
                    have,
                });
            }
        }
    }
    Ok(programs)
}

fn barrier(i: usize, n: usize, qps: u64, o: &ScheduleOptions) -> NodeProgram {
    let mut b = Builder::new(qps, o);
    for r in 0..ceil_log2(n) {
        b.recv(r, o.scratch, 0);
        b.send((o.scratch, 0), (i + (1 << r)) % n, r);
        b.wait(r);
    }
    b.finish((o.output, 0), 0)
}

fn allreduce(
    i: usize,
    n: usize,
    qps: u64,
    (op, dtype, count): (AluOp, Dtype, u64),
    o: &ScheduleOptions,
) -> NodeProgram {
    let words = Collective::Allreduce { op, dtype, count }.words();
    let power = largest_power_of_two(n);
    let rounds = ceil_log2(power);
    // Step `rounds` is the pre step (towards the extra's partner) and the post step (back).
    let extra_step = rounds;
    let mut b = Builder::new(qps, o);
    if i >= power {
        b.recv(extra_step, o.output, words);
        b.send((o.input, words), i - power, extra_step);
        b.wait(extra_step);
        return b.finish((o.output, words), 0);
    }
    // Scratch: a receive buffer per step, then the intermediate vectors.
    let recv_buf = |s: u64| o.scratch + s * words;
    let mut next_tmp = o.scratch + (rounds + 1) * words;
    let has_extra = i + power < n;
    // A MAXLOC / MINLOC element is a pair of words: stride 2.
    let stride = words / count;
    let calc = |a: u64, bb: u64, dst: u64| Wqe {
        signaled: false,
        ..Wqe::calc(
            op as u64,
            dtype as u64,
            count,
            (a, stride),
            (bb, stride),
            dst,
        )
    };
    let mut cur = o.input;
    if has_extra {
        b.recv(extra_step, recv_buf(extra_step), words);
        b.wait(extra_step);
        let dst = next_tmp;
        next_tmp += words;
        b.sq.push(calc(cur, recv_buf(extra_step), dst));
        cur = dst;
    }
    for r in 0..rounds {
        b.recv(r, recv_buf(r), words);
        b.send((cur, words), i ^ (1 << r), r);
        b.wait(r);
        let dst = if r + 1 == rounds {
            o.output
        } else {
            next_tmp += words;
            next_tmp - words
        };
        b.sq.push(calc(cur, recv_buf(r), dst));
        cur = dst;
    }
    if has_extra {
        b.send((o.output, words), i + power, extra_step);
    }
    b.finish((o.output, words), next_tmp - o.scratch)
}

fn broadcast(
    i: usize,
    n: usize,
    qps: u64,
    (root, radix, count): (usize, usize, u64),
    o: &ScheduleOptions,
) -> NodeProgram {
    let v = (i + n - root) % n;
    // The digit positions below v's lowest non-zero digit (every position for the root).
    let mut span = 1usize;
    let mut positions = 0;
    while span < n && (v == 0 || v.is_multiple_of(span * radix)) {
        span = span.saturating_mul(radix);
        positions += 1;
    }
    let mut b = Builder::new(qps, o);
    if v != 0 {
        b.recv(0, o.output, count);
        b.wait(0);
    }
    let mut weight = span;
    for _ in 0..positions {
        weight /= radix;
        for j in 1..radix {
            let child = v + j * weight;
            if child < n {
                b.send((o.output, count), (child + root) % n, 0);
            }
        }
    }
    b.finish((o.output, count), 0)
}

#[cfg(test)]
mod tests {
    use super::super::Opcode;
    use super::*;

    fn opcodes(prog: &NodeProgram) -> Vec<u64> {
        prog.commands
            .iter()
            .filter(|c| c.op == HostOp::PostSq)
            .map(|c| Wqe::decode(c.w0, c.w1).opcode)
            .collect()
    }

    /// The destinations of a node's messages, in schedule order.
    fn destinations(prog: &NodeProgram) -> Vec<u64> {
        prog.commands
            .iter()
            .filter(|c| c.op == HostOp::PostSq)
            .map(|c| Wqe::decode(c.w0, c.w1))
            .filter(|w| {
                w.opcode == Opcode::Send as u64 || (w.opcode == Opcode::Calc as u64 && w.mode == 1)
            })
            .map(|w| w.dst)
            .collect()
    }

    #[test]
    fn broadcast_trees_are_the_k_nomial_ones() {
        let p = NicParams::default();
        let o = ScheduleOptions::default();
        // Binomial tree of 8 from root 0: 0 → 4, 2, 1; 4 → 6, 5; 2 → 3; 6 → 7.
        let c = Collective::Broadcast {
            root: 0,
            radix: 2,
            count: 4,
        };
        let progs = build(&c, 8, &p, &o).unwrap();
        let want: [&[u64]; 8] = [&[4, 2, 1], &[], &[3], &[], &[6, 5], &[], &[7], &[]];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(destinations(&progs[k]), *w, "node {k}");
        }
        // Trinomial tree of 10 rooted at 7 (relative ranks): 0 → 9, 3, 6, 1, 2; 3 → 4, 5;
        // 6 → 7, 8. Absolute: node 7 → 6, 0, 3, 8, 9; node 0 → 1, 2; node 3 → 4, 5.
        let c = Collective::Broadcast {
            root: 7,
            radix: 3,
            count: 4,
        };
        let progs = build(&c, 10, &p, &o).unwrap();
        assert_eq!(destinations(&progs[7]), [6, 0, 3, 8, 9]);
        assert_eq!(destinations(&progs[0]), [1, 2]);
        assert_eq!(destinations(&progs[3]), [4, 5]);
        for k in [1, 2, 4, 5, 6, 8, 9] {
            assert_eq!(
                destinations(&progs[k]),
                [] as [u64; 0],
                "node {k} is a leaf"
            );
        }
    }

    #[test]
    fn allreduce_pairs_nodes_by_recursive_doubling_with_extras() {
        let p = NicParams::default();
        let o = ScheduleOptions::default();
        let c = Collective::Allreduce {
            op: AluOp::Sum,
            dtype: Dtype::I64,
            count: 3,
        };
        // 6 nodes: P = 4, extras 4 → 0 and 5 → 1.
        let progs = build(&c, 6, &p, &o).unwrap();
        assert_eq!(destinations(&progs[0]), [1, 2, 4]);
        assert_eq!(destinations(&progs[1]), [0, 3, 5]);
        assert_eq!(destinations(&progs[3]), [2, 1]);
        assert_eq!(destinations(&progs[4]), [0]);
        // Node 0: WAIT (extra), CALC→1, WAIT, CALC→2, WAIT, CALC→4 (fused sends).
        assert_eq!(opcodes(&progs[0]), [3, 6, 3, 6, 3, 6]);
        // Node 3: SEND, WAIT, CALC→1, WAIT, CALC (local, into output).
        assert_eq!(opcodes(&progs[3]), [1, 3, 6, 3, 6]);
        assert_eq!(opcodes(&progs[5]), [1, 3]);
        // Only the last work request is signaled.
        for prog in &progs {
            let sq: Vec<Wqe> = prog
                .commands
                .iter()
                .filter(|c| c.op == HostOp::PostSq)
                .map(|c| Wqe::decode(c.w0, c.w1))
                .collect();
            let signaled: Vec<bool> = sq.iter().map(|w| w.signaled).collect();
            assert_eq!(signaled.iter().filter(|s| **s).count(), 1);
            assert!(signaled[signaled.len() - 1]);
        }
    }

    #[test]
    fn barrier_is_dissemination() {
        let progs = build(
            &Collective::Barrier,
            5,
            &NicParams::default(),
            &ScheduleOptions::default(),
        )
        .unwrap();
        assert_eq!(destinations(&progs[3]), [4, 0, 2]);
        assert_eq!(opcodes(&progs[3]), [1, 3, 1, 3, 1, 3]);
    }

    #[test]
    fn limits_are_refused_naming_the_value() {
        let p = NicParams::SMALL;
        let o = ScheduleOptions::default();
        let e = |c: Collective, n| build(&c, n, &p, &o).unwrap_err().to_string();
        assert_eq!(e(Collective::Barrier, 1), "nodes = 1: 2 to 256 allowed");
        // SMALL has 4 QPs: 3 steps at most.
        assert_eq!(
            e(Collective::Barrier, 9),
            "QPs: 5 needed, the NIC has 4 ([nic] qps)"
        );
        let bcast = |root, radix| Collective::Broadcast {
            root,
            radix,
            count: 1,
        };
        assert_eq!(e(bcast(5, 2), 5), "root = 5: 0 to 4 allowed (nodes = 5)");
        assert_eq!(e(bcast(0, 1), 5), "radix = 1: 2 to 256 allowed");
        let f64_sum = Collective::Allreduce {
            op: AluOp::Sum,
            dtype: Dtype::F64,
            count: 1,
        };
        assert!(e(f64_sum, 4).starts_with("dtype = f64"));
        let big = Collective::Allreduce {
            op: AluOp::Sum,
            dtype: Dtype::I64,
            count: 800,
        };
        assert_eq!(
            e(big, 4),
            "buffers up to word 1056 (`output`), data memory has 1024 words"
        );
        let lxor_f64 = Collective::Allreduce {
            op: AluOp::LXor,
            dtype: Dtype::F64,
            count: 1,
        };
        let fp = NicParams {
            fp: 1,
            ..NicParams::default()
        };
        assert_eq!(
            build(&lxor_f64, 4, &fp, &o).unwrap_err().to_string(),
            "op = LXOR: not defined on f64 (MAX, MIN, MAXLOC, MINLOC, SUM, PROD allowed)"
        );
        let slow = ScheduleOptions {
            rnr_delay: 70_000,
            ..o
        };
        assert_eq!(
            build(&Collective::Barrier, 4, &p, &slow)
                .unwrap_err()
                .to_string(),
            "rnr_delay = 70000: 0 to 65535 allowed"
        );
        // A root of radix 256 over 256 nodes sends 255 messages from one queue.
        let wide = build(&bcast(0, 256), 256, &NicParams::default(), &o).unwrap_err();
        assert_eq!(
            wide.to_string(),
            "node 0: 255 work requests on one send queue, at most 16 allowed (fewer nodes, or another radix)"
        );
    }
}
