//! Each candidate check on real files, in process, without installing a runtime.

mod support;

use std::path::PathBuf;
use support::assets;

use darkroom_engine::runtime::{
    CandidateSource, Rejection, RuntimeSearch, check_candidate, search,
};

#[test]
fn current_library_is_accepted_with_its_version() {
    let lib =
        check_candidate(&assets().join("runtime/libonnxruntime.so.1.31.1")).expect("accepted");
    assert_eq!(lib.version, "1.31.1");
}

#[test]
fn old_library_is_too_old() {
    let err = check_candidate(&assets().join("runtime-old/libonnxruntime.so.1.22.1"))
        .expect_err("too old");
    assert_eq!(
        err,
        Rejection::TooOld {
            found: "1.22.1".into(),
            required_api: 23
        }
    );
}

#[test]
fn arch_s_onnx_runtime_1_23_is_accepted() {
    let lib = check_candidate(&assets().join("runtime-arch/libonnxruntime.so.1.23.2"))
        .expect("1.23 is the oldest accepted");
    assert_eq!(lib.version, "1.23.2");
}

#[test]
fn missing_text_and_symbol_less_files_are_told_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert!(matches!(
        check_candidate(&dir.path().join("nothing.so")),
        Err(Rejection::Missing { .. })
    ));
    let text = dir.path().join("libonnxruntime.so");
    std::fs::write(&text, "hello").expect("write");
    assert!(matches!(
        check_candidate(&text),
        Err(Rejection::NotALibrary { .. })
    ));
    // A real shared library that is not ONNX Runtime.
    let libm = [
        "/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
    ]
    .into_iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
    .expect("libm to test the missing-symbol path");
    assert_eq!(
        check_candidate(&libm).expect_err("no symbol"),
        Rejection::NoSymbol
    );
}

#[test]
fn search_order_prefers_explicit_then_dirs_and_records_each_rejection() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data_runtime = dir.path().join("runtime");
    std::fs::create_dir_all(&data_runtime).expect("mkdir");
    for (from, name) in [
        (
            "runtime-old/libonnxruntime.so.1.22.1",
            "libonnxruntime.so.1.22.1",
        ),
        (
            "runtime/libonnxruntime.so.1.31.1",
            "libonnxruntime.so.1.31.1",
        ),
    ] {
        std::fs::copy(assets().join(from), data_runtime.join(name)).expect("copy");
    }
    let order = RuntimeSearch {
        explicit: Some(dir.path().join("missing.so")),
        exe_dir: Some(dir.path().join("no-such-dir")),
        data_dir: Some(data_runtime.clone()),
        system: false,
        force_tract: false,
    };
    let (found, rejected) = search(&order);
    let (source, lib) = found.expect("the newest versioned file in the data dir");
    assert_eq!(source, CandidateSource::DataDir);
    assert_eq!(lib.version, "1.31.1", "newest version tried first");
    let sources: Vec<CandidateSource> = rejected.iter().map(|r| r.source).collect();
    assert_eq!(
        sources,
        vec![CandidateSource::Explicit, CandidateSource::ExeDir]
    );
}
