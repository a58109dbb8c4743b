//! # Scenario files: what every block's scenario language shares
//!
//! A scenario file is TOML: an optional `name` and `description`, an optional parameter table
//! named like the block's table of `netcoll.toml` (`[nic]`, `[switch]`), and `[[step]]` tables,
//! each with an `op` and the keys of that kind of step. Each block's language
//! (`crate::nic::scenario`, `crate::switch_engine::scenario`) decides the ops and their keys;
//! this module reads everything else the same way for all of them:
//!
//! - [`Doc`]: the parsed file, its top-level keys ([`Doc::header`]: `name`, `description`,
//!   the parameter table) and its steps ([`Doc::steps`]); unknown top-level keys are rejected
//!   with the list of allowed ones;
//! - [`StepReader`]: one step's keys with typed getters: unsigned numbers of a given width
//!   ([`StepReader::uint`]), flags, strings, 64-bit word arrays, lists of small numbers, names
//!   from a list or raw codes ([`StepReader::named`]); [`StepReader::only`] rejects unknown
//!   keys, listing the allowed ones;
//! - [`ScenarioError`]: every mistake, and every failure while running, as ONE line:
//!   `file: line L: step N (op): message`, where `L` is the line of the offending key (or of
//!   the step's `[[step]]` header when no key is to blame).
//!
//! ## Numbers
//!
//! A number is a TOML integer or a hex string `"0x…"` (underscores allowed), which is how
//! values above `i64::MAX` are written. Every value is checked against the width of its field:
//! nothing is silently truncated. Negative integers are only accepted where a field says so
//! (64-bit data words, as two's complement). An integer literal too large for 64 bits is a
//! TOML syntax error; its message still names the line, the step and the key
//! (`toml_text::key_near`).
//!
//! ## Echoed text
//!
//! Keys, values and names taken from the file are echoed through
//! `toml_text::escaped` / `toml_text::shown`: control characters (a newline, an ANSI
//! escape) are printed escaped and long text is cut, so a message is always one harmless
//! terminal line.

use netcoll_models::kit::params::ParamTable;
use netcoll_models::kit::ports::mask;
use netcoll_models::kit::toml_text::{escaped, key_near, line_col, line_of, shown, Seg};
use std::fmt;
use std::path::Path;

/// The name used in messages for text that did not come from a file.
pub const DEFAULT_FILE_NAME: &str = "scenario.toml";

/// What a number key accepts, for messages.
pub const NUMBER_EXPECTED: &str = "an integer or a hex string like \"0x1f\"";

/// A scenario that cannot be read or run. Displays as one line:
/// `file: line L: step N (op): message` (each part only when known). Its parts are the
/// [`ErrorDetails`] it dereferences to (boxed, so that results stay small).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError(Box<ErrorDetails>);

/// What a [`ScenarioError`] says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorDetails {
    /// The file the scenario came from (or [`DEFAULT_FILE_NAME`]).
    pub file: String,
    /// The line of the offending key, or of the step's header, when known.
    pub line: Option<usize>,
    /// The 1-based step, when the error is about one.
    pub step: Option<usize>,
    /// The step's `op`, when it is a known one.
    pub op: Option<String>,
    /// The key to blame, when there is one (as written, unescaped).
    pub key: Option<String>,
    /// What is wrong; names the key and the value, escaped.
    pub message: String,
}

impl std::ops::Deref for ScenarioError {
    type Target = ErrorDetails;
    fn deref(&self) -> &ErrorDetails {
        &self.0
    }
}

impl std::ops::DerefMut for ScenarioError {
    fn deref_mut(&mut self) -> &mut ErrorDetails {
        &mut self.0
    }
}

impl From<ErrorDetails> for ScenarioError {
    fn from(d: ErrorDetails) -> ScenarioError {
        ScenarioError(Box::new(d))
    }
}

impl ScenarioError {
    /// An error about the file as a whole (it cannot be read, ...).
    pub fn file(file: &str, message: impl Into<String>) -> ScenarioError {
        ErrorDetails {
            file: file.to_string(),
            line: None,
            step: None,
            op: None,
            key: None,
            message: message.into(),
        }
        .into()
    }

