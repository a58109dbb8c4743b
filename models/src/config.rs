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
//! fp = 1              # the floating-point types built in; allowed: 0, 1
//! fp_types = ["f16", "bf16", "f32"]  # which of them (with fp = 1); default all four
//! ```
//!
//! Every key is optional and defaults to the value its block's parameter table declares
//! ([`crate::kit::params`]); an empty file is valid. Each table belongs to one block:
//! `[switch]` to `switch_engine`, `[nic]` to `nic`, `[alu]` to `reduce_alu`.
//!
//! The file is parsed by hand from a [`toml::Table`] rather than through serde so that every
//! mistake gives one line naming the file, the line, the key, the offending value and what is
//! allowed: the generator is run from scripts and CI, where a one-line error is what people
//! read. Names and values echoed from the file are escaped and cut
//! ([`crate::kit::toml_text`]).
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
//! whose hash is `914975dda4716ced` (and `fdedd53173638a6e` for [`SwitchEngineParams::SMALL`]).
//! The `[nic]` and `[alu]` parameters follow, in the order `nic.qps`, `nic.cqs`,
//! `nic.counters`, `nic.dmem_words`, `alu.lanes`, but only when one of them differs from its
//! default, so the hashes of configurations written before those tables existed are unchanged.
//!
//! Keys added to a table after its lines were fixed (today `switch.retry_timer`,
//! `switch.epoch_cycles`, `switch.max_plen`, `switch.lanes`, `switch.slots`, `switch.fp`,
//! `alu.fp`, `nic.fp`, `switch.fp_types`, `alu.fp_types`, `nic.fp_types` and `nic.lanes`,
//! [`LATE_KEYS`])
//! are left out of their table's lines and appended at the end, in that order, only when they
//! differ from their defaults: the hash of every configuration that leaves them at their
//! defaults is unchanged. A set of names (`fp_types`) appears there as its bit mask in decimal
//! (bit `i` for the `i`-th name the key allows: `fp_types = ["f16", "f32"]` is `5`).
//!
//! This text is part of the interface and must stay stable: it does not depend on how the file
//! was written (key order, comments, omitted defaults), and adding a parameter later must only
//! append lines for it (keeping existing hashes only if the new line is omitted when the
//! parameter has its default).

use crate::kit::params::ParamTable;
use crate::kit::toml_text::{escaped, key_near, line_col, line_of, shown, Seg};
use crate::nic::NicParams;
use crate::reduce_alu::ReduceAluParams;
use crate::switch_engine::SwitchEngineParams;
use sha2::{Digest, Sha256};
use std::path::Path;
use thiserror::Error;

/// The name used in messages for text that did not come from a file.
pub const DEFAULT_FILE_NAME: &str = "netcoll.toml";

/// A parsed `netcoll.toml`: one parameter table per block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Config {
    /// The `[switch]` table (block `switch_engine`).
    pub switch: SwitchEngineParams,
    /// The `[nic]` table (block `nic`).
    pub nic: NicParams,
    /// The `[alu]` table (block `reduce_alu`).
    pub alu: ReduceAluParams,
}

/// The configuration-hash group of each table, in file order: a group's lines are part of the
/// canonical text when the group is 0 or any of its tables differs from its defaults (see the
/// module docs). A table added later gets a new group, so existing hashes do not change.
const HASH_GROUPS: [usize; 3] = [0, 1, 1];

/// Keys added to a table after its hash lines were fixed, `table.key` in the order they are
/// appended (see the module docs).
pub const LATE_KEYS: [&str; 12] = [
    "switch.retry_timer",
    "switch.epoch_cycles",
    "switch.max_plen",
    "switch.lanes",
    "switch.slots",
    "switch.fp",
    "alu.fp",
    "nic.fp",
    "switch.fp_types",
    "alu.fp_types",
    "nic.fp_types",
    "nic.lanes",
];

impl Config {
    /// Every table, in canonical order.
    pub fn tables(&self) -> [&dyn ParamTable; 3] {
        [&self.switch, &self.nic, &self.alu]
    }

