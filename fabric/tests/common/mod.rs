//! What the fabric's end-to-end tests share.

// Each test crate uses a part of it.
#![allow(dead_code)]

use netcoll_models::reduce_alu::{AluOp, Dtype};

/// The fault campaign of the three-level fat tree of radix 8 (edge0, core1): loss, delayed
/// duplicates, a burst of lost EXITs, a tree link flapping and a core dying (a member
/// leaving is added by each test, for its own group).
#[macro_export]
macro_rules! campaign_faults {
    () => {
        "
[[fault]]
kind = 'loss'
rate = 0.02
[[fault]]
kind = 'duplicate'
rate = 0.03
delay = [1, 200]
[[fault]]
kind = 'loss'
rate = 0.2
op = 'EXIT'
from = 20000
until = 40000
[[fault]]
kind = 'link_down'
link = 'edge0:4'
at = 15000
up = 35000
[[fault]]
kind = 'switch_down'
switch = 'core1'
at = 50000
"
    };
}

/// Element `e` of a vector (32-bit types: two elements a word, the low one first), as a
/// signed or unsigned 64-bit integer.
pub fn elements(words: &[u64], dtype: Dtype) -> Vec<i128> {
    let mut v = vec![];
    for &w in words {
        match dtype {
            Dtype::I64 => v.push(w as i64 as i128),
            Dtype::U64 => v.push(w as i128),
            Dtype::I32 => {
                v.push(w as u32 as i32 as i128);
                v.push((w >> 32) as u32 as i32 as i128);
            }
            Dtype::U32 => {
                v.push(w as u32 as i128);
                v.push((w >> 32) as u32 as i128);
            }
            other => panic!("{other}: the fabric reduces the integer types only"),
        }
    }
    v
}

/// The inverse of [`elements`] (values taken modulo the element's width).
pub fn words_of(elems: &[i128], dtype: Dtype) -> Vec<u64> {
    match dtype.bits() {
        64 => elems.iter().map(|&e| e as u64).collect(),
        _ => elems
            .chunks(2)
            .map(|p| (p[0] as u64 & 0xFFFF_FFFF) | ((p[1] as u64 & 0xFFFF_FFFF) << 32))
            .collect(),
    }
}

/// The reduction of `vectors` (one per member) from MPI's definitions, over all members at
/// once: sums and products modulo the element width, MAX / MIN as the extreme value, the
/// logical operations as "all / any / an odd number of them are non-zero", MAXLOC / MINLOC as
/// the extreme value with the lowest index among those that hold it (values in even words,
/// indices in odd ones, element by element).
pub fn reference(op: AluOp, dtype: Dtype, vectors: &[Vec<u64>]) -> Vec<u64> {
    let per: Vec<Vec<i128>> = vectors.iter().map(|v| elements(v, dtype)).collect();
    let modulo = |x: i128| -> i128 {
        let m = 1i128 << dtype.bits();
        let r = x.rem_euclid(m);
        if dtype.is_signed() && r >= m / 2 {
            r - m
        } else {
            r
        }
    };
    let n = per[0].len();
    let column = |i: usize| per.iter().map(move |v| v[i]);
    if op.is_loc() {
        // Elements alternate value words and index words: with 32-bit types, word 2j holds
        // values 2·(2j) and 2·(2j)+1, word 2j+1 their indices.
        let (vals_per_word, mut out) = ((64 / dtype.bits()) as usize, vec![0i128; n]);
        for w in (0..n / vals_per_word).step_by(2) {
            for h in 0..vals_per_word {
                let (vi, ii) = (w * vals_per_word + h, (w + 1) * vals_per_word + h);
                let values: Vec<i128> = column(vi).collect();
                let best = if op == AluOp::MaxLoc {
                    *values.iter().max().unwrap()
                } else {
                    *values.iter().min().unwrap()
                };
                // Indices compare as unsigned words of the element's width.
                let index = per
                    .iter()
                    .filter(|v| v[vi] == best)
                    .map(|v| (v[ii] as u64) & dtype.mask())
                    .min()
                    .unwrap();
                out[vi] = best;
                out[ii] = index as i128;
            }
        }
        return words_of(&out, dtype);
    }
    let out: Vec<i128> = (0..n)
        .map(|i| match op {
            AluOp::Sum => modulo(column(i).sum()),
            AluOp::Prod => column(i).fold(1i128, |a, b| modulo(a * b)),
            AluOp::Max => column(i).max().unwrap(),
            AluOp::Min => column(i).min().unwrap(),
            AluOp::LAnd => column(i).all(|x| x != 0) as i128,
            AluOp::LOr => column(i).any(|x| x != 0) as i128,
            AluOp::LXor => (column(i).filter(|&x| x != 0).count() % 2) as i128,
            AluOp::BAnd => column(i).fold(-1i128, |a, b| a & b),
            AluOp::BOr => column(i).fold(0, |a, b| a | b),
            AluOp::BXor => column(i).fold(0, |a, b| a ^ b),
            _ => unreachable!(),
        })
        .collect();
    words_of(&out, dtype)
}
