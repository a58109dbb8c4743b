fn main() {
    let p = netcoll_models::switch::EngineParams::default();
    let e = netcoll_hdl::switch::build(&p).unwrap();
    match e.verilog(&["test".into()]) { Ok(m) => print!("{}", m.text), Err(e) => eprintln!("ERR {e}") }
}
