//! `darkroom propose FOLDER`: the auto-cull proposal for an indexed folder, as the window would
//! make it (its Settings' strictness, frames per burst, blurry threshold and scene controls,
//! unless a flag says otherwise), every photo's scene and set, and each proposed decision with
//! its reasons and their evidence. Proposes only: nothing is written. `--without KIND` sets a
//! reason aside, as the proposal bar's "Refine" does.

use std::path::PathBuf;
use std::process::ExitCode;

use darkroom_catalog::Catalog;
use darkroom_index::analysis::{ScenePlace, SetPlace};
use darkroom_index::proposal::{self, Strictness};
use darkroom_index::scenes::SceneRules;
use serde::Serialize;

use crate::services::cull_settings;
use darkroom_index::cull::{self, ProposedOut};

#[derive(Debug, clap::Args)]
pub struct Args {
    pub folder: PathBuf,
    /// Print every photo's place and proposal as JSON.
    #[arg(long)]
    pub json: bool,
    /// The catalog (default: <data dir>/catalog.sqlite).
    #[arg(long)]
    pub catalog: Option<PathBuf>,
    /// lenient, balanced or strict (default: Settings').
    #[arg(long)]
    pub strictness: Option<String>,
    /// Frames to keep per burst (default: Settings').
    #[arg(long)]
    pub keep_per_burst: Option<usize>,
    /// How alike frames of one scene must be, 0–1 (default: Settings').
    #[arg(long)]
    pub similarity: Option<f32>,
    /// The longest gap between frames of one scene, seconds (default: Settings').
    #[arg(long)]
    pub time_gap: Option<f64>,
    /// Set a reason aside (repeatable): keeper, alike, blurry, eyes-closed, subject-soft,
    /// eyes-soft, misfire, exposure, set.
    #[arg(long)]
    pub without: Vec<String>,
}

#[derive(Serialize)]
struct PhotoOut {
    path: PathBuf,
    scene: Option<ScenePlace>,
    set: Option<SetPlace>,
    burst: Option<usize>,
    /// The photographer decided it (never proposed for), or its sidecar cannot be read.
    decided: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    proposed: Option<ProposedOut>,
}

#[derive(Serialize)]
struct RulesOut {
    strictness: &'static str,
    keep_per_burst: usize,
    blurry_below: f32,
    similarity: f32,
    time_gap_s: f64,
    without: Vec<&'static str>,
}

#[derive(Serialize)]
struct Report {
    photos: usize,
    indexed: usize,
    scenes: usize,
    brackets: usize,
    pans: usize,
    picks: usize,
    rejects: usize,
    rules: RulesOut,
    results: Vec<PhotoOut>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let folder = &args.folder;
    if !folder.is_dir() {
        anyhow::bail!("not a folder: {}", folder.display());
    }
    let window = crate::services::window_settings();
    let (mut thresholds, mut rules) = cull_settings::rules_of(&window);
    if let Some(word) = &args.strictness {
        rules.strictness = Strictness::from_name(word).ok_or_else(|| {
            anyhow::anyhow!("no such strictness: {word} (lenient, balanced or strict)")
        })?;
    }
    if let Some(k) = args.keep_per_burst {
        rules.keep_per_burst = k.max(1);
    }
    if let Some(s) = args.similarity {
        anyhow::ensure!(
            SceneRules::SIMILARITY.contains(&s),
            "--similarity {s}: it is from 0 to 1"
        );
        thresholds.scenes.similarity = s;
    }
    if let Some(g) = args.time_gap {
        anyhow::ensure!(
            SceneRules::MAX_GAP_S.contains(&g),
            "--time-gap {g}: it is from 0 to {} seconds",
            SceneRules::MAX_GAP_S.end()
        );
        thresholds.scenes.max_gap_s = g;
    }
    rules.without = cull_settings::reason_kinds(&args.without)?;

