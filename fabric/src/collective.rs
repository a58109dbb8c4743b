//! # Reductions in the fabric: what a group computes and what each member contributes
//!
//! A group's collective is a barrier, or a reduction the switches aggregate (see
//! "Reductions" in `netcoll_models::switch_engine`):
//!
//! - **allreduce**: every member contributes a vector of `words` 64-bit words and every member
//!   receives the element-wise reduction of all of them under `op` over `dtype`;
//! - **reduce**: the same, for the `root` member (the others receive it too, as the tree sends
//!   it to everyone, and do not use it);
//! - **broadcast**: the `root` member's vector reaches every member (the others contribute
//!   zeros and the switches combine with BOR).
//!
//! A vector longer than one packet is cut into **chunks** of `chunk` words (the last one
//! shorter); each chunk is a transaction of its own, and a member keeps `window` chunks in
//! flight, chunk `c` on the `c mod window`-th CGID of the group's pool (the subnet manager
//! allocates the pool at join time, among the groups with data memory, `[switch] slots`).
//! When a chunk's result comes back the member sends the chunk `window` further on, on the
//! same CGID; an operation ends, for a member, when every chunk's result has come back.
//!
//! **Contributions** are seeded, so that anyone can recompute them: word `i` of member `n`'s
//! vector in operation `k` of group `g` is [`contribution`]`(seed, g, n, k, i)`, SplitMix64 of
//! a mix of the five (see the function). A check needs no copy of what the nodes sent.
//!
//! **Floating-point types** (`dtype` `f16`, `bf16`, `f32`, `f64` with MAX … PROD; the switches
//! need `[switch] fp = 1`): word `i` is [`fp_word`]`(t, contribution(…))`, elements of
//! [`fp_element`] in the engine's layout (the odd words of MAXLOC / MINLOC stay indices). MIN,
//! MAX, MINLOC and MAXLOC are order-free and checked like the integer operations. SUM and PROD
//! round at every step, so their bits depend on the order the switches combined in
//! ([`Reduction::order_dependent`]): the checker takes the first member's result as the one
//! every other member must receive, and checks a SUM against the error bound of any order
//! ([`Reduction::sum_outside_bound`]).
//!
//! **REPRO** (`op = "REPRO"`, `dtype` one of `f16`, `bf16`, `f32`, `f64`): a reproducible
//! floating-point allreduce, the exact sum of every member's elements rounded once (see
//! `netcoll_models::reduce_alu::repro`). A member's vector is `words / E` elements, each sent
//! as its REPRO partial of `E` = 8 (`f16`), 15 (`bf16`, `f32`) or 72 (`f64`) words; the
//! switches combine the words with SUM over U64 (the packets say `rop = SUM`,
//! `dtype = u64`), which is exact and order-free in that format; each member rounds the
//! result words back to elements ([`Reduction::result`]). `words` and `chunk` count words on
//! the wire and are multiples of `E`. Element `e` of member `n`'s vector in operation `k` is
//! [`fp_element`]`(t, contribution(seed, g, n, k, e))`.
//!
//! **Results** are checked by the safety checker as they arrive: each member reports a digest
//! (FNV-1a over the words) of every chunk result it receives, and the checker compares it
//! with the digest of the fold it computes itself from the contributions (with the engine's
//! element rule, `netcoll_models::switch_engine::golden::reduce_into`); for REPRO the digest
//! of the rounded elements, against the exact sum of the members' elements rounded by the
//! big-integer golden (`netcoll_models::reduce_alu::repro::repro_sum`). An operation during
//! which the group's members changed (one left, or could no longer be reached) is not
//! checked: which contributions its result holds depends on when the tree was rebuilt.

use netcoll_models::reduce_alu::fp::FpType;
use netcoll_models::reduce_alu::fp_bits::{repro_contribution, repro_round};
use netcoll_models::reduce_alu::repro::{repro_sum, ReproPartial};
use netcoll_models::reduce_alu::{AluOp, Dtype};
use netcoll_models::switch_engine::golden::reduce_into;

/// What a group does in each of its operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Barrier,
    Reduce(Reduction),
}

/// The three reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    AllReduce,
    Reduce,
    Broadcast,
}

