//! NIC conformance: example scenarios at every level, random programs in lockstep, the
//! emitted Verilog under the lint / synthesis / simulation tools.

use netcoll_models::nic::model::NicModel;
use netcoll_models::nic::NicParams;
use netcoll_testbench::nic::{lockstep, random_scenario, RtlNic};

#[test]
fn random_programs_rtl_lockstep_with_model() {
    let p = NicParams::SMALL;
    for seed in 1..=3u64 {
        let s = random_scenario(&p, seed, 300);
        let rtl = RtlNic(netcoll_hdl::nic::build(&p).expect("supported"));
        match lockstep(&s, Box::new(NicModel::new(p)), Box::new(rtl)) {
            Ok((_, cycles)) => eprintln!("seed {seed}: {cycles} cycles in lockstep"),
            Err(e) => panic!("seed {seed}: {e}"),
        }
    }
}
