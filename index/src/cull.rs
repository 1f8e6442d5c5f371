//! A folder's cull as every front end sees it (the window, `darkroom propose`, `darkroom index
//! --json`): its photos, each one's decision (the catalog's, else its sidecar's), the proposal
//! over them and its JSON form, people's names for the reasons' words, and what the folder
//! holds as a whole — its people, scene tags and camera bodies, counted.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use darkroom_catalog::{Catalog, CatalogError, Decision, Flag, PhotoIndex, sidecar};
use serde::Serialize;

use crate::PhotoAnalysis;
use crate::expression;
use crate::proposal::{self, Candidate, ProposalRules, Proposed, Reason};
use crate::tags::SceneTag;

/// Each photo's decision as every front end sees it: the catalog's once its sidecar was read
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

/// The folder's index rows, in path order.
pub fn indexed_rows(
    catalog: &Catalog,
    photos: &[PathBuf],
) -> Result<Vec<(PathBuf, PhotoIndex)>, CatalogError> {
    let mut indexed = catalog.indexed_of(photos)?;
    indexed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(indexed)
}

/// A person's name for the reasons' words, "Person N" where they have none.
pub fn person_label(names: &HashMap<i64, String>, id: i64) -> String {
    names
        .get(&id)
        .cloned()
        .unwrap_or_else(|| format!("Person {id}"))
}

/// People's names for the reasons' words, from the catalog (unnamed: "Person N").
pub fn person_names(
    catalog: &Catalog,
    indexed: &[(PathBuf, PhotoIndex)],
) -> Result<HashMap<i64, String>, CatalogError> {
    let mut names = HashMap::new();
    let embedders: BTreeSet<&String> = indexed
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

/// A person in a folder: how many of its photos they are in, and their first face (the
/// photo's position among those counted, and the face's box as fractions of the photo).
#[derive(Debug, Clone, PartialEq)]
pub struct PersonCount {
    pub person: i64,
    pub photos: usize,
    pub first: usize,
    pub face: [f32; 4],
    /// A key person (starred): their eyes and expression weigh first.
    pub key: bool,
    /// Not starred, but in at least half of these photos with faces: one to suggest starring
    /// ([`expression::suggests_key`]).
    pub suggested: bool,
}

/// The people in these photos (`None`: a photo not indexed), most photos first, then by id.
pub fn people<'a>(photos: impl IntoIterator<Item = Option<&'a PhotoAnalysis>>) -> Vec<PersonCount> {
    let mut people: BTreeMap<i64, PersonCount> = BTreeMap::new();
    let mut with_faces = 0;
    for (i, a) in photos.into_iter().enumerate() {
        let Some(a) = a else { continue };
        if a.faces > 0 {
            with_faces += 1;
        }
        let mut seen = Vec::new();
        for (k, (p, face)) in a.people.iter().enumerate() {
            if let Some(p) = *p
                && !seen.contains(&p)
            {
                seen.push(p);
                let count = people.entry(p).or_insert(PersonCount {
                    person: p,
                    photos: 0,
                    first: i,
                    face: *face,
                    key: false,
                    suggested: false,
                });
                count.photos += 1;
                count.key |= a.doing.key.contains(&k);
            }
        }
    }
    let mut list: Vec<_> = people.into_values().collect();
    for p in &mut list {
        p.suggested = !p.key && expression::suggests_key(p.photos, with_faces);
    }
    list.sort_by(|a, b| b.photos.cmp(&a.photos).then(a.person.cmp(&b.person)));
    list
}

/// The scene tags in these photos and how many photos have each, most first.
pub fn tag_counts<'a>(
    photos: impl IntoIterator<Item = &'a PhotoAnalysis>,
) -> Vec<(SceneTag, usize)> {
    let mut counts: BTreeMap<SceneTag, usize> = BTreeMap::new();
    for a in photos {
        for (tag, _) in &a.tags {
            *counts.entry(*tag).or_default() += 1;
        }
    }
    let mut list: Vec<_> = counts.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    list
}

/// The camera bodies of these photos: each with its photos and its clock correction, by name.
pub fn bodies<'a>(
    photos: impl IntoIterator<Item = &'a PhotoAnalysis>,
) -> Vec<(String, usize, f64)> {
    let mut bodies: BTreeMap<String, (usize, f64)> = BTreeMap::new();
    for a in photos {
        if let Some(body) = &a.clock.body {
            let entry = bodies.entry(body.clone()).or_insert((0, a.clock.offset_s));
            entry.0 += 1;
        }
    }
    bodies.into_iter().map(|(b, (n, o))| (b, n, o)).collect()
}
