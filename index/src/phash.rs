//! A 64-bit perceptual hash (DCT pHash): luma at 32×32, a 2-D DCT, the 8×8 lowest frequencies
//! against their median. Near-identical frames (a burst) differ in a few bits; different scenes
//! in about half of them.

use image::{GrayImage, RgbImage};

use crate::luma;

const N: usize = 32;

pub fn hash(rgb: &RgbImage) -> u64 {
    hash_luma(&luma::of(rgb))
}

/// As [`hash`], from the photo's luma.
pub fn hash_luma(g: &GrayImage) -> u64 {
    let small = luma::resize(g, N as u32, N as u32);
    let px: Vec<f32> = small.as_raw().iter().map(|&v| f32::from(v)).collect();
    // cos table: c[u][x] = cos((2x + 1) u π / 2N), for the 8 lowest u.
    let mut c = [[0f32; N]; 8];
    for (u, row) in c.iter_mut().enumerate() {
        for (x, v) in row.iter_mut().enumerate() {
            *v = (((2 * x + 1) * u) as f32 * std::f32::consts::PI / (2 * N) as f32).cos();
        }
    }
    // Rows first (8 frequencies per row), then columns.
    let mut rows = [[0f32; 8]; N];
    for (y, out) in rows.iter_mut().enumerate() {
        for (u, cu) in c.iter().enumerate() {
            out[u] = (0..N).map(|x| px[y * N + x] * cu[x]).sum();
        }
    }
    let mut coef = [0f32; 64];
    for v in 0..8 {
        for u in 0..8 {
            coef[v * 8 + u] = (0..N).map(|y| rows[y][u] * c[v][y]).sum();
        }
    }
    // The median leaves out the DC term, which only says how bright the frame is.
    let mut sorted: Vec<f32> = coef[1..].to_vec();
    sorted.sort_by(f32::total_cmp);
    let median = sorted[sorted.len() / 2];
    coef.iter()
        .enumerate()
        .fold(0u64, |h, (i, &v)| if v > median { h | 1 << i } else { h })
}

pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}
