//! `darkroom bench-shoot`: scenes, sets and misfires measured on a shoot whose truth is known.
//! The shoot is made from real photos, as a photographer's card would hold it: a posed group
//! over twenty seconds (crops that step aside and lean in, a ceremony moment from two
//! positions), a burst of near-duplicates, an exposure bracket (the same frame at −2/0/+2 EV,
//! EXIF saying so), a panorama sweep (overlapping crops), misfires (a lens cap, a frame blown
//! white, the ground out of focus), and scenes that follow each other within seconds or come
//! back to a subject an hour later. Every frame is a JPEG with the EXIF a camera writes
//! (capture time with sub-seconds, exposure, aperture, ISO, bias, exposure mode).
//!
//! It is indexed by `darkroom index` (a child process, the real models), then grouped and
//! proposed at the default controls and across each control's range, and scored: the adjusted
//! Rand index of scenes against the truth, bracket and pan frames proposed for rejection (none
//! is the bar), misfires found.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use darkroom_catalog::{Catalog, Decision, Flag};
use darkroom_index::proposal::{self, Candidate, ProposalRules, ReasonKind, Strictness};
use darkroom_index::scenes::{self, SceneRules};
use darkroom_index::sets::SetKind;
use image::{RgbImage, imageops};
use serde::{Deserialize, Serialize};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder of source photos (the fetched sample photos: assets-cache/photos).
    #[arg(long)]
    pub photos: PathBuf,
    /// Make the shoot and its catalog here and keep them (default: a temporary folder).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long)]
    pub models: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The long edge of every frame made.
const FRAME_SIDE: u32 = 960;

/// What a frame is made of.
#[derive(Debug, Clone, Copy)]
enum Make {
    /// A crop of the source: left, top, width, height as shares of it; a brightness factor;
    /// noise seed (a new frame of the same moment).
    Crop {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        gain: f32,
        seed: u32,
    },
    /// The whole source at an exposure of `ev` stops (in linear light), as a bracket shoots it.
    Exposed { ev: f32 },
    /// A lens cap: black with sensor noise.
    Black,
    /// Blown white, the faint shape of the scene left.
    White,
    /// The ground at the photographer's feet, far out of focus: the source's bottom, blurred.
    Ground,
}

#[derive(Debug, Clone, Copy)]
struct Spec {
    /// Seconds from the shoot's start.
    t: f64,
    source: &'static str,
    make: Make,
    /// The truth: its scene, its set (kind, number), whether it is a misfire.
    scene: usize,
    set: Option<(SetKind, usize)>,
    misfire: bool,
    /// EXIF exposure bias and whether the camera bracketed it.
    bias: f32,
    bracket: bool,
}

const fn crop(
    t: f64,
    source: &'static str,
    scene: usize,
    x: f32,
    y: f32,
    w: f32,
    seed: u32,
) -> Spec {
    Spec {
        t,
        source,
        make: Make::Crop {
            x,
            y,
            w,
            h: w,
            gain: 1.0 + (seed % 5) as f32 * 0.015 - 0.03,
            seed,
        },
        scene,
        set: None,
        misfire: false,
        bias: 0.0,
        bracket: false,
    }
}

const fn misfire(t: f64, source: &'static str, scene: usize, make: Make) -> Spec {
    Spec {
        t,
        source,
        make,
        scene,
        set: None,
        misfire: true,
        bias: 0.0,
        bracket: false,
    }
}

const fn bracketed(t: f64, source: &'static str, scene: usize, ev: f32) -> Spec {
    Spec {
        t,
        source,
        make: Make::Exposed { ev },
        scene,
        set: Some((SetKind::Bracket, 0)),
        misfire: false,
        bias: ev,
        bracket: true,
    }
}

const fn panned(t: f64, source: &'static str, scene: usize, x: f32) -> Spec {
    Spec {
        t,
        source,
        make: Make::Crop {
            x,
            y: 0.0,
            w: 0.5,
            h: 1.0,
            gain: 1.0,
            seed: 90,
        },
        scene,
        set: Some((SetKind::Pan, 1)),
        misfire: false,
        bias: 0.0,
        bracket: false,
    }
}