    /// An error while running step `step` (1-based; 0 is the reset before the first step),
    /// whose header is on `line`.
    pub fn run(
        file: &str,
        line: Option<usize>,
        step: usize,
        op: &str,
        message: impl Into<String>,
    ) -> ScenarioError {
        ErrorDetails {
            file: file.to_string(),
            line,
            step: Some(step),
            op: (!op.is_empty()).then(|| op.to_string()),
            key: None,
            message: message.into(),
        }
        .into()
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", one_line(&self.file))?;
        if let Some(l) = self.line {
            write!(f, "line {l}: ")?;
        }
        if let Some(s) = self.step {
            write!(f, "step {s}")?;
            if let Some(op) = &self.op {
                write!(f, " ({})", escaped(op))?;
            }
            f.write_str(": ")?;
        }
        f.write_str(&one_line(&self.message))
    }
}

impl std::error::Error for ScenarioError {}

/// `s` with control characters escaped but not cut (for messages that are already ours).
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Why a value is not a number of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumErr {
    /// Not an integer nor a hex string.
    WrongType,
    /// A number, but negative (where that is not allowed) or above 64 bits.
    OutOfRange,
}

/// A TOML integer or `"0x…"` string as a 64-bit word; negative integers only if `signed`
/// (then as two's complement).
pub fn number(v: &toml::Value, signed: bool) -> Result<u64, NumErr> {
    match v {
        toml::Value::Integer(i) if *i >= 0 || signed => Ok(*i as u64),
        toml::Value::Integer(_) => Err(NumErr::OutOfRange),
        toml::Value::String(s) => {
            let t = s.trim();
            let hex = t
                .strip_prefix("0x")
                .or_else(|| t.strip_prefix("0X"))
                .ok_or(NumErr::WrongType)?
                .replace('_', "");
            if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(NumErr::WrongType);
            }
            let digits = hex.trim_start_matches('0');
            if digits.len() > 16 {
                return Err(NumErr::OutOfRange);
            }
            u64::from_str_radix(if digits.is_empty() { "0" } else { digits }, 16)
                .map_err(|_| NumErr::OutOfRange)
        }
        _ => Err(NumErr::WrongType),
    }
}

/// Lower case without `_`: how names are compared (`"ERROR_CQE"`, `"ErrorCqe"`, `"error_cqe"`).
pub fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '_')
        .flat_map(|c| c.to_lowercase())
        .collect()
}

/// `"A", "B", "C"`.
pub fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads a scenario file's text; the error names the file.
pub fn read_text(path: &Path) -> Result<String, ScenarioError> {
    std::fs::read_to_string(path).map_err(|e| {
        ScenarioError::file(
            &path.display().to_string(),
            format!("cannot read the file: {e}"),
        )
    })
}

/// The top-level keys every scenario may have besides its parameter table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub name: String,
    pub description: String,
}

/// A parsed scenario file (see the [module docs](self)).
pub struct Doc<'a> {
    pub file: &'a str,
    pub text: &'a str,
    pub top: toml::Table,
}

/// Whether `line` is the header `[[step]]` (spaces allowed inside the brackets).
fn is_step_header(line: &str) -> bool {
    let l = line.trim();
    l.strip_prefix("[[")
        .and_then(|r| r.split_once("]]"))
        .is_some_and(|(t, rest)| {
            t.trim() == "step" && (rest.trim().is_empty() || rest.trim().starts_with('#'))
        })
}

/// Whether `line` is any table header.
fn is_header(line: &str) -> bool {
    line.trim_start().starts_with('[')
}

/// For a syntax error on `line` (1-based): the step it is in (1-based) and that step's `op`,
/// if it is one of `ops`, found by reading the lines as text (the file does not parse).
fn step_at_line(text: &str, line: usize, ops: &[&str]) -> Option<(usize, Option<String>)> {
    let lines: Vec<&str> = text.lines().collect();
    let upto = line.min(lines.len());
    let mut step = 0;
    let mut in_step = false;
    let mut start = 0;
    for (k, l) in lines[..upto].iter().enumerate() {
        if is_step_header(l) {
            step += 1;
            in_step = true;
            start = k + 1;
        } else if is_header(l) {
            in_step = false;
        }
    }
    if !in_step {
        return None;
    }
    let op = lines[start..]
        .iter()
        .take_while(|l| !is_header(l))
        .find_map(|l| {
            let t: toml::Table = l.parse().ok()?;
            let op = t.get("op")?.as_str()?.to_string();
            ops.contains(&op.as_str()).then_some(op)
        });
    Some((step, op))
}