impl Collective {
    /// The collective named `s` (`None` for `barrier`, which is not a reduction).
    pub fn parse(s: &str) -> Option<Option<Collective>> {
        match s {
            "barrier" => Some(None),
            "allreduce" => Some(Some(Collective::AllReduce)),
            "reduce" => Some(Some(Collective::Reduce)),
            "broadcast" => Some(Some(Collective::Broadcast)),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Collective::AllReduce => "allreduce",
            Collective::Reduce => "reduce",
            Collective::Broadcast => "broadcast",
        }
    }
}

/// A reduction group's operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reduction {
    pub collective: Collective,
    /// The switches' operation (BOR for a broadcast, SUM for REPRO).
    pub op: AluOp,
    /// The switches' element type (U64 for REPRO).
    pub dtype: Dtype,
    /// REPRO over this type: the words are REPRO partials of its elements.
    pub repro: Option<FpType>,
    /// 64-bit words of each member's vector.
    pub words: u64,
    /// Words per packet.
    pub chunk: u64,
    /// Chunks in flight: the CGIDs of the group's pool.
    pub window: u64,
    /// reduce / broadcast: the member that receives / sends.
    pub root: usize,
}

impl Reduction {
    /// Chunks of a vector.
    pub fn chunks(&self) -> u64 {
        self.words.div_ceil(self.chunk)
    }

    /// Words per element on the wire (1 but for REPRO, whose elements are partials).
    pub fn element_words(&self) -> u64 {
        self.repro.map_or(1, |t| ReproPartial::wire_words(t) as u64)
    }

    /// The words of chunk `c`: `(first word, words)`.
    pub fn chunk_span(&self, c: u64) -> (u64, u64) {
        let first = c * self.chunk;
        (first, self.chunk.min(self.words - first))
    }

    /// What member `node` contributes to chunk `c` of operation `k` of group `group`.
    pub fn contribution_chunk(
        &self,
        seed: u64,
        group: usize,
        node: usize,
        k: u64,
        c: u64,
    ) -> Vec<u64> {
        let (first, n) = self.chunk_span(c);
        if self.collective == Collective::Broadcast && node != self.root {
            return vec![0; n as usize];
        }
        match self.repro {
            None => (first..first + n)
                .map(|i| {
                    let c = contribution(seed, group, node, k, i);
                    match self.dtype.fp() {
                        // MAXLOC / MINLOC: the odd words are indices.
                        Some(_) if self.op.is_loc() && i % 2 == 1 => c,
                        Some(t) => fp_word(t, c),
                        None => c,
                    }
                })
                .collect(),
            Some(t) => self
                .chunk_elements(c)
                .flat_map(|e| {
                    repro_contribution(t, fp_element(t, contribution(seed, group, node, k, e)))
                })
                .collect(),
        }
    }

    /// The result's bits depend on the order the switches combined in (SUM and PROD over a
    /// floating-point type), so the checker cannot fold its own to compare with.
    pub fn order_dependent(&self) -> bool {
        self.dtype.fp().is_some() && matches!(self.op, AluOp::Sum | AluOp::Prod)
    }

    /// SUM over a floating-point type: the elements of chunk `c` whose result `words` is
    /// farther from the exact sum than any order of additions can make it, `|r − s| ≤
    /// γ(n−1) · Σ|x|` with `γ(k) = k·u / (1 − k·u)` and `u = 2^-p` (`p` the type's
    /// precision), plus half an ulp of slack for the reference's own rounding for F64: as
    /// `(element, result, exact sum)`. Empty for every other reduction.
    pub fn sum_outside_bound(
        &self,
        seed: u64,
        group: usize,
        members: &[usize],
        k: u64,
        c: u64,
        words: &[u64],
    ) -> Vec<(usize, f64, f64)> {
        let Some(t) = self.dtype.fp().filter(|_| self.op == AluOp::Sum) else {
            return vec![];
        };
        let vectors: Vec<Vec<u64>> = members
            .iter()
            .map(|&m| self.contribution_chunk(seed, group, m, k, c))
            .collect();
        let per_word = if t.bits() <= 32 { 2 } else { 1 };
        let element = |w: u64, h: usize| {
            if per_word == 2 {
                (w >> (32 * h)) & t.mask()
            } else {
                w
            }
        };
        let u = (-(t.fraction_bits() as f64 + 1.0)).exp2();
        let ku = (members.len().max(1) - 1) as f64 * u;
        let gamma = ku / (1.0 - ku);
        let mut bad = vec![];
        for (i, &w) in words.iter().enumerate() {
            for h in 0..per_word {
                let xs: Vec<u64> = vectors.iter().map(|v| element(v[i], h)).collect();
                let r = t.value(element(w, h));
                // Exact in f64 for the narrow types (the elements span fewer than 53 bits);
                // F64 from the exact sums, rounded once.
                let (exact, abs, slack) = if t == FpType::F64 {
                    let abs: Vec<u64> = xs.iter().map(|&x| x & !t.sign_bit()).collect();
                    let s = f64::from_bits(repro_sum(t, &xs).bits);
                    (s, f64::from_bits(repro_sum(t, &abs).bits), s.abs() * u)
                } else {
                    let s = xs.iter().map(|&x| t.value(x)).sum::<f64>();
                    let a = xs.iter().map(|&x| t.value(x).abs()).sum::<f64>();
                    (s, a, 0.0)
                };
                if (r - exact).abs() > gamma * abs * (1.0 + 1e-9) + slack {
                    bad.push((i * per_word + h, r, exact));
                }
            }
        }
        bad
    }

