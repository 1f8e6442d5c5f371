//! `darkroom models list|import`.

use std::process::ExitCode;

use darkroom_engine::{CardSet, ModelStore};
use serde::Serialize;

use crate::cli::ModelsCommand;

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

pub fn run(command: ModelsCommand) -> anyhow::Result<ExitCode> {
    match command {
        ModelsCommand::List { models, json } => {
            let store = ModelStore::new(crate::cli::models_dir(models)?, CardSet::builtin()?);
            let rows: Vec<Row> = store
                .cards()
                .iter()
                .map(|card| {
                    let id = card.model_id();
                    let installed = store.is_present(card);
                    let (status, sha256) = if installed {
                        match store.load(&id) {
                            Ok(m) => ("ok".to_string(), Some(m.sha256)),
                            Err(e) => (e.to_string(), None),
                        }
                    } else {
                        ("not installed".to_string(), card.sha256.clone())
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
        ModelsCommand::Import {
            file,
            as_model,
            models,
        } => {
            let sessions = crate::cli::sessions(models)?;
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
    }
}
