//! PIPE's forwarding rate: words a cycle through a PIPE's buffers, at every cycle level, side
//! by side in one run.
//!
//! `cargo bench -p netcoll-testbench --bench pipe`
//!
//! A NIC (default configuration) runs a PIPE of QP 2 that forwards `count` chunks arriving at
//! QP 1 through `nbuf` buffers of `blen` words. Upstream sends one chunk at a time asking for
//! an answer: after an ACK the next chunk, after a NAK (no buffer was free: the PIPE frees a
//! buffer at a visit of its send queue after the chunk has left, and the visits go round the
//! 16 QPs) the same chunk again `RETRY` cycles later, as an InfiniBand sender does after an
//! RNR NAK. The network takes every beat at once (`tx_ready` high). The rate is
//! `(words(N2) - words(N1)) / (cycles(N2) - cycles(N1))` from the first beat offered to the
//! last beat forwarded, so the start and the end cancel out; the forwarded words must equal
//! the words sent. The transmit engine sends a beat every 2 cycles, so 0.5 words a cycle is
//! the bound. Chunks arrive a word a cycle, faster than they leave, so the buffers fill and
//! upstream is NAKed about once a chunk; a NAKed chunk's beats are consumed whole (the
//! sequencer takes no visit meanwhile), which is what keeps the rate below the bound.

use netcoll_models::kit::cycle::CycleSim;
use netcoll_models::nic::{HostOp, HostStatus, NicIn, NicParams, Wqe};
use netcoll_testbench::harness::Level;
use netcoll_testbench::nic::{cycle_dut, host_command};

/// Cycles upstream waits after a NAK before it sends the chunk again.
const RETRY: u64 = 64;

/// Cycles from the first beat offered to the last beat forwarded, for `count` chunks, and the
/// chunks sent again.
fn pipe_cycles(level: Level, blen: u64, nbuf: u64, count: u64) -> Result<(u64, u64), String> {
    let p = NicParams::default();
    let mut d = cycle_dut(level, &p)?.ok_or("no cycles at this level")?;
    let mut now = 0;
    d.step(&NicIn {
        reset: true,
        ..Default::default()
    });
    let pipe = Wqe::pipe(1, (0x100, blen, nbuf), count, 5, 6, None);
    let (_, status, _) = host_command(&mut d, &mut now, HostOp::PostSq, 2, pipe.encode())?;
    if status != HostStatus::Ok as u64 {
        return Err(format!("post answered {status}"));
    }
    // The PIPE takes QP 1's receive side.
    for _ in 0..100 {
        d.step(&NicIn::default());
    }
    let message: Vec<u64> = (0..blen * count).map(|w| w * 0x9E37_79B9 + 1).collect();
    // Upstream: chunk `k`, beat `j`; `awaiting` its answer; may send from cycle `at`.
    let (mut k, mut j, mut awaiting, mut at, mut again) = (0u64, 0u64, false, 0u64, 0u64);
    let mut forwarded = vec![];
    let mut chunks_out = 0;
    let mut start = None;
    for cycle in 0..50_000_000u64 {
        let o = d.peek();
        let mut i = NicIn {
            tx_ready: true,
            ..Default::default()
        };
        if k < count && !awaiting && cycle >= at {
            start.get_or_insert(cycle);
            i.rx_valid = true;
            i.rx_qp = 1;
            i.rx_src = 3;
            i.rx_src_qp = 4;
            i.rx_tag = k;
            i.rx_ack = true;
            i.rx_last = j == blen - 1;
            i.rx_data = message[(k * blen + j) as usize];
            if o.rx_ready {
                j += 1;
                if j == blen {
                    (j, awaiting) = (0, true);
                }
            }
        }
        if o.tx_valid && o.tx_kind {
            // The answer to chunk `k`: the next one, or this one again.
            if !awaiting || o.tx_tag != k {
                return Err(format!("an answer for chunk {} out of turn", o.tx_tag));
            }
            awaiting = false;
            if o.tx_data == 0 {
                k += 1;
            } else {
                again += 1;
                at = cycle + RETRY;
            }
        } else if o.tx_valid {
            forwarded.push(o.tx_data);
            if o.tx_last {
                chunks_out += 1;
                if chunks_out == count {
                    if forwarded != message {
                        return Err("the forwarded words differ from the message".into());
                    }
                    return Ok((cycle + 1 - start.unwrap_or(0), again));
                }
            }
        }
        d.step(&i);
    }
    Err("the PIPE did not forward every chunk".into())
}

fn main() {
    let (n1, n2) = (8u64, 40u64);
    println!("PIPE words per cycle ({n1} and {n2} chunks; the transmit engine's bound is 0.5)");
    println!(
        "{:<10} {:>6} {:>6} {:>10} {:>10} {:>12} {:>10} {:>8}",
        "level", "blen", "nbuf", "cycles n1", "cycles n2", "words/cycle", "vs bound", "again"
    );
    for level in [Level::Model, Level::Rtl, Level::Verilator] {
        for (blen, nbuf) in [(16, 2), (64, 2), (64, 4), (256, 2)] {
            let c = pipe_cycles(level, blen, nbuf, n1)
                .and_then(|c1| pipe_cycles(level, blen, nbuf, n2).map(|c2| (c1, c2)));
            match c {
                Ok(((c1, _), (c2, again))) => {
                    let rate = ((n2 - n1) * blen) as f64 / (c2 - c1) as f64;
                    println!(
                        "{:<10} {blen:>6} {nbuf:>6} {c1:>10} {c2:>10} {rate:>12.4} {:>9.2}x {again:>8}",
                        level.name(),
                        rate / 0.5
                    );
                }
                Err(e) => println!("{:<10} {blen:>6} {nbuf:>6} unavailable: {e}", level.name()),
            }
        }
    }
}
