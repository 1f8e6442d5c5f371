//! Shared by the end-to-end tests: where the fetched assets are, and a `darkroom` command with
//! a clean environment.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The assets `scripts/fetch-assets` lays out. A missing asset fails the test: these tests
/// are about real models and photos, and skipping would hide a broken setup.
pub fn assets() -> PathBuf {
    let dir = std::env::var_os("DARKROOM_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets-cache"));
    assert!(
        dir.join("models/scrfd_2.5g.onnx").is_file(),
        "test assets missing in {}: run scripts/fetch-assets",
        dir.display()
    );
    dir
}

pub fn models() -> PathBuf {
    assets().join("models")
}

pub fn photo(name: &str) -> PathBuf {
    assets().join("photos").join(name)
}

pub fn ort_lib() -> PathBuf {
    assets().join("runtime/libonnxruntime.so.1.31.1")
}

pub fn old_ort_lib() -> PathBuf {
    assets().join("runtime-old/libonnxruntime.so.1.22.1")
}

/// Arch's ONNX Runtime version: the oldest this build accepts.
pub fn arch_ort_lib() -> PathBuf {
    assets().join("runtime-arch/libonnxruntime.so.1.23.2")
}

/// Which runtime a test run asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rt {
    Ort,
    Tract,
}

/// `darkroom` with no DARKROOM_* from the caller's environment and a private data dir.
pub fn darkroom(data_dir: &Path) -> Command {
    darkroom_exe(Path::new(env!("CARGO_BIN_EXE_darkroom")), data_dir)
}

