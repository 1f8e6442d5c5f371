//! Deterministic mutation: one state in, one input out.

/// xorshift64*: small, fast, and every state but 0 is valid.
#[derive(Debug, Clone, Copy)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// Values that sit on the edges of what parsers compare against.
const INTERESTING: &[u32] = &[
    0,
    1,
    2,
    7,
    8,
    0x10,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x1_0000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFE,
    0xFFFF_FFFF,
];

/// The largest input made: mutations that grow a file stop here.
pub const MAX_INPUT: usize = 4 << 20;

/// An input from the seeds: one seed (sometimes spliced with another), then 1 to 8 mutations.
pub fn input(seeds: &[Vec<u8>], state: u64) -> Vec<u8> {
    let mut rng = Rng(state | 1);
    let mut data = seeds[rng.below(seeds.len())].clone();
    if rng.below(8) == 0 {
        let other = &seeds[rng.below(seeds.len())];
        let at = rng.below(data.len() + 1);
        let from = rng.below(other.len() + 1);
        data.truncate(at);
        data.extend_from_slice(&other[from..]);
    }
    for _ in 0..1 + rng.below(8) {
        mutate_once(&mut data, &mut rng);
    }
    data.truncate(MAX_INPUT);
    data
}

fn mutate_once(data: &mut Vec<u8>, rng: &mut Rng) {
    if data.is_empty() {
        data.push(rng.next_u64() as u8);
        return;
    }
    let len = data.len();
    let at = rng.below(len);
    match rng.below(10) {
        0 => data[at] ^= 1 << rng.below(8),
        1 => data[at] = rng.next_u64() as u8,
        // An interesting value, 1, 2 or 4 bytes wide, either byte order.
        2 | 3 => {
            let v = INTERESTING[rng.below(INTERESTING.len())];
            let width = [1usize, 2, 4][rng.below(3)];
            let bytes = if rng.below(2) == 0 {
                v.to_le_bytes()
            } else {
                v.to_be_bytes()
            };
            let bytes = if rng.below(2) == 0 {
                &bytes[..width]
            } else {
                &bytes[4 - width..]
            };
            for (i, b) in bytes.iter().enumerate() {
                if let Some(slot) = data.get_mut(at + i) {
                    *slot = *b;
                }
            }
        }
        // A small delta on a byte (lengths, counts, offsets off by a little).
        4 => data[at] = data[at].wrapping_add((rng.below(33) as u8).wrapping_sub(16)),
        5 => {
            let n = 1 + rng.below((len - at).min(256));
            data.drain(at..at + n);
        }
        6 => {
            let n = 1 + rng.below((len - at).min(256));
            let chunk = data[at..at + n].to_vec();
            let to = rng.below(len);
            data.splice(to..to, chunk);
        }
        7 => {
            let n = 1 + rng.below(16);
            let to = rng.below(len + 1);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            data.splice(to..to, bytes);
        }
        8 => data.truncate(at.max(1)),
        // Overwrite with a copy of another part of the file (a marker, a header, a tag).
        _ => {
            let n = 1 + rng.below(32);
            let from = rng.below(len);
            let chunk: Vec<u8> = data[from..(from + n).min(len)].to_vec();
            for (i, b) in chunk.into_iter().enumerate() {
                if let Some(slot) = data.get_mut(at + i) {
                    *slot = b;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_is_a_function_of_its_state() {
        let seeds = vec![b"II*\0\x08\0\0\0".to_vec(), vec![0xFF, 0xD8, 0xFF, 0xD9]];
        for state in [1u64, 2, 99, u64::MAX] {
            assert_eq!(input(&seeds, state), input(&seeds, state));
        }
        let distinct: std::collections::HashSet<Vec<u8>> =
            (1..200u64).map(|s| input(&seeds, s * 7919)).collect();
        assert!(distinct.len() > 100, "mutations vary: {}", distinct.len());
    }
}
