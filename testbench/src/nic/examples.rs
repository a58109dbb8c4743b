//! The example scenarios of `scenarios/nic/`, compiled into the binary so that `netcoll check`
//! runs them wherever it is installed. A test keeps this list equal to the directory.

/// (file name, text) of every example, sorted by name.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "calc.toml",
        include_str!("../../../scenarios/nic/calc.toml"),
    ),
    (
        "calc_fp.toml",
        include_str!("../../../scenarios/nic/calc_fp.toml"),
    ),
    (
        "calc_fp_types.toml",
        include_str!("../../../scenarios/nic/calc_fp_types.toml"),
    ),
    (
        "calc_overlap.toml",
        include_str!("../../../scenarios/nic/calc_overlap.toml"),
    ),
    (
        "channels.toml",
        include_str!("../../../scenarios/nic/channels.toml"),
    ),
    (
        "enable_group.toml",
        include_str!("../../../scenarios/nic/enable_group.toml"),
    ),
    (
        "errors.toml",
        include_str!("../../../scenarios/nic/errors.toml"),
    ),
    (
        "lanes.toml",
        include_str!("../../../scenarios/nic/lanes.toml"),
    ),
    ("nop.toml", include_str!("../../../scenarios/nic/nop.toml")),
    (
        "pipe.toml",
        include_str!("../../../scenarios/nic/pipe.toml"),
    ),
    (
        "pipeline.toml",
        include_str!("../../../scenarios/nic/pipeline.toml"),
    ),
    (
        "recv.toml",
        include_str!("../../../scenarios/nic/recv.toml"),
    ),
    (
        "recv_en.toml",
        include_str!("../../../scenarios/nic/recv_en.toml"),
    ),
    (
        "reduce_tree.toml",
        include_str!("../../../scenarios/nic/reduce_tree.toml"),
    ),
    (
        "reliable.toml",
        include_str!("../../../scenarios/nic/reliable.toml"),
    ),
    (
        "repro.toml",
        include_str!("../../../scenarios/nic/repro.toml"),
    ),
    (
        "send.toml",
        include_str!("../../../scenarios/nic/send.toml"),
    ),
    (
        "send_en.toml",
        include_str!("../../../scenarios/nic/send_en.toml"),
    ),
    (
        "shapes.toml",
        include_str!("../../../scenarios/nic/shapes.toml"),
    ),
    (
        "wait_counter.toml",
        include_str!("../../../scenarios/nic/wait_counter.toml"),
    ),
    (
        "wait_cq.toml",
        include_str!("../../../scenarios/nic/wait_cq.toml"),
    ),
    (
        "wait_group.toml",
        include_str!("../../../scenarios/nic/wait_group.toml"),
    ),
];

/// The examples, parsed.
pub fn examples() -> Result<Vec<super::scenario::Scenario>, String> {
    EXAMPLES
        .iter()
        .map(|(name, text)| {
            super::scenario::Scenario::parse(text, &format!("scenarios/nic/{name}"))
                .map_err(|e| e.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_list_is_the_directory() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/nic");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .expect("scenarios/nic")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        on_disk.sort();
        let embedded: Vec<&str> = super::EXAMPLES.iter().map(|(n, _)| *n).collect();
        assert_eq!(embedded, on_disk, "add the new example to EXAMPLES");
        for (n, text) in super::EXAMPLES {
            let file = std::fs::read_to_string(dir.join(n)).expect("readable");
            assert_eq!(*text, file, "{n}: the embedded copy is stale (rebuild)");
        }
    }
}
