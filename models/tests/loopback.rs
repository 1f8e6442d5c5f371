//! The model manager against a real HTTP server on 127.0.0.1 serving the fetched test models:
//! a good download verifies and loads on ONNX Runtime; a truncated one resumes from the byte it
//! reached; a corrupted one is quarantined; a wrong size is refused before the body is read;
//! an archive's member is taken out and checked against its own pin.

mod support;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use darkroom_engine::{
    CardSet, EngineError, ModelStore, Role, RuntimeKind, RuntimeSearch, Sessions,
};
use darkroom_models::{CardState, FetchError, Fetcher, ManagerError, ModelManager, Progress};
use support::http::{Serve, Server};

fn assets() -> PathBuf {
    let dir = std::env::var_os("DARKROOM_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets-cache"));
    assert!(
        dir.join("models").is_dir(),
        "test assets missing in {}: run scripts/fetch-assets",
        dir.display()
    );
    dir
}

fn model_bytes(file: &str) -> Vec<u8> {
    std::fs::read(assets().join("models").join(file)).expect("fetched test model")
}

fn manager(models: &Path, server: &Server) -> ModelManager {
    let mut fetcher = Fetcher::new();
    fetcher.backoff = Duration::from_millis(10);
    ModelManager::new(
        ModelStore::new(models, CardSet::builtin().expect("cards")),
        Some(server.base.clone()),
    )
    .with_fetcher(fetcher)
}

fn no_progress() -> impl FnMut(Progress) {
    |_| {}
}

/// A server with one path.
fn serving(path: &str, serve: Serve) -> Server {
    Server::start(HashMap::from([(path.to_owned(), serve)]))
}

/// Install with the licence accepted, no progress shown, never cancelled.
fn install(
    m: &ModelManager,
    model_id: &str,
) -> Result<Vec<darkroom_models::Installed>, ManagerError> {
    m.install(model_id, true, &mut no_progress(), &AtomicBool::new(false))
}

#[test]
fn a_good_download_verifies_and_loads() {
    let eye = model_bytes("fr_eye.onnx");
    let server = serving("/fr_eye.onnx", Serve::Whole(eye.clone()));
    let dir = tempfile::tempdir().expect("tempdir");
    let models = dir.path().join("models");
    let m = manager(&models, &server);

    // The licence comes first: nothing is fetched until it is accepted.
    let offer = m
        .offer(m.store().cards().get("fr_eye").expect("card"))
        .expect("the mirror offers it");
    assert_eq!(offer.url, format!("{}/fr_eye.onnx", server.base));
    assert!(offer.licence.contains("test fixture"), "{offer:?}");
    let err = m
        .install("fr_eye", false, &mut no_progress(), &AtomicBool::new(false))
        .expect_err("licence not accepted");
    assert!(
        matches!(err, ManagerError::LicenceNotAccepted { .. }),
        "{err}"
    );
    assert!(
        server.seen().is_empty(),
        "fetched before the licence was accepted"
    );

    let mut last = None;
    let installed = m
        .install(
            "fr_eye",
            true,
            &mut |p| last = Some(p),
            &AtomicBool::new(false),
        )
        .expect("install");
    assert_eq!(installed.len(), 1);
    assert_eq!(
        installed[0].sha256,
        "1afcea006abc1ccac3c517022abde0aa092bed74ff3c9fe6878483ef9e6e38de"
    );
    assert_eq!(
        last,
        Some(Progress {
            done: eye.len() as u64,
            total: Some(eye.len() as u64)
        })
    );
    assert_eq!(
        std::fs::read(models.join("fr_eye.onnx")).expect("file"),
        eye
    );
    let status = m
        .statuses()
        .into_iter()
        .find(|s| s.model_id == "fr_eye")
        .expect("row");
    assert!(
        matches!(status.state, CardState::Ready { .. }),
        "{status:?}"
    );
    // Nothing is left in the download dir once the file is in place.
    let leftovers: Vec<_> = std::fs::read_dir(m.download_dir())
        .expect("download dir")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // It loads: a real session on the real ONNX Runtime.
    let outcome = darkroom_engine::runtime::install(&RuntimeSearch {
        explicit: Some(assets().join("runtime/libonnxruntime.so.1.31.1")),
        ..Default::default()
    });
    assert_eq!(outcome.kind, RuntimeKind::OnnxRuntime, "{outcome:?}");
    let sessions = Sessions::new(
        outcome,
        ModelStore::new(&models, CardSet::builtin().expect("cards")),
        1,
    )
    .expect("sessions");
    sessions
        .open("fr_eye", Role::EyeState)
        .expect("the downloaded model builds a session");
}

