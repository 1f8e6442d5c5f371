//! `darkroom people`: the people the index found and key people. `list [FOLDER]` shows every
//! person (name or number, faces, starred), and with a folder the frames each is in and who
//! is suggested as a key person (in most of its frames with faces); `star NAME…` and `unstar
//! NAME…` make a person a key person or not, by name or number ("Person 7", "7"). A key
//! person's eyes and expression outweigh everyone else's in a burst (docs/EXPRESSIONS.md).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use darkroom_catalog::{Catalog, FaceRow, PersonListed, SidecarNaming};
use darkroom_index::cull;
use darkroom_index::expression::suggested_key_people;
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Option<PeopleCommand>,
    /// The catalog (default: <data dir>/catalog.sqlite).
    #[arg(long, global = true)]
    catalog: Option<PathBuf>,
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, clap::Subcommand)]
enum PeopleCommand {
    /// Every person (the default); with FOLDER, the frames of it each is in and the people
    /// suggested as key people.
    List { folder: Option<PathBuf> },
    /// Make these people key people (by name, "Person N" or N).
    Star {
        #[arg(required = true)]
        names: Vec<String>,
    },
    /// Make these people ordinary again.
    Unstar {
        #[arg(required = true)]
        names: Vec<String>,
    },
}

#[derive(Serialize)]
struct PersonOut {
    #[serde(flatten)]
    person: PersonListed,
    label: String,
    /// Frames of FOLDER the person is in (with a folder only).
    #[serde(skip_serializing_if = "Option::is_none")]
    frames: Option<usize>,
    suggested: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = crate::services::catalog_path(args.catalog.clone())?;
    let mut catalog = Catalog::open(&path, SidecarNaming::default())?;
    match args.command.unwrap_or(PeopleCommand::List { folder: None }) {
        PeopleCommand::List { folder } => list(&catalog, folder, args.json),
        PeopleCommand::Star { names } => star(&mut catalog, &names, true),
        PeopleCommand::Unstar { names } => star(&mut catalog, &names, false),
    }
}

fn label(p: &PersonListed) -> String {
    p.name.clone().unwrap_or_else(|| format!("Person {}", p.id))
}

fn list(catalog: &Catalog, folder: Option<PathBuf>, json: bool) -> anyhow::Result<ExitCode> {
    let people = catalog.people_all()?;
    let mut frames: Option<HashMap<i64, usize>> = None;
    let mut suggested = Vec::new();
    if let Some(folder) = &folder {
        if !folder.is_dir() {
            bail!("not a folder: {}", folder.display());
        }
        let (photos, _) = cull::photos_in(folder);
        let indexed = cull::indexed_rows(catalog, &photos)?;
        let faces: Vec<&[FaceRow]> = indexed.iter().map(|(_, i)| i.faces.as_slice()).collect();
        let mut counts = HashMap::new();
        for f in &faces {
            let mut seen: Vec<i64> = f.iter().filter_map(|f| f.person).collect();
            seen.sort_unstable();
            seen.dedup();
            for p in seen {
                *counts.entry(p).or_insert(0) += 1;
            }
        }
        suggested = suggested_key_people(&faces)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        frames = Some(counts);
    }
    let out: Vec<PersonOut> = people
        .into_iter()
        .filter(|p| frames.as_ref().is_none_or(|f| f.contains_key(&p.id)))
        .map(|p| PersonOut {
            label: label(&p),
            frames: frames.as_ref().map(|f| f.get(&p.id).copied().unwrap_or(0)),
            suggested: suggested.contains(&p.id) && !p.starred,
            person: p,
        })
        .collect();
    if json {
        println!("{}", serde_json::to_string(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    if out.is_empty() {
        println!("no people yet: index a folder with an embedder installed (darkroom index)");
    }
    for p in &out {
        println!(
            "{}{} · {} faces{}{}",
            if p.person.starred { "★ " } else { "" },
            p.label,
            p.person.faces,
            p.frames
                .map(|n| format!(" · in {n} frames"))
                .unwrap_or_default(),
            if p.suggested {
                " · suggested as a key person (darkroom people star)"
            } else {
                ""
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn star(catalog: &mut Catalog, names: &[String], starred: bool) -> anyhow::Result<ExitCode> {
    let people = catalog.people_all()?;
    // Every name resolved first: a name that matches no one changes nothing at all.
    let mut chosen: Vec<&PersonListed> = Vec::new();
    for name in names {
        let wanted = name.trim();
        let number = wanted
            .strip_prefix("Person ")
            .unwrap_or(wanted)
            .trim()
            .parse::<i64>()
            .ok();
        let matching: Vec<&PersonListed> = people
            .iter()
            .filter(|p| {
                p.name
                    .as_deref()
                    .is_some_and(|n| n.eq_ignore_ascii_case(wanted))
                    || number == Some(p.id)
            })
            .collect();
        if matching.is_empty() {
            bail!("no person named {wanted:?} in the catalog (darkroom people lists them)");
        }
        for p in matching {
            if !chosen.iter().any(|c| c.id == p.id) {
                chosen.push(p);
            }
        }
    }
    for p in chosen {
        catalog.star_person(p.id, starred)?;
        println!(
            "{} {}",
            label(p),
            if starred {
                "is a key person"
            } else {
                "is no longer a key person"
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
