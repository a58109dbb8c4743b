//! # Bit layouts, declared once
//!
//! A word format that crosses levels (a WQE, a CQE, a queue context, the collective header,
//! a memory word of the switch) is declared once:
//!
//! - **fixed layouts** with a *layout declaration* macro (a table handed to a generator, like
//!   the port declarations of [`super::ports`]): [`model_layout!`](crate::model_layout) makes
//!   the model's field struct with `unpack` / `pack` and a field table;
//!   `netcoll_hdl::rtl_unpack!` / `rtl_pack!` make RTL sub-blocks that split words into
//!   fields or assemble them, with the same names and positions;
//! - **layouts whose positions depend on parameters** (a child mask `radix` bits wide) as a
//!   [`Layout`] value computed from the parameters: the model packs and unpacks with it and the
//!   RTL takes its positions as constants.
//!
//! Layouts are pinned by hand-written words in each block's tests: sharing the declaration
//! shares the vocabulary, never the check.
//!
//! ## Fixed-layout declaration grammar
//!
//! ```text
//! layout <Name> (word: bits, ...) { #[doc]* field: word[lsb, width], ... }
//! ```
//!
//! Fields may overlap (a union: which one is meaningful depends on another field, e.g. the
//! opcode of a WQE); `pack` ORs every field in, so give overlapping fields values only for
//! the variant at hand.

use super::ports::mask;

/// One field of a fixed layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayoutField {
    pub name: &'static str,
    /// Index of the word (declaration order).
    pub word: usize,
    pub lsb: usize,
    pub width: usize,
}

impl LayoutField {
    /// The field's value in `word`.
    pub fn get(&self, word: u64) -> u64 {
        (word >> self.lsb) & mask(self.width)
    }
    /// `word` with the field replaced by `value` (cut to the field width).
    pub fn put(&self, word: u64, value: u64) -> u64 {
        let m = mask(self.width) << self.lsb;
        (word & !m) | ((value << self.lsb) & m)
    }
}

/// The model-side generator of a fixed layout (see the [module docs](self)).
#[macro_export]
macro_rules! model_layout {
    ({} $(#[$m:meta])* layout $name:ident $words:tt {
        $($(#[$fm:meta])* $field:ident : $fw:ident [$lsb:literal, $width:literal]),+ $(,)?
    }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name {
            $($(#[$fm])* pub $field: u64,)+
        }

        impl $name {
            /// The word names and widths, in order.
            pub const WORDS: &'static [(&'static str, usize)] = $crate::model_layout!(@words $words);
            /// Every field: its word, position and width.
            pub const FIELDS: &'static [$crate::kit::layout::LayoutField] = &[
                $($crate::kit::layout::LayoutField {
                    name: stringify!($field),
                    word: $crate::model_layout!(@index $fw; 0; $words),
                    lsb: $lsb,
                    width: $width,
                },)+
            ];
        }

        $crate::model_layout!(@codec $name $words { $($field : $fw [$lsb, $width]),+ });
    };
    (@words ($($word:ident : $wbits:literal),+ $(,)?)) => {
        &[$((stringify!($word), $wbits)),+]
    };
    (@index $w:ident; $n:expr; ()) => { usize::MAX };
    (@index $w:ident; $n:expr; ($first:ident : $fb:literal $(, $rest:ident : $rb:literal)* $(,)?)) => {
        if $crate::kit::layout::same(stringify!($w), stringify!($first)) {
            $n
        } else {
            $crate::model_layout!(@index $w; $n + 1; ($($rest : $rb),*))
        }
    };
    (@codec $name:ident ($($word:ident : $wbits:literal),+ $(,)?)
        { $($field:ident : $fw:ident [$lsb:literal, $width:literal]),+ }) => {
        impl $name {
            /// Splits the words into fields.
            #[allow(clippy::too_many_arguments)]
            pub fn unpack($($word: u64),+) -> Self {
                $name {
                    $($field: ($fw >> $lsb) & $crate::kit::ports::mask($width),)+
                }
            }

            /// Assembles the words, each field cut to its width and ORed in.
            pub fn pack(&self) -> [u64; $crate::model_layout!(@count $($word)+)] {
                $(let mut $word = 0u64;)+
                $($fw |= (self.$field & $crate::kit::ports::mask($width)) << $lsb;)+
                [$($word),+]
            }
        }
    };
    (@count $($w:ident)+) => { 0 $(+ $crate::model_layout!(@one $w))+ };
    (@one $w:ident) => { 1 };
}

/// String equality usable in constants (for [`model_layout!`](crate::model_layout)).
#[doc(hidden)]
pub const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A word layout whose positions depend on parameters: fields packed LSB first in
/// declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    fields: Vec<(&'static str, usize, usize)>,
}

