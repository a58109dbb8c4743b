//! Random host programs for lockstep runs.
//!
//! A program mixes every host command, every work request (valid ones and each kind of bad
//! one: unknown opcode, reserved bits, out-of-range QP / CQ / counter, buffers outside memory,
//! reserved ALU operation, full queues, cross-channel work posted to a plain QP), arriving messages (to posted, missing and disabled
//! receive WQEs, longer than their buffer, naming counters, NAKs) and idle stretches. CALCs
//! often name a shape (multi-dimensional arguments), set by `SET_SHAPE` at the start of the
//! program, before any WQE is posted: a `SET_SHAPE` of a shape that a posted CALC names races
//! it (the golden's reading 15), so later `SET_SHAPE`s only name shapes that do not exist.
//! It is not meant to compute anything: the point is that two implementations do exactly the same thing
//! cycle by cycle, including on the error paths.

use crate::nic::scenario::{HostCmd, Scenario, Step};
use netcoll_models::nic::Message;
use netcoll_models::nic::{
    HostOp, NicParams, Opcode, QpConfig, RxChannel, ShapeDim, Status, Wqe, SHAPES, STATS,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn host(label: &'static str, op: HostOp, arg: u64, w0: u64, w1: u64) -> Step {
    Step::Host {
        label,
        cmds: vec![HostCmd {
            op: op as u64,
            arg,
            w0,
            w1,
        }],
    }
}

/// An index that is usually in `0..n` and sometimes just out of range.
fn index(r: &mut ChaCha8Rng, n: usize) -> u64 {
    if r.gen_ratio(1, 12) {
        n as u64 + r.gen_range(0..3)
    } else {
        r.gen_range(0..n as u64)
    }
}

/// A buffer address: usually well inside memory, sometimes near or past its end.
fn addr(r: &mut ChaCha8Rng, p: &NicParams) -> u64 {
    if r.gen_ratio(1, 16) {
        p.dmem_words as u64 - r.gen_range(0..4)
    } else {
        r.gen_range(0..64)
    }
}

/// Half the time a counter (sometimes out of range).
fn maybe_counter(r: &mut ChaCha8Rng, p: &NicParams) -> Option<u64> {
    if r.gen_bool(0.5) {
        Some(index(r, p.counters))
    } else {
        None
    }
}

/// A stride of a shape's dimension: often 0 (the dimension repeats), mostly short, sometimes
/// long enough to leave data memory (`BAD_ADDR`).
fn shape_stride(r: &mut ChaCha8Rng) -> u64 {
    match r.gen_range(0..32) {
        0..=7 => 0,
        31 => r.gen_range(100..1500),
        _ => r.gen_range(1..9),
    }
}

/// One outer dimension of a shape: mostly 2 to `max` elements, sometimes absent (count 0) or
/// of one element.
fn shape_dim(r: &mut ChaCha8Rng, max: u64) -> ShapeDim {
    ShapeDim {
        count: if r.gen_ratio(1, 4) {
            r.gen_range(0..2)
        } else {
            r.gen_range(2..=max)
        },
        sa: shape_stride(r),
        sb: shape_stride(r),
        sd: shape_stride(r),
    }
}

/// The CALC shapes of a program: the shapes it set and their own random stream, apart from
/// the program's, so that a program is the one it was before shapes existed but for its
/// `SET_SHAPE`s and its CALCs' shapes and counts.
struct Shapes {
    r: ChaCha8Rng,
    set: Vec<u64>,
}

impl Shapes {
    /// A CALC's shape: half the time 0 (one-dimensional), mostly one the program set,
    /// sometimes any (one never set is one-dimensional).
    fn calc(&mut self) -> u64 {
        let r = &mut self.r;
        match r.gen_range(0..8) {
            0..=3 => 0,
            4..=6 if !self.set.is_empty() => self.set[r.gen_range(0..self.set.len())],
            _ => r.gen_range(1..SHAPES as u64),
        }
    }
}

/// A random work request; a CALC's shape comes from `shapes`.
fn random_wqe(r: &mut ChaCha8Rng, p: &NicParams, shapes: &mut Shapes) -> Wqe {
    let signaled = r.gen_ratio(3, 4);
    match r.gen_range(0..21) {
        0..=1 => Wqe::nop(signaled),
        2..=5 => Wqe::send(
            addr(r, p),
            r.gen_range(0..5),
            r.gen_range(0..4),
            r.gen_range(0..p.qps as u64),
            maybe_counter(r, p),
            signaled,
        ),
        6..=7 => Wqe {
            // Sometimes one of a group (the wait index stays until the group's last).
            more: r.gen_ratio(1, 3),
            ..Wqe::wait_cq(index(r, p.cqs), r.gen_range(0..3), signaled)
        },
        8..=9 => Wqe::wait_counter(index(r, p.counters), r.gen_range(0..4), signaled),
        10..=12 => match r.gen_range(0..10) {
            // libmlx5's, from the enable head (often refused: the target unmanaged, or not
            // that many posted), sometimes one of a group.
            0..=4 => Wqe {
                more: r.gen_ratio(1, 3),
                ..Wqe::enable_posted(
                    r.gen_bool(0.5),
                    index(r, p.qps),
                    r.gen_range(0..3),
                    signaled,
                )
            },
            // By n, up to an index, or (raw) up to but not including one.
            k => Wqe {
                mode: [0, 0, 1, 1, 3][k - 5],
                ..Wqe::enable(
                    r.gen_bool(0.5),
                    index(r, p.qps),
                    false,
                    r.gen_range(0..4),
                    signaled,
                )
            },
        },
        13..=17 => {
            let shape = shapes.calc();
            let mut q = Wqe {
                opcode: Opcode::Calc as u64,
                signaled,
                alu_op: if r.gen_ratio(1, 10) {
                    r.gen_range(12..16)
                } else {
                    r.gen_range(0..12)
                },
                // Every element type, the floating-point ones too (refused with `BadArg` by a
                // NIC built without them).
                dtype: r.gen_range(0..8),
                mode: r.gen_bool(0.3) as u64,
                // Mostly short (the arguments then overlap the result in every way), sometimes
                // longer than the ALU's pipeline.
                len: if r.gen_ratio(1, 5) {
                    r.gen_range(4..24)
                } else {
                    r.gen_range(0..4)
                },
                index: shape,
                addr: addr(r, p),
                b: addr(r, p),
                // Strides 0 to 3: with lanes, 1 and 3 spread a group over the banks
                // differently, 0 repeats a word, 2 keeps the CALC in one lane.
                sa: r.gen_range(0..4),
                sb: r.gen_range(0..4),
                dst_addr: addr(r, p),
                dst: r.gen_range(0..4),
                qp: r.gen_range(0..p.qps as u64),
                cnt_en: r.gen_bool(0.3),
                cnt: index(r, p.counters),
                ..Default::default()
            };
            // With a shape (up to 3 x 2 rows of it), at most 4 elements a row, so that the
            // CALC ends within the settled programs' runs, and mostly an integer type, so
            // that most such CALCs compute (a floating-point one is refused by a NIC built
            // without them).
            if shape != 0 {
                q.len = shapes.r.gen_range(0..5);
                if shapes.r.gen_ratio(3, 4) {
                    q.dtype = shapes.r.gen_range(0..4);
                }
            }
            q
        }
        18 => Wqe::recv(addr(r, p), r.gen_range(0..4), signaled),
        // A PIPE of a few short chunks (sometimes none, no buffers or empty ones).
        19 => Wqe {
            signaled,
            ..Wqe::pipe(
                index(r, p.qps),
                (addr(r, p), r.gen_range(0..4), r.gen_range(0..4)),
                r.gen_range(0..4),
                r.gen_range(0..4),
                r.gen_range(0..p.qps as u64),
                maybe_counter(r, p),
            )
        },
        // An unknown opcode.
        _ => Wqe {
            opcode: r.gen_range(8..16),
            signaled,
            ..Default::default()
        },
    }
}

fn is_enable(q: &Wqe) -> bool {
    q.opcode == Opcode::SendEn as u64 || q.opcode == Opcode::RecvEn as u64
}

/// A random host program of about `steps` steps for a NIC with parameters `p`.
pub fn random_scenario(p: &NicParams, seed: u64, steps: usize) -> Scenario {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let mut out = vec![];
    // Queue pairs: some report to other CQs, some queues are managed, some QPs are plain.
    let mut managed = vec![];
    let mut last_target = None;
    // Reliable QPs, the WQEs posted to each SQ (the index the next post gets, unless the
    // post is refused) and the messages of reliable SQs that await an answer (QP, WQE
    // index), which most answers delivered below name.
    let mut reliable = vec![false; p.qps];
    let mut posted = vec![0u64; p.qps];
    let mut awaiting: Vec<(u64, u64)> = vec![];
    // The receive channels armed (counter, QP), which many data messages delivered name.
    let mut armed: Vec<(u64, u64)> = vec![];
    for qp in 0..p.qps as u64 {
        if r.gen_bool(0.7) {
            let c = QpConfig {
                sq_cq: r.gen_range(0..p.cqs as u64),
                rq_cq: r.gen_range(0..p.cqs as u64),
                sq_managed: r.gen_ratio(1, 4) as u64,
                rq_managed: r.gen_ratio(1, 3) as u64,
                plain: r.gen_ratio(1, 6) as u64,
                rc: r.gen_ratio(1, 4) as u64,
                rnr_retry: r.gen_range(0..8),
                rnr_delay: r.gen_range(0..40),
            };
            reliable[qp as usize] = c.rc == 1;
            for (recv, m) in [(false, c.sq_managed), (true, c.rq_managed)] {
                if m == 1 {
                    managed.push((qp, recv));
                }
            }
            out.push(host("config_qp", HostOp::ConfigQp, qp, c.pack()[0], 0));
        }
    }
    for a in 0..16u64 {
        out.push(host("write_mem", HostOp::WriteMem, a * 3, r.gen(), 0));
    }
    // CALC shapes, before any WQE is posted (see the module docs): short dimensions (2 of up
    // to 3 x 2 rows, or absent), strides often 0; sometimes a shape that cannot be set.
    let mut shapes = Shapes {
        r: ChaCha8Rng::seed_from_u64(seed ^ 0x5348_4150_4553), // "SHAPES"
        set: vec![],
    };
    for _ in 0..shapes.r.gen_range(2..=5) {
        let rs = &mut shapes.r;
        let s = if rs.gen_ratio(1, 8) {
            [0, SHAPES as u64 + rs.gen_range(0..4)][rs.gen_range(0..2)]
        } else {
            rs.gen_range(1..SHAPES as u64)
        };
        let (d1, d2) = (shape_dim(rs, 3), shape_dim(rs, 2));
        if (1..SHAPES as u64).contains(&s) && !shapes.set.contains(&s) {
            shapes.set.push(s);
        }
        out.push(host(
            "set_shape",
            HostOp::SetShape,
            s,
            d1.pack()[0],
            d2.pack()[0],
        ));
    }
    while out.len() < steps {
        let step = match r.gen_range(0..100) {
            0..=29 => {
                let mut q = random_wqe(&mut r, p, &mut shapes);
                // Most enables counted from the head name a managed queue, so that they are
                // accepted and move its head (random targets are mostly refused), and often
                // the queue the previous one named, so that groups form.
                if is_enable(&q) && q.mode == 2 && !managed.is_empty() && r.gen_ratio(3, 4) {
                    let (qp, recv) = match last_target {
                        Some(t) if r.gen_bool(0.6) => t,
                        _ => managed[r.gen_range(0..managed.len())],
                    };
                    q.qp = qp;
                    q.opcode = if recv { Opcode::RecvEn } else { Opcode::SendEn } as u64;
                    last_target = Some((qp, recv));
                }
                let (mut w0, w1) = q.encode();
                if r.gen_ratio(1, 40) {
                    w0 |= 1 << 6; // a reserved bit
                }
                let qp = index(&mut r, p.qps);
                if let Some(n) = posted.get_mut(qp as usize) {
                    let sends = q.opcode == Opcode::Send as u64
                        || (q.opcode == Opcode::Calc as u64 && q.mode == 1);
                    if sends && reliable[qp as usize] {
                        awaiting.push((qp, *n));
                    }
                    *n += 1;
                }
                host("post_sq", HostOp::PostSq, qp, w0, w1)
            }
            30..=44 => {
                let q = if r.gen_ratio(1, 10) {
                    random_wqe(&mut r, p, &mut shapes)
                } else {
                    Wqe::recv(addr(&mut r, p), r.gen_range(0..5), r.gen_ratio(4, 5))
                };
                let (w0, w1) = q.encode();
                host("post_rq", HostOp::PostRq, index(&mut r, p.qps), w0, w1)
            }
            45..=59 => {
                let nak = r.gen_ratio(1, 3);
                let words = if nak { 0 } else { r.gen_range(0..6) };
                // An answer: an ACK (no data: reason OK), an RNR NAK, a NAK, any reason; with
                // a small tag, which often names a send queue's head.
                let reason = match r.gen_range(0..6) {
                    0 => vec![],
                    1..=3 => vec![Status::RnrNak as u64],
                    4 => vec![Status::NotReady as u64],
                    _ => vec![r.gen_range(0..16)],
                };
                let named = (nak && !awaiting.is_empty() && r.gen_bool(0.7))
                    .then(|| awaiting[r.gen_range(0..awaiting.len())]);
                let tag = named.map_or_else(|| r.gen_range(0..32), |(_, t)| t);
                let channel = (!nak && !armed.is_empty() && r.gen_bool(0.25))
                    .then(|| armed.swap_remove(r.gen_range(0..armed.len())));
                let qp = match (named, channel) {
                    (Some((q, _)), _) | (_, Some((_, q))) => q,
                    _ => index(&mut r, p.qps),
                };
                Step::Deliver(Message {
                    kind_nak: nak,
                    node: r.gen_range(0..4),
                    src_qp: r.gen_range(0..16),
                    qp,
                    cnt: if let Some((c, _)) = channel {
                        Some(c)
                    } else if r.gen_bool(0.4) {
                        Some(index(&mut r, p.counters))
                    } else {
                        None
                    },
                    tag,
                    ack: !nak && r.gen_ratio(1, 3),
                    data: if nak {
                        reason
                    } else {
                        (0..words).map(|_| r.gen()).collect()
                    },
                })
            }
            60..=74 => Step::Run {
                cycles: r.gen_range(0..300),
            },
            75..=82 => Step::Poll {
                cq: index(&mut r, p.cqs),
            },
            83..=85 => Step::ReadMem {
                addr: addr(&mut r, p),
                len: r.gen_range(1..4),
            },
            86..=87 => Step::ReadCounter {
                counter: index(&mut r, p.counters),
            },
            88..=89 => Step::ReadStat {
                stat: r.gen_range(0..STATS as u64 + 1),
            },
            90 => host("write_mem", HostOp::WriteMem, addr(&mut r, p), r.gen(), 0),
            91..=92 => {
                // A receive channel: mostly armed for a QP that exists, with a buffer in
                // data memory; sometimes disarmed, sometimes refused.
                let c = index(&mut r, p.counters);
                let ch = RxChannel {
                    addr: addr(&mut r, p),
                    len: r.gen_range(0..5),
                    qp: index(&mut r, p.qps),
                    armed: r.gen_ratio(5, 6) as u64,
                };
                if ch.armed == 1 && (c as usize) < p.counters && (ch.qp as usize) < p.qps {
                    armed.push((c, ch.qp));
                }
                host("set_channel", HostOp::SetChannel, c, ch.pack()[0], 0)
            }
            93..=94 => host(
                "write_counter",
                HostOp::WriteCnt,
                index(&mut r, p.counters),
                r.gen_range(0..4),
                0,
            ),
            95..=96 => {
                let qp = index(&mut r, p.qps);
                let rc = r.gen_ratio(1, 4);
                if let Some(x) = reliable.get_mut(qp as usize) {
                    *x = rc;
                }
                let w0 = index(&mut r, p.cqs)
                    | index(&mut r, p.cqs) << 8
                    | (r.gen_bool(0.5) as u64) << 16
                    | (r.gen_bool(0.5) as u64) << 17
                    | (r.gen_ratio(1, 6) as u64) << 18
                    | (rc as u64) << 19
                    | r.gen_range(0..8) << 20
                    | r.gen_range(0..40) << 32;
                host("config_qp", HostOp::ConfigQp, qp, w0, 0)
            }
            _ => {
                let mut c = HostCmd {
                    op: r.gen_range(0..16),
                    arg: r.gen_range(0..40),
                    w0: r.gen(),
                    w1: r.gen(),
                };
                // Once WQEs may be posted, a SET_SHAPE only of a shape that cannot be set
                // (one that exists would race the CALCs naming it).
                if c.op == HostOp::SetShape as u64 && (1..SHAPES as u64).contains(&c.arg) {
                    c.arg = 0;
                }
                Step::Host {
                    label: "host",
                    cmds: vec![c],
                }
            }
        };
        out.push(step);
    }
    // Let everything runnable finish and drain every CQ, twice: a send queue stalled by a
    // full CQ runs once the first drain has made room.
    for _ in 0..2 {
        out.push(Step::Run { cycles: 2000 });
        for cq in 0..p.cqs as u64 {
            out.push(Step::Poll { cq });
        }
    }
    Scenario {
        file: format!("random-{seed}"),
        name: format!("random program, seed {seed}"),
        description: String::new(),
        params: *p,
        steps: out,
        lines: vec![],
    }
}

/// [`random_scenario`] with the NIC left to settle after every step (`run` of `settle` cycles
/// in between, and instead of the program's own runs), so that what a step observes no longer
/// depends on how many cycles the work before it took: the untimed golden and a cycle level
/// then see the same thing at every step.
pub fn settled_random_scenario(p: &NicParams, seed: u64, steps: usize, settle: u64) -> Scenario {
    let mut s = random_scenario(p, seed, steps);
    let mut out = Vec::with_capacity(s.steps.len() * 2);
    for step in s.steps {
        if !matches!(step, Step::Run { .. }) {
            out.push(step);
        }
        out.push(Step::Run { cycles: settle });
    }
    s.steps = out;
    s.file = format!("settled-random-{seed}");
    s.name = format!("settled random program, seed {seed}");
    s
}