    fn tables_mut(&mut self) -> [&mut dyn ParamTable; 3] {
        [&mut self.switch, &mut self.nic, &mut self.alu]
    }
}

/// An invalid parameter file: which file, and what is wrong with it. Displays as one line,
/// `<file>: <problem>` or `<file>: line <n>: <problem>`.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{file}: {}{kind}", line.map_or(String::new(), |l| format!("line {l}: ")))]
pub struct ConfigError {
    /// The path given to [`Config::from_file`], or [`DEFAULT_FILE_NAME`].
    pub file: String,
    /// The line of the offending key, when it is known (not for syntax errors, which carry
    /// their own position).
    pub line: Option<usize>,
    pub kind: ConfigErrorKind,
}

/// What is wrong with a parameter file.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ConfigErrorKind {
    #[error("cannot read the file: {0}")]
    Io(String),
    #[error("TOML syntax error{location}: {message}")]
    Syntax {
        /// ` at line L, column C` (and ` in `key``) when known, else empty.
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
        expected: String,
    },
    #[error("`{key}` = {value} is not supported; allowed values: {allowed}")]
    Unsupported {
        key: String,
        value: String,
        allowed: String,
    },
    /// A value allowed on its own that the table's other values rule out.
    #[error("`{key}` = {value} does not fit the other keys: must be {allowed}")]
    Inconsistent {
        key: String,
        value: String,
        allowed: String,
    },
}

