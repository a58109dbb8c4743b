//! NIC conformance at every level: the example scenarios (one per work request, the REDUCE over
//! a tree, the PIPELINE, the error paths) on the golden, the cycle model, the rust-hdl RTL and
//! the emitted Verilog under Verilator; random host programs in lockstep (every output, every
//! cycle); two NICs back to back; the emitted Verilog under the lint / synthesis / simulation
//! tools.

use netcoll_models::config::Config;
use netcoll_models::nic::model::NicModel;
use netcoll_models::nic::scenario::{
    compare_events, compare_normalised, Event, NicDut, Scenario, Step,
};
use netcoll_models::nic::{HostOp, NicIn, NicOut, NicParams, Opcode, Wqe};
use netcoll_testbench::check::nic_examples;
use netcoll_testbench::nic::{
    lockstep, random_scenario, run_level, Level, Lockstep, RtlNic, VerilatorNic,
};
use netcoll_testbench::tools;
use std::collections::VecDeque;

fn examples() -> Vec<Scenario> {
    let e = nic_examples().expect("scenarios/nic/ readable and valid");
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

#[test]
fn bad_requests_get_error_cqes_and_later_work_completes() {
    // An out-of-range QP in SEND_EN and an unknown opcode, each followed by a valid NOP.
    let p = NicParams::SMALL;
    let post = |w: (u64, u64)| Step::Host {
        label: "post_sq",
        cmds: vec![netcoll_models::nic::scenario::HostCmd {
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

#[test]
fn random_programs_rtl_lockstep_with_model() {
    let p = NicParams::SMALL;
    for seed in 1..=4u64 {
        let s = random_scenario(&p, seed, 400);
        let rtl = RtlNic(netcoll_hdl::nic::build(&p).expect("supported"));
        if let Err(e) = lockstep(&s, Box::new(NicModel::new(p)), Box::new(rtl)) {
            panic!("seed {seed}: {e}");
        }
    }
}

#[test]
fn random_programs_default_parameters_rtl_lockstep_with_model() {
    let p = NicParams::default();
    let s = random_scenario(&p, 77, 300);
    let rtl = RtlNic(netcoll_hdl::nic::build(&p).expect("supported"));
    if let Err(e) = lockstep(&s, Box::new(NicModel::new(p)), Box::new(rtl)) {
        panic!("seed 77: {e}");
    }
}

#[test]
fn random_programs_verilator_lockstep_10m_cycles() {
    let mut total = 0u64;
    let mut seed = 1000u64;
    let mut errors = 0usize;
    while total < 10_000_000 {
        // Alternate the two extreme parameter sets.
        let p = if seed.is_multiple_of(2) {
            NicParams::SMALL
        } else {
            NicParams::default()
        };
        let s = random_scenario(&p, seed, 4000);
        let v = VerilatorNic::new(&p).expect("verilator builds the NIC");
        match lockstep(&s, Box::new(NicModel::new(p)), Box::new(v)) {
            Ok((ev, c)) => {
                total += c;
                errors += ev
                    .iter()
                    .filter(|e| matches!(e, Event::Cqe { status, .. } if status != "OK"))
                    .count();
            }
            Err(e) => panic!("seed {seed}: {e}"),
        }
        seed += 1;
    }
    eprintln!("{total} cycles in lockstep, {errors} error CQEs exercised");
    assert!(
        errors > 100,
        "the random programs must exercise the error paths"
    );
}

/// A link between two NICs: a FIFO of beats (unbounded, like the buffers of a network).
#[derive(Default)]
struct Link {
    beats: VecDeque<NicIn>,
}

/// Two NICs (each a model and the Verilog in lockstep) connected back to back: node 1's SEND
/// arrives at node 2's RQ and increments its counter; node 2 WAITs on the counter, adds the
/// message to its own vector with CALC and sends the sum back; node 1 checks it.
#[test]
fn two_nics_back_to_back() {
    let p = NicParams::SMALL;
    let mk = || -> Lockstep {
        Lockstep::new(
            Box::new(NicModel::new(p)),
            Box::new(VerilatorNic::new(&p).expect("verilator builds the NIC")),
        )
    };
    let mut nodes = [mk(), mk()];
    let mut outs = [NicOut::default(), NicOut::default()];
    let mut links = [Link::default(), Link::default()]; // links[k]: towards node k
                                                        // Host programs: (node, op, arg, w0, w1), issued in order, one at a time per node.
    let a: Vec<u64> = vec![5, u64::MAX, 7, 1 << 40];
    let b: Vec<u64> = vec![10, 2, u64::MAX - 1, 3];
    let mut prog: [VecDeque<(u64, u64, u64, u64)>; 2] = [VecDeque::new(), VecDeque::new()];
    for (i, w) in a.iter().enumerate() {
        prog[0].push_back((HostOp::WriteMem as u64, i as u64, *w, 0));
    }
    for (i, w) in b.iter().enumerate() {
        prog[1].push_back((HostOp::WriteMem as u64, 16 + i as u64, *w, 0));
    }
    // Node 1 (index 0): receive the answer on QP 1 at 0x40, send `a` to node 2's QP 2.
    let (w0, w1) = Wqe::recv(0x40, 4, true).encode();
    prog[0].push_back((HostOp::PostRq as u64, 1, w0, w1));
    let (w0, w1) = Wqe::send(0, 4, 1, 2, Some(3), true).encode();
    prog[0].push_back((HostOp::PostSq as u64, 1, w0, w1));
    // Node 2 (index 1): receive into 0x20 on QP 2 (counter 3), WAIT, CALC SUM to node 1's QP 1.
    let (w0, w1) = Wqe::recv(0x20, 4, false).encode();
    prog[1].push_back((HostOp::PostRq as u64, 2, w0, w1));
    let (w0, w1) = Wqe::wait_counter(3, 1, false).encode();
    prog[1].push_back((HostOp::PostSq as u64, 2, w0, w1));
    let calc = Wqe {
        opcode: Opcode::Calc as u64,
        signaled: true,
        alu_op: netcoll_models::alu::AluOp::Sum as u64,
        dtype: netcoll_models::alu::Dtype::U64 as u64,
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
    let (w0, w1) = calc.encode();
    prog[1].push_back((HostOp::PostSq as u64, 2, w0, w1));
    let mut pending = [false, false];
    let mut beats_from = [vec![], vec![]];
    for cycle in 0..20_000u64 {
        for k in 0..2 {
            let mut i = NicIn {
                reset: cycle == 0,
                tx_ready: true,
                ..Default::default()
            };
            if let Some(&(op, arg, w0, w1)) = prog[k].front() {
                if !pending[k] {
                    i.host_valid = true;
                    i.host_op = op;
                    i.host_arg = arg;
                    i.host_w0 = w0;
                    i.host_w1 = w1;
                }
            }
            if let Some(beat) = links[k].beats.front() {
                i = NicIn {
                    rx_valid: true,
                    reset: i.reset,
                    tx_ready: true,
                    host_valid: i.host_valid,
                    host_op: i.host_op,
                    host_arg: i.host_arg,
                    host_w0: i.host_w0,
                    host_w1: i.host_w1,
                    ..*beat
                };
            }
            // Transfers in this cycle (outputs are registered: `outs[k]` is this cycle's).
            let o = outs[k];
            if i.host_valid && o.host_ready {
                pending[k] = true;
            }
            if i.rx_valid && o.rx_ready {
                links[k].beats.pop_front();
            }
            if o.tx_valid {
                beats_from[k].push(o.tx_data);
                links[1 - k].beats.push_back(NicIn {
                    rx_kind: o.tx_kind,
                    rx_src: k as u64,
                    rx_src_qp: o.tx_src_qp,
                    rx_qp: o.tx_qp,
                    rx_cnt_en: o.tx_cnt_en,
                    rx_cnt: o.tx_cnt,
                    rx_tag: o.tx_tag,
                    rx_empty: o.tx_empty,
                    rx_last: o.tx_last,
                    rx_data: o.tx_data,
                    ..Default::default()
                });
            }
            outs[k] = nodes[k].step(&i);
            if outs[k].host_rsp_valid {
                assert_eq!(outs[k].host_rsp_status, 0, "node {k}: host command refused");
                prog[k].pop_front();
                pending[k] = false;
            }
        }
    }
    for (k, n) in nodes.iter().enumerate() {
        assert!(
            n.first_mismatch.is_none(),
            "node {k}: {:?}",
            n.first_mismatch
        );
    }
    assert!(prog.iter().all(|q| q.is_empty()), "every host command done");
    assert!(
        links.iter().all(|l| l.beats.is_empty()),
        "every beat delivered"
    );
    // Node 1 sent `a`; node 2 answered a[i] + b[i] (wrapping), computed here independently.
    let want: Vec<u64> = a.iter().zip(&b).map(|(x, y)| x.wrapping_add(*y)).collect();
    assert_eq!(beats_from[0], a);
    assert_eq!(beats_from[1], want);
}

fn generated(cfg: &Config) -> (tools::TempDir, Vec<netcoll_hdl::generate::GeneratedFile>) {
    let dir = tools::TempDir::new("netcoll-nic-verilog").expect("temp dir");
    let files = netcoll_hdl::generate::generate(cfg).expect("generate");
    for f in &files {
        std::fs::write(dir.path().join(&f.name), &f.contents).expect("write");
    }
    (dir, files)
}

#[test]
fn nic_verilog_lint_synth_icarus_at_both_extremes() {
    for nic in [NicParams::SMALL, NicParams::default()] {
        let cfg = Config {
            nic,
            ..Default::default()
        };
        let (dir, files) = generated(&cfg);
        let nic_file = files.iter().find(|f| f.name == "nic.v").expect("nic.v");
        assert_eq!(nic_file.requires, vec!["reduce_alu_l1.v".to_string()]);
        let paths = [dir.path().join("nic.v"), dir.path().join("reduce_alu_l1.v")];
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
    }
}

#[test]
fn nic_verilog_is_deterministic_and_readable() {
    let cfg = Config {
        nic: NicParams::SMALL,
        ..Default::default()
    };
    let a = netcoll_hdl::generate::nic(&cfg).expect("emit").text;
    let b = netcoll_hdl::generate::nic(&cfg).expect("emit").text;
    assert_eq!(a, b);
    assert!(!a.contains('$'));
    for name in [
        "localparam [4:0] s_idle",
        "reduce_alu_l1 alu (",
        "always @(posedge clock)",
    ] {
        assert!(a.contains(name), "missing `{name}`");
    }
}

/// The suite catches a broken WAIT condition and a broken ALU operation: each mutant of the
/// emitted Verilog must make some example print different events than the cycle model.
#[test]
fn mutants_of_the_emitted_verilog_fail_the_examples() {
    let p = NicParams::SMALL;
    let good = VerilatorNic::verilog(&p).expect("generate");
    let mutants = [
        (
            "WAIT on a counter completes one short of its threshold",
            "wt_ok = cnt_rd_data >= w1_q[63:32];",
            "wt_ok = (cnt_rd_data + 32'd1) >= w1_q[63:32];",
        ),
        (
            "SUM computes XOR",
            "l0_sum = l0_av + l0_bv;",
            "l0_sum = l0_av ^ l0_bv;",
        ),
        (
            "MAXLOC / MINLOC ties keep the higher index",
            "if (l0_bi < l0_ai) begin",
            "if (l0_bi > l0_ai) begin",
        ),
    ];
    let examples: Vec<(Scenario, Vec<Event>)> = examples()
        .into_iter()
        .map(|s| {
            let m = run_level(&s, Level::Model).expect("model runs");
            (s, m)
        })
        .collect();
    for (what, from, to) in mutants {
        assert_eq!(
            good.matches(from).count(),
            1,
            "mutation site `{from}` not found once"
        );
        let text = good.replace(from, to);
        let caught = examples.iter().any(|(s, model)| {
            let mut v = VerilatorNic::from_text(&text).expect("the mutant verilates");
            match netcoll_models::nic::scenario::run_cycles(s, &mut v) {
                Ok(ev) => compare_events(model, &ev).is_err(),
                Err(_) => true,
            }
        });
        assert!(caught, "mutant not caught: {what}");
    }
}
