//! Golden-text snapshots of every registered block's emitted Verilog (its module and every
//! module it instantiates, as `netcoll gen` writes them), in the default and the small
//! configuration (whose one-lane ALU has the floating-point types built in, so that
//! `reduce_alu_fp` has a snapshot too). Reviewed by hand: a change shows up as a snapshot diff.

use netcoll_hdl::generate::{generate, simulation_text};
use netcoll_models::config::Config;
use netcoll_models::kit::block::blocks;
use netcoll_models::nic::NicParams;
use netcoll_models::reduce_alu::ReduceAluParams;
use netcoll_models::switch_engine::SwitchEngineParams;

fn snapshots(cfg: &Config, tag: &str) {
    let files = generate(cfg).expect("generate");
    for b in blocks() {
        let module = (b.module_name)(cfg);
        let text = simulation_text(&files, &module)
            .unwrap_or_else(|| panic!("{module}.v or a file it requires is missing"));
        insta::assert_snapshot!(format!("{}_{tag}", b.name), text);
    }
}

#[test]
fn every_block_default() {
    snapshots(&Config::default(), "default");
}

#[test]
fn every_block_small() {
    snapshots(
        &Config {
            switch: SwitchEngineParams::SMALL,
            nic: NicParams::SMALL,
            alu: ReduceAluParams {
                lanes: 1,
                fp: 1,
                ..Default::default()
            },
        },
        "small",
    );
}

/// A reducing switch engine (the payload path, its queues, the shape logic and a 4-lane ALU).
#[test]
fn switch_engine_reducing() {
    let cfg = Config {
        switch: SwitchEngineParams::SMALL.with_payload(8, 2, 4),
        ..Config::default()
    };
    let files = generate(&cfg).expect("generate");
    let text = simulation_text(&files, "switch_engine").expect("switch_engine.v and its modules");
    insta::assert_snapshot!("switch_engine_reducing", text);
}

/// The reducing switch engine with the floating-point types (its ALU has a floating-point
/// datapath per lane: `reduce_alu_fp` for the even lanes, `reduce_alu_fp_f16_bf16_f32` for the
/// odd ones, which see only the high halves of words).
#[test]
fn switch_engine_reducing_fp() {
    let cfg = Config {
        switch: SwitchEngineParams {
            fp: 1,
            ..SwitchEngineParams::SMALL.with_payload(8, 2, 4)
        },
        ..Config::default()
    };
    let files = generate(&cfg).expect("generate");
    let text = simulation_text(&files, "switch_engine").expect("switch_engine.v and its modules");
    insta::assert_snapshot!("switch_engine_reducing_fp", text);
}
