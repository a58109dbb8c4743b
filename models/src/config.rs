//! # The parameter file `netcoll.toml`
//!
//! ```toml
//! [switch]
//! radix = 16          # allowed: 4, 8, 16, 32
//! groups = 256        # allowed: 16, 256, 1024, 4096
//! counter_bits = 32   # allowed: 16, 32
//!
//! [nic]
//! qps = 16            # queue pairs; allowed: 4, 16
//! cqs = 16            # completion queues; allowed: 4, 16
//! counters = 32       # allowed: 8, 32
//! dmem_words = 4096   # 64-bit words of data memory; allowed: 1024, 4096
//!
//! [alu]
//! lanes = 4           # lanes of the stand-alone reduction ALU module; allowed: 1, 2, 4
//! ```
//!
//! Every key is optional and defaults to [`EngineParams::default`], [`NicParams::default`] and
//! [`DEFAULT_ALU_LANES`]; an empty file is valid.
//!
//! The file is parsed by hand from a [`toml::Table`] rather than through serde so that every
//! mistake gives one line naming the file, the key, the offending value and what is allowed:
//! the generator is run from scripts and CI, where a one-line error is what people read.
//!
//! ## Configuration hash
//!
//! [`Config::hash`] identifies a parameter set in generated file names and manifests. It is the
//! first 16 hex digits (lower case) of the SHA-256 of the canonical text: one line
//! `table.key=value\n` per parameter, in the fixed order `switch.radix`, `switch.groups`,
//! `switch.counter_bits`, values in decimal, e.g. for the defaults
//!
//! ```text
//! switch.radix=16
//! switch.groups=256
//! switch.counter_bits=32
//! ```
//!
//! whose hash is `914975dda4716ced` (and `fdedd53173638a6e` for [`EngineParams::SMALL`]).
//! The `[nic]` and `[alu]` parameters follow, in the order `nic.qps`, `nic.cqs`,
//! `nic.counters`, `nic.dmem_words`, `alu.lanes`, but only when one of them differs from its
//! default, so the hashes of configurations written before those tables existed are unchanged.
//!
//! This text is part of the interface and must stay stable: it does not depend on how the file
//! was written (key order, comments, omitted defaults), and adding a parameter later must only
//! append lines for it (keeping existing hashes only if the new line is omitted when the
//! parameter has its default).

use crate::alu::LANES_VALUES;
use crate::nic::{NicParams, COUNTERS_VALUES, CQS_VALUES, DMEM_VALUES, QPS_VALUES};
use crate::switch::{EngineParams, COUNTER_BITS_VALUES, GROUP_VALUES, RADIX_VALUES};
use sha2::{Digest, Sha256};
use std::path::Path;
use thiserror::Error;

/// The name used in messages for text that did not come from a file.
pub const DEFAULT_FILE_NAME: &str = "netcoll.toml";

/// Tables the file may contain.
const TABLES: [&str; 3] = ["switch", "nic", "alu"];
/// Keys of the `[nic]` table, in canonical order.
const NIC_KEYS: [&str; 4] = ["qps", "cqs", "counters", "dmem_words"];
/// Lanes of the stand-alone reduction ALU when `[alu] lanes` is not given.
pub const DEFAULT_ALU_LANES: usize = 4;
/// Keys of the `[switch]` table, in canonical order.
const SWITCH_KEYS: [&str; 3] = ["radix", "groups", "counter_bits"];

/// A parsed `netcoll.toml`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// The `[switch]` table.
    pub switch: EngineParams,
    /// The `[nic]` table.
    pub nic: NicParams,
    /// `[alu] lanes`.
    pub alu_lanes: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            switch: EngineParams::default(),
            nic: NicParams::default(),
            alu_lanes: DEFAULT_ALU_LANES,
        }
    }
}

/// An invalid parameter file: which file, and what is wrong with it. Displays as one line,
/// `<file>: <problem>`.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{file}: {kind}")]
pub struct ConfigError {
    /// The path given to [`Config::from_file`], or [`DEFAULT_FILE_NAME`].
    pub file: String,
    pub kind: ConfigErrorKind,
}

