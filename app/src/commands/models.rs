//! `darkroom models list|import|fetch|install-from|verify`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use darkroom_engine::{CardSet, ModelStore};
use darkroom_models::{CardState, ModelManager, Progress};
use serde::Serialize;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Every model card, and whether its file is installed and verifies.
    List {
        #[arg(long)]
        models: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Check a model file against a card's IO contract and install it under that card.
    Import {
        file: PathBuf,
        /// The card's model_id (e.g. scrfd_10g).
        #[arg(long = "as")]
        as_model: String,
        #[arg(long)]
        models: Option<PathBuf>,
    },
    /// Build a session for a model file on this process's runtime, check its IO against a
    /// card and run it once, without installing it (the release tool's check of what it made;
    /// DARKROOM_RUNTIME=tract checks it on tract). The file's own hash is reported, not held
    /// to the card's.
    Check {
        file: PathBuf,
        /// The card whose IO contract the file must meet (e.g. scrfd_2.5g_i8).
        #[arg(long = "as")]
        as_model: String,
        #[arg(long)]
        models: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Download models from their upstream (or a mirror), verify size and sha256, install.
    /// Without --accept-licence it prints each licence and fetches nothing.
    Fetch {
        /// model_ids to fetch (default: every card with a download, except test fixtures).
        model_ids: Vec<String>,
        /// I have read the licences printed without this flag, and accept them.
        #[arg(long)]
        accept_licence: bool,
        /// Fetch files by name from this base URL instead (default: DARKROOM_MODEL_MIRROR).
        #[arg(long)]
        mirror: Option<String>,
        #[arg(long)]
        models: Option<PathBuf>,
    },
    /// Install what a folder holds (model files, or an upstream archive), checked against the
    /// pinned hashes. The folder is only read.
    InstallFrom {
        folder: PathBuf,
        #[arg(long)]
        models: Option<PathBuf>,
    },
    /// Move every installed file that fails its hash into the models dir's quarantine/.
    Verify {
        #[arg(long)]
        models: Option<PathBuf>,
    },
}

#[derive(Serialize)]
struct Row {
    model_id: String,
    role: darkroom_engine::Role,
    file: String,
    installed: bool,
    /// "ok", or why the file cannot be used.
    status: String,
    sha256: Option<String>,
    licence: String,
    source: String,
}

pub fn run(command: Args) -> anyhow::Result<ExitCode> {
    match command {
        Args::List { models, json } => {
            let store = ModelStore::new(crate::services::models_dir(models)?, CardSet::builtin()?)
                .with_bundled(darkroom_engine::paths::bundled_models_dirs());
            let rows: Vec<Row> = store
                .cards()
                .iter()
                .map(|card| {
                    let id = card.model_id();
                    let installed = store.is_present(card);
                    let (status, sha256) = if installed {
                        match store.load(&id) {
                            Ok(m) => ("ok".to_owned(), Some(m.sha256)),
                            Err(e) => (e.to_string(), None),
                        }
                    } else {
                        ("not installed".to_owned(), card.sha256.clone())
                    };
                    Row {
                        model_id: id,
                        role: card.role,
                        file: card.file.clone(),
                        installed,
                        status,
                        sha256,
                        licence: card.licence.clone(),
                        source: card.source.clone(),
                    }
                })
                .collect();
            if json {
                println!("{}", serde_json::to_string_pretty(&rows)?);
            } else {
                for r in rows {
                    let hash = r.sha256.as_deref().map(|h| &h[..12]).unwrap_or("-");
                    println!(
                        "{:<14} {:<10} {:<13} {}",
                        r.model_id, r.role, hash, r.status
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Args::Import {
            file,
            as_model,
            models,
        } => {
            let sessions = crate::services::sessions(models)?;
            let model = sessions.import(&file, &as_model)?;
            println!(
                "imported {} as {} (sha256 {}): {}",
                file.display(),
                as_model,
                model.sha256,
                model.path.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Args::Check {
            file,
            as_model,
            models,
            json,
        } => check(&file, &as_model, models, json),
        Args::Fetch {
            model_ids,
            accept_licence,
            mirror,
            models,
        } => fetch(model_ids, accept_licence, mirror, models),
        Args::InstallFrom { folder, models } => {
            let manager = manager(models, None)?;
            let report = manager.install_from_folder(&folder);
            if report.is_empty() {
                println!("nothing in {} that a model card names", folder.display());
            }
            let mut failed = false;
            for (id, result) in report {
                match result {
                    Ok(i) => println!("{id}: installed (sha256 {})", &i.sha256[..12]),
                    Err(e) => {
                        failed = true;
                        eprintln!("{id}: {e}");
                    }
                }
            }
            Ok(if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Args::Verify { models } => {
            let manager = manager(models, None)?;
            let moved = manager.quarantine_invalid()?;
            for q in &moved {
                eprintln!("quarantined {}: {}", q.reason, q.path.display());
            }
            if moved.is_empty() {
                println!("every installed model verifies");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[derive(Serialize)]
struct Checked {
    file: PathBuf,
    model_id: String,
    sha256: String,
    /// "onnxruntime" or "tract".
    runtime_kind: &'static str,
    runtime: String,
    input_shape: Vec<usize>,
    outputs: Vec<(String, Vec<usize>)>,
}

fn check(
    file: &std::path::Path,
    model_id: &str,
    models: Option<PathBuf>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let sessions = crate::services::sessions(models)?;
    let mut session =
        sessions.open_file(file, model_id, darkroom_engine::SessionSettings::untuned(1))?;
    let shape = session.input_shape().to_vec();
    let input = darkroom_engine::ladder::worker::fixed_input(shape.iter().product());
    let outputs = session.run(&input)?;
    let runtime = sessions.runtime();
    let answer = Checked {
        file: file.to_path_buf(),
        model_id: model_id.to_owned(),
        sha256: session.sha256.clone(),
        runtime_kind: match runtime.kind {
            darkroom_engine::RuntimeKind::OnnxRuntime => "onnxruntime",
            darkroom_engine::RuntimeKind::Tract => "tract",
        },
        runtime: runtime.summary(),
        input_shape: shape,
        outputs: outputs.into_iter().map(|o| (o.name, o.shape)).collect(),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        println!(
            "meets {model_id}'s contract and runs on {} (sha256 {}): {}",
            answer.runtime,
            answer.sha256,
            file.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn manager(
    models: Option<std::path::PathBuf>,
    mirror: Option<String>,
) -> anyhow::Result<ModelManager> {
    let store = ModelStore::new(crate::services::models_dir(models)?, CardSet::builtin()?)
        .with_bundled(darkroom_engine::paths::bundled_models_dirs());
    Ok(ModelManager::new(
        store,
        mirror.or_else(ModelManager::mirror_from_env),
    ))
}

fn fetch(
    model_ids: Vec<String>,
    accept_licence: bool,
    mirror: Option<String>,
    models: Option<std::path::PathBuf>,
) -> anyhow::Result<ExitCode> {
    let manager = manager(models, mirror)?;
    let statuses = manager.statuses();
    let wanted: Vec<_> = if model_ids.is_empty() {
        statuses
            .iter()
            .filter(|s| !s.fixture_only && s.offer.is_some())
            .collect()
    } else {
        let mut out = Vec::new();
        for id in &model_ids {
            out.push(
                statuses
                    .iter()
                    .find(|s| &s.model_id == id)
                    .ok_or_else(|| anyhow::anyhow!("no model card named {id}"))?,
            );
        }
        out
    };
    if !accept_licence {
        for s in &wanted {
            match &s.offer {
                Some(o) => println!(
                    "{}: {}\n  from {}\n  licence: {}",
                    s.model_id, o.title, o.url, o.licence
                ),
                None => println!("{}: nothing to download it from", s.model_id),
            }
        }
        println!("Nothing fetched: read the licences above and re-run with --accept-licence.");
        return Ok(ExitCode::FAILURE);
    }
    let mut failed = false;
    let mut done: Vec<String> = Vec::new();
    for s in wanted {
        if matches!(s.state, CardState::Ready { .. }) || done.contains(&s.model_id) {
            println!("{}: already installed", s.model_id);
            continue;
        }
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar.set_message(s.model_id.clone());
        let result = manager.install(
            &s.model_id,
            true,
            &mut |p: Progress| {
                if let Some(t) = p.total {
                    bar.set_length(t);
                }
                bar.set_position(p.done);
            },
            &AtomicBool::new(false),
        );
        bar.finish_and_clear();
        match result {
            Ok(installed) => {
                for i in installed {
                    println!(
                        "{}: installed (sha256 {}): {}",
                        i.model_id,
                        &i.sha256[..12],
                        i.path.display()
                    );
                    done.push(i.model_id);
                }
            }
            Err(e) => {
                failed = true;
                eprintln!("{}: {e}", s.model_id);
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
