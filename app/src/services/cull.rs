//! The auto-cull proposal for a folder from the command line (`darkroom propose`, `darkroom
//! index --json`): the rules as the window's Settings have them unless a flag says otherwise,
//! each photo's decision as the window would see it (the catalog's, else its sidecar's), and
//! the proposal's JSON form, every reason with its words.

use std::path::{Path, PathBuf};

use darkroom_catalog::{Catalog, Decision, Flag, PhotoIndex, sidecar};
use darkroom_index::proposal::{self, Candidate, ProposalRules, Proposed, Reason, ReasonKind};
use darkroom_index::{PhotoAnalysis, Thresholds};
use serde::Serialize;

use super::AppSettings;

/// The thresholds (scenes included) and the proposal's rules the window's Settings hold.
pub fn rules_of(settings: &AppSettings) -> (Thresholds, ProposalRules) {
    let mut thresholds = Thresholds::default();
    if let Some(v) = settings.blurry_below {
        thresholds.blurry_below = v;
    }
    thresholds.scenes = settings.culling.scenes;
    let rules = ProposalRules::new(
        settings.culling.strictness,
        settings.culling.keep_per_burst,
        thresholds.blurry_below,
    );
    (thresholds, rules)
}

/// Each photo's decision as the window would see it: the catalog's once its sidecar was read
/// into it, else the sidecar's, else none. Err: its sidecar cannot be read (such a photo is
/// never proposed for: what another tool wrote there is unknown).
pub fn decisions(catalog: &Catalog, photos: &[PathBuf]) -> Vec<Result<Decision, String>> {
    photos
        .iter()
        .map(|p| match catalog.imported_decision(p) {
            Ok(Some(d)) => Ok(d),
            Ok(None) => sidecar::read(p, catalog.naming())
                .map(Option::unwrap_or_default)
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        })
        .collect()
}

/// The proposal over a folder's analysed rows, one entry per photo.
pub fn propose(
    analysed: &[PhotoAnalysis],
    decisions: &[Result<Decision, String>],
    rules: &ProposalRules,
) -> Vec<Option<Proposed>> {
    let blank = Decision::default();
    let candidates: Vec<Candidate<'_>> = analysed
        .iter()
        .zip(decisions)
        .map(|(a, d)| match d {
            Ok(d) => Candidate {
                analysis: Some(a),
                decision: d,
            },
            Err(_) => Candidate {
                analysis: None,
                decision: &blank,
            },
        })
        .collect();
    proposal::propose(&candidates, rules)
}

/// A reason as JSON: its data (`kind` and evidence), the refine word that sets it aside, and
/// its words.
#[derive(Serialize)]
pub struct ReasonOut {
    #[serde(flatten)]
    pub reason: Reason,
    pub refine: &'static str,
    pub words: String,
}

#[derive(Serialize)]
pub struct ProposedOut {
    /// "pick" or "reject".
    pub flag: &'static str,
    pub reasons: Vec<ReasonOut>,
}

pub fn proposed_out(p: &Proposed, person: &dyn Fn(i64) -> String) -> ProposedOut {
    ProposedOut {
        flag: match p.flag {
            Flag::Pick => "pick",
            Flag::Reject => "reject",
            Flag::Unflagged => "unflag",
        },
        reasons: p
            .reasons()
            .iter()
            .map(|r| ReasonOut {
                refine: r.kind().word(),
                words: r.describe_with(person),
                reason: r.clone(),
            })
            .collect(),
    }
}

/// `--without` words to reason kinds; Err names the word and the words there are.
pub fn reason_kinds(words: &[String]) -> anyhow::Result<std::collections::BTreeSet<ReasonKind>> {
    words
        .iter()
        .map(|w| {
            ReasonKind::from_word(w).ok_or_else(|| {
                anyhow::anyhow!(
                    "no such reason: {w} (one of {})",
                    ReasonKind::ALL.map(ReasonKind::word).join(", ")
                )
            })
        })
        .collect()
}

/// The folder's index rows, in path order.
pub fn indexed_rows(
    catalog: &Catalog,
    photos: &[PathBuf],
) -> anyhow::Result<Vec<(PathBuf, PhotoIndex)>> {
    let mut indexed = catalog.indexed_of(photos)?;
    indexed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(indexed)
}

/// A person's name for the reasons' words, "Person N" where they have none.
pub fn person_label(names: &std::collections::HashMap<i64, String>, id: i64) -> String {
    names
        .get(&id)
        .cloned()
        .unwrap_or_else(|| format!("Person {id}"))
}

/// People's names for the reasons' words, from the catalog (unnamed: "Person N").
pub fn person_names(
    catalog: &Catalog,
    indexed: &[(PathBuf, PhotoIndex)],
) -> anyhow::Result<std::collections::HashMap<i64, String>> {
    let mut names = std::collections::HashMap::new();
    let embedders: std::collections::BTreeSet<&String> = indexed
        .iter()
        .filter_map(|(_, i)| i.stamp.embedder.as_ref())
        .collect();
    for embedder in embedders {
        for p in catalog.people(embedder)? {
            if let Some(name) = p.name {
                names.insert(p.id, name);
            }
        }
    }
    Ok(names)
}

/// Every photo under `folder` (the file decisions go to: the RAW of a RAW+JPEG pair), in path
/// order, and the problems the scan met (path, cause).
pub fn photos_in(folder: &Path) -> (Vec<PathBuf>, Vec<(PathBuf, String)>) {
    use darkroom_library::{ScanEvent, scan};
    let (mut photos, mut problems) = (Vec::new(), Vec::new());
    scan::scan(
        folder,
        &std::sync::atomic::AtomicBool::new(false),
        &mut |event| {
            match event {
                ScanEvent::Item(item) => photos.push(item.primary),
                ScanEvent::Error(e) => problems.push((e.path().to_path_buf(), e.cause())),
            }
            true
        },
    );
    photos.sort();
    (photos, problems)
}
