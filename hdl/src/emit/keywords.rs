//! Verilog and SystemVerilog keywords, and the identifier rule every emitted name obeys.
//!
//! SystemVerilog keywords are included although the output is Verilog-2005: Verilator and
//! Yosys parse with SystemVerilog keywords enabled (`-sv`), so `logic` or `bit` as a name would
//! break there.

/// Verilog and SystemVerilog keywords that must not be used as names.
const KEYWORDS: &[&str] = &[
    "always",
    "and",
    "assign",
    "automatic",
    "begin",
    "bit",
    "buf",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "class",
    "cmos",
    "config",
    "const",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "do",
    "edge",
    "else",
    "end",
    "endcase",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endmodule",
    "endprimitive",
    "endspecify",
    "endtable",
    "endtask",
    "enum",
    "event",
    "for",
    "force",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "highz0",
    "highz1",
    "if",
    "ifnone",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "instance",
    "int",
    "integer",
    "interface",
    "join",
    "large",
    "liblist",
    "library",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "medium",
    "module",
    "nand",
    "negedge",
    "nmos",
    "nor",
    "noshowcancelled",
    "not",
    "notif0",
    "notif1",
    "or",
    "output",
    "package",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "program",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pulsestyle_ondetect",
    "pulsestyle_onevent",
    "rcmos",
    "real",
    "realtime",
    "reg",
    "release",
    "repeat",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "scalared",
    "shortint",
    "showcancelled",
    "signed",
    "small",
    "specify",
    "specparam",
    "static",
    "string",
    "strong0",
    "strong1",
    "struct",
    "supply0",
    "supply1",
    "table",
    "task",
    "time",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "type",
    "typedef",
    "union",
    "unsigned",
    "use",
    "uwire",
    "vectored",
    "void",
    "wait",
    "wand",
    "weak0",
    "weak1",
    "while",
    "wire",
    "wor",
    "xnor",
    "xor",
];

/// Whether `name` may be used as a Verilog identifier in emitted text: a letter or `_` first,
/// then letters, digits and `_` only (no `$`, no escaped identifiers), and not a keyword.
pub fn is_legal_name(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_');
    first_ok
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(is_legal_name("pkt_valid"));
        assert!(is_legal_name("_x9"));
        assert!(!is_legal_name("table"), "a keyword rust-hdl lets through");
        assert!(!is_legal_name("reg"));
        assert!(!is_legal_name("logic"), "a SystemVerilog keyword");
        assert!(
            !is_legal_name("a$b"),
            "`$` is legal Verilog but banned here"
        );
        assert!(!is_legal_name("1abc"));
        assert!(!is_legal_name(""));
        assert!(!is_legal_name("stat[3]"));
    }

    #[test]
    fn the_keyword_list_is_sorted_and_lowercase() {
        // Sorted so a duplicate or a missing entry shows up in review.
        let mut sorted = KEYWORDS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, KEYWORDS);
        assert!(KEYWORDS.iter().all(|k| k
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')));
    }
}