const GROUP: &str = "solvay_conference_1927.jpg";
const HOPPER: &str = "grace_hopper.jpg";
const ASTRONAUT: &str = "astronaut.png";
const CAT: &str = "chelsea.png";
const COFFEE: &str = "coffee.png";
const ROCKET: &str = "rocket.jpg";

/// The shoot, in the order it was taken.
const SHOOT: &[Spec] = &[
    // A posed group over twenty seconds: the photographer leans in and steps aside.
    crop(0.0, GROUP, 0, 0.0, 0.0, 0.92, 1),
    crop(4.0, GROUP, 0, 0.04, 0.02, 0.92, 2),
    crop(9.0, GROUP, 0, 0.08, 0.0, 0.9, 3),
    misfire(11.0, GROUP, 0, Make::Black),
    crop(15.0, GROUP, 0, 0.02, 0.04, 0.94, 4),
    crop(21.0, GROUP, 0, 0.06, 0.03, 0.88, 5),
    // The same moment from two positions.
    crop(26.0, GROUP, 0, 0.25, 0.1, 0.75, 6),
    crop(29.0, GROUP, 0, 0.0, 0.1, 0.75, 7),
    // Forty seconds later, a portrait: a burst of near-duplicates, then a step aside.
    crop(69.0, HOPPER, 1, 0.05, 0.05, 0.9, 8),
    crop(69.4, HOPPER, 1, 0.05, 0.05, 0.9, 9),
    crop(69.8, HOPPER, 1, 0.06, 0.05, 0.9, 10),
    crop(78.0, HOPPER, 1, 0.0, 0.02, 0.88, 11),
    // An exposure bracket between two frames of the same set-up.
    crop(150.0, ASTRONAUT, 2, 0.02, 0.02, 0.95, 12),
    bracketed(155.0, ASTRONAUT, 2, 0.0),
    bracketed(155.3, ASTRONAUT, 2, -2.0),
    bracketed(155.6, ASTRONAUT, 2, 2.0),
    crop(162.0, ASTRONAUT, 2, 0.0, 0.04, 0.93, 13),
    // A panorama sweep, three frames overlapping by half.
    panned(400.0, CAT, 3, 0.0),
    panned(401.0, CAT, 3, 0.25),
    panned(402.0, CAT, 3, 0.5),
    // Eighteen seconds on, another table; the camera blown white once.
    crop(420.0, COFFEE, 4, 0.0, 0.0, 0.95, 14),
    crop(423.0, COFFEE, 4, 0.03, 0.02, 0.95, 15),
    misfire(425.0, COFFEE, 4, Make::White),
    crop(427.0, COFFEE, 4, 0.05, 0.0, 0.92, 16),
    // Minutes later, outside; a frame of the ground fired walking.
    crop(800.0, ROCKET, 5, 0.0, 0.0, 0.95, 17),
    crop(804.0, ROCKET, 5, 0.03, 0.02, 0.95, 18),
    misfire(806.0, ROCKET, 5, Make::Ground),
    crop(809.0, ROCKET, 5, 0.0, 0.05, 0.92, 19),
    // Back to the portrait an hour later: alike, but another scene.
    crop(4400.0, HOPPER, 6, 0.02, 0.02, 0.92, 20),
    crop(4404.0, HOPPER, 6, 0.06, 0.04, 0.9, 21),
];

/// A frame of the shoot as made: its file and its truth.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrueFrame {
    pub file: String,
    pub scene: usize,
    /// "bracket" or "pan" and the set's number.
    pub set: Option<(SetKind, usize)>,
    pub misfire: bool,
}