/// What is wrong with a parameter file.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ConfigErrorKind {
    #[error("cannot read the file: {0}")]
    Io(String),
    #[error("TOML syntax error{location}: {message}")]
    Syntax {
        /// ` at line L, column C` when the parser reports a position, else empty.
        location: String,
        message: String,
    },
    #[error("unknown table `[{table}]`; allowed: {allowed}")]
    UnknownTable { table: String, allowed: String },
    #[error("unknown key `{key}`; allowed keys in {table}: {allowed}")]
    UnknownKey {
        /// Full dotted name, e.g. `switch.foo`.
        key: String,
        /// `[switch]`, or `the top level`.
        table: String,
        allowed: String,
    },
    #[error("`{key}` = {value} has the wrong type: expected {expected}")]
    WrongType {
        key: String,
        value: String,
        expected: &'static str,
    },
    #[error("`{key}` = {value} is not supported; allowed values: {allowed}")]
    Unsupported {
        key: String,
        value: String,
        allowed: String,
    },
}

/// `[a], [b]`.
fn table_list() -> String {
    TABLES
        .iter()
        .map(|t| format!("[{t}]"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A TOML value as it would be written in the file, on one line (for messages).
fn show(v: &toml::Value) -> String {
    v.to_string().trim().replace('\n', " ")
}

/// 1-based line and column of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

impl Config {
    /// Parses the text of a parameter file; errors name the file [`DEFAULT_FILE_NAME`].
    pub fn from_toml_str(text: &str) -> Result<Config, ConfigError> {
        Self::parse(text, DEFAULT_FILE_NAME)
    }

    /// Reads and parses a parameter file; errors name `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: file.clone(),
            kind: ConfigErrorKind::Io(e.to_string()),
        })?;
        Self::parse(&text, &file)
    }

    fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
        let err = |kind| ConfigError {
            file: file.to_string(),
            kind,
        };
        let top: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let location = match e.span() {
                Some(span) => {
                    let (line, col) = line_col(text, span.start);
                    format!(" at line {line}, column {col}")
                }
                None => String::new(),
            };
            let message = e.message().trim().replace('\n', " ");
            err(ConfigErrorKind::Syntax { location, message })
        })?;

        let mut config = Config::default();
        for (name, value) in &top {
            match (name.as_str(), value) {
                ("switch", toml::Value::Table(t)) => {
                    config.switch = parse_switch(t).map_err(err)?;
                }
                ("nic", toml::Value::Table(t)) => {
                    config.nic = parse_nic(t).map_err(err)?;
                }
                ("alu", toml::Value::Table(t)) => {
                    for (key, value) in t {
                        if key != "lanes" {
                            return Err(err(ConfigErrorKind::UnknownKey {
                                key: format!("alu.{key}"),
                                table: "[alu]".to_string(),
                                allowed: "lanes".to_string(),
                            }));
                        }
                        config.alu_lanes =
                            supported_int("alu.lanes", value, &LANES_VALUES).map_err(err)?;
                    }
                }
                ("switch", v) | ("nic", v) | ("alu", v) => {
                    return Err(err(ConfigErrorKind::WrongType {
                        key: name.clone(),
                        value: show(v),
                        expected: match name.as_str() {
                            "switch" => "a table `[switch]`",
                            "nic" => "a table `[nic]`",
                            _ => "a table `[alu]`",
                        },
                    }))
                }
                (_, toml::Value::Table(_)) => {
                    return Err(err(ConfigErrorKind::UnknownTable {
                        table: name.clone(),
                        allowed: table_list(),
                    }))
                }
                _ => {
                    return Err(err(ConfigErrorKind::UnknownKey {
                        key: name.clone(),
                        table: "the top level".to_string(),
                        allowed: table_list(),
                    }))
                }
            }
        }
        Ok(config)
    }

    /// The canonical text the hash is computed over (see the module docs).
    pub fn canonical_text(&self) -> String {
        let s = &self.switch;
        let mut t = format!(
            "switch.radix={}\nswitch.groups={}\nswitch.counter_bits={}\n",
            s.radix, s.groups, s.counter_bits
        );
        if self.nic != NicParams::default() || self.alu_lanes != DEFAULT_ALU_LANES {
            let n = &self.nic;
            t.push_str(&format!(
                "nic.qps={}\nnic.cqs={}\nnic.counters={}\nnic.dmem_words={}\nalu.lanes={}\n",
                n.qps, n.cqs, n.counters, n.dmem_words, self.alu_lanes
            ));
        }
        t
    }

    /// First 16 lower-case hex digits of the SHA-256 of [`Config::canonical_text`].
    pub fn hash(&self) -> String {
        let digest = Sha256::digest(self.canonical_text().as_bytes());
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }

    /// The configuration as a complete `netcoll.toml` (every key written out), which
    /// [`Config::from_toml_str`] reads back to the same value.
    pub fn to_toml(&self) -> String {
        let s = &self.switch;
        let n = &self.nic;
        format!(
            "[switch]\nradix = {}\ngroups = {}\ncounter_bits = {}\n\n[nic]\nqps = {}\ncqs = {}\ncounters = {}\ndmem_words = {}\n\n[alu]\nlanes = {}\n",
            s.radix, s.groups, s.counter_bits, n.qps, n.cqs, n.counters, n.dmem_words, self.alu_lanes
        )
    }
}

