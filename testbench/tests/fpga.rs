//! The FPGA wrapper of every block is clean Verilog around the block: Verilator's `-Wall` lint
//! passes on it with the block's files, and Icarus compiles it. (The place-and-route flow itself
//! takes minutes: `netcoll synth --fpga ecp5` runs it, see the README.)

use netcoll_hdl::generate::{block_files, block_module};
use netcoll_models::config::Config;
use netcoll_models::nic::NicParams;
use netcoll_models::reduce_alu::ReduceAluParams;
use netcoll_models::switch_engine::SwitchEngineParams;
use netcoll_testbench::fpga::wrapper;
use netcoll_testbench::tools::{iverilog_compile_files, verilator_lint_files, TempDir};

#[test]
fn every_block_wrapper_lints_clean_and_compiles() {
    let cfg = Config {
        switch: SwitchEngineParams::SMALL,
        nic: NicParams::SMALL,
        alu: ReduceAluParams {
            lanes: 2,
            fp: 0,
            ..Default::default()
        },
    };
    for b in netcoll_hdl::registry::blocks() {
        let dir = TempDir::new("netcoll-fpga-wrap").expect("temp dir");
        let m = block_module(&cfg, b.name).expect("module");
        let mut paths = vec![];
        for f in block_files(&cfg, b.name).expect("files") {
            let p = dir.path().join(&f.name);
            std::fs::write(&p, &f.contents).expect("write");
            paths.push(p);
        }
        let top = format!("{}_fpga", m.name);
        let p = dir.path().join(format!("{top}.v"));
        std::fs::write(&p, wrapper(&m)).expect("write");
        paths.push(p);
        let refs: Vec<&std::path::Path> = paths.iter().map(|p| p.as_path()).collect();
        verilator_lint_files(&refs, &top, &[]).unwrap_or_else(|e| panic!("{}: {e}", b.name));
        iverilog_compile_files(&refs, &top).unwrap_or_else(|e| panic!("{}: {e}", b.name));
    }
}