    /// REPRO: the indices of the elements chunk `c` carries.
    fn chunk_elements(&self, c: u64) -> std::ops::Range<u64> {
        let (first, n) = self.chunk_span(c);
        let e = self.element_words();
        first / e..(first + n) / e
    }

    /// What a member makes of a chunk result's words: the words, or for REPRO the elements
    /// rounded from their partials (`None`: the words are not whole partials).
    pub fn result(&self, words: &[u64]) -> Option<Vec<u64>> {
        let Some(t) = self.repro else {
            return Some(words.to_vec());
        };
        let e = self.element_words() as usize;
        words.len().is_multiple_of(e).then(|| {
            words
                .chunks(e)
                .map(|partial| repro_round(t, partial).bits)
                .collect()
        })
    }

    /// What every member should make of chunk `c` of operation `k` over `members`
    /// ([`Reduction::result`] of the right words), computed from the contributions: the
    /// fold, or for REPRO the exact sum of the members' elements rounded by the golden.
    pub fn expected_chunk(
        &self,
        seed: u64,
        group: usize,
        members: &[usize],
        k: u64,
        c: u64,
    ) -> Vec<u64> {
        let Some(t) = self.repro else {
            return self.fold_chunk(seed, group, members, k, c);
        };
        self.chunk_elements(c)
            .map(|e| {
                let xs: Vec<u64> = members
                    .iter()
                    .map(|&m| fp_element(t, contribution(seed, group, m, k, e)))
                    .collect();
                repro_sum(t, &xs).bits
            })
            .collect()
    }

    /// The result of chunk `c` of operation `k` over `members`, folded in their order (which
    /// does not matter but for a floating-point SUM or PROD: [`Reduction::order_dependent`]).
    pub fn fold_chunk(
        &self,
        seed: u64,
        group: usize,
        members: &[usize],
        k: u64,
        c: u64,
    ) -> Vec<u64> {
        let mut acc: Option<Vec<u64>> = None;
        for &m in members {
            let words = self.contribution_chunk(seed, group, m, k, c);
            match &mut acc {
                None => acc = Some(words),
                Some(a) => reduce_into(a, &words, self.op.code(), self.dtype.code()),
            }
        }
        acc.unwrap_or_default()
    }

    /// Whether member `node` uses the result (everyone but in a reduce to a root).
    pub fn receives(&self, node: usize) -> bool {
        self.collective != Collective::Reduce || node == self.root
    }
}

/// A floating-point element of type `t` from a random word `r`: `±0` one time in 32, else a
/// normal number between `2^-8` and `2^8` with a random sign and fraction — a window narrow
/// enough that members' values cancel and tie, and wide enough that the order of a plain
/// floating-point sum changes its bits. (Subnormals, infinities and NaNs are covered by the
/// ALU's and REPRO's own tests.)
pub fn fp_element(t: FpType, r: u64) -> u64 {
    let sign = (r >> 63) * t.sign_bit();
    if r.is_multiple_of(32) {
        return sign;
    }
    let f = t.fraction_bits();
    let exponent = (t.bias() as u64 - 8 + (r >> 5) % 16) << f;
    let fraction = mix(r) & ((1 << f) - 1);
    sign | exponent | fraction
}