impl<'a> Doc<'a> {
    /// Parses `text` (read from `file`). A syntax error names its line, and when it is inside
    /// a step, the step, its `op` (one of `ops`) and the key on that line.
    pub fn parse(text: &'a str, file: &'a str, ops: &[&str]) -> Result<Doc<'a>, ScenarioError> {
        let top: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let message = e.message().trim().to_string();
            let Some(span) = e.span() else {
                return ScenarioError::file(file, format!("TOML syntax error: {message}"));
            };
            let (line, col) = line_col(text, span.start);
            let key = key_near(text, span.start);
            let step = step_at_line(text, line, ops);
            // Inside a step the key is named without the `step.` prefix.
            let shown_key = key.as_deref().map(|k| match &step {
                Some(_) => k.strip_prefix("step.").unwrap_or(k).to_string(),
                None => k.to_string(),
            });
            let location = match &shown_key {
                Some(k) => format!(" at column {col} in `{}`", escaped(k)),
                None => format!(" at column {col}"),
            };
            ErrorDetails {
                file: file.to_string(),
                line: Some(line),
                step: step.as_ref().map(|s| s.0),
                op: step.and_then(|s| s.1),
                key: shown_key,
                message: format!("TOML syntax error{location}: {message}"),
            }
            .into()
        })?;
        Ok(Doc { file, text, top })
    }

    /// An error about the top-level key at `path`.
    pub fn error_at(&self, path: &[Seg], key: &str, message: String) -> ScenarioError {
        ErrorDetails {
            file: self.file.to_string(),
            line: line_of(self.text, path),
            step: None,
            op: None,
            key: Some(key.to_string()),
            message,
        }
        .into()
    }

    /// Reads `name`, `description` and the parameter table `params` (named
    /// `params.table()`; keys and allowed values as in `netcoll.toml`) and rejects any other
    /// top-level key but `step`.
    pub fn header(&self, params: &mut dyn ParamTable) -> Result<Header, ScenarioError> {
        let table = params.table();
        let mut h = Header::default();
        for (key, v) in &self.top {
            let at = [Seg::Key(key)];
            match (key.as_str(), v) {
                ("name", toml::Value::String(t)) => h.name = t.clone(),
                ("description", toml::Value::String(t)) => h.description = t.clone(),
                ("name" | "description", v) => {
                    return Err(self.error_at(
                        &at,
                        key,
                        format!("`{key}` = {} has the wrong type: expected a string", shown(v)),
                    ))
                }
                (k, toml::Value::Table(t)) if k == table => self.params(params, t)?,
                (k, v) if k == table => {
                    return Err(self.error_at(
                        &at,
                        key,
                        format!(
                            "`{table}` = {} has the wrong type: expected a table `[{table}]`",
                            shown(v)
                        ),
                    ))
                }
                ("step", toml::Value::Array(_)) => {}
                ("step", v) => {
                    return Err(self.error_at(
                        &at,
                        key,
                        format!(
                            "`step` = {} has the wrong type: expected [[step]] tables",
                            shown(v)
                        ),
                    ))
                }
                _ => {
                    return Err(self.error_at(
                        &at,
                        key,
                        format!(
                            "unknown key `{}`; allowed at the top level: name, description, [{table}], [[step]]",
                            escaped(key)
                        ),
                    ))
                }
            }
        }
        Ok(h)
    }

    /// The parameter table's keys.
    fn params(&self, p: &mut dyn ParamTable, t: &toml::Table) -> Result<(), ScenarioError> {
        let table = p.table();
        let keys = p.keys();
        for (key, v) in t {
            let at = [Seg::Key(table), Seg::Key(key)];
            let full = format!("{table}.{}", escaped(key));
            let Some(k) = keys.iter().find(|k| k.name == key) else {
                return Err(self.error_at(
                    &at,
                    key,
                    format!(
                        "unknown key `{full}`; allowed keys in [{table}]: {}",
                        keys.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
                    ),
                ));
            };
            let n = netcoll_models::config::param_value(&full, v, k)
                .map_err(|e| self.error_at(&at, key, e.to_string()))?;
            p.set(k.name, n);
        }
        if let Some(e) = netcoll_models::config::fp_types_check(&*p) {
            let at = [Seg::Key(table), Seg::Key("fp_types")];
            return Err(self.error_at(&at, "fp_types", e.to_string()));
        }
        Ok(())
    }

    /// The steps, in file order, each with its `op` checked against `ops`.
    pub fn steps(
        &self,
        ops: &'static [&'static str],
    ) -> Result<Vec<StepReader<'_>>, ScenarioError> {
        let Some(toml::Value::Array(items)) = self.top.get("step") else {
            return Ok(vec![]);
        };
        let ops_list = ops.join(", ");
        let mut out = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let toml::Value::Table(t) = item else {
                return Err(ErrorDetails {
                    file: self.file.to_string(),
                    line: line_of(self.text, &[Seg::Key("step")]),
                    step: Some(index + 1),
                    op: None,
                    key: None,
                    message: format!("{} is not a table; write steps as [[step]]", shown(item)),
                }
                .into());
            };
            let bare = StepReader {
                file: self.file,
                text: self.text,
                index,
                op: "",
                t,
            };
            let op = match t.get("op") {
                None => return Err(bare.missing("op", &format!("; allowed: {ops_list}"))),
                Some(toml::Value::String(s)) => s.as_str(),
                Some(v) => return Err(bare.wrong_type("op", v, "a string")),
            };
            let Some(&op) = ops.iter().find(|o| **o == op) else {
                return Err(bare.error(
                    "op",
                    format!(
                        "`op` = {} is not a step kind; allowed: {ops_list}",
                        shown(&toml::Value::String(op.to_string()))
                    ),
                ));
            };
            out.push(StepReader { op, ..bare });
        }
        Ok(out)
    }

    /// The line of step `index`'s `[[step]]` header (0-based index).
    pub fn step_line(&self, index: usize) -> Option<usize> {
        line_of(self.text, &[Seg::Key("step"), Seg::Index(index)])
    }
}

