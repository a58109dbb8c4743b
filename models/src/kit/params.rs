//! # Parameter tables
//!
//! A block's parameters are one table of `netcoll.toml` (`[switch]`, `[nic]`, `[alu]`),
//! declared once with [`param_table!`](crate::param_table): the struct, its defaults, the
//! allowed values of every key, their docs, and the order in which the configuration hash
//! lists them ([`crate::config`]). Parsing, validation, error messages, the canonical text and
//! `netcoll.toml` printing are written once, in [`crate::config`], over [`ParamTable`].

use std::fmt::Debug;

/// One key of a parameter table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamKey {
    /// The key in the TOML table.
    pub name: &'static str,
    /// Every supported value, in increasing order (the RTL is monomorphised for each).
    pub allowed: &'static [usize],
    /// The value when the key is absent.
    pub default: usize,
    /// One line: what the parameter is.
    pub doc: &'static str,
    /// Empty for a number. Otherwise the key is a set of these names: written in the file as
    /// an array of them (`["f16", "bf16"]`), held as a bit mask (bit `i` for `names[i]`).
    pub names: &'static [&'static str],
}

impl ParamKey {
    /// `4, 8, 16, 32`.
    pub fn allowed_list(&self) -> String {
        self.allowed
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `value` as a user reads it: the number, or for a set the names of its members joined
    /// by `+` (`f16+bf16+f32`).
    pub fn show(&self, value: usize) -> String {
        if self.names.is_empty() {
            return value.to_string();
        }
        self.members(value).join("+")
    }

    /// The names of a set's members, in the order of [`ParamKey::names`].
    pub fn members(&self, value: usize) -> Vec<&'static str> {
        self.names
            .iter()
            .enumerate()
            .filter(|(i, _)| value >> i & 1 == 1)
            .map(|(_, n)| *n)
            .collect()
    }
}

/// A block's parameters as a table of `netcoll.toml` (object safe, so a configuration can be
/// handled table by table).
pub trait ParamTable: Debug {
    /// The TOML table name, e.g. `switch`.
    fn table(&self) -> &'static str;
    /// The keys in canonical order (the order of the configuration hash and of `to_toml`).
    fn keys(&self) -> &'static [ParamKey];
    /// The value of `key` (one of [`ParamTable::keys`]).
    fn get(&self, key: &str) -> Option<usize>;
    /// Sets `key` (one of [`ParamTable::keys`]) to `value` (one of its allowed values).
    fn set(&mut self, key: &str, value: usize) -> bool;
    /// Whether every key has its default value.
    fn is_default(&self) -> bool {
        self.keys()
            .iter()
            .all(|k| self.get(k.name) == Some(k.default))
    }
    /// Whether every key has one of its allowed values (the RTL exists only for those).
    fn is_supported(&self) -> bool {
        self.keys()
            .iter()
            .all(|k| self.get(k.name).is_some_and(|v| k.allowed.contains(&v)))
    }
    /// `key=value` pairs in canonical order, for messages and file headers; a key added
    /// late ([`crate::config::LATE_KEYS`]) only when it is not at its default, as in the
    /// configuration hash.
    fn describe(&self) -> String {
        self.keys()
            .iter()
            .filter(|k| !self.late_default(k))
            .map(|k| format!("{}={}", k.name, k.show(self.get(k.name).unwrap_or(0))))
            .collect::<Vec<_>>()
            .join(" ")
    }
    /// `k` is a late key at its default value.
    fn late_default(&self, k: &ParamKey) -> bool {
        let name = format!("{}.{}", self.table(), k.name);
        crate::config::LATE_KEYS.contains(&name.as_str()) && self.get(k.name) == Some(k.default)
    }
}

/// Declares a block's parameter table: the struct (public `usize` fields in canonical order,
/// documented), its `Default`, and its [`ParamTable`] implementation. A key followed by
/// `names [..]` is a set of those names ([`ParamKey::names`]), its values bit masks.
///
/// ```
/// netcoll_models::param_table! {
///     /// Parameters of a demo block.
///     pub struct DemoParams in "demo" {
///         /// Ports per switch.
///         radix: 16 in [4, 8, 16, 32],
///     }
/// }
/// use netcoll_models::kit::params::ParamTable;
/// let p = DemoParams::default();
/// assert_eq!(p.radix, 16);
/// assert_eq!(p.table(), "demo");
/// assert_eq!(p.keys()[0].allowed, &[4, 8, 16, 32]);
/// ```
#[macro_export]
macro_rules! param_table {
    ($(#[$m:meta])* pub struct $name:ident in $table:literal {
        $($(#[doc = $doc:literal])* $key:ident : $default:literal in [$($allowed:literal),+ $(,)?]
            $(names [$($nm:literal),+ $(,)?])?),+ $(,)?
    }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name {
            $($(#[doc = $doc])* pub $key: usize,)+
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($key: $default,)+ }
            }
        }

        impl $name {
            /// The keys of this table, in canonical order.
            pub const KEYS: &'static [$crate::kit::params::ParamKey] = &[
                $($crate::kit::params::ParamKey {
                    name: stringify!($key),
                    allowed: &[$($allowed),+],
                    default: $default,
                    doc: concat!($($doc),*),
                    names: &[$($($nm),+)?],
                },)+
            ];
        }

        impl $crate::kit::params::ParamTable for $name {
            fn table(&self) -> &'static str {
                $table
            }
            fn keys(&self) -> &'static [$crate::kit::params::ParamKey] {
                Self::KEYS
            }
            fn get(&self, key: &str) -> Option<usize> {
                match key {
                    $(stringify!($key) => Some(self.$key),)+
                    _ => None,
                }
            }
            fn set(&mut self, key: &str, value: usize) -> bool {
                match key {
                    $(stringify!($key) => {
                        self.$key = value;
                        true
                    })+
                    _ => false,
                }
            }
        }
    };
}