#[test]
fn a_truncated_download_resumes_where_it_stopped() {
    let det = model_bytes("scrfd_2.5g.onnx");
    let cut = 1_000_000;
    let server = serving(
        "/scrfd_2.5g.onnx",
        Serve::CutFirst {
            bytes: det.clone(),
            cut,
        },
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let m = manager(dir.path(), &server);
    let installed = install(&m, "scrfd_2.5g").expect("resumed install");
    assert_eq!(
        installed[0].sha256,
        darkroom_engine::store::sha256_hex(&det)
    );
    let seen = server.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0].range_from, None);
    assert_eq!(
        seen[1].range_from,
        Some(cut as u64),
        "the second request asks for the rest, not the whole file"
    );
}

#[test]
fn a_cancelled_download_resumes_in_the_next_call() {
    let det = model_bytes("scrfd_2.5g.onnx");
    let server = serving("/scrfd_2.5g.onnx", Serve::Whole(det.clone()));
    let dir = tempfile::tempdir().expect("tempdir");
    let m = manager(dir.path(), &server);
    let cancel = AtomicBool::new(false);
    let err = m
        .install(
            "scrfd_2.5g",
            true,
            &mut |p: Progress| {
                if p.done >= 500_000 {
                    cancel.store(true, Ordering::SeqCst);
                }
            },
            &cancel,
        )
        .expect_err("cancelled");
    assert!(
        matches!(err, ManagerError::Fetch(FetchError::Cancelled)),
        "{err}"
    );
    let part = m.download_dir().join("scrfd_2.5g.onnx.part");
    let kept = std::fs::metadata(&part).expect("part kept").len();
    assert!(kept >= 500_000 && kept < det.len() as u64, "{kept}");
    assert!(!dir.path().join("scrfd_2.5g.onnx").exists());

    install(&m, "scrfd_2.5g").expect("resumed");
    assert_eq!(
        server.seen().last().expect("request").range_from,
        Some(kept)
    );
    assert_eq!(
        std::fs::read(dir.path().join("scrfd_2.5g.onnx")).expect("model"),
        det
    );
}

#[test]
fn a_corrupted_download_is_quarantined_and_never_loaded() {
    let mut bad = model_bytes("fr_feature.onnx");
    let mid = bad.len() / 2;
    bad[mid] ^= 0x40;
    let server = serving("/fr_feature.onnx", Serve::Whole(bad.clone()));
    let dir = tempfile::tempdir().expect("tempdir");
    let m = manager(dir.path(), &server);
    let err = install(&m, "fr_feature").expect_err("corrupt");
    let ManagerError::Fetch(FetchError::HashMismatch {
        expected,
        quarantined,
        ..
    }) = &err
    else {
        panic!("expected a hash mismatch, got {err}");
    };
    assert_eq!(
        expected,
        "87aacdfe57510db2af90c0251df680e8eec88f122ee94712121d09bcaaaf3581"
    );
    assert!(
        quarantined.starts_with(m.quarantine_dir()),
        "{quarantined:?}"
    );
    assert_eq!(std::fs::read(quarantined).expect("kept in quarantine"), bad);
    let note = std::fs::read_to_string(format!("{}.txt", quarantined.display())).expect("note");
    assert!(
        note.contains(&server.base) && note.contains(expected),
        "{note}"
    );
    assert!(err.to_string().contains("quarantined"), "{err}");
    let load = m.store().load("fr_feature").expect_err("nothing to load");
    assert!(matches!(load, EngineError::ModelMissing { .. }), "{load}");
}