/// One step's keys, read with one-line errors that name the file, line, step, op and key.
#[derive(Clone, Copy)]
pub struct StepReader<'d> {
    file: &'d str,
    text: &'d str,
    /// 0-based position among the steps.
    pub index: usize,
    /// The step's `op` (empty while it is not known).
    pub op: &'static str,
    pub t: &'d toml::Table,
}

impl<'d> StepReader<'d> {
    /// The 1-based step number.
    pub fn number(&self) -> usize {
        self.index + 1
    }

    /// The line of the step's `[[step]]` header.
    pub fn line(&self) -> Option<usize> {
        line_of(self.text, &[Seg::Key("step"), Seg::Index(self.index)])
    }

    /// Whether the step has `key`.
    pub fn has(&self, key: &str) -> bool {
        self.t.contains_key(key)
    }

    /// An error about `key` (for `data[3]`, the line of `data`).
    pub fn error(&self, key: &str, message: String) -> ScenarioError {
        let at = |k: &str| {
            line_of(
                self.text,
                &[Seg::Key("step"), Seg::Index(self.index), Seg::Key(k)],
            )
        };
        // `data[3]` is element 3 of `data` (a key named `data[3]` is tried first).
        let base = key
            .strip_suffix(']')
            .and_then(|k| k.rsplit_once('['))
            .filter(|(_, i)| !i.is_empty() && i.chars().all(|c| c.is_ascii_digit()))
            .map(|(b, _)| b);
        let line = at(key)
            .or_else(|| base.and_then(at))
            .or_else(|| self.line());
        ErrorDetails {
            file: self.file.to_string(),
            line,
            step: Some(self.number()),
            op: (!self.op.is_empty()).then(|| self.op.to_string()),
            key: Some(key.to_string()),
            message,
        }
        .into()
    }

    /// An error about the step as a whole (the line of its header).
    pub fn step_error(&self, message: String) -> ScenarioError {
        ErrorDetails {
            file: self.file.to_string(),
            line: self.line(),
            step: Some(self.number()),
            op: (!self.op.is_empty()).then(|| self.op.to_string()),
            key: None,
            message,
        }
        .into()
    }

