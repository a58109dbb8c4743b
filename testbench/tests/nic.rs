//! NIC conformance at every level: the example scenarios (one per work request, the REDUCE over
//! a tree, the PIPELINE, the error paths) on the golden, the cycle model, the rust-hdl RTL and
//! the emitted Verilog under Verilator; random host programs in lockstep (every output, every
//! cycle) with idle gaps and `tx_ready` back-pressure; two NICs back to back over bounded links;
//! the emitted Verilog under the lint / synthesis / simulation tools.

use netcoll_models::config::Config;
use netcoll_models::kit::cycle::{CycleSim, Typed};
use netcoll_models::kit::ports::PortValues;
use netcoll_models::net::{Beat, Link, Message, Reassembler};
use netcoll_models::nic::model::{lane_group, NicModel};
use netcoll_models::nic::{
    Cqe, HostOp, HostStatus, NicIn, NicOut, NicParams, Opcode, Stat, Status, Wqe,
};
use netcoll_testbench::harness::verilator::VerilatorSim;
use netcoll_testbench::harness::{Knobs, Level, Lockstep};
use netcoll_testbench::nic::scenario::{
    compare_events, compare_normalised, Event, HostCmd, Scenario, Step,
};
use netcoll_testbench::nic::{
    cycle_dut, examples, lockstep, random_scenario, run_level, settled_random_scenario, NicDesign,
};
use netcoll_testbench::tools;
use std::collections::VecDeque;

fn examples() -> Vec<Scenario> {
    let e = examples::examples().expect("scenarios/nic/ readable and valid");
    assert!(
        e.len() >= 10,
        "expected the shipped examples, found {}",
        e.len()
    );
    e
}

fn example(name: &str) -> Scenario {
    examples()
        .into_iter()
        .find(|s| s.file.ends_with(&format!("/{name}")))
        .unwrap_or_else(|| panic!("no example {name}"))
}

fn design(level: Level, p: &NicParams) -> NicDesign {
    cycle_dut(level, p)
        .unwrap_or_else(|e| panic!("{level}: {e}"))
        .unwrap_or_else(|| panic!("{level} has no cycles"))
}

/// The CQEs of CALCs in `events` of `s`, each with its WQE and the elements its shape adds
/// (`n1 × n2` of the shape an accepted `SET_SHAPE` set last, 1 for none). A CQE names its QP
/// and WQE index; the WQE is the one the SQ's accepted posts (host response `OK` to a
/// `POST_SQ`, from any step) put at that index.
fn calc_cqes(s: &Scenario, events: &[Event]) -> Vec<(Wqe, String, u64)> {
    use std::collections::BTreeMap;
    let mut posted: BTreeMap<u64, Vec<Wqe>> = BTreeMap::new();
    let mut rows: BTreeMap<u64, u64> = BTreeMap::new();
    let mut out = vec![];
    for e in events {
        match e {
            Event::Host { step, status, .. } if status == "OK" => {
                let Step::Host { cmds, .. } = &s.steps[step - 1] else {
                    continue;
                };
                let [c] = cmds.as_slice() else { continue };
                if c.op == HostOp::PostSq as u64 {
                    posted
                        .entry(c.arg)
                        .or_default()
                        .push(Wqe::decode(c.w0, c.w1));
                } else if c.op == HostOp::SetShape as u64 {
                    let n = |w: u64| (w & 0xFFFF).max(1);
                    rows.insert(c.arg, n(c.w0) * n(c.w1));
                }
            }
            Event::Cqe {
                opcode,
                qp,
                recv: false,
                index,
                status,
                ..
            } if opcode == "CALC" => {
                let w = posted
                    .get(qp)
                    .and_then(|v| v.get(*index as usize))
                    .unwrap_or_else(|| panic!("{}: no WQE {index} posted to SQ {qp}", s.file));
                assert_eq!(w.opcode, Opcode::Calc as u64, "{}", s.file);
                let n = rows.get(&w.index).copied().unwrap_or(1);
                out.push((*w, status.clone(), n));
            }
            _ => {}
        }
    }
    out
}

/// How often random programs ran multi-dimensional CALCs: the CQEs of CALCs whose WQE named
/// a shape that had more than one row, with `count` > 0: (status `OK`, status `BAD_ADDR`).
fn shaped_calc_cqes(s: &Scenario, events: &[Event]) -> (usize, usize) {
    let (mut ok, mut bad_addr) = (0, 0);
    for (w, status, rows) in calc_cqes(s, events) {
        if w.len > 0 && rows > 1 {
            match status.as_str() {
                "OK" => ok += 1,
                "BAD_ADDR" => bad_addr += 1,
                _ => {}
            }
        }
    }
    (ok, bad_addr)
}

/// How often random programs ran CALCs that go in lane groups on a NIC of `lanes` lanes when
/// they stream: CQEs `OK` of CALCs of more than one element whose lane group
/// (`lane_group`) is `lanes`.
fn lane_calc_cqes(s: &Scenario, events: &[Event], lanes: usize) -> usize {
    calc_cqes(s, events)
        .iter()
        .filter(|(w, status, _)| {
            let (w0, w1) = w.encode();
            let f = netcoll_models::nic::WqeWords::unpack(w0, w1);
            status == "OK" && w.len > 1 && lane_group(lanes, &f) == lanes as u64
        })
        .count()
}

#[test]
fn examples_model_agrees_with_the_golden() {
    for s in examples() {
        let g = run_level(&s, Level::Golden).expect("golden runs");
        let m = run_level(&s, Level::Model).expect("model runs");
        if let Err(e) = compare_normalised(&g, &m) {
            panic!("{}: {e}", s.file);
        }
    }
}

/// The golden and the cycle model are independent implementations: on random host programs
/// (every work request, every error path, arriving messages), settled after every step, they
/// must leave the same observable trace — host responses, CQEs per queue, messages per QP,
/// memory, counter and statistics reads.
#[test]
fn random_programs_golden_agrees_with_the_model() {
    let small_fp = NicParams {
        fp: 1,
        ..NicParams::SMALL
    };
    // How often the reliable QPs' paths showed: messages asking for an answer, ACKs and RNR
    // NAKs sent, SENDs failed by spent retries, messages sent again (the same QP and tag
    // asking twice).
    let (mut asking, mut acks, mut rnr_naks, mut spent, mut again) = (0, 0, 0, 0, 0);
    // And receive channels: reads of a nonzero CHAN_OVERRUN, which only a message a channel
    // took can count.
    let mut overruns = 0;
    // And shapes: CQEs of multi-dimensional CALCs, OK and BAD_ADDR.
    let (mut shaped_ok, mut shaped_bad_addr) = (0, 0);
    // And lanes: CQEs OK of CALCs in lane groups.
    let mut lane_groups = 0;
    let small_lanes = NicParams {
        lanes: 4,
        ..NicParams::SMALL
    };
    let default_lanes = NicParams {
        lanes: 2,
        ..NicParams::default()
    };
    for p in [
        NicParams::SMALL,
        NicParams::default(),
        small_fp,
        small_lanes,
        default_lanes,
    ] {
        for seed in 1..=20u64 {
            let s = settled_random_scenario(&p, seed, 300, 400);
            let g = run_level(&s, Level::Golden).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let m = run_level(&s, Level::Model).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            if let Err(e) = compare_normalised(&g, &m) {
                panic!("{p:?} seed {seed}: {e}");
            }
            let (ok, bad_addr) = shaped_calc_cqes(&s, &m);
            shaped_ok += ok;
            shaped_bad_addr += bad_addr;
            if p.lanes > 1 {
                lane_groups += lane_calc_cqes(&s, &m, p.lanes);
            }
            let mut seen = std::collections::BTreeSet::new();
            for e in &m {
                match e {
                    Event::Tx {
                        ack: true,
                        src_qp,
                        tag,
                        ..
                    } => {
                        asking += 1;
                        if !seen.insert((*src_qp, *tag)) {
                            again += 1;
                        }
                    }
                    Event::Tx {
                        nak: true, data, ..
                    } if data == &[0] => acks += 1,
                    Event::Tx {
                        nak: true, data, ..
                    } if data == &[8] => rnr_naks += 1,
                    Event::Cqe { status, .. } if status == "RNR_RETRY_EXC" => spent += 1,
                    Event::Stat { stat, value, .. } if stat == "CHAN_OVERRUN" && *value > 0 => {
                        overruns += 1
                    }
                    _ => {}
                }
            }
        }
    }
    eprintln!(
        "{asking} asking, {acks} ACKs, {rnr_naks} RNR NAKs, {spent} spent, {again} again, \
         {overruns} channel overruns read, multi-dimensional CALCs: {shaped_ok} OK, \
         {shaped_bad_addr} BAD_ADDR, {lane_groups} CALCs in lane groups OK"
    );
    assert!(
        asking > 20 && acks > 20 && rnr_naks > 10 && spent > 3 && again > 10,
        "the random programs must exercise reliable QPs: {asking} messages asking for an \
         answer, {acks} ACKs, {rnr_naks} RNR NAKs, {spent} RNR_RETRY_EXC, {again} sent again"
    );
    assert!(
        overruns > 5,
        "the random programs must exercise receive channels: {overruns} reads of a nonzero \
         CHAN_OVERRUN"
    );
    assert!(
        lane_groups > 30,
        "the random programs must exercise CALCs in lane groups: {lane_groups} CQEs OK"
    );
    assert!(
        shaped_ok > 40 && shaped_bad_addr > 10,
        "the random programs must exercise CALC shapes: {shaped_ok} CQEs OK and \
         {shaped_bad_addr} BAD_ADDR of CALCs that named a shape of more than one row"
    );
}