#[test]
fn a_wrong_size_is_refused_before_the_body_arrives() {
    let eye = model_bytes("fr_eye.onnx");
    let server = Server::start(HashMap::from([
        (
            "/fr_eye.onnx".to_owned(),
            Serve::Declares {
                bytes: eye.clone(),
                declared: eye.len() + 4096,
            },
        ),
        (
            "/fr_feature.onnx".to_owned(),
            // The right bytes followed by more: no length to refuse up front, so the
            // download stops at the pinned size.
            Serve::Unsized([model_bytes("fr_feature.onnx"), vec![0u8; 300_000]].concat()),
        ),
    ]));
    let dir = tempfile::tempdir().expect("tempdir");
    let m = manager(dir.path(), &server);

    let started = std::time::Instant::now();
    let err = install(&m, "fr_eye").expect_err("wrong size");
    let ManagerError::Fetch(FetchError::SizeRefused {
        offered, pinned, ..
    }) = err
    else {
        panic!("expected a size refusal, got {err}");
    };
    assert_eq!(
        (offered, pinned),
        (eye.len() as u64 + 4096, eye.len() as u64)
    );
    // The server holds the body back: refusing on the header does not wait for it.
    assert!(
        started.elapsed() < support::http::BODY_HELD / 2,
        "waited for the body: {:?}",
        started.elapsed()
    );
    assert_eq!(server.seen().len(), 1, "a refusal is not retried");

    let err = install(&m, "fr_feature").expect_err("too long");
    assert!(
        matches!(
            err,
            ManagerError::Fetch(FetchError::TooLarge { limit: 4884269, .. })
        ),
        "{err}"
    );
    for name in ["fr_eye.onnx", "fr_feature.onnx"] {
        assert!(!dir.path().join(name).exists(), "{name} installed");
    }
}

/// A cards file whose embedder comes out of a zip "upstream", as buffalo_s does.
fn cards_with_pack(pack_sha: &str, member_path: &str) -> CardSet {
    let text = include_str!("../../assets/models.toml").replace(
        "file = \"fr_feature.onnx\"\n",
        &format!(
            "file = \"fr_feature.onnx\"\ndownload = \"test_pack\"\nmember = \"{member_path}\"\n"
        ),
    );
    let text = format!(
        "{text}\n[[download]]\nid = \"test_pack\"\ntitle = \"Test pack\"\nurl = \"https://example.invalid/v1/pack.zip\"\nsha256 = \"{pack_sha}\"\narchive = \"zip\"\nlicence = \"test only\"\n"
    );
    CardSet::parse(&text, "test cards").expect("cards with a pack")
}

fn zip_with(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in entries {
            z.start_file(*name, opts).expect("zip entry");
            z.write_all(bytes).expect("zip write");
        }
        z.finish().expect("zip");
    }
    buf.into_inner()
}