impl Layout {
    /// Fields `(name, width)` packed from bit 0 up, in order.
    pub fn packed(fields: &[(&'static str, usize)]) -> Layout {
        let mut lsb = 0;
        let mut v = Vec::with_capacity(fields.len());
        for &(name, width) in fields {
            v.push((name, lsb, width));
            lsb += width;
        }
        Layout { fields: v }
    }

    /// Total width in bits.
    pub fn width(&self) -> usize {
        self.fields.last().map_or(0, |&(_, lsb, w)| lsb + w)
    }

    /// `(lsb, width)` of `name`.
    ///
    /// # Panics
    /// If the layout has no such field: the names are fixed by the code that declares the
    /// layout, so a wrong one is a bug found by the first test that runs it.
    pub fn field(&self, name: &str) -> (usize, usize) {
        self.fields
            .iter()
            .find(|f| f.0 == name)
            .map(|&(_, lsb, w)| (lsb, w))
            .unwrap_or_else(|| panic!("layout has no field `{name}`"))
    }

    /// Position of `name`.
    pub fn lsb(&self, name: &str) -> usize {
        self.field(name).0
    }

    /// The value of `name` in `word`.
    pub fn get(&self, word: u64, name: &str) -> u64 {
        let (lsb, w) = self.field(name);
        (word >> lsb) & mask(w)
    }

    /// `word` with `name` set to `value` (cut to the field width).
    pub fn put(&self, word: u64, name: &str, value: u64) -> u64 {
        let (lsb, w) = self.field(name);
        let m = mask(w) << lsb;
        (word & !m) | ((value << lsb) & m)
    }

    /// The fields in order: `(name, lsb, width)`.
    pub fn fields(&self) -> &[(&'static str, usize, usize)] {
        &self.fields
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! demo_layout {
        ($cb:ident ! $args:tt) => {
            $cb! { $args
                /// A demo.
                layout Demo (w0: 64, w1: 32) {
                    op: w0[0, 4],
                    flag: w0[4, 1],
                    addr: w0[8, 16],
                    tag: w1[16, 16],
                }
            }
        };
    }
    demo_layout!(model_layout! {});

    #[test]
    fn fixed_layout_packs_at_the_declared_positions() {
        let d = Demo {
            op: 0xA,
            flag: 1,
            addr: 0x1234,
            tag: 0xBEEF,
        };
        // Written out by hand from the declaration above.
        assert_eq!(d.pack(), [0x0012_341A, 0xBEEF_0000]);
        assert_eq!(Demo::unpack(0x0012_341A, 0xBEEF_0000), d);
        // Values wider than their field are cut.
        let wide = Demo {
            op: 0x1F,
            ..Default::default()
        };
        assert_eq!(wide.pack()[0], 0xF);
        assert_eq!(Demo::FIELDS[3].word, 1);
        assert_eq!(Demo::FIELDS[2].word, 0);
        assert_eq!(Demo::FIELDS[2].get(0x0012_341A), 0x1234);
        assert_eq!(Demo::FIELDS[1].put(0, 3), 0x10);
        assert_eq!(Demo::WORDS, &[("w0", 64), ("w1", 32)]);
    }

    #[test]
    fn packed_layout() {
        let l = Layout::packed(&[("valid", 1), ("root", 1), ("parent", 4), ("children", 16)]);
        assert_eq!(l.width(), 22);
        assert_eq!(l.field("children"), (6, 16));
        let w = l.put(l.put(0, "parent", 9), "children", 0x000f_ffff);
        assert_eq!(w, (9 << 2) | (0xffff << 6));
        assert_eq!(l.get(w, "parent"), 9);
        assert_eq!(l.get(w, "valid"), 0);
    }
}
