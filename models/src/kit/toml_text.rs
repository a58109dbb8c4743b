//! # Messages about TOML files users write
//!
//! `netcoll.toml` and scenario files are read from scripts and CI, where a one-line error is
//! what people read. These helpers keep those lines useful and safe:
//!
//! - [`line_of`]: the line of a key, so that a semantic error ("`radix` = 5 is not supported")
//!   says where it is;
//! - [`key_near`]: the key on the line of a syntax error (an integer too large for 64 bits is a
//!   syntax error to the TOML parser), so that the message can name it;
//! - [`shown`] / [`escaped`]: a value or a name as it can be echoed on one terminal line:
//!   control characters (newlines, ANSI escapes) escaped, and long text cut.

/// One step of a path to a key: a table key or an index into an array of tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// Longest echoed text, in characters, before it is cut with `…`.
pub const ECHO_LIMIT: usize = 60;

/// 1-based line and column of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// The 1-based line of the key at `path` (e.g. `[Key("switch"), Key("radix")]` or
/// `[Key("step"), Index(2), Key("addr")]`), if the text parses and has it.
pub fn line_of(text: &str, path: &[Seg]) -> Option<usize> {
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    let mut table: &dyn toml_edit::TableLike = doc.as_table();
    let mut span = None;
    let mut segs = path.iter().peekable();
    while let Some(seg) = segs.next() {
        let Seg::Key(k) = seg else { return None };
        let (key, item) = table.get_key_value(k)?;
        span = key.span().or(span);
        if segs.peek().is_none() {
            break;
        }
        table = match item {
            toml_edit::Item::Table(t) => t,
            toml_edit::Item::Value(toml_edit::Value::InlineTable(t)) => t,
            toml_edit::Item::ArrayOfTables(a) => {
                let Some(Seg::Index(i)) = segs.next() else {
                    return None;
                };
                let t = a.get(*i)?;
                span = t.span().or(span);
                t
            }
            _ => return None,
        };
    }
    span.map(|s| line_col(text, s.start).0)
}

/// The `table.key` (or `key`) assigned on the line that holds byte `offset`, looking back for
/// the enclosing `[table]` / `[[table]]` header. For messages about syntax errors.
pub fn key_near(text: &str, offset: usize) -> Option<String> {
    let (line, _) = line_col(text, offset);
    let lines: Vec<&str> = text.lines().collect();
    let this = lines.get(line.checked_sub(1)?)?;
    let (key, _) = this.split_once('=')?;
    let key = key.trim();
    if key.is_empty() || key.starts_with('[') || key.starts_with('#') {
        return None;
    }
    let table = lines[..line - 1].iter().rev().find_map(|l| {
        let l = l.trim();
        l.strip_prefix("[[")
            .and_then(|r| r.split_once("]]"))
            .or_else(|| l.strip_prefix('[').and_then(|r| r.split_once(']')))
            .map(|(t, _)| t.trim().to_string())
    });
    Some(match table {
        Some(t) => format!("{t}.{key}"),
        None => key.to_string(),
    })
}

/// `s` with control and other non-printing characters escaped (`\n`, `\u{1b}`, …) and cut to
/// [`ECHO_LIMIT`] characters.
pub fn escaped(s: &str) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n == ECHO_LIMIT {
            out.push('…');
            break;
        }
        if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A TOML value as written in the file, on one line, escaped and cut (see [`escaped`]).
pub fn shown(v: &toml::Value) -> String {
    escaped(v.to_string().trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_keys() {
        let t =
            "# c\n[switch]\nradix = 4\n\n[[step]]\nop = \"run\"\n[[step]]\nop = \"poll\"\ncq = 1\n";
        assert_eq!(
            line_of(t, &[Seg::Key("switch"), Seg::Key("radix")]),
            Some(3)
        );
        assert_eq!(
            line_of(t, &[Seg::Key("step"), Seg::Index(1), Seg::Key("cq")]),
            Some(9)
        );
        // A path ending in an index gives the line of that table's header.
        assert_eq!(line_of(t, &[Seg::Key("step"), Seg::Index(0)]), Some(5));
        assert_eq!(line_of(t, &[Seg::Key("nic"), Seg::Key("qps")]), None);
        assert_eq!(
            line_of(
                "switch.radix = 8\n",
                &[Seg::Key("switch"), Seg::Key("radix")]
            ),
            Some(1)
        );
    }

    #[test]
    fn keys_near_syntax_errors() {
        let t = "[switch]\nradix = 99999999999999999999999\n";
        let at = t.find("999").unwrap_or(0);
        assert_eq!(key_near(t, at).as_deref(), Some("switch.radix"));
        let t = "[[step]]\naddr = 1e999\n";
        assert_eq!(key_near(t, t.len() - 2).as_deref(), Some("step.addr"));
        assert_eq!(key_near("[switch\n", 3), None);
    }

    #[test]
    fn echoes_are_escaped_and_cut() {
        assert_eq!(escaped("a\nb\u{1b}[31m"), "a\\nb\\u{1b}[31m");
        let long = "x".repeat(100);
        let e = escaped(&long);
        assert_eq!(e.chars().count(), ECHO_LIMIT + 1);
        assert!(e.ends_with('…'));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }
}