    let (photos, problems) = cull::photos_in(folder);
    for (path, error) in &problems {
        eprintln!("darkroom: {error}: {}", path.display());
    }
    let catalog_path = crate::services::catalog_path(args.catalog.clone())?;
    let Some(catalog) = Catalog::open_read_only(&catalog_path)? else {
        anyhow::bail!(
            "nothing is indexed yet (run darkroom index first): {}",
            catalog_path.display()
        );
    };
    let indexed = cull::indexed_rows(&catalog, &photos)?;
    if indexed.is_empty() {
        anyhow::bail!(
            "nothing in this folder is indexed yet (run darkroom index first): {}",
            folder.display()
        );
    }
    let analysed = darkroom_index::analyse(&indexed, &thresholds);
    let paths: Vec<PathBuf> = indexed.iter().map(|(p, _)| p.clone()).collect();
    let decisions = cull::decisions(&catalog, &paths);
    let proposed = cull::propose(&analysed, &decisions, &rules);
    let names = cull::person_names(&catalog, &indexed)?;
    let person = |id: i64| cull::person_label(&names, id);
    let (picks, rejects) = proposal::counts(&proposed);
    let distinct = |f: &dyn Fn(&darkroom_index::PhotoAnalysis) -> Option<usize>| {
        analysed
            .iter()
            .filter_map(f)
            .collect::<std::collections::HashSet<_>>()
            .len()
    };
    let set_of = |kind| {
        move |a: &darkroom_index::PhotoAnalysis| {
            a.set.as_ref().filter(|s| s.kind == kind).map(|s| s.id)
        }
    };
    let report = Report {
        photos: photos.len(),
        indexed: indexed.len(),
        scenes: distinct(&|a| a.scene.as_ref().map(|s| s.id)),
        brackets: distinct(&set_of(darkroom_index::sets::SetKind::Bracket)),
        pans: distinct(&set_of(darkroom_index::sets::SetKind::Pan)),
        picks,
        rejects,
        rules: RulesOut {
            strictness: rules.strictness.name(),
            keep_per_burst: rules.keep_per_burst,
            blurry_below: rules.blurry_below,
            similarity: thresholds.scenes.similarity,
            time_gap_s: thresholds.scenes.max_gap_s,
            without: rules.without.iter().map(|k| k.word()).collect(),
        },
        results: analysed
            .into_iter()
            .zip(decisions)
            .zip(&proposed)
            .map(|((a, d), p)| PhotoOut {
                decided: d.as_ref().map_or(true, proposal::decided),
                error: d.err(),
                scene: a.scene,
                set: a.set,
                burst: a.burst.map(|b| b.id),
                proposed: p.as_ref().map(|p| cull::proposed_out(p, &person)),
                path: a.path,
            })
            .collect(),
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    for r in &report.results {
        let name = r
            .path
            .strip_prefix(folder)
            .unwrap_or(&r.path)
            .display()
            .to_string();
        let place = r
            .scene
            .as_ref()
            .map(|s| format!("scene {:>3}", s.id + 1))
            .unwrap_or_default();
        let what = match &r.proposed {
            Some(p) => format!(
                "{:<6} {}",
                p.flag,
                p.reasons
                    .iter()
                    .map(|r| r.words.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            None if r.decided => "decided".to_owned(),
            None => String::new(),
        };
        println!("{place}  {name:<40} {what}");
    }
    println!(
        "{} photos ({} indexed) · {} scenes · {} brackets · {} pans · {} to pick · {} to reject ({}, keep {} per burst, alike {:.2}, {} s apart{})",
        report.photos,
        report.indexed,
        report.scenes,
        report.brackets,
        report.pans,
        report.picks,
        report.rejects,
        report.rules.strictness,
        report.rules.keep_per_burst,
        report.rules.similarity,
        report.rules.time_gap_s,
        if report.rules.without.is_empty() {
            String::new()
        } else {
            format!(", without {}", report.rules.without.join(", "))
        }
    );
    Ok(ExitCode::SUCCESS)
}
