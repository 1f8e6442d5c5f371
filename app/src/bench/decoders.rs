//! `darkroom bench-decoders DIR`: every JPEG decoder DarkRoom could use, on the same files in
//! memory, one thread (but for the banded decode, a thread per core), at ⅛, ¼, ½ and full scale, alternated round by round so the machine's
//! noise hits all of them. libjpeg-turbo (`library::jpeg`, what every path uses) against
//! `jpeg-decoder` (DCT scaling at the four scales), `zune-jpeg` (the `image` crate's decoder,
//! full scale only) and our DC-only `jpeg_dc` (⅛ only). The table goes in docs/PERFORMANCE.md.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub struct Args {
    dir: PathBuf,
    /// Rounds of every decoder at every scale; the best round of each is reported.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// At most this many files of the folder (sorted by name).
    #[arg(long, default_value_t = 40)]
    photos: usize,
    #[arg(long)]
    json: bool,
}

/// The scales as eighths: ⅛, ¼, ½, 1.
const EIGHTHS: [u32; 4] = [1, 2, 4, 8];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
enum Contender {
    LibjpegTurbo,
    /// Full scale, its rows in a band per core at once (the loupe's full resolution).
    LibjpegTurboBands,
    /// Only the last 16 rows: the rest skipped, which is what a lower band pays for the rows
    /// above it (`jpeg::SKIP_COST` is this time over a whole decode).
    LibjpegTurboSkip,
    JpegDecoder,
    Zune,
    JpegDc,
}

impl Contender {
    const ALL: [Contender; 6] = [
        Contender::LibjpegTurbo,
        Contender::LibjpegTurboBands,
        Contender::LibjpegTurboSkip,
        Contender::JpegDecoder,
        Contender::Zune,
        Contender::JpegDc,
    ];

    fn name(self) -> &'static str {
        match self {
            Contender::LibjpegTurbo => "libjpeg-turbo 3.1 (turbojpeg)",
            Contender::LibjpegTurboBands => "libjpeg-turbo, a band of rows per core",
            Contender::LibjpegTurboSkip => "libjpeg-turbo, the last 16 rows (skipping the rest)",
            Contender::JpegDecoder => "jpeg-decoder 0.3",
            Contender::Zune => "zune-jpeg (image 0.25)",
            Contender::JpegDc => "jpeg_dc (ours, DC only)",
        }
    }

    fn scales(self, eighths: u32) -> bool {
        match self {
            Contender::LibjpegTurbo | Contender::JpegDecoder => true,
            Contender::Zune | Contender::LibjpegTurboBands | Contender::LibjpegTurboSkip => {
                eighths == 8
            }
            Contender::JpegDc => eighths == 1,
        }
    }

    /// Decode `bytes` at `eighths`/8 of its size; the number of pixels made.
    fn decode(self, bytes: &[u8], eighths: u32) -> anyhow::Result<usize> {
        let budget = darkroom_library::Budget::start();
        let at = |n: u32| (u64::from(n) * u64::from(eighths)).div_ceil(8);
        match self {
            Contender::LibjpegTurbo => {
                let s = darkroom_library::jpeg::decode(bytes, &budget, |w, h| {
                    (at(w) as u32, at(h) as u32)
                })
                .context("libjpeg-turbo declined")?;
                Ok(s.image.width() as usize * s.image.height() as usize)
            }
            Contender::LibjpegTurboBands => {
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                let s = darkroom_library::jpeg::decode_full_in_bands(bytes, &budget, cores)
                    .context("libjpeg-turbo declined")?;
                Ok(s.image.width() as usize * s.image.height() as usize)
            }
            Contender::LibjpegTurboSkip => {
                let (_, h) = darkroom_library::jpeg::stored_size(bytes).context("no header")?;
                let last = h.saturating_sub(16)..h;
                let band = darkroom_library::jpeg::decode_band(bytes, &budget, last)
                    .context("libjpeg-turbo declined the last rows")?;
                Ok(band.width() as usize * band.height() as usize)
            }
            Contender::JpegDecoder => {
                let mut d = jpeg_decoder::Decoder::new(std::io::Cursor::new(bytes));
                d.read_info()?;
                let info = d.info().context("no header")?;
                let (w, h) = (u32::from(info.width), u32::from(info.height));
                d.scale(at(w) as u16, at(h) as u16)?;
                let pixels = d.decode()?;
                Ok(pixels.len() / 3)
            }
            Contender::Zune => {
                let img = image::load_from_memory_with_format(bytes, image::ImageFormat::Jpeg)?;
                Ok(img.width() as usize * img.height() as usize)
            }
            Contender::JpegDc => {
                let rgb = darkroom_library::jpeg_dc::decode(bytes, 1, &budget)
                    .map_err(|e| anyhow::anyhow!("{e:?}"))?
                    .context("jpeg_dc declined")?;
                Ok(rgb.width() as usize * rgb.height() as usize)
            }
        }
    }
}