#[test]
fn an_archive_member_is_taken_out_and_checked_against_its_own_pin() {
    let feature = model_bytes("fr_feature.onnx");
    let good = zip_with(&[
        ("pack/README", b"weights"),
        ("pack/fr_feature.onnx", &feature),
    ]);
    let mut wrong = feature.clone();
    wrong[100] ^= 1;
    let bad = zip_with(&[("pack/fr_feature.onnx", &wrong)]);
    let sha = |b: &[u8]| darkroom_engine::store::sha256_hex(b);

    let server = serving("/pack.zip", Serve::Whole(good.clone()));
    let dir = tempfile::tempdir().expect("tempdir");
    let m = ModelManager::new(
        ModelStore::new(dir.path(), cards_with_pack(&sha(&good), "fr_feature.onnx")),
        Some(server.base.clone()),
    );
    let offer = m
        .offer(m.store().cards().get("fr_feature").expect("card"))
        .expect("offer");
    assert_eq!(offer.url, format!("{}/pack.zip", server.base));
    assert_eq!(offer.licence, "test only");
    let installed = install(&m, "fr_feature").expect("from the pack");
    assert_eq!(installed[0].sha256, sha(&feature));
    assert!(
        !m.download_dir().join("pack.zip").exists(),
        "archive left behind"
    );

    // A pack that passes its own hash but holds a member that fails the card's pin.
    let server = serving("/pack.zip", Serve::Whole(bad.clone()));
    let dir = tempfile::tempdir().expect("tempdir");
    let m = ModelManager::new(
        ModelStore::new(dir.path(), cards_with_pack(&sha(&bad), "fr_feature.onnx")),
        Some(server.base.clone()),
    );
    let err = install(&m, "fr_feature").expect_err("member mismatch");
    let ManagerError::Mismatch { quarantined, .. } = &err else {
        panic!("expected a member mismatch, got {err}");
    };
    assert_eq!(std::fs::read(quarantined).expect("quarantined"), wrong);
    assert!(!dir.path().join("fr_feature.onnx").exists());
}

#[test]
fn a_folder_is_installed_from_without_touching_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("my models");
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(folder.join("fr_eye.onnx"), model_bytes("fr_eye.onnx")).expect("copy");
    std::fs::write(folder.join("scrfd_2.5g.onnx"), b"not a detector").expect("bad copy");
    let models = dir.path().join("models");
    let m = ModelManager::new(
        ModelStore::new(&models, CardSet::builtin().expect("cards")),
        None,
    );
    let report: HashMap<String, Result<_, String>> =
        m.install_from_folder(&folder).into_iter().collect();
    assert!(report["fr_eye"].is_ok(), "{report:?}");
    let refused = report["scrfd_2.5g"].as_ref().expect_err("wrong bytes");
    assert!(
        refused.contains("not the pinned") && refused.contains("my models"),
        "{refused}"
    );
    assert!(models.join("fr_eye.onnx").is_file());
    assert!(!models.join("scrfd_2.5g.onnx").exists());
    assert!(
        folder.join("scrfd_2.5g.onnx").is_file(),
        "the user's file was moved"
    );
}

#[test]
fn a_tampered_installed_file_is_quarantined() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("fr_eye.onnx"), b"tampered").expect("write");
    let m = ModelManager::new(
        ModelStore::new(dir.path(), CardSet::builtin().expect("cards")),
        None,
    );
    let moved = m.quarantine_invalid().expect("quarantine");
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert_eq!(moved[0].model_id, "fr_eye");
    assert!(!dir.path().join("fr_eye.onnx").exists());
    assert_eq!(std::fs::read(&moved[0].path).expect("kept"), b"tampered");
    // Nothing to fetch it from without a mirror: the message says how to import instead.
    let err = install(&m, "fr_eye").expect_err("no source");
    assert!(err.to_string().contains("darkroom models import"), "{err}");
}

/// A server on 127.0.0.1 that gives each connection to `answer` on a thread of its own (a
/// stalled answer holds no other back); how many connections it took, to wait on.
fn raw_server(
    answer: impl Fn(std::net::TcpStream, Option<u64>) + Send + Sync + 'static,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::BufRead;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let taken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = taken.clone();
    let answer = std::sync::Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let answer = answer.clone();
            let counted = counted.clone();
            std::thread::spawn(move || {
                let mut range_from = None;
                let mut reader = std::io::BufReader::new(&stream);
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("range: bytes=") {
                        range_from = v.trim().trim_end_matches('-').parse().ok();
                    }
                }
                counted.fetch_add(1, Ordering::SeqCst);
                answer(stream, range_from);
            });
        }
    });
    (base, taken)
}

/// The pinned request for `bytes` served at `base`.
fn pinned(base: &str, bytes: &[u8]) -> darkroom_models::FetchRequest {
    darkroom_models::FetchRequest {
        url: format!("{base}/model.onnx"),
        name: "model.onnx".into(),
        pin: darkroom_models::Pin {
            sha256: darkroom_engine::store::sha256_hex(bytes),
            size: Some(bytes.len() as u64),
        },
    }
}