    /// Rejects keys outside `allowed` (and `op`); `what` says for what they are allowed
    /// (`for op = "run"`).
    pub fn only(&self, allowed: &[&str], what: &str) -> Result<(), ScenarioError> {
        for key in self.t.keys() {
            if key != "op" && !allowed.contains(&key.as_str()) {
                return Err(self.error(
                    key,
                    format!(
                        "unknown key `{}`; allowed keys {what}: {}",
                        escaped(key),
                        allowed.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `missing key `key`` followed by `why`.
    pub fn missing(&self, key: &str, why: &str) -> ScenarioError {
        let mut e = self.step_error(format!("missing key `{key}`{why}"));
        e.key = Some(key.to_string());
        e
    }

    pub fn wrong_type(&self, key: &str, v: &toml::Value, expected: &str) -> ScenarioError {
        self.error(
            key,
            format!(
                "`{}` = {} has the wrong type: expected {expected}",
                escaped(key),
                shown(v)
            ),
        )
    }

    pub fn out_of_range(&self, key: &str, v: &toml::Value, bits: usize) -> ScenarioError {
        self.error(
            key,
            format!(
                "`{}` = {} is out of range; allowed: 0..={} ({bits} bits)",
                escaped(key),
                shown(v),
                mask(bits)
            ),
        )
    }

    /// An unsigned field of `bits` bits, if present.
    pub fn opt_uint(&self, key: &str, bits: usize) -> Result<Option<u64>, ScenarioError> {
        let Some(v) = self.t.get(key) else {
            return Ok(None);
        };
        self.uint_value(key, v, bits).map(Some)
    }

    fn uint_value(&self, key: &str, v: &toml::Value, bits: usize) -> Result<u64, ScenarioError> {
        match number(v, false) {
            Ok(n) if n <= mask(bits) => Ok(n),
            Ok(_) | Err(NumErr::OutOfRange) => Err(self.out_of_range(key, v, bits)),
            Err(NumErr::WrongType) => Err(self.wrong_type(key, v, NUMBER_EXPECTED)),
        }
    }

    /// A required unsigned field of `bits` bits; `why` completes "missing key `k`".
    pub fn uint(&self, key: &str, bits: usize, why: &str) -> Result<u64, ScenarioError> {
        self.opt_uint(key, bits)?
            .ok_or_else(|| self.missing(key, why))
    }

    /// A number below `limit` (e.g. a port of a switch with `radix` ports), if present.
    pub fn opt_below(
        &self,
        key: &str,
        limit: u64,
        what: &str,
    ) -> Result<Option<u64>, ScenarioError> {
        let Some(v) = self.t.get(key) else {
            return Ok(None);
        };
        self.below_value(key, v, limit, what).map(Some)
    }

    fn below_value(
        &self,
        key: &str,
        v: &toml::Value,
        limit: u64,
        what: &str,
    ) -> Result<u64, ScenarioError> {
        match number(v, false) {
            Ok(n) if n < limit => Ok(n),
            Ok(_) | Err(NumErr::OutOfRange) => Err(self.error(
                key,
                format!(
                    "`{}` = {} is out of range; allowed: 0..={} ({what})",
                    escaped(key),
                    shown(v),
                    limit.saturating_sub(1)
                ),
            )),
            Err(NumErr::WrongType) => Err(self.wrong_type(key, v, NUMBER_EXPECTED)),
        }
    }

    /// One number below `limit`, or an array of them (`port = 1` or `port = [1, 2]`), if
    /// present; an empty array is an error.
    pub fn opt_list_below(
        &self,
        key: &str,
        limit: u64,
        what: &str,
    ) -> Result<Option<Vec<u64>>, ScenarioError> {
        let Some(v) = self.t.get(key) else {
            return Ok(None);
        };
        let toml::Value::Array(items) = v else {
            return self.below_value(key, v, limit, what).map(|n| Some(vec![n]));
        };
        if items.is_empty() {
            return Err(self.error(
                key,
                format!("`{}` = [] is empty; give at least one value", escaped(key)),
            ));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.below_value(&format!("{key}[{i}]"), item, limit, what))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// A flag, `default` if absent.
    pub fn flag(&self, key: &str, default: bool) -> Result<bool, ScenarioError> {
        match self.t.get(key) {
            None => Ok(default),
            Some(toml::Value::Boolean(b)) => Ok(*b),
            Some(v) => Err(self.wrong_type(key, v, "true or false")),
        }
    }

    /// A string, if present.
    pub fn string(&self, key: &str) -> Result<Option<&'d str>, ScenarioError> {
        match self.t.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(self.wrong_type(key, v, "a string")),
        }
    }

    /// An array of 64-bit words (negative integers are two's complement), if present.
    pub fn words(&self, key: &str) -> Result<Option<Vec<u64>>, ScenarioError> {
        let Some(v) = self.t.get(key) else {
            return Ok(None);
        };
        let toml::Value::Array(items) = v else {
            return Err(self.wrong_type(
                key,
                v,
                "an array of integers or hex strings, e.g. [1, -2, \"0xff\"]",
            ));
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let k = format!("{key}[{i}]");
            match number(item, true) {
                Ok(n) => out.push(n),
                Err(NumErr::OutOfRange) => {
                    return Err(self.error(
                        &k,
                        format!(
                            "`{}` = {} is out of range; allowed: 64-bit words",
                            escaped(&k),
                            shown(item)
                        ),
                    ))
                }
                Err(NumErr::WrongType) => return Err(self.wrong_type(&k, item, NUMBER_EXPECTED)),
            }
        }
        Ok(Some(out))
    }

    /// A name from `names` (compared ignoring case and `_`, see [`squash`]) or a number of
    /// `bits` bits, if present.
    pub fn opt_named(
        &self,
        key: &str,
        names: &[(&str, u64)],
        bits: usize,
    ) -> Result<Option<u64>, ScenarioError> {
        let Some(v) = self.t.get(key) else {
            return Ok(None);
        };
        self.named_value(key, v, names, bits).map(Some)
    }

    /// One name or number (see [`StepReader::opt_named`]) or an array of them, if present;
    /// an empty array is an error.
    pub fn opt_named_list(
        &self,
        key: &str,
        names: &[(&str, u64)],
        bits: usize,
    ) -> Result<Option<Vec<u64>>, ScenarioError> {
        let Some(v) = self.t.get(key) else {
            return Ok(None);
        };
        let toml::Value::Array(items) = v else {
            return self.named_value(key, v, names, bits).map(|n| Some(vec![n]));
        };
        if items.is_empty() {
            return Err(self.error(
                key,
                format!("`{}` = [] is empty; give at least one value", escaped(key)),
            ));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.named_value(&format!("{key}[{i}]"), item, names, bits))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    fn named_value(
        &self,
        key: &str,
        v: &toml::Value,
        names: &[(&str, u64)],
        bits: usize,
    ) -> Result<u64, ScenarioError> {
        if let toml::Value::String(s) = v {
            let want = squash(s);
            if let Some((_, code)) = names.iter().find(|(n, _)| squash(n) == want) {
                return Ok(*code);
            }
            if number(v, false).is_err() {
                let list: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
                return Err(self.error(
                    key,
                    format!(
                        "`{}` = {} is not a known name; allowed: {} or a number 0..={}",
                        escaped(key),
                        shown(v),
                        quoted_list(&list),
                        mask(bits)
                    ),
                ));
            }
        }
        self.uint_value(key, v, bits)
    }

    /// A required name or number (see [`StepReader::opt_named`]).
    pub fn named(
        &self,
        key: &str,
        names: &[(&str, u64)],
        bits: usize,
        why: &str,
    ) -> Result<u64, ScenarioError> {
        self.opt_named(key, names, bits)?
            .ok_or_else(|| self.missing(key, why))
    }
}

/// Checks that two lists of events are identical; otherwise describes the first difference
/// (`what` names the lists, e.g. `events`).
pub fn compare_lists<T: PartialEq + fmt::Display>(
    what: &str,
    expected: &[T],
    actual: &[T],
) -> Result<(), String> {
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e != a {
            return Err(format!("{what} differ at index {i}: expected {e}, got {a}"));
        }
    }
    match expected.len().cmp(&actual.len()) {
        std::cmp::Ordering::Equal => Ok(()),
        std::cmp::Ordering::Greater => Err(format!(
            "{what}: expected {} events, got {}; first missing: {}",
            expected.len(),
            actual.len(),
            expected[actual.len()]
        )),
        std::cmp::Ordering::Less => Err(format!(
            "{what}: expected {} events, got {}; first extra: {}",
            expected.len(),
            actual.len(),
            actual[expected.len()]
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netcoll_models::nic::NicParams;

    const OPS: &[&str] = &["run", "poke"];

    fn parse(text: &str) -> Result<Vec<(usize, &'static str)>, ScenarioError> {
        let d = Doc::parse(text, "t.toml", OPS)?;
        let mut p = NicParams::SMALL;
        d.header(&mut p)?;
        let steps = d.steps(OPS)?;
        for s in &steps {
            s.only(&["n", "x"], "here")?;
            s.opt_uint("n", 8)?;
        }
        Ok(steps.iter().map(|s| (s.number(), s.op)).collect())
    }

    fn msg(text: &str) -> ScenarioError {
        let e = parse(text).expect_err("should fail");
        assert!(!e.to_string().contains('\n'), "{e}");
        e
    }

    #[test]
    fn errors_name_file_line_step_op_and_key() {
        let e = msg("name = \"x\"\n\n[[step]]\nop = \"run\"\n[[step]]\nop = \"poke\"\nn = 256\n");
        assert_eq!(
            e.to_string(),
            "t.toml: line 7: step 2 (poke): `n` = 256 is out of range; allowed: 0..=255 (8 bits)"
        );
        assert_eq!(e.key.as_deref(), Some("n"));
        let e = msg("[[step]]\nop = \"run\"\nn = 99999999999999999999\n");
        assert_eq!(e.line, Some(3));
        assert_eq!(e.step, Some(1));
        assert_eq!(e.op.as_deref(), Some("run"));
        assert_eq!(e.key.as_deref(), Some("n"));
        assert!(
            e.to_string().starts_with(
                "t.toml: line 3: step 1 (run): TOML syntax error at column 5 in `n`: "
            ),
            "{e}"
        );
        let e = msg("[[step]]\nop = \"run\"\n\"a\\nb\\u001b[31m\" = 1\n");
        assert_eq!(
            e.to_string(),
            "t.toml: line 3: step 1 (run): unknown key `a\\nb\\u{1b}[31m`; allowed keys here: n, x"
        );
        let e = msg("[[step]]\nop = \"fly\"\n");
        assert_eq!(
            e.to_string(),
            "t.toml: line 2: step 1: `op` = \"fly\" is not a step kind; allowed: run, poke"
        );
        let e = msg("[nic]\nqps = 5\n");
        assert_eq!(
            e.to_string(),
            "t.toml: line 2: `nic.qps` = 5 is not supported; allowed values: 4, 16"
        );
        let e = msg("x = 1\n[[step]]\nop = \"run\"\n");
        assert_eq!(
            e.to_string(),
            "t.toml: line 1: unknown key `x`; allowed at the top level: name, description, [nic], [[step]]"
        );
        let e = msg("[[step]]\nop = \"run\"\nn = \"0x1_0000_0000_0000_0000\"\n");
        assert!(
            e.to_string().contains("is out of range; allowed: 0..=255"),
            "{e}"
        );
        let long = "k".repeat(200);
        let e = msg(&format!("[[step]]\nop = \"run\"\n{long} = 1\n"));
        assert!(e.to_string().len() < 200, "{e}");
        assert_eq!(
            parse("[[step]]\nop = \"poke\"\nn = \"0xff\"\n"),
            Ok(vec![(1, "poke")])
        );
    }

    #[test]
    fn numbers() {
        let v = |s: &str| -> toml::Value {
            let t: toml::Table = format!("v = {s}").parse().expect("valid");
            t["v"].clone()
        };
        assert_eq!(number(&v("\"0x00000000000000000001\""), false), Ok(1));
        assert_eq!(number(&v("\"0xFFFF_FFFF_FFFF_FFFF\""), false), Ok(u64::MAX));
        assert_eq!(
            number(&v("\"0x1_0000_0000_0000_0000\""), false),
            Err(NumErr::OutOfRange)
        );
        assert_eq!(number(&v("-1"), false), Err(NumErr::OutOfRange));
        assert_eq!(number(&v("-1"), true), Ok(u64::MAX));
        assert_eq!(number(&v("\"12\""), false), Err(NumErr::WrongType));
        assert_eq!(number(&v("1.0"), false), Err(NumErr::WrongType));
        assert_eq!(squash("Error_Cqe"), "errorcqe");
    }
}
