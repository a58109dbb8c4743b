//! Tests of the external-tool wrappers and the Verilator co-simulation.

use std::path::{Path, PathBuf};
use std::time::Instant;

use netcoll_testbench::harness::verilator::{PortDesc, VerilatedModel};
use netcoll_testbench::tools::{
    iverilog_compile, tool_versions, verilator_lint, yosys_synth_check, ToolError,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// 8-bit counter with synchronous reset and enable, a 40-bit accumulator (QData in/out), and
/// combinational outputs of SData / IData / CData size.
const COUNTER: &str = r#"
module counter (
    input  wire        clock,
    input  wire        rst,
    input  wire        en,
    input  wire [7:0]  din,
    input  wire [39:0] wide_in,
    output reg  [7:0]  count,
    output reg  [39:0] acc,
    output wire [8:0]  sum,
    output wire [19:0] mix,
    output wire        wrap
);
    always @(posedge clock) begin
        if (rst) begin
            count <= 8'd0;
            acc   <= 40'd0;
        end else if (en) begin
            count <= count + 8'd1;
            acc   <= acc + wide_in;
        end
    end
    assign sum  = {1'b0, count} + {1'b0, din};
    assign mix  = {count ^ din, 4'hA, count};
    assign wrap = en & (count == 8'hFF);
endmodule
"#;

const BAD_WIDTH: &str = r#"
module bad_width (
    input  wire [7:0] a,
    input  wire [7:0] b,
    output wire [3:0] y
);
    assign y = a + b;
endmodule
"#;

const LATCH: &str = r#"
module latchy (
    input  wire       en,
    input  wire [3:0] d,
    output reg  [3:0] q
);
    always @* if (en) q = d;
endmodule
"#;

/// A scratch directory for fixture files, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("netcoll-tb-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    /// Writes `<module>.v` (file name = module name, as Verilator's DECLFILENAME wants).
    fn write(&self, module: &str, text: &str) -> PathBuf {
        let f = self.0.join(format!("{module}.v"));
        std::fs::write(&f, text).unwrap();
        f
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn counter_ports() -> (Vec<PortDesc>, Vec<PortDesc>) {
    (
        vec![
            PortDesc::new("rst", 1),
            PortDesc::new("en", 1),
            PortDesc::new("din", 8),
            PortDesc::new("wide_in", 40),
        ],
        vec![
            PortDesc::new("count", 8),
            PortDesc::new("acc", 40),
            PortDesc::new("sum", 9),
            PortDesc::new("mix", 20),
            PortDesc::new("wrap", 1),
        ],
    )
}

#[test]
fn versions_are_reported() {
    let v = tool_versions();
    for (t, ver) in &v {
        println!("{t}: {ver}");
    }
    assert_eq!(v.len(), 3);
    assert!(v[0].1.starts_with("Verilator 5"), "{v:?}");
}

#[test]
fn lint_passes_on_clean_module() {
    let s = Scratch::new("lint-ok");
    verilator_lint(&s.write("counter", COUNTER), "counter").unwrap();
}

#[test]
fn lint_fails_on_width_mismatch() {
    let s = Scratch::new("lint-bad");
    let err = verilator_lint(&s.write("bad_width", BAD_WIDTH), "bad_width").unwrap_err();
    let msg = err.to_string();
    println!("{msg}");
    assert!(msg.contains("%Warning-WIDTH"), "{msg}");
    assert!(msg.contains("--lint-only"), "command line missing: {msg}");
}

#[test]
fn yosys_reports_flops() {
    let s = Scratch::new("yosys-ok");
    let r = yosys_synth_check(&s.write("counter", COUNTER), "counter").unwrap();
    println!("{r:?}");
    assert_eq!(r.flip_flops, 8 + 40);
    assert!(r.cells > r.flip_flops);
}

/// The lines as Yosys 0.70's `fsm_recode` prints them (from logs of the NIC's synthesis,
/// without and with the sequencer's one-hot attribute): an `auto` encoding is read from the
/// line after; a line of another pass that names an FSM is not a recoding.
#[test]
fn fsm_encodings_are_read_from_the_log() {
    let log = "\
Optimizing FSM `$fsm$\\dut.transmit.phase_q$15081' from module `\\nic_fpga'.
Recoding FSM `$fsm$\\dut.transmit.phase_q$15081' from module `\\nic_fpga' using `auto' encoding:
  mapping auto encoding to `one-hot` for this FSM.
  00 -> --1
Recoding FSM `$fsm$\\dut.sequencer.state_q$15047' from module `\\nic_fpga' using `auto' encoding:
  mapping auto encoding to `binary` for this FSM.
  existing encoding is already a packed binary encoding.
Recoding FSM `$fsm$\\dut.host.state_q$7' from module `\\nic_fpga' using `one-hot' encoding:
  00000 -> -------------------------------1
";
    let e = netcoll_testbench::tools::parse_fsm_encodings(log);
    assert_eq!(e.len(), 3, "{e:?}");
    assert_eq!(e["dut.transmit.phase_q"], "one-hot");
    assert_eq!(e["dut.sequencer.state_q"], "binary");
    assert_eq!(e["dut.host.state_q"], "one-hot");
}

#[test]
fn yosys_rejects_latch() {
    let s = Scratch::new("yosys-latch");
    let err = yosys_synth_check(&s.write("latchy", LATCH), "latchy").unwrap_err();
    let msg = err.to_string();
    println!("{msg}");
    assert!(matches!(err, ToolError::Latches { .. }), "{msg}");
    assert!(msg.contains("DLATCH"), "{msg}");
}

#[test]
fn iverilog_compiles_and_rejects_garbage() {
    let s = Scratch::new("iverilog");
    iverilog_compile(&s.write("counter", COUNTER), "counter").unwrap();
    let bad = s.write(
        "broken",
        "module broken(input a, output b);\n assign b = a +;\nendmodule\n",
    );
    let msg = iverilog_compile(&bad, "broken").unwrap_err().to_string();
    println!("{msg}");
    assert!(
        msg.contains("iverilog") && msg.contains("syntax error"),
        "{msg}"
    );
}

#[test]
fn missing_file_is_an_error() {
    let err = verilator_lint(Path::new("/nonexistent/x.v"), "x").unwrap_err();
    assert!(matches!(err, ToolError::Io { .. }), "{err}");
}

/// Independent Rust model of `counter`.
#[derive(Default)]
struct CounterRef {
    count: u8,
    acc: u64,
}

impl CounterRef {
    /// Outputs for the current state and inputs, then the clock edge.
    fn step(&mut self, rst: bool, en: bool, din: u64, wide: u64) -> [u64; 5] {
        let din = din & 0xff;
        let wide = wide & ((1 << 40) - 1);
        let c = self.count as u64;
        let out = [
            c,
            self.acc,
            c + din,
            ((c ^ din) << 12) | (0xA << 8) | c,
            (en && self.count == 0xff) as u64,
        ];
        if rst {
            *self = CounterRef::default();
        } else if en {
            self.count = self.count.wrapping_add(1);
            self.acc = (self.acc + wide) & ((1 << 40) - 1);
        }
        out
    }
}

#[test]
fn cosim_counter_matches_reference() {
    let (ins, outs) = counter_ports();
    let mut m = VerilatedModel::build(COUNTER, "counter", &ins, &outs).unwrap();
    let seed: u64 = 0x5eed_c0de;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut r = CounterRef::default();
    let mut o = [0u64; 5];
    for cycle in 0..10_000u32 {
        // Reset on the first cycle (initial register contents are unspecified), then rarely.
        let rst = cycle == 0 || rng.gen_ratio(1, 64);
        let en = rng.gen_ratio(3, 4);
        // Upper garbage bits must be masked off by the wrapper.
        let din: u64 = rng.gen();
        let wide: u64 = rng.gen();
        m.step(&[rst as u64, en as u64, din, wide], &mut o);
        let expect = r.step(rst, en, din, wide);
        if cycle > 0 {
            assert_eq!(
                o, expect,
                "mismatch at cycle {cycle} (seed {seed:#x}); outputs [count, acc, sum, mix, wrap]"
            );
        }
    }
}

#[test]
fn cosim_cache_is_reused_and_two_tops_coexist() {
    let (ins, outs) = counter_ports();
    // Different text (comment) => different cache entry than the other test.
    let text = format!("// cache test\n{COUNTER}");
    let a = VerilatedModel::build(&text, "counter", &ins, &outs).unwrap();
    let t = Instant::now();
    let mut b = VerilatedModel::build(&text, "counter", &ins, &outs).unwrap();
    let dt = t.elapsed();
    println!("second build took {dt:?}, dir {}", b.build_dir().display());
    assert!(b.reused_cache());
    assert_eq!(a.build_dir(), b.build_dir());
    assert!(dt.as_secs_f64() < 2.0, "cached build took {dt:?}");

    // A second, different top in the same process.
    let adder = "module adder(input clock, input [15:0] x, input [15:0] y, output [16:0] s);\n\
                 assign s = {1'b0, x} + {1'b0, y};\nendmodule\n";
    let mut c = VerilatedModel::build(
        adder,
        "adder",
        &[PortDesc::new("x", 16), PortDesc::new("y", 16)],
        &[PortDesc::new("s", 17)],
    )
    .unwrap();
    let mut s = [0u64];
    c.step(&[0xffff, 0x1234], &mut s);
    assert_eq!(s[0], 0xffff + 0x1234);
    let mut o = [0u64; 5];
    b.step(&[1, 0, 0, 0], &mut o);
    b.step(&[0, 1, 7, 5], &mut o);
    b.step(&[0, 0, 0, 0], &mut o);
    assert_eq!(o[0], 1);
    assert_eq!(o[1], 5);
    // Models are independent instances.
    drop(a);
    b.step(&[0, 0, 0, 0], &mut o);
    assert_eq!(o[0], 1);
}

#[test]
fn cosim_port_errors() {
    let (mut ins, outs) = counter_ports();
    let wide = [PortDesc::new("w", 65)];
    let e = VerilatedModel::build(COUNTER, "counter", &wide, &outs).unwrap_err();
    assert!(e.to_string().contains("1..=64"), "{e}");

    ins[2].width = 9;
    let e = VerilatedModel::build(COUNTER, "counter", &ins, &outs)
        .unwrap_err()
        .to_string();
    println!("{e}");
    assert!(e.contains("`din` is input [8]"), "{e}");

    ins.pop();
    ins[2].width = 8;
    let e = VerilatedModel::build(COUNTER, "counter", &ins, &outs)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`wide_in` (input [40]) missing"), "{e}");
}

/// A module with 15 inputs / 25 outputs to measure stepping speed.
fn speed_module() -> (String, Vec<PortDesc>, Vec<PortDesc>) {
    let widths = [1usize, 1, 1, 4, 8, 8, 8, 16, 16, 32, 32, 40, 48, 64, 64];
    let ins: Vec<PortDesc> = widths
        .iter()
        .enumerate()
        .map(|(i, &w)| PortDesc::new(format!("i{i}"), w))
        .collect();
    let outs: Vec<PortDesc> = (0..25)
        .map(|j| PortDesc::new(format!("o{j}"), widths[j % 15]))
        .collect();
    let mut v = String::from("module speedy(input clock");
    for p in &ins {
        v += &format!(", input [{}:0] {}", p.width - 1, p.name);
    }
    for p in &outs {
        v += &format!(", output reg [{}:0] {}", p.width - 1, p.name);
    }
    v += ");\n  always @(posedge clock) begin\n";
    for (j, p) in outs.iter().enumerate() {
        let a = &ins[j % 15].name;
        let b = &ins[(j * 7 + 3) % 15].name;
        v += &format!(
            "    {} <= {} + {}[{}:0] ^ {};\n",
            p.name,
            a,
            b,
            ins[(j * 7 + 3) % 15].width.min(p.width) - 1,
            p.name
        );
    }
    v += "  end\nendmodule\n";
    (v, ins, outs)
}

#[test]
fn cosim_speed() {
    let (v, ins, outs) = speed_module();
    let mut m = VerilatedModel::build(&v, "speedy", &ins, &outs).unwrap();
    let mut i = vec![0u64; ins.len()];
    let mut o = vec![0u64; outs.len()];
    let n = 2_000_000u64;
    let t = Instant::now();
    let mut acc = 0u64;
    for k in 0..n {
        i[k as usize % 15] = k;
        m.step(&i, &mut o);
        acc = acc.wrapping_add(o[k as usize % 25]);
    }
    let dt = t.elapsed().as_secs_f64();
    println!(
        "speed: {:.2} M steps/s ({} inputs, {} outputs; checksum {acc:#x})",
        n as f64 / dt / 1e6,
        ins.len(),
        outs.len()
    );
}

#[test]
fn cosim_concurrent_builds_of_same_module() {
    let (ins, outs) = counter_ports();
    // A fresh cache key per run of the test binary.
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let text = format!("// concurrency test {nonce}\n{COUNTER}");
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let (text, ins, outs) = (text.clone(), ins.clone(), outs.clone());
            std::thread::spawn(move || {
                let mut m = VerilatedModel::build(&text, "counter", &ins, &outs).unwrap();
                let mut o = [0u64; 5];
                m.step(&[1, 0, 0, 0], &mut o);
                m.step(&[0, 1, 0, 0], &mut o);
                m.step(&[0, 0, 0, 0], &mut o);
                assert_eq!(o[0], 1);
                (m.reused_cache(), m.build_dir().to_path_buf())
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(results.iter().filter(|(reused, _)| !reused).count(), 1);
    assert!(results.iter().all(|(_, d)| *d == results[0].1));
}