/// Make the shoot in `dir` from the photos in `photos`; its truth, frame by frame.
pub fn make_shoot(photos: &Path, dir: &Path) -> anyhow::Result<Vec<TrueFrame>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let mut sources: std::collections::HashMap<&str, RgbImage> = Default::default();
    let mut truth = Vec::new();
    for (k, spec) in SHOOT.iter().enumerate() {
        if !sources.contains_key(spec.source) {
            let path = photos.join(spec.source);
            let img = image::open(&path)
                .with_context(|| format!("cannot read the source photo {}", path.display()))?
                .into_rgb8();
            sources.insert(spec.source, img);
        }
        let source = &sources[spec.source];
        let frame = render(source, spec.make);
        let file = format!("DSC_{:04}.jpg", 1000 + k);
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90)
            .encode_image(&frame)
            .context("cannot encode a frame")?;
        let exif = exif_app1(spec);
        // The APP1 goes right after SOI, where cameras put it.
        let mut bytes = Vec::with_capacity(jpeg.len() + exif.len());
        bytes.extend_from_slice(&jpeg[..2]);
        bytes.extend_from_slice(&exif);
        bytes.extend_from_slice(&jpeg[2..]);
        let path = dir.join(&file);
        std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
        truth.push(TrueFrame {
            file,
            scene: spec.scene,
            set: spec.set,
            misfire: spec.misfire,
        });
    }
    Ok(truth)
}

/// A deterministic noise source (a frame made twice is the same bytes).
fn noise(seed: u32, i: u32) -> f32 {
    let mut x = seed.wrapping_mul(0x9E37_79B9) ^ i.wrapping_mul(0x85EB_CA6B);
    x ^= x >> 15;
    x = x.wrapping_mul(0x2C1B_3C6D);
    x ^= x >> 12;
    (x & 0xFFFF) as f32 / 65535.0 - 0.5
}

fn fit(img: &RgbImage) -> RgbImage {
    let (w, h) = img.dimensions();
    let k = FRAME_SIDE as f32 / w.max(h) as f32;
    let (nw, nh) = (
        ((w as f32 * k).round() as u32).max(1),
        ((h as f32 * k).round() as u32).max(1),
    );
    imageops::resize(img, nw, nh, imageops::FilterType::CatmullRom)
}

fn render(src: &RgbImage, make: Make) -> RgbImage {
    let (sw, sh) = (src.width() as f32, src.height() as f32);
    match make {
        Make::Crop {
            x,
            y,
            w,
            h,
            gain,
            seed,
        } => {
            let (cw, ch) = ((sw * w).min(sw), (sh * h).min(sh));
            let (cx, cy) = ((sw * x).min(sw - cw), (sh * y).min(sh - ch));
            let cut =
                imageops::crop_imm(src, cx as u32, cy as u32, cw as u32, ch as u32).to_image();
            let mut out = fit(&cut);
            let width = out.width();
            for (i, p) in out.pixels_mut().enumerate() {
                let n = noise(seed, i as u32 / 3 + width) * 6.0;
                p.0 =
                    p.0.map(|c| (f32::from(c) * gain + n).round().clamp(0.0, 255.0) as u8);
            }
            out
        }
        Make::Exposed { ev } => {
            let mut out = fit(src);
            let k = 2f32.powf(ev);
            let lin = |c: u8| (f32::from(c) / 255.0).powf(2.2);
            for p in out.pixels_mut() {
                p.0 =
                    p.0.map(|c| ((lin(c) * k).min(1.0).powf(1.0 / 2.2) * 255.0).round() as u8);
            }
            out
        }
        Make::Black => {
            let mut out = RgbImage::new(FRAME_SIDE, FRAME_SIDE * 2 / 3);
            for (i, p) in out.pixels_mut().enumerate() {
                let v = (4.0 + noise(7, i as u32) * 5.0).round().clamp(0.0, 255.0) as u8;
                *p = image::Rgb([v, v, v + 1]);
            }
            out
        }
        Make::White => {
            let mut out = fit(src);
            for p in out.pixels_mut() {
                p.0 =
                    p.0.map(|c| (250.0 + f32::from(c) / 255.0 * 5.0).min(255.0) as u8);
            }
            out
        }
        Make::Ground => {
            // The bottom fifth, blurred small and brought up: no detail, little contrast.
            let cut = imageops::crop_imm(src, 0, (sh * 0.8) as u32, sw as u32, (sh * 0.2) as u32)
                .to_image();
            let small = imageops::resize(&cut, 24, 16, imageops::FilterType::Triangle);
            let blurred = imageops::blur(&small, 2.0);
            let mut out = imageops::resize(
                &blurred,
                FRAME_SIDE,
                FRAME_SIDE * 2 / 3,
                imageops::FilterType::Triangle,
            );
            let mean = out.pixels().map(|p| f32::from(p.0[1])).sum::<f32>()
                / (out.width() * out.height()) as f32;
            for p in out.pixels_mut() {
                p.0 =
                    p.0.map(|c| (mean + (f32::from(c) - mean) * 0.4).round() as u8);
            }
            out
        }
    }
}