/// `[a], [b]`.
fn table_list(cfg: &Config) -> String {
    cfg.tables()
        .iter()
        .map(|t| format!("[{}]", t.table()))
        .collect::<Vec<_>>()
        .join(", ")
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
            line: None,
            kind: ConfigErrorKind::Io(e.to_string()),
        })?;
        Self::parse(&text, &file)
    }

    /// Parses parameter-file text; errors name `file`.
    pub fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
        let err = |path: &[Seg], kind| ConfigError {
            file: file.to_string(),
            line: line_of(text, path),
            kind,
        };
        let top: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let location = match e.span() {
                Some(span) => {
                    let (line, col) = line_col(text, span.start);
                    let key = key_near(text, span.start)
                        .map_or(String::new(), |k| format!(" in `{}`", escaped(&k)));
                    format!(" at line {line}, column {col}{key}")
                }
                None => String::new(),
            };
            let message = e.message().trim().replace('\n', " ");
            ConfigError {
                file: file.to_string(),
                line: None,
                kind: ConfigErrorKind::Syntax { location, message },
            }
        })?;

        let mut config = Config::default();
        let tables = table_list(&config);
        for (name, value) in &top {
            let Some(t) = config.tables_mut().into_iter().find(|t| t.table() == name) else {
                let kind = if value.is_table() {
                    ConfigErrorKind::UnknownTable {
                        table: escaped(name),
                        allowed: tables.clone(),
                    }
                } else {
                    ConfigErrorKind::UnknownKey {
                        key: escaped(name),
                        table: "the top level".to_string(),
                        allowed: tables.clone(),
                    }
                };
                return Err(err(&[Seg::Key(name)], kind));
            };
            let toml::Value::Table(entries) = value else {
                let kind = ConfigErrorKind::WrongType {
                    key: name.clone(),
                    value: shown(value),
                    expected: format!("a table `[{name}]`"),
                };
                return Err(err(&[Seg::Key(name)], kind));
            };
            parse_table(t, entries)
                .map_err(|(key, kind)| err(&[Seg::Key(name), Seg::Key(&key)], kind))?;
        }
        // A table's set of floating-point types means something only with them built in.
        for t in config.tables() {
            if let Some(kind) = fp_types_check(t) {
                return Err(err(&[Seg::Key(t.table()), Seg::Key("fp_types")], kind));
            }
        }
        if let Some((key, value, allowed)) = config.switch.cross_check() {
            let kind = ConfigErrorKind::Inconsistent {
                key: format!("switch.{key}"),
                value: value.to_string(),
                allowed,
            };
            return Err(err(&[Seg::Key("switch"), Seg::Key(key)], kind));
        }
        Ok(config)
    }

    /// The canonical text the hash is computed over (see the module docs).
    pub fn canonical_text(&self) -> String {
        let tables = self.tables();
        let mut t = String::new();
        let groups = HASH_GROUPS.iter().max().copied().unwrap_or(0);
        for g in 0..=groups {
            let members: Vec<&&dyn ParamTable> = tables
                .iter()
                .zip(HASH_GROUPS)
                .filter(|(_, hg)| *hg == g)
                .map(|(t, _)| t)
                .collect();
            if g != 0 && members.iter().all(|t| t.is_default()) {
                continue;
            }
            for table in members {
                for k in table.keys() {
                    let line = format!("{}.{}", table.table(), k.name);
                    if LATE_KEYS.contains(&line.as_str()) {
                        continue;
                    }
                    let v = table.get(k.name).unwrap_or(0);
                    t.push_str(&format!("{line}={v}\n"));
                }
            }
        }
        for late in LATE_KEYS {
            for table in &tables {
                for k in table.keys() {
                    let v = table.get(k.name).unwrap_or(0);
                    if format!("{}.{}", table.table(), k.name) == late && v != k.default {
                        t.push_str(&format!("{late}={v}\n"));
                    }
                }
            }
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
        let mut out = String::new();
        for (i, table) in self.tables().iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&format!("[{}]\n", table.table()));
            for k in table.keys() {
                let v = table.get(k.name).unwrap_or(0);
                let shown = if k.names.is_empty() {
                    v.to_string()
                } else {
                    let names: Vec<String> =
                        k.members(v).iter().map(|n| format!("\"{n}\"")).collect();
                    format!("[{}]", names.join(", "))
                };
                out.push_str(&format!("{} = {shown}\n", k.name));
            }
        }
        out
    }

    /// Every parameter, `table.key=value` separated by spaces (file headers, reports); the
    /// [`LATE_KEYS`] only when not at their defaults.
    pub fn describe(&self) -> String {
        self.tables()
            .iter()
            .flat_map(|t| {
                t.keys()
                    .iter()
                    .filter(|k| !t.late_default(k))
                    .map(move |k| {
                        let v = k.show(t.get(k.name).unwrap_or(0));
                        format!("{}.{}={v}", t.table(), k.name)
                    })
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Applies the entries of one table; an error names the key.
fn parse_table(
    t: &mut dyn ParamTable,
    entries: &toml::Table,
) -> Result<(), (String, ConfigErrorKind)> {
    let keys = t.keys();
    for (key, value) in entries {
        let full = format!("{}.{}", t.table(), escaped(key));
        let Some(k) = keys.iter().find(|k| k.name == key) else {
            return Err((
                key.clone(),
                ConfigErrorKind::UnknownKey {
                    key: full,
                    table: format!("[{}]", t.table()),
                    allowed: keys.iter().map(|k| k.name).collect::<Vec<_>>().join(", "),
                },
            ));
        };
        let v = param_value(&full, value, k).map_err(|e| (key.clone(), e))?;
        t.set(k.name, v);
    }
    Ok(())
}

/// `value` as a value of the parameter `k` (an integer it allows, or for a set key the bit
/// mask of the names), or the error naming `full`, the key as the user wrote it with its
/// table (`alu.fp_types`). Every reader of parameter tables (this file, scenarios) uses it.
pub fn param_value(
    full: &str,
    value: &toml::Value,
    k: &crate::kit::params::ParamKey,
) -> Result<usize, ConfigErrorKind> {
    if k.names.is_empty() {
        supported_int(full, value, k.allowed)
    } else {
        supported_set(full, value, k.names)
    }
}

/// The cross-key rule every table with floating-point types has: `fp_types` other than its
/// default only with `fp = 1`. The error, if `t` breaks it.
pub fn fp_types_check(t: &dyn ParamTable) -> Option<ConfigErrorKind> {
    let (fp, types) = (t.get("fp")?, t.get("fp_types")?);
    let k = t.keys().iter().find(|k| k.name == "fp_types")?;
    (fp == 0 && types != k.default).then(|| ConfigErrorKind::Inconsistent {
        key: format!("{}.fp_types", t.table()),
        value: k.show(types),
        allowed: format!("left out unless `{}.fp` = 1", t.table()),
    })
}

/// `value` as the bit mask of a set key ([`crate::kit::params::ParamKey::names`]): a non-empty
/// array of distinct names from `names`, or the error naming `key`.
fn supported_set(key: &str, value: &toml::Value, names: &[&str]) -> Result<usize, ConfigErrorKind> {
    let allowed = || {
        format!(
            "a non-empty array of distinct names from {}",
            names
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let toml::Value::Array(items) = value else {
        return Err(ConfigErrorKind::WrongType {
            key: key.to_string(),
            value: shown(value),
            expected: allowed(),
        });
    };
    let mut mask = 0;
    for item in items {
        let bit = item
            .as_str()
            .and_then(|s| names.iter().position(|n| *n == s))
            .map(|i| 1usize << i);
        match bit {
            Some(b) if mask & b == 0 => mask |= b,
            _ => {
                return Err(ConfigErrorKind::Unsupported {
                    key: key.to_string(),
                    value: shown(value),
                    allowed: allowed(),
                })
            }
        }
    }
    if mask == 0 {
        return Err(ConfigErrorKind::Unsupported {
            key: key.to_string(),
            value: shown(value),
            allowed: allowed(),
        });
    }
    Ok(mask)
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
            value: shown(value),
            expected: "an integer".to_string(),
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
    fn fp_types_is_a_set_of_type_names() {
        let c =
            Config::from_toml_str("[alu]\nfp = 1\nfp_types = [\"f32\", \"f16\"]\n").expect("valid");
        // Bit i for the i-th allowed name (f16, bf16, f32, f64), whatever the order written.
        assert_eq!((c.alu.fp, c.alu.fp_types), (1, 0b0101));
        assert_eq!(c.alu.fp_mask(), 0b0101);
        // Written back as names, read back to the same value.
        let text = c.to_toml();
        assert!(text.contains("fp_types = [\"f16\", \"f32\"]\n"), "{text}");
        assert_eq!(Config::from_toml_str(&text), Ok(c));
        // The hash appends the mask in decimal, after the older late keys.
        assert!(c.canonical_text().ends_with("alu.fp=1\nalu.fp_types=5\n"));
        assert!(
            c.describe().ends_with("alu.fp=1 alu.fp_types=f16+f32"),
            "{}",
            c.describe()
        );
        // All four is the default: no line, the hash of `fp = 1` alone.
        let all = Config::from_toml_str(
            "[alu]\nfp = 1\nfp_types = [\"f16\", \"bf16\", \"f32\", \"f64\"]\n",
        );
        let fp = Config::from_toml_str("[alu]\nfp = 1\n");
        assert_eq!(all.map(|c| c.hash()), fp.map(|c| c.hash()));
        // Every table has the key.
        let c = Config::from_toml_str(
            "[nic]\nfp = 1\nfp_types = [\"bf16\"]\n[switch]\nmax_plen = 8\nfp = 1\nfp_types = [\"f64\"]\n",
        )
        .expect("valid");
        assert_eq!(
            (c.nic.alu().fp_mask(), c.switch.alu().fp_mask()),
            (0b0010, 0b1000)
        );
    }

    #[test]
    fn bad_fp_types_are_refused_naming_the_key_the_value_and_what_is_allowed() {
        let allowed =
            "a non-empty array of distinct names from \"f16\", \"bf16\", \"f32\", \"f64\"";
        for (text, value) in [
            ("[alu]\nfp = 1\nfp_types = [\"f8\"]\n", "[\"f8\"]"),
            ("[alu]\nfp = 1\nfp_types = []\n", "[]"),
            (
                "[alu]\nfp = 1\nfp_types = [\"f16\", \"f16\"]\n",
                "[\"f16\", \"f16\"]",
            ),
            ("[alu]\nfp = 1\nfp_types = [16]\n", "[16]"),
        ] {
            let m = msg(text);
            assert!(
                m.contains("line 3")
                    && m.contains(&format!("`alu.fp_types` = {value}"))
                    && m.contains(allowed),
                "{m}"
            );
        }
        let m = msg("[alu]\nfp = 1\nfp_types = 7\n");
        assert!(
            m.contains("`alu.fp_types` = 7 has the wrong type") && m.contains(allowed),
            "{m}"
        );
        // Without the floating-point types a set of them means nothing: refused.
        let m = msg("[nic]\nfp_types = [\"f32\"]\n");
        assert!(
            m.contains("line 2")
                && m.contains("`nic.fp_types` = f32")
                && m.contains("`nic.fp` = 1"),
            "{m}"
        );
    }

    #[test]
    fn slots_beyond_the_groups_are_refused_naming_the_key() {
        let m = msg("[switch]\ngroups = 16\nslots = 64\n");
        assert!(
            m.contains("line 3")
                && m.contains("`switch.slots` = 64")
                && m.contains("at most `groups` (16)"),
            "{m}"
        );
        let c = Config::from_toml_str("[switch]\ngroups = 16\nslots = 16\nmax_plen = 32\n");
        assert_eq!(c.map(|c| (c.switch.slots, c.switch.max_plen)), Ok((16, 32)));
        // Long payloads fit a group's state word only with 16 ports or fewer.
        let m = msg("[switch]\nradix = 32\nmax_plen = 128\n");
        assert!(
            m.contains("line 3") && m.contains("`switch.max_plen` = 128") && m.contains("radix"),
            "{m}"
        );
        let c = Config::from_toml_str("[switch]\nradix = 16\nmax_plen = 128\n");
        assert_eq!(c.map(|c| c.switch.max_plen), Ok(128));
    }

    #[test]
    fn empty_file_is_default() {
        assert_eq!(Config::from_toml_str(""), Ok(Config::default()));
        assert_eq!(
            Config::from_toml_str("# nothing\n[switch]\n"),
            Ok(Config::default())
        );
        assert_eq!(Config::default().switch, SwitchEngineParams::default());
    }

    #[test]
    fn full_file() {
        let c =
            Config::from_toml_str("[switch]\nradix = 4 # ports\ngroups = 16\ncounter_bits = 16\n")
                .expect("valid");
        assert_eq!(c.switch, SwitchEngineParams::SMALL);
        let c = Config::from_toml_str("[switch]\ngroups = 4096\n").expect("valid");
        assert_eq!(
            c.switch,
            SwitchEngineParams {
                groups: 4096,
                ..SwitchEngineParams::default()
            }
        );
        // dotted keys are the same thing in TOML
        let c = Config::from_toml_str("switch.radix = 32\n").expect("valid");
        assert_eq!(c.switch.radix, 32);
    }

    #[test]
    fn every_supported_combination_roundtrips() {
        let mut hashes = std::collections::HashSet::new();
        for radix in SwitchEngineParams::KEYS[0].allowed.iter().copied() {
            for groups in SwitchEngineParams::KEYS[1].allowed.iter().copied() {
                for counter_bits in SwitchEngineParams::KEYS[2].allowed.iter().copied() {
                    let c = Config {
                        switch: SwitchEngineParams::sized(radix, groups, counter_bits),
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
            "netcoll.toml: line 2: unknown key `switch.foo`; allowed keys in [switch]: radix, groups, counter_bits, retry_timer, epoch_cycles, max_plen, lanes, slots, fp, fp_types"
        );
        assert_eq!(
            msg("radix = 16\n"),
            "netcoll.toml: line 1: unknown key `radix`; allowed keys in the top level: [switch], [nic], [alu]"
        );
    }

    #[test]
    fn unknown_table() {
        assert_eq!(
            msg("[nic2]\nx = 1\n"),
            "netcoll.toml: line 1: unknown table `[nic2]`; allowed: [switch], [nic], [alu]"
        );
    }

    #[test]
    fn wrong_type() {
        assert_eq!(
            msg("[switch]\nradix = \"16\"\n"),
            "netcoll.toml: line 2: `switch.radix` = \"16\" has the wrong type: expected an integer"
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
            "netcoll.toml: line 2: `switch.radix` = 0 is not supported; allowed values: 4, 8, 16, 32"
        );
        assert_eq!(
            msg("[switch]\ngroups = -256\n"),
            "netcoll.toml: line 2: `switch.groups` = -256 is not supported; allowed values: 16, 256, 1024, 4096"
        );
        assert_eq!(
            msg("[switch]\ncounter_bits = 64\n"),
            "netcoll.toml: line 2: `switch.counter_bits` = 64 is not supported; allowed values: 16, 32"
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
            .starts_with(&format!("{}: line 2: `switch.radix` = 5", path.display())));
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
                switch: SwitchEngineParams::SMALL,
                ..Default::default()
            }
            .hash(),
            "fdedd53173638a6e"
        );
        // The retry keys, at their defaults, are not in the text; otherwise appended.
        let timer = Config {
            switch: SwitchEngineParams {
                retry_timer: 1,
                epoch_cycles: 256,
                ..SwitchEngineParams::default()
            },
            ..Default::default()
        };
        assert_eq!(
            timer.canonical_text(),
            "switch.radix=16\nswitch.groups=256\nswitch.counter_bits=32\n\
             switch.retry_timer=1\nswitch.epoch_cycles=256\n"
        );
        assert_ne!(timer.hash(), c.hash());
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
        assert_eq!(c.alu.lanes, 1);
        for nic in NicParams::all_supported() {
            for lanes in ReduceAluParams::KEYS[0].allowed.iter().copied() {
                let c = Config {
                    nic,
                    alu: ReduceAluParams {
                        lanes,
                        fp: 0,
                        ..Default::default()
                    },
                    ..Default::default()
                };
                assert_eq!(Config::from_toml_str(&c.to_toml()), Ok(c));
            }
        }
        assert_eq!(
            msg("[nic]\nqps = 8\n"),
            "netcoll.toml: line 2: `nic.qps` = 8 is not supported; allowed values: 4, 16"
        );
        assert_eq!(
            msg("[alu]\nlanes = 3\n"),
            "netcoll.toml: line 2: `alu.lanes` = 3 is not supported; allowed values: 1, 2, 4"
        );
        assert_eq!(
            msg("[nic]\nwq_depth = 8\n"),
            "netcoll.toml: line 2: unknown key `nic.wq_depth`; allowed keys in [nic]: qps, cqs, counters, dmem_words, fp, fp_types, lanes"
        );
        assert_eq!(
            msg("nic = 3\n"),
            "netcoll.toml: line 1: `nic` = 3 has the wrong type: expected a table `[nic]`"
        );
    }

    #[test]
    fn echoed_names_are_escaped_and_big_integers_name_their_key() {
        let m = msg("[switch]\n\"ra\\u001b[31mdix\\n\" = 4\n");
        assert!(m.contains("`switch.ra\\u{1b}[31mdix\\n`"), "{m}");
        assert!(!m.contains('\u{1b}'), "{m}");
        let m = msg("[switch]\nradix = 123456789012345678901234567890\n");
        assert!(m.contains("line 2") && m.contains("`switch.radix`"), "{m}");
        let long = "k".repeat(200);
        let m = msg(&format!("[switch]\n{long} = 1\n"));
        // The name is cut (at 60 characters); the rest is the list of allowed keys.
        assert!(m.contains(&format!("{}…`", "k".repeat(60))), "{m}");
        assert!(!m.contains(&"k".repeat(61)), "{m}");
    }

    #[test]
    fn describe_and_tables() {
        let c = Config::default();
        assert_eq!(
            c.describe(),
            "switch.radix=16 switch.groups=256 switch.counter_bits=32 nic.qps=16 nic.cqs=16 \
             nic.counters=32 nic.dmem_words=4096 alu.lanes=4"
        );
        assert_eq!(c.tables().map(|t| t.table()), ["switch", "nic", "alu"]);
    }
}