/// Parses the `[nic]` table.
pub fn parse_nic(t: &toml::Table) -> Result<NicParams, ConfigErrorKind> {
    let mut p = NicParams::default();
    for (key, value) in t {
        let allowed: &[usize] = match key.as_str() {
            "qps" => &QPS_VALUES,
            "cqs" => &CQS_VALUES,
            "counters" => &COUNTERS_VALUES,
            "dmem_words" => &DMEM_VALUES,
            _ => {
                return Err(ConfigErrorKind::UnknownKey {
                    key: format!("nic.{key}"),
                    table: "[nic]".to_string(),
                    allowed: NIC_KEYS.join(", "),
                })
            }
        };
        let v = supported_int(&format!("nic.{key}"), value, allowed)?;
        match key.as_str() {
            "qps" => p.qps = v,
            "cqs" => p.cqs = v,
            "counters" => p.counters = v,
            _ => p.dmem_words = v,
        }
    }
    Ok(p)
}

/// Parses the `[switch]` table.
fn parse_switch(t: &toml::Table) -> Result<EngineParams, ConfigErrorKind> {
    let mut p = EngineParams::default();
    for (key, value) in t {
        let allowed: &[usize] = match key.as_str() {
            "radix" => &RADIX_VALUES,
            "groups" => &GROUP_VALUES,
            "counter_bits" => &COUNTER_BITS_VALUES,
            _ => {
                return Err(ConfigErrorKind::UnknownKey {
                    key: format!("switch.{key}"),
                    table: "[switch]".to_string(),
                    allowed: SWITCH_KEYS.join(", "),
                })
            }
        };
        let v = supported_int(&format!("switch.{key}"), value, allowed)?;
        match key.as_str() {
            "radix" => p.radix = v,
            "groups" => p.groups = v,
            _ => p.counter_bits = v,
        }
    }
    Ok(p)
}