/// An EXIF APP1 segment as a camera writes one: IFD0 pointing at the EXIF IFD, which holds the
/// exposure time, f-number, ISO, capture time with sub-seconds, exposure bias and mode.
fn exif_app1(spec: &Spec) -> Vec<u8> {
    const BASE: i64 = 14 * 3600; // 14:00:00
    let whole = spec.t.floor() as i64 + BASE;
    let sub = ((spec.t - spec.t.floor()) * 1000.0).round() as u32;
    let date = format!(
        "2026:06:13 {:02}:{:02}:{:02}\0",
        whole / 3600 % 24,
        whole / 60 % 60,
        whole % 60
    );
    let subsec = format!("{sub:03}\0");
    // A bracket steps the shutter: 1/125 s at 0 EV, two stops either way.
    let denom = (125.0 / 2f32.powf(spec.bias)).round() as u32;
    let mut entries: Vec<(u16, u16, u32, Vec<u8>)> = vec![
        (
            0x829A,
            5,
            1,
            [1u32.to_le_bytes(), denom.to_le_bytes()].concat(),
        ),
        (
            0x829D,
            5,
            1,
            [8u32.to_le_bytes(), 2u32.to_le_bytes()].concat(),
        ),
        (0x8827, 3, 1, 100u16.to_le_bytes().to_vec()),
        (0x9003, 2, date.len() as u32, date.into_bytes()),
        (
            0x9204,
            10,
            1,
            [
                ((spec.bias * 3.0).round() as i32).to_le_bytes(),
                3i32.to_le_bytes(),
            ]
            .concat(),
        ),
        (0x9291, 2, subsec.len() as u32, subsec.into_bytes()),
        (
            0xA402,
            3,
            1,
            u16::from(spec.bracket)
                .wrapping_mul(2)
                .to_le_bytes()
                .to_vec(),
        ),
    ];
    entries.sort_by_key(|e| e.0);
    let mut tiff: Vec<u8> = b"II*\0".to_vec();
    tiff.extend_from_slice(&8u32.to_le_bytes());
    // IFD0: one entry, the EXIF IFD's offset (right after it).
    let exif_at = 8 + 2 + 12 + 4;
    tiff.extend_from_slice(&1u16.to_le_bytes());
    tiff.extend_from_slice(&0x8769u16.to_le_bytes());
    tiff.extend_from_slice(&4u16.to_le_bytes());
    tiff.extend_from_slice(&1u32.to_le_bytes());
    tiff.extend_from_slice(&(exif_at as u32).to_le_bytes());
    tiff.extend_from_slice(&0u32.to_le_bytes());
    let mut data_at = exif_at + 2 + 12 * entries.len() + 4;
    let mut data = Vec::new();
    tiff.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    for (tag, kind, count, value) in &entries {
        tiff.extend_from_slice(&tag.to_le_bytes());
        tiff.extend_from_slice(&kind.to_le_bytes());
        tiff.extend_from_slice(&count.to_le_bytes());
        if value.len() <= 4 {
            let mut inline = value.clone();
            inline.resize(4, 0);
            tiff.extend_from_slice(&inline);
        } else {
            tiff.extend_from_slice(&(data_at as u32).to_le_bytes());
            data.extend_from_slice(value);
            data_at += value.len();
            if value.len() % 2 == 1 {
                data.push(0);
                data_at += 1;
            }
        }
    }
    tiff.extend_from_slice(&0u32.to_le_bytes());
    tiff.extend_from_slice(&data);
    let mut app1 = vec![0xFF, 0xE1];
    app1.extend_from_slice(&((2 + 6 + tiff.len()) as u16).to_be_bytes());
    app1.extend_from_slice(b"Exif\0\0");
    app1.extend_from_slice(&tiff);
    app1
}