/// `exe` with no DARKROOM_* from the caller's environment and a private data dir.
pub fn darkroom_exe(exe: &Path, data_dir: &Path) -> Command {
    let mut cmd = Command::new(exe);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("DARKROOM_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("DARKROOM_DATA_DIR", data_dir);
    cmd
}

/// `darkroom` on the chosen runtime.
pub fn darkroom_on(rt: Rt, data_dir: &Path) -> Command {
    let mut cmd = darkroom(data_dir);
    match rt {
        Rt::Ort => cmd.env("DARKROOM_ORT_LIB", ort_lib()),
        Rt::Tract => cmd.env("DARKROOM_RUNTIME", "tract"),
    };
    cmd
}

pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("the command starts");
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Run a command that must fail; its stderr.
pub fn run_err(cmd: &mut Command) -> String {
    let out = cmd.output().expect("the command starts");
    assert!(!out.status.success(), "{cmd:?} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// exiftool's JSON for `file` (a reader nobody here wrote).
pub fn exiftool(args: &[&str], file: &Path) -> serde_json::Value {
    let out = std::process::Command::new("exiftool")
        .args(["-j"])
        .args(args)
        .arg(file)
        .output()
        .expect("exiftool is installed (scripts/test installs libimage-exiftool-perl)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("exiftool JSON");
    v[0].clone()
}

/// The one runtime this test process installs: ONNX Runtime 1.31.1. Every suite that runs the
/// engine in this process asks for it here first, so whichever test runs first, the process has
/// the same runtime (a process installs one, once).
pub fn in_process_runtime() -> &'static darkroom_engine::RuntimeOutcome {
    let rt = darkroom_engine::runtime::install(&darkroom_engine::RuntimeSearch {
        explicit: Some(ort_lib()),
        ..darkroom_engine::RuntimeSearch::default()
    });
    assert_eq!(rt.version, "1.31.1", "{}", rt.summary());
    rt
}

/// A backend set-up on the real runtime whose workers are the real binary, as the app makes
/// it; the session tuning measures `tune_threads`.
pub fn live_config(
    inference_dir: &Path,
    tune_threads: Vec<usize>,
) -> darkroom_engine::BackendConfig {
    darkroom_engine::BackendConfig {
        inference_dir: inference_dir.to_path_buf(),
        launcher: darkroom_engine::ladder::Launcher {
            program: env!("CARGO_BIN_EXE_darkroom").into(),
            prefix: vec!["ladder-worker".into()],
            env: vec![(
                "DARKROOM_ORT_LIB".into(),
                ort_lib().to_string_lossy().into_owned(),
            )],
        },
        reprobe: false,
        forced: None,
        probe_limit: std::time::Duration::from_secs(120),
        engine_limit: std::time::Duration::from_secs(120),
        workspace_mb: 512,
        fake: None,
        tune_threads,
    }
}

/// A models dir in `dir` holding exactly the model files the Arch package installs (as a fresh
/// install has them, nothing downloaded).
pub fn shipped_models(dir: &Path) -> PathBuf {
    let shipped = dir.join("models");
    std::fs::create_dir_all(&shipped).expect("mkdir");
    let pkgbuild = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../packaging/arch/PKGBUILD"),
    )
    .expect("PKGBUILD");
    let files: std::collections::HashSet<&str> = pkgbuild
        .split("/usr/share/darkroom/models/")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert!(files.contains("dlib_resnet.onnx"), "{files:?}");
    for f in &files {
        std::fs::copy(models().join(f), shipped.join(f)).expect("a shipped model");
    }
    shipped
}

/// A folder `dir/shoot` of six photos for people on a fresh install: Obama in three
/// (face_recognition's test photos), Biden, Grace Hopper and the astronaut once each.
pub fn one_person_in_three_photos(dir: &Path) -> PathBuf {
    let folder = dir.join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for p in ["obama.jpg", "obama2.jpg", "obama3.jpg", "biden.jpg"] {
        std::fs::copy(
            assets().join("corpus/face_recognition").join(p),
            folder.join(p),
        )
        .expect("copy");
    }
    for p in ["grace_hopper.jpg", "astronaut.png"] {
        std::fs::copy(photo(p), folder.join(p)).expect("copy");
    }
    folder
}

/// How many of the built-in cards have their file in the fixture models dir (one engine, one
/// tuning each).
pub fn installed_models() -> usize {
    let cards = darkroom_engine::CardSet::builtin().expect("cards");
    cards
        .iter()
        .filter(|c| models().join(&c.file).is_file())
        .count()
}

/// A card of `n` copies of a real photo (hard links where the file system allows) in `folder`,
/// each with the sidecar exiftool wrote with `tags` (`IMG_0000.jpg.xmp`): what another tool
/// leaves behind.
pub fn card_with_sidecars(folder: &Path, n: usize, tags: &[&str]) -> Vec<PathBuf> {
    std::fs::create_dir_all(folder).expect("mkdir");
    let template = folder.with_extension("template.xmp");
    let made = Command::new("exiftool")
        .arg("-q")
        .args(tags)
        .arg(&template)
        .status()
        .expect("exiftool is installed (scripts/test installs libimage-exiftool-perl)");
    assert!(made.success(), "{tags:?}");
    (0..n)
        .map(|i| {
            let p = folder.join(format!("IMG_{i:04}.jpg"));
            std::fs::hard_link(photo("grace_hopper.jpg"), &p)
                .or_else(|_| std::fs::copy(photo("grace_hopper.jpg"), &p).map(|_| ()))
                .expect("photo");
            std::fs::copy(&template, folder.join(format!("IMG_{i:04}.jpg.xmp"))).expect("xmp");
            p
        })
        .collect()
}

/// What exiftool reads (`-n`: numbers as numbers) in every sidecar of `folder`, in one run.
pub fn exiftool_sidecars(folder: &Path, tags: &[&str]) -> Vec<serde_json::Value> {
    let out = Command::new("exiftool")
        .args(["-j", "-n"])
        .args(tags)
        .args(["-ext", "xmp"])
        .arg(folder)
        .output()
        .expect("exiftool is installed (scripts/test installs libimage-exiftool-perl)");
    serde_json::from_slice(&out.stdout).unwrap_or_default()
}

/// A camera card built from real camera files (exiv2's test data): a Canon EOS R6 CR3 with a
/// JPEG twin and a sidecar in `DCIM/100CANON`, two more cameras' JPEGs in `DCIM/101CANON`, and a
/// MISC folder. Shooting order: the 300D (2003), the A520 (2005), the R6 (2020).
pub fn camera_card(dir: &Path) -> PathBuf {
    let exiv2 = assets().join("exiv2/test-data");
    let card = dir.join("card");
    let put = |from: &str, to: &str| {
        let to = card.join(to);
        std::fs::create_dir_all(to.parent().expect("a folder")).expect("mkdir");
        std::fs::copy(exiv2.join(from), &to).expect("copy");
    };
    put("Canon-R6-pruned.CR3", "DCIM/100CANON/IMG_0001.CR3");
    put("exiv2-canon-eos-20d.jpg", "DCIM/100CANON/IMG_0001.JPG");
    put("exiv2-canon-eos-300d.jpg", "DCIM/101CANON/IMG_0002.JPG");
    put(
        "exiv2-canon-powershot-a520.jpg",
        "DCIM/101CANON/IMG_0003.JPG",
    );
    // A sidecar another tool wrote on the card (a title), which travels with the pair.
    std::fs::write(
        card.join("DCIM/100CANON/IMG_0001.CR3.xmp"),
        r#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">First kiss</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>
"#,
    )
    .expect("sidecar");
    std::fs::create_dir_all(card.join("MISC")).expect("mkdir");
    std::fs::write(card.join("MISC/AUTPRINT.MRK"), "[HDR]\n").expect("misc");
    card
}

/// Bytes that never repeat and compress to nothing (xorshift64): stand-ins for RAW files, so
/// that a copy of a card takes a while and a wrong byte anywhere shows.
pub struct Noise(u64);

impl Noise {
    pub fn new(seed: u64) -> Self {
        Noise(seed | 1)
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = vec![0u8; n];
        self.fill(&mut out);
        out
    }

    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            chunk.copy_from_slice(&self.0.to_le_bytes()[..chunk.len()]);
        }
    }
}

/// A card (`dir/card`, its photos in `DCIM/100CANON`) of `n` RAW files of `size` bytes of
/// noise, `IMG_0001.CR3` on; each with a JPEG twin of `jpeg` bytes when that is not 0.
pub fn noise_card(dir: &Path, seed: u64, n: usize, size: usize, jpeg: usize) -> PathBuf {
    let card = dir.join("card");
    let folder = card.join("DCIM/100CANON");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let mut noise = Noise::new(seed);
    for k in 1..=n {
        std::fs::write(folder.join(format!("IMG_{k:04}.CR3")), noise.bytes(size)).expect("raw");
        if jpeg > 0 {
            std::fs::write(folder.join(format!("IMG_{k:04}.JPG")), noise.bytes(jpeg))
                .expect("jpeg");
        }
    }
    card
}
