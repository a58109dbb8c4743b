//! The reduction ALU's emitted Verilog: golden-text snapshots (reviewed by hand; a change
//! shows up as a snapshot diff), determinism and the port list the NIC and the harness rely on.

use netcoll_hdl::alu::{module_name, reduce_alu_module};
use netcoll_hdl::emit::Dir;
use netcoll_models::alu::{input_ports, output_ports, LANES_VALUES};

#[test]
fn reduce_alu_l1_snapshot() {
    let m = reduce_alu_module(1).expect("emit");
    insta::assert_snapshot!("reduce_alu_l1", m.text);
}

#[test]
fn reduce_alu_l4_snapshot() {
    let m = reduce_alu_module(4).expect("emit");
    insta::assert_snapshot!("reduce_alu_l4", m.text);
}

#[test]
fn emission_is_deterministic() {
    for lanes in LANES_VALUES {
        let a = reduce_alu_module(lanes).expect("emit");
        let b = reduce_alu_module(lanes).expect("emit");
        assert_eq!(a.text.as_bytes(), b.text.as_bytes(), "{lanes} lanes");
        assert_eq!(a.ports, b.ports);
    }
}

/// Ports: `clock`, then the model's input list, then its output list; all at most 64 bits,
/// outputs declared `reg` and driven from registers only.
#[test]
fn ports_are_the_documented_ones() {
    for lanes in LANES_VALUES {
        let m = reduce_alu_module(lanes).expect("emit");
        assert_eq!(m.name, module_name(lanes));
        let mut want = vec![("clock", Dir::Input, 1)];
        want.extend(
            input_ports(lanes)
                .iter()
                .map(|p| (p.name, Dir::Input, p.width)),
        );
        want.extend(
            output_ports(lanes)
                .iter()
                .map(|p| (p.name, Dir::Output, p.width)),
        );
        let got: Vec<(&str, Dir, usize)> = m
            .ports
            .iter()
            .map(|p| (p.name.as_str(), p.dir, p.width))
            .collect();
        assert_eq!(got, want);
        assert!(m.ports.iter().all(|p| p.width <= 64));
        // Each output is assigned once, from its register: `x = o_x_q;`.
        for p in output_ports(lanes) {
            let line = format!("        {} = o_{}_q;", p.name, p.name.replace("out_", ""));
            assert!(m.text.contains(&line), "{}: no `{}`", m.name, line.trim());
        }
    }
}

#[test]
fn unsupported_lanes_are_an_error() {
    for lanes in [0, 3, 8] {
        let e = reduce_alu_module(lanes).expect_err("unsupported");
        assert!(e.to_string().contains(&lanes.to_string()), "{e}");
    }
}
