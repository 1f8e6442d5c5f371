//! What decoding one file may cost. Pixels: a header claiming 100000×100000 is refused before
//! anything is allocated from it. Time: a file that would take many seconds (a bomb of
//! compressed zeros, a stream of thousands of scans) is cut off with an error, so one hostile
//! file cannot hold a thumbnail worker. Our own decoders check the clock as they go; the
//! general decoders read through [`Timed`], which fails their next read once time is up.

use std::io::{BufRead, Read, Seek, SeekFrom};
use std::time::{Duration, Instant};

/// The largest image decoded (a 100 MP frame has room).
pub const MAX_PIXELS: u64 = 200_000_000;

/// How long one file may take to decode. A 100 MP JPEG decodes in about a second on one core
/// of a laptop; ten is a hostile file, or a machine too busy to cull on.
pub const MAX_DECODE_TIME: Duration = Duration::from_secs(10);

/// Progressive scans one JPEG may have. Real encoders write about ten; a file of thousands
/// makes the decoder pass over its coefficients thousands of times (libjpeg-turbo's advice is to
/// cap them, and the cap is its own defence: its decode cannot be interrupted from outside).
pub const MAX_SCANS: u32 = 100;

/// Reads handed to a general decoder at most this many bytes at a time, so it comes back to
/// [`Timed`] (and its clock) often even when the whole file is in memory.
const CHUNK: usize = 64 * 1024;

/// The clock is read once per this many reads: `jpeg-decoder` reads a byte at a time, and a
/// clock read per byte would cost more than the decode.
const READS_PER_CHECK: u32 = 256;

#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub max_pixels: u64,
    pub max_scans: u32,
    limit: Duration,
    started: Instant,
}

impl Budget {
    /// The defaults, the clock starting now.
    pub fn start() -> Self {
        Budget::new(MAX_PIXELS, MAX_DECODE_TIME)
    }

    pub fn new(max_pixels: u64, limit: Duration) -> Self {
        Budget {
            max_pixels,
            max_scans: MAX_SCANS,
            limit,
            started: Instant::now(),
        }
    }

    /// The same budget with at most `scans` progressive scans a JPEG.
    pub fn with_max_scans(self, scans: u32) -> Self {
        Budget {
            max_scans: scans,
            ..self
        }
    }

    /// Does a `width`×`height` image fit the pixel budget?
    pub fn fits(&self, width: u64, height: u64) -> bool {
        width
            .checked_mul(height)
            .is_some_and(|n| n <= self.max_pixels)
    }

    /// Is the time up?
    pub fn over(&self) -> bool {
        self.started.elapsed() > self.limit
    }

    pub fn limit(&self) -> Duration {
        self.limit
    }

    /// What a cut-off decode says.
    pub fn cut_off(&self) -> String {
        format!(
            "decoding was cut off after {:.1} s (the limit for one file)",
            self.limit.as_secs_f32()
        )
    }

    /// An I/O error for a reader to return once time is up.
    fn timed_out(&self) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::TimedOut, self.cut_off())
    }
}

/// A reader that fails once its budget's time is up, in small reads.
pub struct Timed<R> {
    inner: R,
    budget: Budget,
    reads: u32,
}

impl<R> Timed<R> {
    pub fn new(inner: R, budget: Budget) -> Self {
        Timed {
            inner,
            budget,
            reads: 0,
        }
    }

    fn check(&mut self) -> std::io::Result<()> {
        self.reads = self.reads.wrapping_add(1);
        if self.reads % READS_PER_CHECK == 1 && self.budget.over() {
            return Err(self.budget.timed_out());
        }
        Ok(())
    }
}

impl<R: Read> Read for Timed<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.check()?;
        let n = buf.len().min(CHUNK);
        self.inner.read(&mut buf[..n])
    }
}

impl<R: BufRead> BufRead for Timed<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.check()?;
        let buf = self.inner.fill_buf()?;
        Ok(&buf[..buf.len().min(CHUNK)])
    }

    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount);
    }
}

impl<R: Seek> Seek for Timed<R> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}