#[derive(Serialize)]
struct Row {
    scale: String,
    decoder: &'static str,
    ms_per_photo: f64,
    megapixels_out_per_s: f64,
    /// This decoder's time over libjpeg-turbo's at the same scale.
    times_libjpeg_turbo: f64,
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(&a.dir)
        .with_context(|| format!("cannot list {}", a.dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| darkroom_library::formats::is_jpeg(p))
        .collect();
    files.sort();
    files.truncate(a.photos);
    anyhow::ensure!(!files.is_empty(), "no JPEG in {}", a.dir.display());
    let photos: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).with_context(|| format!("cannot read {}", f.display())))
        .collect::<anyhow::Result<_>>()?;
    let cases: Vec<(u32, Contender)> = EIGHTHS
        .iter()
        .flat_map(|&e| {
            Contender::ALL
                .into_iter()
                .filter(move |d| d.scales(e))
                .map(move |d| (e, d))
        })
        .collect();
    // Best round of each case: seconds for the whole set, and the pixels it made.
    let mut best = vec![(f64::INFINITY, 0usize); cases.len()];
    for round in 0..a.rounds.max(1) {
        for (i, &(eighths, decoder)) in cases.iter().enumerate() {
            let started = Instant::now();
            let mut pixels = 0;
            for (bytes, file) in photos.iter().zip(&files) {
                pixels += decoder.decode(bytes, eighths).with_context(|| {
                    format!("{} at {eighths}/8: {}", decoder.name(), file.display())
                })?;
            }
            let secs = started.elapsed().as_secs_f64();
            if secs < best[i].0 {
                best[i] = (secs, pixels);
            }
        }
        eprintln!("round {} of {} done", round + 1, a.rounds.max(1));
    }
    let turbo = |eighths: u32| {
        cases
            .iter()
            .position(|&c| c == (eighths, Contender::LibjpegTurbo))
            .map_or(f64::NAN, |i| best[i].0)
    };
    let rows: Vec<Row> = cases
        .iter()
        .zip(&best)
        .map(|(&(eighths, decoder), &(secs, pixels))| Row {
            scale: scale_name(eighths).to_owned(),
            decoder: decoder.name(),
            ms_per_photo: secs * 1000.0 / photos.len() as f64,
            megapixels_out_per_s: pixels as f64 / secs / 1e6,
            times_libjpeg_turbo: secs / turbo(eighths),
        })
        .collect();
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        println!(
            "{} JPEGs from {}, one thread (bands: one a core), best of {} rounds",
            photos.len(),
            a.dir.display(),
            a.rounds.max(1)
        );
        println!("| scale | decoder | ms a photo | Mpx out/s | time ÷ libjpeg-turbo's |");
        println!("|---|---|---|---|---|");
        for r in &rows {
            println!(
                "| {} | {} | {:.1} | {:.1} | {:.2}× |",
                r.scale, r.decoder, r.ms_per_photo, r.megapixels_out_per_s, r.times_libjpeg_turbo
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn scale_name(eighths: u32) -> &'static str {
    match eighths {
        1 => "⅛",
        2 => "¼",
        4 => "½",
        _ => "1",
    }
}