/// `value` as an integer from `allowed`, or the error naming `key`.
fn supported_int(
    key: &str,
    value: &toml::Value,
    allowed: &[usize],
) -> Result<usize, ConfigErrorKind> {
    let toml::Value::Integer(i) = value else {
        return Err(ConfigErrorKind::WrongType {
            key: key.to_string(),
            value: show(value),
            expected: "an integer",
        });
    };
    match usize::try_from(*i) {
        Ok(v) if allowed.contains(&v) => Ok(v),
        _ => Err(ConfigErrorKind::Unsupported {
            key: key.to_string(),
            value: i.to_string(),
            allowed: allowed
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(text: &str) -> String {
        let e = Config::from_toml_str(text).expect_err("should fail");
        let m = e.to_string();
        assert!(!m.contains('\n'), "multi-line message: {m}");
        assert!(m.starts_with("netcoll.toml: "), "{m}");
        m
    }

    #[test]
    fn empty_file_is_default() {
        assert_eq!(Config::from_toml_str(""), Ok(Config::default()));
        assert_eq!(
            Config::from_toml_str("# nothing\n[switch]\n"),
            Ok(Config::default())
        );
        assert_eq!(Config::default().switch, EngineParams::default());
    }

    #[test]
    fn full_file() {
        let c =
            Config::from_toml_str("[switch]\nradix = 4 # ports\ngroups = 16\ncounter_bits = 16\n")
                .expect("valid");
        assert_eq!(c.switch, EngineParams::SMALL);
        let c = Config::from_toml_str("[switch]\ngroups = 4096\n").expect("valid");
        assert_eq!(
            c.switch,
            EngineParams {
                groups: 4096,
                ..EngineParams::default()
            }
        );
        // dotted keys are the same thing in TOML
        let c = Config::from_toml_str("switch.radix = 32\n").expect("valid");
        assert_eq!(c.switch.radix, 32);
    }

    #[test]
    fn every_supported_combination_roundtrips() {
        let mut hashes = std::collections::HashSet::new();
        for radix in RADIX_VALUES {
            for groups in GROUP_VALUES {
                for counter_bits in COUNTER_BITS_VALUES {
                    let c = Config {
                        switch: EngineParams {
                            radix,
                            groups,
                            counter_bits,
                        },
                        ..Default::default()
                    };
                    assert_eq!(Config::from_toml_str(&c.to_toml()), Ok(c));
                    assert!(hashes.insert(c.hash()));
                }
            }
        }
    }

    #[test]
    fn unknown_key() {
        assert_eq!(
            msg("[switch]\nfoo = 1\n"),
            "netcoll.toml: unknown key `switch.foo`; allowed keys in [switch]: radix, groups, counter_bits"
        );
        assert_eq!(
            msg("radix = 16\n"),
            "netcoll.toml: unknown key `radix`; allowed keys in the top level: [switch], [nic], [alu]"
        );
    }

    #[test]
    fn unknown_table() {
        assert_eq!(
            msg("[nic2]\nx = 1\n"),
            "netcoll.toml: unknown table `[nic2]`; allowed: [switch], [nic], [alu]"
        );
    }

    #[test]
    fn wrong_type() {
        assert_eq!(
            msg("[switch]\nradix = \"16\"\n"),
            "netcoll.toml: `switch.radix` = \"16\" has the wrong type: expected an integer"
        );
        let m = msg("[switch]\ngroups = 256.0\n");
        assert!(
            m.contains("`switch.groups` = 256.0") && m.contains("expected an integer"),
            "{m}"
        );
        let m = msg("[switch]\ncounter_bits = [16, 32]\n");
        assert!(m.contains("`switch.counter_bits` = [16, 32]"), "{m}");
        let m = msg("switch = 3\n");
        assert!(
            m.contains("`switch` = 3 has the wrong type: expected a table"),
            "{m}"
        );
    }

    #[test]
    fn unsupported_value() {
        assert_eq!(
            msg("[switch]\nradix = 0\n"),
            "netcoll.toml: `switch.radix` = 0 is not supported; allowed values: 4, 8, 16, 32"
        );
        assert_eq!(
            msg("[switch]\ngroups = -256\n"),
            "netcoll.toml: `switch.groups` = -256 is not supported; allowed values: 16, 256, 1024, 4096"
        );
        assert_eq!(
            msg("[switch]\ncounter_bits = 64\n"),
            "netcoll.toml: `switch.counter_bits` = 64 is not supported; allowed values: 16, 32"
        );
    }

    #[test]
    fn syntax_error() {
        let m = msg("[switch]\nradix = = 4\n");
        assert!(
            m.starts_with("netcoll.toml: TOML syntax error at line 2, column "),
            "{m}"
        );
        let m = msg("[switch]\nradix = 4\nradix = 8\n");
        assert!(m.contains("TOML syntax error at line 3"), "{m}");
        assert!(m.to_lowercase().contains("duplicate"), "{m}");
    }

    #[test]
    fn from_file_names_the_path() {
        let dir = std::env::temp_dir().join(format!("netcoll-config-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("my.toml");
        std::fs::write(&path, "[switch]\nradix = 5\n").expect("write");
        let e = Config::from_file(&path).expect_err("radix 5");
        assert_eq!(e.file, path.display().to_string());
        assert!(e
            .to_string()
            .starts_with(&format!("{}: `switch.radix` = 5", path.display())));
        std::fs::write(&path, "[switch]\nradix = 8\n").expect("write");
        assert_eq!(Config::from_file(&path).map(|c| c.switch.radix), Ok(8));
        let missing = dir.join("missing.toml");
        let e = Config::from_file(&missing).expect_err("missing");
        assert!(matches!(e.kind, ConfigErrorKind::Io(_)));
        assert!(e
            .to_string()
            .starts_with(&format!("{}: cannot read the file", missing.display())));
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn hash_is_stable() {
        let c = Config::default();
        assert_eq!(
            c.canonical_text(),
            "switch.radix=16\nswitch.groups=256\nswitch.counter_bits=32\n"
        );
        // Key order, comments and omitted defaults do not matter.
        let reordered =
            Config::from_toml_str("[switch]\ncounter_bits = 32 # c\nradix = 16\n").expect("valid");
        assert_eq!(reordered.hash(), c.hash());
        assert_eq!(c.hash().len(), 16);
        assert!(c
            .hash()
            .chars()
            .all(|ch| ch.is_ascii_hexdigit() && !ch.is_ascii_uppercase()));
        // Pinned (computed with `printf '...' | sha256sum`): changing these breaks every
        // generated file name and manifest.
        assert_eq!(c.hash(), "914975dda4716ced");
        assert_eq!(
            Config {
                switch: EngineParams::SMALL,
                ..Default::default()
            }
            .hash(),
            "fdedd53173638a6e"
        );
        // With non-default [nic] / [alu] the five lines are appended (pinned the same way).
        assert_eq!(
            Config {
                nic: NicParams::SMALL,
                ..Default::default()
            }
            .canonical_text(),
            "switch.radix=16\nswitch.groups=256\nswitch.counter_bits=32\n\
             nic.qps=4\nnic.cqs=4\nnic.counters=8\nnic.dmem_words=1024\nalu.lanes=4\n"
        );
        assert_eq!(
            Config {
                nic: NicParams::SMALL,
                ..Default::default()
            }
            .hash(),
            "02576e18a2fe8482"
        );
    }

    #[test]
    fn nic_and_alu_tables() {
        let c = Config::from_toml_str(
            "[nic]\nqps = 4\ncqs = 4\ncounters = 8\ndmem_words = 1024\n[alu]\nlanes = 1\n",
        )
        .expect("valid");
        assert_eq!(c.nic, NicParams::SMALL);
        assert_eq!(c.alu_lanes, 1);
        for nic in NicParams::all_supported() {
            for alu_lanes in LANES_VALUES {
                let c = Config {
                    nic,
                    alu_lanes,
                    ..Default::default()
                };
                assert_eq!(Config::from_toml_str(&c.to_toml()), Ok(c));
            }
        }
        assert_eq!(
            msg("[nic]\nqps = 8\n"),
            "netcoll.toml: `nic.qps` = 8 is not supported; allowed values: 4, 16"
        );
        assert_eq!(
            msg("[alu]\nlanes = 3\n"),
            "netcoll.toml: `alu.lanes` = 3 is not supported; allowed values: 1, 2, 4"
        );
        assert_eq!(
            msg("[nic]\nwq_depth = 8\n"),
            "netcoll.toml: unknown key `nic.wq_depth`; allowed keys in [nic]: qps, cqs, counters, dmem_words"
        );
        assert_eq!(
            msg("nic = 3\n"),
            "netcoll.toml: `nic` = 3 has the wrong type: expected a table `[nic]`"
        );
    }
}