/// Two attempts and short waits; a server that answers at all is given 10 s for it, far
/// beyond what a loaded machine takes.
fn quick_fetcher() -> Fetcher {
    let mut f = Fetcher::new();
    f.attempts = 2;
    f.backoff = Duration::from_millis(10);
    f.answer_within = Duration::from_secs(10);
    f.idle = Duration::from_secs(10);
    f
}

/// A server that accepts and never answers: the download ends, saying so, after its attempts
/// (before, it waited for ever and the Models window with it).
#[test]
fn a_server_that_never_answers_ends_the_download_saying_so() {
    let (base, _) = raw_server(|stream, _| {
        std::thread::sleep(Duration::from_secs(3600));
        drop(stream);
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let mut f = quick_fetcher();
    f.answer_within = Duration::from_secs(1);
    let err = f
        .fetch(
            &pinned(&base, b"never sent"),
            dir.path(),
            &dir.path().join("quarantine"),
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .expect_err("no answer");
    match err {
        FetchError::Transport {
            attempts, cause, ..
        } => {
            assert_eq!(attempts, 2);
            assert_eq!(cause, "no answer within 1 s");
        }
        other => panic!("{other}"),
    }
}

/// Cancel while the server holds the request unanswered (its answer limit an hour away): the
/// fetch returns Cancelled at once rather than at the limit.
#[test]
fn cancel_ends_a_download_a_silent_server_holds() {
    let (base, taken) = raw_server(|stream, _| {
        std::thread::sleep(Duration::from_secs(3600));
        drop(stream);
    });
    let cancel = std::sync::Arc::new(AtomicBool::new(false));
    let (done_tx, done) = std::sync::mpsc::channel();
    let dir = tempfile::tempdir().expect("tempdir");
    let (d, c) = (dir.path().to_path_buf(), cancel.clone());
    std::thread::spawn(move || {
        let mut f = quick_fetcher();
        f.answer_within = Duration::from_secs(3600);
        let result = f.fetch(
            &pinned(&base, b"never sent"),
            &d,
            &d.join("quarantine"),
            &mut |_| {},
            &c,
        );
        let _ = done_tx.send(result);
    });
    // The request is in: the server holds it.
    while taken.load(Ordering::SeqCst) == 0 {
        std::thread::sleep(Duration::from_millis(10));
    }
    cancel.store(true, Ordering::SeqCst);
    // A hang is what is under test: the fetch polls its cancel flag ten times a second.
    // 30 s: far past the 0.1 s it takes, far short of the agent's own 120 s backstop, which
    // would end the request (and a broken cancel with it) by itself.
    let result = done
        .recv_timeout(Duration::from_secs(30))
        .expect("the fetch returned after Cancel, not at its hour's limit");
    assert!(matches!(result, Err(FetchError::Cancelled)), "{result:?}");
}

/// A server that sends a byte at a time, ten a second: each connection is given up for its
/// rate over a 3 s window, and the download ends saying it (a byte a second would never
/// finish a model).
#[test]
fn a_server_that_dribbles_is_given_up_with_its_rate() {
    let (base, _) = raw_server(|mut stream, _| {
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
        while stream.write_all(b"x").and_then(|()| stream.flush()).is_ok() {
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let mut f = quick_fetcher();
    f.idle = Duration::from_secs(3);
    f.min_rate = 1024;
    let err = f
        .fetch(
            &pinned(&base, &[b'x'; 1000]),
            dir.path(),
            &dir.path().join("quarantine"),
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .expect_err("too slow");
    match err {
        FetchError::Transport { cause, .. } => assert!(
            cause.starts_with("the server sends ") && cause.ends_with("under the 1024 it must"),
            "{cause}"
        ),
        other => panic!("{other}"),
    }
}

/// A link that drops every connection an eighth of the way through, but brings bytes each
/// time: the download resumes connection after connection, far past its two attempts, and
/// finishes whole.
#[test]
fn a_slow_link_that_keeps_bringing_bytes_finishes_the_model() {
    let model = model_bytes("fr_eye.onnx");
    let served = std::sync::Arc::new(model.clone());
    let slice = model.len().div_ceil(8);
    let (base, taken) = raw_server(move |mut stream, from| {
        let from = from.unwrap_or(0) as usize;
        let head = if from == 0 {
            format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n",
                served.len()
            )
        } else {
            format!(
                "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {from}-{}/{}\r\n\r\n",
                served.len() - from,
                served.len() - 1,
                served.len()
            )
        };
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&served[from..(from + slice).min(served.len())]);
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let got = quick_fetcher()
        .fetch(
            &pinned(&base, &model),
            dir.path(),
            &dir.path().join("quarantine"),
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .expect("finished");
    assert_eq!(std::fs::read(got).expect("read"), model);
    assert_eq!(taken.load(Ordering::SeqCst), 8);
}

/// A pack in the user's folder: installed from a copy of the manager's own, hashed as it was
/// copied (the folder's file, read once, may change after), which is gone afterwards; the
/// folder keeps its file.
#[test]
fn a_pack_in_a_folder_is_installed_from_a_private_copy() {
    let feature = model_bytes("fr_feature.onnx");
    let pack = zip_with(&[("pack/fr_feature.onnx", &feature)]);
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("my models");
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(folder.join("pack.zip"), &pack).expect("copy");
    let models = dir.path().join("models");
    let sha = darkroom_engine::store::sha256_hex(&pack);
    let m = ModelManager::new(
        ModelStore::new(&models, cards_with_pack(&sha, "fr_feature.onnx")),
        None,
    );
    let report: HashMap<String, Result<_, String>> =
        m.install_from_folder(&folder).into_iter().collect();
    assert!(report["fr_feature"].is_ok(), "{report:?}");
    assert_eq!(
        std::fs::read(models.join("fr_feature.onnx")).expect("installed"),
        feature
    );
    assert_eq!(std::fs::read(folder.join("pack.zip")).expect("kept"), pack);
    let left: Vec<_> = std::fs::read_dir(m.download_dir())
        .expect("the copy was made there")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "the private copy is gone: {left:?}");
}

/// A server that ignores the range asked for and drops every connection short, at an offset
/// of its own each time — now and then past every earlier one: the part starts again each
/// time, so the fetch ends once `attempts` connections in a row leave it no longer than it has
/// ever been. Counting any connection that leaves the part longer than it began as headway
/// would loop here for ever (the server gives in after 200 connections, so such a fetch
/// finishes and this test fails rather than hangs).
#[test]
fn a_server_ignoring_ranges_and_dropping_early_ends_the_fetch() {
    let model = model_bytes("fr_eye.onnx");
    let served = std::sync::Arc::new(model.clone());
    let n = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (base, taken) = raw_server(move |mut stream, _| {
        let k = n.fetch_add(1, Ordering::SeqCst);
        // 1,000, 38,000, 25,000, 12,000, 49,000, 36,000, 23,000, 10,000, 47,000, …
        let cut = if k < 200 {
            (k * 37 % 50 + 1) * 1000
        } else {
            served.len()
        };
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n",
            served.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&served[..cut.min(served.len())]);
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let mut fetcher = quick_fetcher();
    fetcher.attempts = 4;
    let err = fetcher
        .fetch(
            &pinned(&base, &model),
            dir.path(),
            &dir.path().join("quarantine"),
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .expect_err("never whole");
    assert!(matches!(err, FetchError::Transport { .. }), "{err}");
    // Headway at 1,000, 38,000 and 49,000 bytes; then 36,000, 23,000, 10,000 and 47,000 are
    // four in a row short of the longest part yet.
    let connections = taken.load(Ordering::SeqCst);
    assert_eq!(connections, 9, "{connections} connections");
}