/// What a proposal and a grouping of the shoot score against the truth.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Score {
    pub similarity: f32,
    pub time_gap_s: f64,
    pub strictness: String,
    pub scenes: usize,
    /// Adjusted Rand index of the scenes found against the true scenes.
    pub ari: f64,
    pub brackets_found: usize,
    pub pans_found: usize,
    /// Frames of a true bracket or pan, and how many of them were proposed for rejection.
    pub set_frames: usize,
    pub set_frames_rejected: usize,
    pub misfires: usize,
    /// Misfires proposed for rejection as a misfire.
    pub misfires_found: usize,
    /// Frames not misfires proposed for rejection as one.
    pub false_misfires: usize,
}

/// The shoot's rows analysed and proposed at these controls, scored.
fn score(
    indexed: &[(PathBuf, darkroom_catalog::PhotoIndex)],
    truth: &[TrueFrame],
    scene_rules: SceneRules,
    strictness: Strictness,
) -> Score {
    let thresholds = darkroom_index::Thresholds {
        scenes: scene_rules,
        ..Default::default()
    };
    let analysed = darkroom_index::analyse(indexed, &thresholds);
    let true_of = |a: &darkroom_index::PhotoAnalysis| {
        let name = a.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        truth.iter().find(|t| t.file == name)
    };
    let blank = Decision::default();
    let candidates: Vec<Candidate<'_>> = analysed
        .iter()
        .map(|a| Candidate {
            analysis: Some(a),
            decision: &blank,
        })
        .collect();
    let rules = ProposalRules::new(strictness, 1, thresholds.blurry_below);
    let proposed = proposal::propose(&candidates, &rules);
    let found: Vec<usize> = analysed
        .iter()
        .map(|a| a.scene.as_ref().map_or(usize::MAX, |s| s.id))
        .collect();
    let wanted: Vec<usize> = analysed
        .iter()
        .map(|a| true_of(a).map_or(usize::MAX, |t| t.scene))
        .collect();
    let distinct = |kind: SetKind| {
        analysed
            .iter()
            .filter_map(|a| a.set.as_ref().filter(|s| s.kind == kind).map(|s| s.id))
            .collect::<std::collections::HashSet<_>>()
            .len()
    };
    let mut s = Score {
        similarity: scene_rules.similarity,
        time_gap_s: scene_rules.max_gap_s,
        strictness: strictness.name().to_owned(),
        scenes: found.iter().collect::<std::collections::HashSet<_>>().len(),
        ari: scenes::adjusted_rand_index(&wanted, &found),
        brackets_found: distinct(SetKind::Bracket),
        pans_found: distinct(SetKind::Pan),
        set_frames: 0,
        set_frames_rejected: 0,
        misfires: 0,
        misfires_found: 0,
        false_misfires: 0,
    };
    for (a, p) in analysed.iter().zip(&proposed) {
        let Some(t) = true_of(a) else { continue };
        let rejected = p.as_ref().is_some_and(|p| p.flag == Flag::Reject);
        let as_misfire = p.as_ref().is_some_and(|p| {
            p.flag == Flag::Reject && p.reasons().iter().any(|r| r.kind() == ReasonKind::Misfire)
        });
        if t.set.is_some() {
            s.set_frames += 1;
            s.set_frames_rejected += usize::from(rejected);
        }
        if t.misfire {
            s.misfires += 1;
            s.misfires_found += usize::from(as_misfire);
        } else {
            s.false_misfires += usize::from(as_misfire);
        }
    }
    s
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Report {
    pub frames: usize,
    pub true_scenes: usize,
    pub index_seconds: f64,
    /// Default controls, each strictness.
    pub defaults: Vec<Score>,
    /// Balanced, one control swept while the other stays at its default.
    pub similarity_sweep: Vec<Score>,
    pub time_gap_sweep: Vec<Score>,
    /// The shoot and its catalog, where kept.
    pub out: Option<PathBuf>,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let temp;
    let out = match &a.out {
        Some(dir) => dir.clone(),
        None => {
            temp = tempfile::tempdir().context("cannot make a temporary folder")?;
            temp.path().to_path_buf()
        }
    };
    let shoot = out.join("shoot");
    let truth = make_shoot(&a.photos, &shoot)?;
    std::fs::write(out.join("truth.json"), serde_json::to_vec_pretty(&truth)?)
        .context("cannot write truth.json")?;
    let catalog = out.join("catalog.sqlite");
    let exe = std::env::current_exe().context("cannot find this executable")?;
    let mut index = std::process::Command::new(exe);
    index
        .arg("index")
        .arg("--catalog")
        .arg(&catalog)
        .arg(&shoot);
    if let Some(m) = &a.models {
        index.arg("--models").arg(m);
    }
    let started = std::time::Instant::now();
    let status = index
        .stdout(std::process::Stdio::null())
        .status()
        .context("cannot run darkroom index")?;
    anyhow::ensure!(
        status.success(),
        "darkroom index failed on the shoot: {status}"
    );
    let index_seconds = started.elapsed().as_secs_f64();
    let catalog = Catalog::open_read_only(&catalog)?
        .with_context(|| format!("the index wrote no catalog: {}", catalog.display()))?;
    let photos: Vec<PathBuf> = truth.iter().map(|t| shoot.join(&t.file)).collect();
    let indexed = catalog.indexed_of(&photos)?;
    anyhow::ensure!(
        indexed.len() == truth.len(),
        "only {} of the shoot's {} frames were indexed",
        indexed.len(),
        truth.len()
    );
    let defaults = SceneRules::default();
    let report = Report {
        frames: truth.len(),
        true_scenes: truth.iter().map(|t| t.scene).max().map_or(0, |m| m + 1),
        index_seconds,
        defaults: [
            Strictness::Lenient,
            Strictness::Balanced,
            Strictness::Strict,
        ]
        .into_iter()
        .map(|s| score(&indexed, &truth, defaults, s))
        .collect(),
        similarity_sweep: [0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
            .into_iter()
            .map(|similarity| SceneRules {
                similarity,
                ..defaults
            })
            .map(|rules| score(&indexed, &truth, rules, Strictness::Balanced))
            .collect(),
        time_gap_sweep: [0.0, 1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 600.0, 3600.0]
            .into_iter()
            .map(|max_gap_s| SceneRules {
                max_gap_s,
                ..defaults
            })
            .map(|rules| score(&indexed, &truth, rules, Strictness::Balanced))
            .collect(),
        out: a.out.clone(),
    };
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "{} frames, {} true scenes, indexed in {:.1} s",
            report.frames, report.true_scenes, report.index_seconds
        );
        println!(
            "{:<10} {:>6} {:>8} {:>7} {:>6} {:>5} {:>5} {:>12} {:>10} {:>6}",
            "strictness",
            "alike",
            "gap s",
            "scenes",
            "ARI",
            "brk",
            "pan",
            "set rejected",
            "misfires",
            "false"
        );
        for s in report
            .defaults
            .iter()
            .chain(&report.similarity_sweep)
            .chain(&report.time_gap_sweep)
        {
            println!(
                "{:<10} {:>6.2} {:>8.0} {:>7} {:>6.3} {:>5} {:>5} {:>7} of {:<2} {:>5} of {:<2} {:>6}",
                s.strictness,
                s.similarity,
                s.time_gap_s,
                s.scenes,
                s.ari,
                s.brackets_found,
                s.pans_found,
                s.set_frames_rejected,
                s.set_frames,
                s.misfires_found,
                s.misfires,
                s.false_misfires
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exif_a_frame_carries_reads_back_as_written() {
        let spec = bracketed(155.3, ASTRONAUT, 2, -2.0);
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut jpeg)
            .encode_image(&RgbImage::new(16, 16))
            .expect("encode");
        let mut bytes = jpeg[..2].to_vec();
        bytes.extend(exif_app1(&spec));
        bytes.extend_from_slice(&jpeg[2..]);
        let facts = darkroom_library::facts::from_bytes(&bytes, false);
        assert_eq!(facts.exposure_bias, Some(-2.0));
        assert!(facts.auto_bracket);
        assert_eq!(facts.shutter, Some((1, 500)));
        assert_eq!(facts.aperture, Some(4.0));
        assert_eq!(facts.iso, Some(100));
        assert_eq!(facts.taken.as_deref(), Some("2026-06-13 14:02:35"));
        let t = darkroom_library::preview::capture_time(&bytes).expect("a capture time");
        assert!((t.fract() - 0.3).abs() < 1e-6, "{t}");
    }
}