#[test]
fn examples_rtl_prints_exactly_the_model_events() {
    for s in examples() {
        let m = run_level(&s, Level::Model).expect("model runs");
        let r = run_level(&s, Level::Rtl).expect("rtl runs");
        if let Err(e) = compare_events(&m, &r) {
            panic!("{}: {e}", s.file);
        }
    }
}

#[test]
fn examples_verilator_prints_exactly_the_model_events() {
    for s in examples() {
        let m = run_level(&s, Level::Model).expect("model runs");
        let v = run_level(&s, Level::Verilator).expect("verilator runs");
        if let Err(e) = compare_events(&m, &v) {
            panic!("{}: {e}", s.file);
        }
    }
}

fn tx(ev: &[Event]) -> Vec<(u64, u64, bool, Vec<u64>)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Tx {
                dst, qp, nak, data, ..
            } => Some((*dst, *qp, *nak, data.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn reduce_tree_sends_the_sum_of_the_children_at_every_level() {
    let s = example("reduce_tree.toml");
    // The independent computation: the children's messages as the scenario delivers them,
    // two per round, summed element by element with 64-bit wrap-around.
    let delivered: Vec<Vec<u64>> = s
        .steps
        .iter()
        .filter_map(|st| match st {
            Step::Deliver(m) if !m.kind_nak => Some(m.data.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(delivered.len(), 4, "two children, two rounds");
    let expected: Vec<(u64, u64, bool, Vec<u64>)> = delivered
        .chunks(2)
        .map(|pair| {
            let sum = pair[0]
                .iter()
                .zip(&pair[1])
                .map(|(a, b)| a.wrapping_add(*b))
                .collect();
            (0, 1, false, sum)
        })
        .collect();
    for level in Level::ALL {
        let ev = run_level(&s, level).unwrap_or_else(|e| panic!("{}: {e}", level.name()));
        assert_eq!(tx(&ev), expected, "{}", level.name());
    }
}

/// `scenarios/nic/repro.toml`: one step of a REPRO f32 allreduce on the NIC. The words sent
/// to the parent (and left in memory) must be the REPRO partial of all three contributors'
/// elements, and rounded they must be each element's exact sum rounded once, at every level.
#[test]
fn repro_step_gives_the_correctly_rounded_exact_sum_at_every_level() {
    use netcoll_models::reduce_alu::fp::FpType;
    use netcoll_models::reduce_alu::fp_bits::{repro_combine, repro_contribution, repro_round};
    use netcoll_models::reduce_alu::repro::repro_sum;
    let t = FpType::F32;
    // The contributors of the scenario's comments: this node's, then the child's subtree's.
    let contributors: [[f32; 3]; 3] = [
        [16_777_216.0, 0.1, -0.0],
        [1.0, f32::from_bits(1), -0.0],
        [1.0, -0.1, -0.0],
    ];
    let partial = |xs: &[f32; 3]| -> Vec<u64> {
        xs.iter()
            .flat_map(|x| repro_contribution(t, u64::from(x.to_bits())))
            .collect()
    };
    let combined = contributors
        .iter()
        .map(partial)
        .reduce(|a, b| repro_combine(&a, &b))
        .expect("three contributors");
    // The big-integer golden, and the sums by hand: 2^24 + 2; 0.1 - 0.1 + the smallest
    // subnormal; -0 (f64 is not exact enough for the second: 0.1 + 2^-149 rounds).
    let expected: Vec<u32> = (0..3)
        .map(|e| {
            let xs: Vec<u64> = contributors
                .iter()
                .map(|c| u64::from(c[e].to_bits()))
                .collect();
            repro_sum(t, &xs).bits as u32
        })
        .collect();
    assert_eq!(expected, [0x4b80_0001, 0x0000_0001, 0x8000_0000]);
    // The order matters for a plain f32 sum: 2^24 + 1 rounds back to 2^24.
    let sequential = contributors.iter().fold(0.0f32, |s, c| s + c[0]);
    assert_ne!(sequential.to_bits(), expected[0]);

    let s = example("repro.toml");
    for level in Level::ALL {
        let ev = run_level(&s, level).unwrap_or_else(|e| panic!("{}: {e}", level.name()));
        let sent = tx(&ev);
        assert_eq!(sent.len(), 1, "{}: one message to the parent", level.name());
        assert_eq!(
            sent[0].3,
            combined,
            "{}: the combined partial",
            level.name()
        );
        let read: Vec<u64> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Mem { value, .. } => Some(*value),
                _ => None,
            })
            .collect();
        assert_eq!(read, combined, "{}: the partial in memory", level.name());
        let rounded: Vec<u32> = read
            .chunks(read.len() / 3)
            .map(|words| {
                let r = repro_round(t, words);
                assert!(!r.overflow && !r.too_many, "{}", level.name());
                r.bits as u32
            })
            .collect();
        assert_eq!(rounded, expected, "{}", level.name());
    }
}

#[test]
fn pipeline_forwards_the_large_message_at_every_cycle_level() {
    let s = example("pipeline.toml");
    let delivered: Vec<u64> = s
        .steps
        .iter()
        .filter_map(|st| match st {
            Step::Deliver(m) if !m.kind_nak => Some(m.data.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(delivered.len() >= 8, "a message larger than the buffers");
    for level in Level::CYCLE {
        let ev = run_level(&s, level).unwrap_or_else(|e| panic!("{}: {e}", level.name()));
        let forwarded: Vec<u64> = tx(&ev)
            .into_iter()
            .filter(|t| !t.2)
            .flat_map(|t| t.3)
            .collect();
        assert_eq!(forwarded, delivered, "{}", level.name());
    }
}

/// A 1,000-word message cut into 63 chunks of 16 words (the last 8) goes through a PIPE's
/// three 16-word buffers: what the PIPE sends, in order, is the message, at every level; and
/// the RTL keeps lockstep with the model with idle gaps and `tx_ready` back-pressure.
#[test]
fn pipe_forwards_a_message_equal_to_the_input_at_every_level() {
    let p = NicParams::SMALL;
    let message: Vec<u64> = (0..1000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xABCD)
        .collect();
    let pipe = Wqe::pipe(1, (100, 16, 3), 63, 5, 6, Some(2)).encode();
    let mut steps = vec![Step::Host {
        label: "post_sq",
        cmds: vec![HostCmd {
            op: HostOp::PostSq as u64,
            arg: 2,
            w0: pipe.0,
            w1: pipe.1,
        }],
    }];
    // The PIPE takes QP 1's receive side before the first chunk comes.
    steps.push(Step::Run { cycles: 50 });
    for (k, chunk) in message.chunks(16).enumerate() {
        steps.push(Step::Deliver(Message {
            kind_nak: false,
            node: 3,
            src_qp: 4,
            qp: 1,
            cnt: None,
            tag: k as u64,
            ack: false,
            data: chunk.to_vec(),
        }));
        steps.push(Step::Run { cycles: 150 });
    }
    steps.push(Step::Poll { cq: 0 });
    let s = Scenario {
        file: "pipe-1000".into(),
        name: "a large message through a PIPE".into(),
        description: String::new(),
        params: p,
        steps,
        lines: vec![],
    };
    for level in [Level::Golden, Level::Model, Level::Rtl, Level::Verilator] {
        let ev = run_level(&s, level).unwrap_or_else(|e| panic!("{}: {e}", level.name()));
        let sent = tx(&ev);
        assert_eq!(sent.len(), 63, "{}: one message per chunk", level.name());
        for t in &sent {
            assert!(
                t.0 == 5 && t.1 == 6 && !t.2,
                "{}: {:?}",
                level.name(),
                (t.0, t.1, t.2)
            );
        }
        let forwarded: Vec<u64> = sent.into_iter().flat_map(|t| t.3).collect();
        assert_eq!(forwarded, message, "{}", level.name());
        let cqes: Vec<(String, String)> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Cqe { status, opcode, .. } => Some((status.clone(), opcode.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            cqes,
            [("OK".to_string(), "PIPE".to_string())],
            "{}",
            level.name()
        );
    }
    let run = lockstep(
        &s,
        design(Level::Rtl, &p),
        "rust-hdl rtl",
        None,
        Knobs::busy(5),
    )
    .unwrap_or_else(|e| panic!("Knobs::busy(5): {e}"));
    assert!(
        run.stats.tx_held > 50,
        "back-pressure held {}",
        run.stats.tx_held
    );
}

#[test]
fn bad_requests_get_error_cqes_and_later_work_completes() {
    // An out-of-range QP in SEND_EN and an unknown opcode, each followed by a valid NOP.
    let p = NicParams::SMALL;
    let post = |w: (u64, u64)| Step::Host {
        label: "post_sq",
        cmds: vec![HostCmd {
            op: HostOp::PostSq as u64,
            arg: 0,
            w0: w.0,
            w1: w.1,
        }],
    };
    let s = Scenario {
        file: "bad-requests".into(),
        name: "bad requests".into(),
        description: String::new(),
        params: p,
        steps: vec![
            post(Wqe::enable(false, 9, false, 1, false).encode()),
            post(Wqe::nop(true).encode()),
            post(
                Wqe {
                    opcode: 12,
                    ..Default::default()
                }
                .encode(),
            ),
            post(Wqe::nop(true).encode()),
            Step::Run { cycles: 200 },
            Step::Poll { cq: 0 },
        ],
        lines: vec![],
    };
    for level in Level::ALL {
        let ev = run_level(&s, level).unwrap_or_else(|e| panic!("{}: {e}", level.name()));
        let cqes: Vec<(String, String, u64)> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Cqe {
                    status,
                    opcode,
                    index,
                    ..
                } => Some((status.clone(), opcode.clone(), *index)),
                _ => None,
            })
            .collect();
        let want = vec![
            ("BAD_INDEX".to_string(), "SEND_EN".to_string(), 0),
            ("OK".to_string(), "NOP".to_string(), 1),
            ("BAD_OPCODE".to_string(), "OP_12".to_string(), 2),
            ("OK".to_string(), "NOP".to_string(), 3),
        ];
        assert_eq!(cqes, want, "{}", level.name());
    }
}

/// The scenario of [`a_shape_set_just_before_its_calc_runs_is_seen_whole_at_every_level`]:
/// a CALC naming shape 1 posted on `qp`, then `SET_SHAPE` 1, then its completion polled.
fn shape_race(qp: u64) -> Scenario {
    let text = format!(
        r#"
name = "shape_race_qp{qp}"
[[step]]
op = "post_sq"
qp = {qp}
wqe = "CALC"
alu_op = "SUM"
dtype = "uint64"
count = 2
a = 0
b = 8
dst_addr = 16
shape = 1
[[step]]
op = "set_shape"
shape = 1
count1 = 2
sd1 = 1020
[[step]]
op = "run"
cycles = 200
[[step]]
op = "poll"
cq = 0
"#
    );
    Scenario::from_toml_str(&text).expect("valid scenario")
}

/// A `SET_SHAPE` taken while a CALC naming the shape waits for its queue's visit: a CALC that
/// runs after it sees the whole new shape, its dimensions and its outer spans, which the RTL
/// writes two cycles after the dimensions (`nic_host`'s pipelined multipliers). One run per
/// QP: the round-robin visits make one of them visit the CALC's queue in the very first slot
/// after the `SET_SHAPE`. The new shape's result ends beyond data memory (`16 + 1 + 1020 >
/// 1024`), so a CALC that saw the new dimensions with the old spans (zero) would write there
/// instead of completing with `BAD_ADDR`. A mutant of the Verilog that writes the spans one
/// cycle later is caught.
#[test]
fn a_shape_set_just_before_its_calc_runs_is_seen_whole_at_every_level() {
    let p = NicParams::SMALL;
    let runs: Vec<(Scenario, Vec<Event>)> = (0..p.qps as u64)
        .map(|qp| {
            let s = shape_race(qp);
            let m = run_level(&s, Level::Model).expect("model runs");
            (s, m)
        })
        .collect();
    let mut bad_addr = 0;
    for (s, m) in &runs {
        let cqes: Vec<&str> = m
            .iter()
            .filter_map(|e| match e {
                Event::Cqe { status, .. } => Some(status.as_str()),
                _ => None,
            })
            .collect();
        // Run before the SET_SHAPE, the CALC is one-dimensional (OK); after it, BAD_ADDR.
        assert!(
            cqes == ["OK"] || cqes == ["BAD_ADDR"],
            "{}: CQEs {cqes:?}",
            s.name
        );
        bad_addr += (cqes == ["BAD_ADDR"]) as usize;
        for level in [Level::Rtl, Level::Verilator] {
            let d = run_level(s, level).expect("runs");
            if let Err(e) = compare_events(m, &d) {
                panic!("{} at {level}: {e}", s.name);
            }
        }
    }
    assert!(bad_addr > 0, "no CALC ran after its SET_SHAPE");
    // The spans written a cycle late (the data register holds them until the next SET_SHAPE).
    let scenarios: Vec<Scenario> = runs.into_iter().map(|(s, _)| s).collect();
    assert_mutants_caught(
        &nic_verilog(&p),
        &p,
        &scenarios,
        &[(
            "the spans written a cycle late",
            "assign shape_ext_set = ext_write_q;",
            "reg late_q;\n    always @(posedge clock) late_q <= ext_write_q;\n    assign shape_ext_set = late_q;",
        )],
    );
}

/// Random host programs on the rust-hdl RTL and the cycle model in lockstep (every output,
/// every cycle), the driver inserting idle gaps and holding `tx_ready` low at random.
#[test]
fn random_programs_rtl_lockstep_with_model() {
    let mut held = 0;
    for seed in 1..=6u64 {
        // Seed 4 on a NIC with the floating-point types, 5 and 6 with 4 and 2 lanes.
        let p = NicParams {
            fp: (seed == 4) as usize,
            lanes: [1, 4, 2][seed.saturating_sub(4) as usize % 3],
            ..NicParams::SMALL
        };
        let s = random_scenario(&p, seed, 400);
        match lockstep(
            &s,
            design(Level::Rtl, &p),
            "rust-hdl rtl",
            None,
            Knobs::busy(seed),
        ) {
            Ok(run) => held += run.stats.tx_held,
            Err(e) => panic!("seed {seed} (Knobs::busy({seed})): {e}"),
        }
    }
    assert!(
        held > 50,
        "tx_ready back-pressure held a beat only {held} times"
    );
}

#[test]
fn random_programs_default_parameters_rtl_lockstep_with_model() {
    let p = NicParams::default();
    let s = random_scenario(&p, 77, 300);
    if let Err(e) = lockstep(
        &s,
        design(Level::Rtl, &p),
        "rust-hdl rtl",
        None,
        Knobs::busy(77),
    ) {
        panic!("seed 77 (Knobs::busy(77)): {e}");
    }
}

/// Ten million cycles of random host programs on the Verilog under Verilator and the cycle
/// model in lockstep, with idle gaps and `tx_ready` back-pressure; the error paths and the
/// back-pressure paths must have been exercised.
#[test]
fn random_programs_verilator_lockstep_10m_cycles() {
    let mut total = 0u64;
    let mut seed = 1000u64;
    let mut errors = 0usize;
    let mut held = 0u64;
    let mut refused = 0u64;
    while total < 10_000_000 {
        // The two extreme parameter sets in turn, the small one with the floating-point
        // types, the small one with 4 lanes and the default one with 2.
        let p = match seed % 5 {
            0 => NicParams::SMALL,
            1 => NicParams::default(),
            2 => NicParams {
                fp: 1,
                ..NicParams::SMALL
            },
            3 => NicParams {
                lanes: 4,
                ..NicParams::SMALL
            },
            _ => NicParams {
                lanes: 2,
                ..NicParams::default()
            },
        };
        let s = random_scenario(&p, seed, 4000);
        match lockstep(
            &s,
            design(Level::Verilator, &p),
            "verilator",
            None,
            Knobs::busy(seed),
        ) {
            Ok(run) => {
                total += run.stats.cycles;
                held += run.stats.tx_held;
                refused += run.stats.rx_refused;
                errors += run
                    .events
                    .iter()
                    .filter(|e| matches!(e, Event::Cqe { status, .. } if status != "OK"))
                    .count();
            }
            Err(e) => panic!("seed {seed} (Knobs::busy({seed})): {e}"),
        }
        seed += 1;
    }
    eprintln!(
        "{total} cycles in lockstep, {errors} error CQEs, {held} cycles of a tx beat held by tx_ready, {refused} of an rx beat refused"
    );
    assert!(
        errors > 100,
        "the random programs must exercise the error paths"
    );
    assert!(
        held > 1_000,
        "tx_ready back-pressure must be exercised ({held} cycles)"
    );
}

/// A host command for [`exchange`]: `(from_cycle, op, arg, w0, w1)`, offered once the cycle
/// has come and the node's command before it has been answered.
type Cmd = (u64, u64, u64, u64, u64);

/// What two NICs did in [`exchange`].
struct Exchange {
    /// The messages each node sent, in order.
    sent: [Vec<Message>; 2],
    /// Each node's host responses `(status, data)`, in order.
    answers: [Vec<(u64, u64)>; 2],
    /// Cycles a node's transmit beat waited for its link.
    held: u64,
}

/// [`exchange_through`] links with room for 2 beats.
fn exchange(p: NicParams, prog: [VecDeque<Cmd>; 2], cycles: u64) -> Exchange {
    exchange_through(p, prog, cycles, 2)
}

/// Two NICs, each the cycle model and the Verilog in lockstep, connected back to back by
/// bounded links with latency (`net::Link` of `net::Beat`s, 3 cycles, room for `room` beats): a
/// NIC's `tx_ready` is its link's `can_push`, so a full link back-pressures it. Runs the host
/// programs for `cycles` cycles; every command must have been answered and every beat
/// delivered by then.
fn exchange_through(
    p: NicParams,
    mut prog: [VecDeque<Cmd>; 2],
    cycles: u64,
    room: usize,
) -> Exchange {
    let mk = || {
        Lockstep::new(
            p,
            Box::new(NicModel::new(p)),
            design(Level::Verilator, &p),
            "cycle model vs verilator",
        )
    };
    let mut nodes = [mk(), mk()];
    // links[k]: towards node k.
    let mut links: [Link<Beat>; 2] = [Link::new(3, room), Link::new(3, room)];
    let mut pending = [false, false];
    let mut out = Exchange {
        sent: [vec![], vec![]],
        answers: [vec![], vec![]],
        held: 0,
    };
    let mut assemble = [Reassembler::default(), Reassembler::default()];
    for cycle in 0..cycles {
        for k in 0..2 {
            // The outputs of this cycle (all registered), then this cycle's inputs.
            let o: NicOut = if cycle == 0 {
                NicOut::default()
            } else {
                nodes[k].peek()
            };
            let mut i = NicIn {
                reset: cycle == 0,
                tx_ready: links[1 - k].can_push(),
                ..Default::default()
            };
            if let Some(&(at, op, arg, w0, w1)) = prog[k].front() {
                if !pending[k] && cycle >= at {
                    i.host_valid = true;
                    i.host_op = op;
                    i.host_arg = arg;
                    i.host_w0 = w0;
                    i.host_w1 = w1;
                }
            }
            if let Some(beat) = links[k].front() {
                i = i.with_rx(beat);
            }
            // Transfers in this cycle.
            if i.host_valid && o.host_ready {
                pending[k] = true;
            }
            if i.rx_valid && o.rx_ready {
                links[k].pop();
            }
            if let Some(beat) = o.tx_beat() {
                if i.tx_ready {
                    if let Some(m) = assemble[k].push(&beat).expect("well-formed beats") {
                        out.sent[k].push(m);
                    }
                    // On the wire the beat names its source: node k.
                    let arriving = Beat {
                        node: k as u64,
                        ..beat
                    };
                    assert!(links[1 - k].push(arriving).is_ok(), "can_push was high");
                } else {
                    out.held += 1;
                }
            }
            let during = nodes[k].step(&i);
            if cycle > 0 {
                assert_eq!(during, o, "node {k}: registered outputs seen by peek");
            }
            if during.host_rsp_valid {
                out.answers[k].push((during.host_rsp_status, during.host_rsp_data));
                prog[k].pop_front();
                pending[k] = false;
            }
        }
        for l in &mut links {
            l.tick();
        }
    }
    for (k, n) in nodes.into_iter().enumerate() {
        if let Err(m) = n.finish() {
            panic!("node {k}: {m}");
        }
    }
    assert!(prog.iter().all(|q| q.is_empty()), "every host command done");
    assert!(links.iter().all(|l| l.is_empty()), "every beat delivered");
    out
}

/// A host command offered from cycle 0 on.
fn cmd(op: HostOp, arg: u64, (w0, w1): (u64, u64)) -> Cmd {
    (0, op as u64, arg, w0, w1)
}

/// Node 1's SEND arrives at node 2's RQ and increments its counter; node 2 WAITs on the
/// counter, adds the message to its own vector with CALC and sends the sum back; node 1
/// checks it.
#[test]
fn two_nics_back_to_back() {
    let a: Vec<u64> = vec![5, u64::MAX, 7, 1 << 40];
    let b: Vec<u64> = vec![10, 2, u64::MAX - 1, 3];
    let mut prog: [VecDeque<Cmd>; 2] = [VecDeque::new(), VecDeque::new()];
    for (i, w) in a.iter().enumerate() {
        prog[0].push_back(cmd(HostOp::WriteMem, i as u64, (*w, 0)));
    }
    for (i, w) in b.iter().enumerate() {
        prog[1].push_back(cmd(HostOp::WriteMem, 16 + i as u64, (*w, 0)));
    }
    // Node 1 (index 0): receive the answer on QP 1 at 0x40, send `a` to node 2's QP 2.
    prog[0].push_back(cmd(HostOp::PostRq, 1, Wqe::recv(0x40, 4, true).encode()));
    let send = Wqe::send(0, 4, 1, 2, Some(3), true);
    prog[0].push_back(cmd(HostOp::PostSq, 1, send.encode()));
    // Node 2 (index 1): receive into 0x20 on QP 2 (counter 3), WAIT, CALC SUM to node 1's QP 1.
    prog[1].push_back(cmd(HostOp::PostRq, 2, Wqe::recv(0x20, 4, false).encode()));
    let wait = Wqe::wait_counter(3, 1, false);
    prog[1].push_back(cmd(HostOp::PostSq, 2, wait.encode()));
    let calc = Wqe {
        opcode: Opcode::Calc as u64,
        signaled: true,
        alu_op: netcoll_models::reduce_alu::AluOp::Sum as u64,
        dtype: netcoll_models::reduce_alu::Dtype::U64 as u64,
        mode: 1,
        len: 4,
        addr: 0x20,
        b: 16,
        sa: 1,
        sb: 1,
        dst_addr: 0x30,
        dst: 0,
        qp: 1,
        ..Default::default()
    };
    prog[1].push_back(cmd(HostOp::PostSq, 2, calc.encode()));
    let x = exchange(NicParams::SMALL, prog, 20_000);
    for (k, answers) in x.answers.iter().enumerate() {
        assert!(
            answers.iter().all(|&(status, _)| status == 0),
            "node {k}: a host command refused: {answers:?}"
        );
    }
    // Node 1 sent `a`; node 2 answered a[i] + b[i] (wrapping), computed here independently.
    let want: Vec<u64> = a.iter().zip(&b).map(|(x, y)| x.wrapping_add(*y)).collect();
    let sent = &x.sent;
    assert_eq!(sent[0].len(), 1, "{:?}", sent[0]);
    assert_eq!(sent[1].len(), 1, "{:?}", sent[1]);
    assert_eq!(
        (sent[0][0].node, sent[0][0].qp, sent[0][0].cnt),
        (1, 2, Some(3))
    );
    assert_eq!(sent[0][0].data, a);
    assert_eq!((sent[1][0].node, sent[1][0].qp), (0, 1));
    assert_eq!(sent[1][0].data, want);
    assert!(
        x.held > 0,
        "the bounded links must have back-pressured a sender"
    );
}

/// Reliable QPs between two NICs (model and Verilog in lockstep each): node 1's QP 1 SENDs to
/// node 2's QP 2, which posts its RECV only at cycle 3000, so node 2 answers RNR NAK and node
/// 1 sends again every `rnr_delay` cycles (retrying for ever) until the RECV takes it and the
/// ACK completes the SEND. Node 1's QP 3 SENDs to node 2's QP 3, which never posts a RECV:
/// after its two retries the SEND fails with `RNR_RETRY_EXC`.
#[test]
fn two_reliable_nics_retry_until_the_receiver_is_ready() {
    let config = |sq_cq: u64, retry: u64, delay: u64| {
        let w0 = sq_cq | 1 << 19 | retry << 20 | delay << 32;
        (w0, 0)
    };
    let a: Vec<u64> = vec![3, 1, 4, 1];
    let mut prog: [VecDeque<Cmd>; 2] = [VecDeque::new(), VecDeque::new()];
    prog[0].push_back(cmd(HostOp::ConfigQp, 1, config(0, 7, 40)));
    prog[0].push_back(cmd(HostOp::ConfigQp, 3, config(1, 2, 40)));
    for (i, w) in a.iter().enumerate() {
        prog[0].push_back(cmd(HostOp::WriteMem, i as u64, (*w, 0)));
    }
    let send = |qp: u64, len: u64| Wqe::send(0, len, 1, qp, None, true).encode();
    prog[0].push_back(cmd(HostOp::PostSq, 1, send(2, 4)));
    prog[0].push_back(cmd(HostOp::PostSq, 3, send(3, 1)));
    prog[1].push_back(cmd(HostOp::ConfigQp, 2, config(0, 0, 0)));
    prog[1].push_back(cmd(HostOp::ConfigQp, 3, config(0, 0, 0)));
    prog[1].push_back((
        3000,
        HostOp::PostRq as u64,
        2,
        Wqe::recv(0x20, 4, true).encode().0,
        0,
    ));
    // At cycle 6000 both look: CQEs, node 1's RNR_RETRY, node 2's buffer.
    let look = |op: HostOp, arg: u64| (6000, op as u64, arg, 0, 0);
    prog[0].push_back(look(HostOp::PollCq, 0));
    prog[0].push_back(look(HostOp::PollCq, 0));
    prog[0].push_back(look(HostOp::PollCq, 1));
    prog[0].push_back(look(HostOp::ReadStat, Stat::RnrRetry as u64));
    prog[1].push_back(look(HostOp::PollCq, 0));
    for i in 0..4 {
        prog[1].push_back(look(HostOp::ReadMem, 0x20 + i));
    }
    let x = exchange(NicParams::SMALL, prog, 8000);
    // Node 1's messages: QP 1's repeated until the ACK, QP 3's three times (two retries); all
    // ask for an answer.
    let from = |qp: u64| -> Vec<&Message> { x.sent[0].iter().filter(|m| m.src_qp == qp).collect() };
    assert!(x.sent[0].iter().all(|m| m.ack && !m.kind_nak));
    assert!(from(1)
        .iter()
        .all(|m| m.data == a && m.tag == 0 && m.qp == 2));
    assert!(from(3)
        .iter()
        .all(|m| m.data == a[..1] && m.tag == 0 && m.qp == 3));
    assert_eq!(from(3).len(), 3, "sent once and retried twice");
    // Node 2's answers: an RNR NAK (reason 8) for each but the last of QP 1's, and for every one
    // of QP 3's; one ACK (reason 0).
    let answers = |qp: u64, reason: u64| {
        x.sent[1]
            .iter()
            .filter(|m| m.kind_nak && m.qp == qp && m.data == [reason])
            .count()
    };
    let tries = from(1).len();
    assert!(
        tries > 10,
        "QP 1 retried while the RQ was empty ({tries} sends)"
    );
    assert_eq!(answers(1, 8), tries - 1);
    assert_eq!(answers(1, 0), 1, "one ACK");
    assert_eq!(answers(3, 8), 3);
    assert_eq!(x.sent[1].len(), tries + 3, "nothing else: {:?}", x.sent[1]);
    // Node 1: the SEND completed OK, the other failed with RNR_RETRY_EXC (9) on CQ 1, and every
    // message sent again was counted.
    let cqe = |status: u64, qp: u64| {
        Cqe {
            status,
            opcode: Opcode::Send as u64,
            qp,
            is_recv: false,
            index: 0,
            len: 0,
        }
        .encode()
    };
    let empty = (HostStatus::Empty as u64, 0);
    assert_eq!(
        x.answers[0][8..],
        [
            (0, cqe(0, 1)),
            empty,
            (0, cqe(9, 3)),
            (0, (tries - 1 + 2) as u64)
        ]
    );
    // Node 2: the RECV completed with the four words, stored once.
    let recv = Cqe {
        status: 0,
        opcode: Opcode::Recv as u64,
        qp: 2,
        is_recv: true,
        index: 0,
        len: 4,
    };
    let mut want = vec![(0, recv.encode())];
    want.extend(a.iter().map(|&w| (0, w)));
    assert_eq!(x.answers[1][3..], want[..]);
}

/// Full duplex: both NICs post three SENDs of 100 words to each other at once, through links
/// with room for less than one message and for exactly one, on plain QPs and on reliable ones
/// (every message answered by an ACK, which must get past the other direction's data). A NIC
/// whose sending held up its receiving would wait for its peer to take a beat while the peer
/// waits for it: every message must arrive whole, every RECV and SEND complete, every buffer
/// hold what was sent.
#[test]
fn two_nics_exchange_large_messages_through_one_message_buffers() {
    const LEN: u64 = 100;
    const MSGS: u64 = 3;
    let word = |node: u64, i: u64| node << 32 | (i * 7 + 1);
    let base = |m: u64| 0x180 + m * 128;
    for (room, rc) in [
        (1, false),
        (LEN as usize, false),
        (1, true),
        (LEN as usize, true),
    ] {
        let mut prog: [VecDeque<Cmd>; 2] = [VecDeque::new(), VecDeque::new()];
        for (k, q) in prog.iter_mut().enumerate() {
            let node = k as u64;
            // QP 1, both queues on CQ 0; reliable or not.
            q.push_back(cmd(HostOp::ConfigQp, 1, ((rc as u64) << 19, 0)));
            for i in 0..MSGS * LEN {
                q.push_back(cmd(HostOp::WriteMem, i, (word(node, i), 0)));
            }
            for m in 0..MSGS {
                q.push_back(cmd(
                    HostOp::PostRq,
                    1,
                    Wqe::recv(base(m), LEN, true).encode(),
                ));
            }
            for m in 0..MSGS {
                let send = Wqe::send(m * LEN, LEN, 1 - node, 1, None, true);
                q.push_back(cmd(HostOp::PostSq, 1, send.encode()));
            }
            // Once all is over: six CQEs (three SENDs, three RECVs), then the buffers.
            for _ in 0..2 * MSGS {
                q.push_back((8000, HostOp::PollCq as u64, 0, 0, 0));
            }
            for m in 0..MSGS {
                for i in 0..LEN {
                    q.push_back((8000, HostOp::ReadMem as u64, base(m) + i, 0, 0));
                }
            }
        }
        let x = exchange_through(NicParams::SMALL, prog, 20_000, room);
        for k in 0..2 {
            let peer = 1 - k as u64;
            let (data, acks): (Vec<&Message>, Vec<&Message>) =
                x.sent[k].iter().partition(|m| !m.kind_nak);
            assert_eq!(data.len(), MSGS as usize, "room {room}, rc {rc}, node {k}");
            assert_eq!(acks.len(), if rc { MSGS as usize } else { 0 });
            assert!(acks.iter().all(|m| m.data == [Status::Ok.code()]));
            assert!(data.iter().all(|m| m.ack == rc));
            for (m, msg) in data.iter().enumerate() {
                let want: Vec<u64> = (0..LEN)
                    .map(|i| word(k as u64, m as u64 * LEN + i))
                    .collect();
                assert_eq!((msg.node, msg.qp, msg.tag), (peer, 1, m as u64));
                assert_eq!(
                    msg.data, want,
                    "room {room}, rc {rc}, node {k}, message {m}"
                );
            }
            // The answers after the posts: CQEs (any order of SENDs and RECVs), then the words.
            let a = &x.answers[k];
            let after_posts = (1 + MSGS * LEN + 2 * MSGS) as usize;
            let mut cqes: Vec<Cqe> = a[after_posts..after_posts + 2 * MSGS as usize]
                .iter()
                .map(|&(status, data)| {
                    assert_eq!(status, 0, "room {room}, rc {rc}, node {k}: a CQE each poll");
                    Cqe::decode(data)
                })
                .collect();
            cqes.sort_by_key(|c| (c.is_recv, c.index));
            for (j, c) in cqes.iter().enumerate() {
                let m = j as u64 % MSGS;
                let recv = j as u64 >= MSGS;
                assert_eq!(
                    (c.status, c.is_recv, c.index, c.qp),
                    (0, recv, m, 1),
                    "room {room}, rc {rc}, node {k}: {c:?}"
                );
                assert_eq!(c.len, if recv { LEN } else { 0 });
            }
            let words: Vec<u64> = a[after_posts + 2 * MSGS as usize..]
                .iter()
                .map(|&(_, w)| w)
                .collect();
            let want: Vec<u64> = (0..MSGS * LEN).map(|i| word(peer, i)).collect();
            assert_eq!(
                words, want,
                "room {room}, rc {rc}, node {k}: the received buffers"
            );
        }
    }
}

fn generated(cfg: &Config) -> (tools::TempDir, Vec<netcoll_hdl::generate::GeneratedFile>) {
    let dir = tools::TempDir::new("netcoll-nic-verilog").expect("temp dir");
    let files = netcoll_hdl::generate::generate(cfg).expect("generate");
    for f in &files {
        std::fs::write(dir.path().join(&f.name), &f.contents).expect("write");
    }
    (dir, files)
}

/// `nic.v` and every file it requires, written to a temporary directory.
fn nic_files(cfg: &Config) -> (tools::TempDir, Vec<std::path::PathBuf>) {
    let (dir, files) = generated(cfg);
    let nic_file = files.iter().find(|f| f.name == "nic.v").expect("nic.v");
    assert!(
        nic_file
            .requires
            .iter()
            .any(|r| r.starts_with("reduce_alu")),
        "the NIC instantiates the reduction ALU: {:?}",
        nic_file.requires
    );
    let mut paths = vec![dir.path().join("nic.v")];
    paths.extend(nic_file.requires.iter().map(|r| dir.path().join(r)));
    (dir, paths)
}

#[test]
fn nic_verilog_lint_synth_icarus_at_both_extremes() {
    let small_fp = NicParams {
        fp: 1,
        ..NicParams::SMALL
    };
    for nic in [NicParams::SMALL, NicParams::default(), small_fp] {
        let cfg = Config {
            nic,
            ..Default::default()
        };
        let (_dir, paths) = nic_files(&cfg);
        let refs: Vec<&std::path::Path> = paths.iter().map(|p| p.as_path()).collect();
        tools::verilator_lint_files(&refs, "nic", &[]).unwrap_or_else(|e| panic!("{nic:?}: {e}"));
        tools::iverilog_compile_files(&refs, "nic").unwrap_or_else(|e| panic!("{nic:?}: {e}"));
        let r = tools::yosys_coarse_check_files(&refs, "nic")
            .unwrap_or_else(|e| panic!("{nic:?}: {e}"));
        assert!(r.flip_flops > 50, "{nic:?}: {r:?}");
        assert!(
            r.cells_by_type.keys().any(|t| t.contains("mem")),
            "{nic:?}: memories kept as memories: {r:?}"
        );
        // 32 states: Yosys's `auto` would be binary; the `StateReg` asks for one-hot.
        assert_eq!(
            r.fsm_encodings.get("sequencer.state_q").map(String::as_str),
            Some("one-hot"),
            "{nic:?}: {:?}",
            r.fsm_encodings
        );
    }
}

/// The NIC's Verilog as Verilator runs it: `nic.v` and the files it requires.
fn nic_verilog(p: &NicParams) -> String {
    let cfg = netcoll_testbench::nic::config(p);
    let files = netcoll_hdl::generate::generate(&cfg).expect("generate");
    netcoll_hdl::generate::simulation_text(&files, "nic").expect("nic.v and its requirements")
}

#[test]
fn nic_verilog_is_deterministic_and_readable() {
    let a = nic_verilog(&NicParams::SMALL);
    let b = nic_verilog(&NicParams::SMALL);
    assert_eq!(a, b);
    assert!(!a.contains('$'));
    for name in ["module nic (", "always @(posedge clock)"] {
        assert!(a.contains(name), "missing `{name}`");
    }
}

/// A NIC whose Verilog is `text` (a mutant), under Verilator.
fn verilated(text: &str, p: &NicParams) -> impl CycleSim<In = NicIn, Out = NicOut> {
    let sim = VerilatorSim::from_text(text, "nic", &NicIn::specs(p), &NicOut::specs(p))
        .expect("the mutant verilates");
    Typed::<NicIn, NicOut, _>::new(*p, sim)
}

/// Whether the Verilog `text` of the NIC `p` differs from the cycle model on `s`, at some port
/// in some cycle (lockstep), or fails to run it.
fn verilog_differs(text: &str, p: &NicParams, s: &Scenario) -> bool {
    lockstep(s, Box::new(verilated(text, p)), "verilog", None, Knobs::OFF).is_err()
}

/// Asserts that the Verilog `good` of the NIC `p` runs every one of `examples` as the cycle
/// model does, and that each mutant (`what`, a text found once in `good`, its replacement)
/// differs on at least one.
fn assert_mutants_caught(
    good: &str,
    p: &NicParams,
    examples: &[Scenario],
    mutants: &[(&str, &str, &str)],
) {
    for s in examples {
        assert!(
            !verilog_differs(good, p, s),
            "{}: the unmutated Verilog differs",
            s.file
        );
    }
    for (what, from, to) in mutants {
        assert_eq!(
            good.matches(from).count(),
            1,
            "mutation site `{from}` not found once"
        );
        let text = good.replace(from, to);
        let caught = examples.iter().any(|s| verilog_differs(&text, p, s));
        assert!(caught, "mutant not caught: {what}");
    }
}

/// A SEND of 8 words on each of the 4 SQs of the SMALL NIC, posted back to back, then every
/// CQE polled.
fn sends_on_every_sq() -> Scenario {
    let mut text = String::from("name = \"sends_on_every_sq\"\n");
    for qp in 0..4 {
        text += &format!(
            "[[step]]\nop = \"post_sq\"\nqp = {qp}\nwqe = \"SEND\"\naddr = {}\nlen = 8\ndst = 5\ndst_qp = {qp}\n",
            16 * qp
        );
    }
    text += "[[step]]\nop = \"run\"\ncycles = 400\n";
    for _ in 0..5 {
        text += "[[step]]\nop = \"poll\"\ncq = 0\n";
    }
    Scenario::from_toml_str(&text).expect("valid scenario")
}

/// The examples catch mutants of the emitted Verilog: each makes the Verilog differ from the
/// cycle model, at some port in some cycle, on some example of the NIC it is built as (and
/// the unmutated Verilog differs on none).
#[test]
fn mutants_of_the_emitted_verilog_fail_the_examples() {
    let p = NicParams::SMALL;
    let good = nic_verilog(&p);
    let mutants = [
        (
            "WAIT on a counter completes one short of its threshold",
            "wait_met_now = cnt_data >= wait_count;",
            "wait_met_now = (cnt_data + 32'd1) >= wait_count;",
        ),
        (
            "SUM computes XOR",
            "s2_sum_d = av + bv;",
            "s2_sum_d = av ^ bv;",
        ),
        (
            "MAXLOC / MINLOC ties keep the higher index",
            "s2_bi_lt_ai_d = s1_bi_q < s1_ai_q;",
            "s2_bi_lt_ai_d = s1_bi_q > s1_ai_q;",
        ),
        (
            "a reliable RQ that is not ready answers NOT_READY, not RNR_NAK",
            "refuse_reason = rnr_nak;",
            "refuse_reason = not_ready;",
        ),
        (
            "a retry goes before its delay",
            "if ((rc_state == st_retry) & (~rc_due)) begin",
            "if (1'b0) begin",
        ),
        (
            "the transmit engine takes a message before the sent one's WQE completed",
            "assign free = (~pend_q) & (~sent_q);",
            "assign free = ~pend_q;",
        ),
        (
            "an SQ whose message is being sent runs its head WQE again",
            "if (((~runnable) | awaits) | tx_busy_here) begin",
            "if ((~runnable) | awaits) begin",
        ),
        (
            "a CALC streams when an element reads what an earlier one wrote to b",
            "stream = (~hazard_a) & (~hazard_b);",
            "stream = ~hazard_a;",
        ),
        (
            "a shaped CALC streams over its own result",
            "assign short_a = ((~(|calc_sa)) | (is_loc & (calc_sa == 8'd1))) | shaped;",
            "assign short_a = (~(|calc_sa)) | (is_loc & (calc_sa == 8'd1));",
        ),
        (
            "a walk's next row starts where the last row ended",
            "cur_d = row_q + s1;",
            "cur_d = cur_q + s1;",
        ),
        (
            "MAXLOC pairs with stride 1 stream over their own result",
            "assign short_a = ((~(|calc_sa)) | (is_loc & (calc_sa == 8'd1))) | shaped;",
            "assign short_a = ~(|calc_sa);",
        ),
        (
            "a streaming MAXLOC's pair enters the ALU before its indices arrive",
            "op_valid_d = ~is_loc;",
            "op_valid_d = 1'b1;",
        ),
        (
            "a pipe sends its chunks from buffers past the last one",
            "if (rd_next == pipe_read_ctx_bound) begin",
            "if (1'b0) begin",
        ),
        (
            "a pipe's last chunk goes with a whole buffer",
            "send_len = pipe_read_ctx_wr_addr;",
            "send_len = pipe_read_ctx_blen;",
        ),
        (
            "a short chunk before a pipe's last is not LEN_ERR",
            "end else if ((piped_q & (~pipe_last)) & (stored_now < cap_q)) begin",
            "end else if (1'b0) begin",
        ),
        (
            "a post stores no checks beside its WQE: bad WQEs run",
            "assign wqe_chk_wr_data = chk_post_q;",
            "assign wqe_chk_wr_data = 5'd0;",
        ),
        (
            "retries are never counted down",
            "rc_context_word_left = rc_context_left - 3'd1;",
            "rc_context_word_left = rc_context_left;",
        ),
    ];
    // Only the examples of the NIC built here (one of another build, with the floating-point
    // types say, would tell any mutant from the model and catch it for nothing), and four SQs
    // sending at once: a visit of another SQ comes between a message's last beat and its own
    // SQ's next visit, which completes its WQE.
    let mut examples: Vec<Scenario> = examples().into_iter().filter(|s| s.params == p).collect();
    assert!(
        examples.len() >= 10,
        "only {} examples of the SMALL NIC",
        examples.len()
    );
    examples.push(sends_on_every_sq());
    assert_mutants_caught(&good, &p, &examples, &mutants);
    // The data memory's banks and their crossbar, on a 4-lane NIC (`lanes.toml`).
    let lanes = example("lanes.toml");
    let p4 = lanes.params;
    assert_eq!(p4.lanes, 4, "lanes.toml is built with 4 lanes");
    assert_mutants_caught(
        &nic_verilog(&p4),
        &p4,
        &[lanes],
        &[
            (
                "lane 1 takes the `a` word of lane 0's bank",
                "assign a_sel_1_d = a_bank_1;",
                "assign a_sel_1_d = a_bank_0;",
            ),
            (
                "the copy for `b` misses the writes to bank 2",
                "bank_b_2_wr_en = bank_a_2_wr_en;",
                "bank_b_2_wr_en = 1'b0;",
            ),
            (
                "the transmit engine reads the bank of the word it read before",
                "tx_sel_d = tx_addr[1:0] & bank_mask;",
                "tx_sel_d = tx_sel_q;",
            ),
        ],
    );
}

// -------------------------------------------------------------------------------------------
// Collective schedules (`netcoll_models::nic::schedule`) on NICs on a network
// -------------------------------------------------------------------------------------------

mod collectives {
    use super::*;
    use netcoll_models::nic::schedule::{self, Collective, NodeProgram, ScheduleOptions};
    use netcoll_models::reduce_alu::{AluOp, Dtype};
    use netcoll_testbench::nic::network::{
        run_cycles, run_golden, seeded_words, NetworkOptions, NetworkRun, Progress,
    };

    const SEED: u64 = 0x5eed_c011;

    /// `programs` with each node's input vector written first (`words` words at `input`).
    fn with_inputs(mut programs: Vec<NodeProgram>, inputs: &[Vec<u64>]) -> Vec<NodeProgram> {
        let at = ScheduleOptions::default().input;
        for (prog, input) in programs.iter_mut().zip(inputs) {
            prog.write_first(at, input);
        }
        programs
    }

    /// The naive reference: node 0's vector combined with node 1's, 2's, … in node order.
    fn reference(op: AluOp, inputs: &[Vec<u64>]) -> Vec<u64> {
        let combine = |a: &[u64], b: &[u64]| -> Vec<u64> {
            match op {
                AluOp::Sum => a.iter().zip(b).map(|(x, y)| x.wrapping_add(*y)).collect(),
                AluOp::Max => a
                    .iter()
                    .zip(b)
                    .map(|(&x, &y)| (x as i64).max(y as i64) as u64)
                    .collect(),
                AluOp::BXor => a.iter().zip(b).map(|(x, y)| x ^ y).collect(),
                // Pairs (value, index): the smaller value, on a tie the smaller index.
                AluOp::MinLoc => a
                    .chunks(2)
                    .zip(b.chunks(2))
                    .flat_map(|(x, y)| {
                        let (xv, yv) = (x[0] as i64, y[0] as i64);
                        if xv < yv || (xv == yv && x[1] <= y[1]) {
                            [x[0], x[1]]
                        } else {
                            [y[0], y[1]]
                        }
                    })
                    .collect(),
                _ => unreachable!("not used here"),
            }
        };
        inputs[1..]
            .iter()
            .fold(inputs[0].clone(), |acc, v| combine(&acc, v))
    }

    fn all_ok(run: &NetworkRun, what: &str) {
        for (k, node) in run.nodes.iter().enumerate() {
            assert_eq!(
                node.status,
                Status::Ok.code(),
                "{what}: node {k}: {:?}",
                node.cqe
            );
        }
    }

    /// Levels with node 0 the rust-hdl RTL, node 1 the Verilog, the others the cycle model.
    fn mixed(n: usize) -> Vec<Level> {
        (0..n)
            .map(|k| match k {
                0 => Level::Rtl,
                1 => Level::Verilator,
                _ => Level::Model,
            })
            .collect()
    }

    #[test]
    fn allreduce_schedules_give_the_reduction_at_every_level() {
        let p = NicParams::SMALL;
        let cases = [
            (2, AluOp::Sum, Dtype::I64, 5),
            (5, AluOp::Max, Dtype::I64, 3),
            (7, AluOp::BXor, Dtype::U64, 4),
            (8, AluOp::Sum, Dtype::U64, 6),
            (6, AluOp::MinLoc, Dtype::I64, 3),
        ];
        for (case, &(n, op, dtype, count)) in cases.iter().enumerate() {
            let seed = SEED + case as u64;
            let what = format!("{n} nodes, {} {}, seed {seed:#x}", op.name(), dtype.name());
            let words = count * if op.is_loc() { 2 } else { 1 };
            let mut inputs = seeded_words(n, words, seed);
            if op.is_loc() {
                // Indices: the node's rank; a few equal values, so ties are decided.
                for (k, v) in inputs.iter_mut().enumerate() {
                    for j in 0..count {
                        v[2 * j + 1] = k as u64;
                        if j == 0 {
                            v[0] = 7;
                        }
                    }
                }
            }
            let want = reference(op, &inputs);
            let c = Collective::Allreduce {
                op,
                dtype,
                count: count as u64,
            };
            let progs = schedule::build(&c, n, &p, &ScheduleOptions::default())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let progs = with_inputs(progs, &inputs);
            for order in 0..3 {
                let g =
                    run_golden(&progs, &p, seed + order).unwrap_or_else(|e| panic!("{what}: {e}"));
                all_ok(&g, &what);
                for (k, node) in g.nodes.iter().enumerate() {
                    assert_eq!(node.result, want, "golden, order {order}, {what}: node {k}");
                }
            }
            let o = NetworkOptions::default();
            let model = run_cycles(&progs, &p, &vec![Level::Model; n], &o)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            all_ok(&model, &what);
            for (k, node) in model.nodes.iter().enumerate() {
                assert_eq!(node.result, want, "model, {what}: node {k}");
            }
            // Every level is cycle-equivalent to the model, so the whole run is the same.
            let mix =
                run_cycles(&progs, &p, &mixed(n), &o).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(mix, model, "RTL and Verilator nodes among models, {what}");
        }
    }

    /// The DCT-like transport (one QP, steps kept apart by their counters' receive
    /// channels) where the QP-per-step one runs out of QPs: the same reduction, at every level,
    /// with a late node whose peers are refused and retry until it has armed its channels.
    #[test]
    fn channel_schedules_run_on_one_qp_whatever_the_steps() {
        use schedule::{ScheduleError, Transport};
        let p = NicParams::SMALL; // 4 QPs: a QP per step serves at most 3 steps
        let channels = ScheduleOptions {
            transport: Transport::Channels,
            ..Default::default()
        };
        for (case, &(n, op, count)) in [
            (16, AluOp::Sum, 4),
            (11, AluOp::Max, 3),
            (9, AluOp::MinLoc, 2),
        ]
        .iter()
        .enumerate()
        {
            let seed = SEED + 100 + case as u64;
            let what = format!("{n} nodes, {}, seed {seed:#x}", op.name());
            let words = count * if op.is_loc() { 2 } else { 1 };
            let mut inputs = seeded_words(n, words, seed);
            if op.is_loc() {
                for (k, v) in inputs.iter_mut().enumerate() {
                    for j in 0..count {
                        v[2 * j + 1] = k as u64;
                    }
                }
            }
            let want = reference(op, &inputs);
            let c = Collective::Allreduce {
                op,
                dtype: Dtype::I64,
                count: count as u64,
            };
            assert!(
                matches!(
                    schedule::build(&c, n, &p, &ScheduleOptions::default()),
                    Err(ScheduleError::Resource { what: "QPs", .. })
                ),
                "{what}: a QP per step does not fit 4 QPs"
            );
            let progs =
                schedule::build(&c, n, &p, &channels).unwrap_or_else(|e| panic!("{what}: {e}"));
            for prog in &progs {
                assert_eq!(prog.setup.len(), 1, "{what}: one QP configured");
                assert!(prog.commands.iter().all(|c| c.op != HostOp::PostRq));
            }
            let progs = with_inputs(progs, &inputs);
            for order in 0..3 {
                let g =
                    run_golden(&progs, &p, seed + order).unwrap_or_else(|e| panic!("{what}: {e}"));
                all_ok(&g, &what);
                for (k, node) in g.nodes.iter().enumerate() {
                    assert_eq!(node.result, want, "golden, order {order}, {what}: node {k}");
                }
            }
            let late = n / 2;
            let o = NetworkOptions {
                start: (0..n).map(|k| if k == late { 2000 } else { 0 }).collect(),
                ..Default::default()
            };
            let model = run_cycles(&progs, &p, &vec![Level::Model; n], &o)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            all_ok(&model, &what);
            for (k, node) in model.nodes.iter().enumerate() {
                assert_eq!(node.result, want, "model, {what}: node {k}");
            }
            assert!(
                model.rnr_naks > 0,
                "{what}: the late node's peers were refused"
            );
            let mix =
                run_cycles(&progs, &p, &mixed(n), &o).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(mix, model, "RTL and Verilator nodes among models, {what}");
        }
    }

    #[test]
    fn barrier_schedule_holds_every_node_until_the_last_enters() {
        let p = NicParams::SMALL;
        for n in [2, 3, 7] {
            let progs = schedule::build(&Collective::Barrier, n, &p, &ScheduleOptions::default())
                .expect("fits");
            let g = run_golden(&progs, &p, SEED).expect("golden");
            all_ok(&g, "golden");
            // The last node enters long after the others: their messages to it find no
            // receive buffer and are retried.
            let late = n / 2;
            let o = NetworkOptions {
                start: (0..n).map(|k| if k == late { 3000 } else { 0 }).collect(),
                ..Default::default()
            };
            let model = run_cycles(&progs, &p, &vec![Level::Model; n], &o).expect("model");
            all_ok(&model, "model");
            let entered = model.nodes[late].posted_at;
            assert!(entered >= 3000);
            for (k, node) in model.nodes.iter().enumerate() {
                assert!(
                    node.done_at > entered,
                    "{n} nodes: node {k} done at {} before node {late} entered at {entered}",
                    node.done_at
                );
            }
            assert!(model.rnr_naks > 0, "{n} nodes: early messages were retried");
            let mix = run_cycles(&progs, &p, &mixed(n), &o).expect("mixed");
            assert_eq!(
                mix, model,
                "{n} nodes: RTL and Verilator nodes among models"
            );
        }
    }

    #[test]
    fn broadcast_schedule_copies_the_root_buffer_to_every_node() {
        let p = NicParams::SMALL;
        for (n, root, radix, count) in [(9, 4, 3, 6), (6, 0, 2, 2), (5, 2, 4, 1)] {
            let what = format!("{n} nodes, root {root}, radix {radix}");
            let c = Collective::Broadcast { root, radix, count };
            let progs = schedule::build(&c, n, &p, &ScheduleOptions::default()).expect("fits");
            let data: Vec<u64> = (0..count)
                .map(|j| 0xB0_0000 + j * 3 + root as u64)
                .collect();
            let out = ScheduleOptions::default().output;
            let mut progs = progs;
            progs[root].write_first(out, &data);
            let golden: Vec<NetworkRun> = (0..3)
                .map(|order| run_golden(&progs, &p, SEED + order).expect("golden"))
                .collect();
            let model = run_cycles(
                &progs,
                &p,
                &vec![Level::Model; n],
                &NetworkOptions::default(),
            )
            .expect("model");
            for run in golden.iter().chain([&model]) {
                all_ok(run, &what);
                for (k, node) in run.nodes.iter().enumerate() {
                    assert_eq!(node.result, data, "{what}: node {k}");
                }
                // One message per node but the root, and its answer.
                assert_eq!(
                    (run.messages, run.answers),
                    (n as u64 - 1, n as u64 - 1),
                    "{what}"
                );
            }
            let mix = run_cycles(&progs, &p, &mixed(n), &NetworkOptions::default()).expect("mixed");
            assert_eq!(mix, model, "{what}: RTL and Verilator nodes among models");
        }
    }

    /// Recursive doubling fixes the order of the floating-point additions, so every node ends
    /// with the same bits: those of the sum in the schedule's tree, which differ from the sum
    /// in node order for these inputs.
    #[test]
    fn floating_point_allreduce_gives_every_node_the_same_bits() {
        let p = NicParams {
            fp: 1,
            ..NicParams::SMALL
        };
        let x: [f64; 6] = [1e16, 1.0, -1e16, 3.0, 1.0, 0.5];
        let inputs: Vec<Vec<u64>> = x
            .iter()
            .map(|v| vec![v.to_bits(), (-v).to_bits()])
            .collect();
        let c = Collective::Allreduce {
            op: AluOp::Sum,
            dtype: Dtype::F64,
            count: 2,
        };
        let progs = with_inputs(
            schedule::build(&c, 6, &p, &ScheduleOptions::default()).expect("fits"),
            &inputs,
        );
        // 6 nodes: the extras 4 and 5 fold into 0 and 1, then (0 + 1) + (2 + 3).
        let tree = ((x[0] + x[4]) + (x[1] + x[5])) + (x[2] + x[3]);
        let in_order = x.iter().fold(0.0, |a, v| a + v);
        assert_ne!(
            tree.to_bits(),
            in_order.to_bits(),
            "the inputs tell the orders apart"
        );
        let want = vec![tree.to_bits(), (-tree).to_bits()];
        let g = run_golden(&progs, &p, SEED).expect("golden");
        let levels: Vec<Level> = (0..6)
            .map(|k| if k == 0 { Level::Rtl } else { Level::Model })
            .collect();
        let m = run_cycles(&progs, &p, &levels, &NetworkOptions::default()).expect("cycles");
        for run in [&g, &m] {
            all_ok(run, "f64");
            for (k, node) in run.nodes.iter().enumerate() {
                assert_eq!(node.result, want, "node {k}");
            }
        }
    }

    /// Host progress sends the same messages and runs the same CALCs, so it gives the same
    /// results; every level agrees with the model under it too.
    #[test]
    fn host_progress_gives_the_offload_results_at_every_level() {
        let p = NicParams::SMALL;
        let host = NetworkOptions {
            progress: Progress::Host,
            overhead: 50,
            ..Default::default()
        };
        let inputs = seeded_words(5, 3, SEED);
        let cases: [(Collective, usize); 3] = [
            (
                Collective::Allreduce {
                    op: AluOp::Max,
                    dtype: Dtype::I64,
                    count: 3,
                },
                5,
            ),
            (Collective::Barrier, 7),
            (
                Collective::Broadcast {
                    root: 1,
                    radix: 2,
                    count: 3,
                },
                6,
            ),
        ];
        for (c, n) in cases {
            let progs = schedule::build(&c, n, &p, &ScheduleOptions::default()).expect("fits");
            let progs = match c {
                Collective::Allreduce { .. } => with_inputs(progs, &inputs),
                _ => progs,
            };
            let nic = run_cycles(
                &progs,
                &p,
                &vec![Level::Model; n],
                &NetworkOptions::default(),
            )
            .expect("offload");
            let by_host = run_cycles(&progs, &p, &vec![Level::Model; n], &host).expect("host");
            all_ok(&by_host, c.name());
            for (k, (a, b)) in nic.nodes.iter().zip(&by_host.nodes).enumerate() {
                assert_eq!(a.result, b.result, "{}: node {k}", c.name());
            }
            if let Collective::Allreduce { .. } = c {
                assert_eq!(by_host.nodes[0].result, reference(AluOp::Max, &inputs));
            }
            // The same messages, and no WAIT posted: the host polled the counters instead.
            assert_eq!(by_host.messages, nic.messages, "{}", c.name());
            let mix = run_cycles(&progs, &p, &mixed(n), &host).expect("mixed");
            assert_eq!(
                mix,
                by_host,
                "{}: RTL and Verilator nodes among models",
                c.name()
            );
        }
    }

    /// The software's per-message overhead lies on the host-progressed collective's critical
    /// path at every step, and OS noise delays it at every step; the offloaded schedule feels
    /// neither once it is posted.
    #[test]
    fn overhead_and_noise_cost_host_progress_more_than_the_offload() {
        let p = NicParams::default();
        let n = 64;
        let c = Collective::Allreduce {
            op: AluOp::Sum,
            dtype: Dtype::I64,
            count: 8,
        };
        let progs = with_inputs(
            schedule::build(&c, n, &p, &ScheduleOptions::default()).expect("fits"),
            &seeded_words(n, 8, SEED),
        );
        let latency = |progress, overhead, noise_prob| {
            let o = NetworkOptions {
                progress,
                overhead,
                noise_prob,
                noise_cycles: 5000,
                seed: SEED,
                ..Default::default()
            };
            let run = run_cycles(&progs, &p, &vec![Level::Model; n], &o).expect("runs");
            all_ok(&run, "64 nodes");
            run.latency()
        };
        let (nic, host) = (
            latency(Progress::Nic, 0, 0.0),
            latency(Progress::Host, 0, 0.0),
        );
        let host_o = latency(Progress::Host, 200, 0.0);
        // Six rounds, each a send and an arrival: at least 12 overheads.
        assert!(
            host_o >= host + 12 * 200,
            "host {host}, with overhead {host_o}"
        );
        assert_eq!(
            latency(Progress::Nic, 200, 0.0),
            nic,
            "the offload has no overhead"
        );
        let nic_noisy = latency(Progress::Nic, 0, 0.02);
        let host_noisy = latency(Progress::Host, 0, 0.02);
        assert!(
            host_noisy - host > nic_noisy - nic,
            "noise: host {host} → {host_noisy}, offload {nic} → {nic_noisy}"
        );
    }
}