/// A word of floating-point elements of type `t` from a random word `r`: two in their 32-bit
/// slots for the types of 32 bits or fewer (a 16-bit one in the slot's low half), one for F64.
pub fn fp_word(t: FpType, r: u64) -> u64 {
    if t.bits() <= 32 {
        fp_element(t, r) | fp_element(t, mix(r ^ 0x5107)) << 32
    } else {
        fp_element(t, r)
    }
}

/// SplitMix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Word `i` of member `node`'s vector in operation `k` of group `group`, for the run's `seed`:
/// `mix(seed + 0x9e3779b97f4a7c15 · (1 + mix(group · 2^48 + node · 2^24 + k) + i))` with
/// SplitMix64's finaliser `mix` (wrapping arithmetic throughout).
pub fn contribution(seed: u64, group: usize, node: usize, k: u64, i: u64) -> u64 {
    let stream = mix(((group as u64) << 48) ^ ((node as u64) << 24) ^ k);
    mix(seed.wrapping_add(
        0x9e37_79b9_7f4a_7c15u64.wrapping_mul(stream.wrapping_add(1).wrapping_add(i)),
    ))
}

/// FNV-1a over the words' little-endian bytes: what a member reports of a chunk result.
pub fn digest(words: &[u64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_vector() {
        let r = Reduction {
            collective: Collective::AllReduce,
            op: AluOp::Sum,
            dtype: Dtype::I64,
            words: 70,
            chunk: 32,
            window: 2,
            root: 0,
            repro: None,
        };
        assert_eq!(r.chunks(), 3);
        assert_eq!(
            (0..3).map(|c| r.chunk_span(c)).collect::<Vec<_>>(),
            [(0, 32), (32, 32), (64, 6)]
        );
    }

    #[test]
    fn contributions_differ_by_member_operation_and_word() {
        let a = contribution(1, 0, 0, 0, 0);
        for other in [
            contribution(1, 0, 0, 0, 1),
            contribution(1, 0, 1, 0, 0),
            contribution(1, 0, 0, 1, 0),
            contribution(1, 1, 0, 0, 0),
            contribution(2, 0, 0, 0, 0),
        ] {
            assert_ne!(a, other);
        }
        // Pinned, so that a change of the formula is a change of the documented behaviour.
        assert_eq!(
            contribution(0, 0, 0, 0, 0),
            mix(0x9e37_79b9_7f4a_7c15u64.wrapping_mul(mix(0) + 1))
        );
    }

    #[test]
    fn the_digest_is_fnv1a() {
        // FNV-1a 64 of eight zero bytes, and of the bytes 01 00 00 00 00 00 00 00.
        assert_eq!(digest(&[0]), 0xa8c7_f832_281a_39c5);
        assert_eq!(digest(&[1]), 0x89cd_3129_1d2a_efa4);
        assert_eq!(digest(&[]), 0xcbf2_9ce4_8422_2325);
    }

    /// The SUM bound holds for a sequential fold in either order and fails for a result a
    /// hundred units in the last place off, for a narrow type and F64.
    #[test]
    fn the_sum_bound_takes_any_order_and_nothing_more() {
        for (dtype, t) in [(Dtype::F32, FpType::F32), (Dtype::F64, FpType::F64)] {
            let r = Reduction {
                collective: Collective::AllReduce,
                op: AluOp::Sum,
                dtype,
                words: 4,
                chunk: 4,
                window: 1,
                root: 0,
                repro: None,
            };
            let members: Vec<usize> = (0..12).collect();
            let vectors: Vec<Vec<u64>> = members
                .iter()
                .map(|&m| r.contribution_chunk(7, 0, m, 0, 0))
                .collect();
            let fold = |order: &mut dyn Iterator<Item = &Vec<u64>>| {
                let mut acc: Option<Vec<u64>> = None;
                for v in order {
                    match &mut acc {
                        None => acc = Some(v.clone()),
                        Some(a) => reduce_into(a, v, AluOp::Sum.code(), dtype.code()),
                    }
                }
                acc.expect("members")
            };
            for words in [fold(&mut vectors.iter()), fold(&mut vectors.iter().rev())] {
                assert_eq!(r.sum_outside_bound(7, 0, &members, 0, 0, &words), vec![]);
                // 100 ulps off in the low element of word 2.
                let mut off = words.clone();
                off[2] = off[2].wrapping_add(100);
                assert_eq!(
                    r.sum_outside_bound(7, 0, &members, 0, 0, &off).len(),
                    1,
                    "{t:?}"
                );
            }
        }
    }
}
