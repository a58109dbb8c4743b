//! scratch
use netcoll_models::config::Config;
use netcoll_models::nic::NicParams;

#[test]
fn dump_nic_verilog() {
    for (tag, nic) in [
        ("small", NicParams::SMALL),
        ("default", NicParams::default()),
    ] {
        let cfg = Config {
            nic,
            ..Default::default()
        };
        let files = netcoll_hdl::generate::block_files(&cfg, "nic").expect("generate");
        let dir = std::path::PathBuf::from(format!("/tmp/nicv/{tag}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for f in &files {
            std::fs::write(dir.join(&f.name), &f.contents).unwrap();
        }
    }
}
