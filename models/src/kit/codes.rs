//! # Codes and state encodings, declared once
//!
//! - [`codes!`](crate::codes): an enum of wire / port codes (opcodes, verdicts, statuses):
//!   the variants with their codes and printed names, `ALL`, `BITS`, `code`, `from_code`,
//!   `name`. The RTL uses the codes as its constants (`k(Verdict::Stale.code())`), so a code
//!   is written once.
//! - State encodings of a sequencer are declared as a *state list* macro (like the port
//!   declarations: a table handed to a generator): [`model_states!`](crate::model_states)
//!   makes the model's enum, `netcoll_hdl::rtl_states!` the RTL's `LogicState` enum. Both
//!   number the states by position, so the encodings agree by construction; a test in each
//!   block pins them anyway.

/// Declares an enum of codes. See the [module docs](self).
///
/// ```
/// netcoll_models::codes! {
///     /// A demo.
///     pub enum Color: 2 {
///         /// Red.
///         Red = 0 => "RED",
///         Blue = 2 => "BLUE",
///     }
/// }
/// assert_eq!(Color::from_code(2), Some(Color::Blue));
/// assert_eq!(Color::from_code(1), None);
/// assert_eq!(Color::Red.name(), "RED");
/// assert_eq!(Color::BITS, 2);
/// ```
#[macro_export]
macro_rules! codes {
    ($(#[$m:meta])* pub enum $name:ident : $bits:literal {
        $($(#[$vm:meta])* $variant:ident = $code:literal => $text:literal),+ $(,)?
    }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vm])* $variant = $code,)+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Width of the code in bits.
            pub const BITS: usize = $bits;

            /// The code on the wire / port.
            pub const fn code(self) -> u64 {
                self as u64
            }

            /// The variant with code `c`, or `None` for an unused code.
            pub fn from_code(c: u64) -> Option<$name> {
                match c {
                    $($code => Some($name::$variant),)+
                    _ => None,
                }
            }

            /// The printed name (scenario files, JSON events, reports).
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

/// The model-side generator of a state list: a plain enum numbered by position, with `ALL`,
/// `BITS` (enough bits for every state, as rust-hdl's `LogicState` uses), `code` and
/// `from_code`.
#[macro_export]
macro_rules! model_states {
    ({} $(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            #[default]
            $($(#[$vm])* $variant,)+
        }

        impl $name {
            /// Every state, in code order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Bits of the encoding: `clog2(number of states)`.
            pub const BITS: usize = $crate::kit::codes::clog2(Self::ALL.len());

            /// The encoding (the position in the declaration).
            pub const fn code(self) -> u64 {
                self as u64
            }

            /// The state with encoding `c`.
            pub fn from_code(c: u64) -> Option<$name> {
                Self::ALL.get(usize::try_from(c).ok()?).copied()
            }
        }
    };
}

/// Bits needed to number `n` things (`clog2(1) = 0`), as rust-hdl's `LogicState` computes it.
pub const fn clog2(n: usize) -> usize {
    let mut bits = 0;
    while (1usize << bits) < n {
        bits += 1;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::clog2;

    macro_rules! demo_states {
        ($cb:ident ! $args:tt) => {
            $cb! { $args
                /// Demo.
                Demo { A, B, C }
            }
        };
    }
    demo_states!(model_states! {});

    #[test]
    fn states_are_numbered_by_position() {
        assert_eq!(Demo::ALL, &[Demo::A, Demo::B, Demo::C]);
        assert_eq!(Demo::C.code(), 2);
        assert_eq!(Demo::from_code(1), Some(Demo::B));
        assert_eq!(Demo::from_code(3), None);
        assert_eq!(Demo::BITS, 2);
        assert_eq!(Demo::default(), Demo::A);
        assert_eq!(
            (clog2(1), clog2(2), clog2(29), clog2(32), clog2(33)),
            (0, 1, 5, 5, 6)
        );
    }
}
