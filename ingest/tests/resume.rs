//! The service reached directly, as the window and the command line reach it: a run stopped
//! after a photo's copy was recorded but before the decision held for it was carried leaves
//! the carry to the next run, which makes it exactly once.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use darkroom_catalog::{Catalog, Decision, Flag, IngestedFile, SidecarNaming, sidecar};
use darkroom_ingest::{Options, plan, run};
use darkroom_library::ingest::{Pattern, copy};

fn options(card: &Path, to: &Path) -> Options {
    Options {
        source: card.to_path_buf(),
        to: to.to_path_buf(),
        backups: Vec::new(),
        pattern: Pattern::parse("{job}_{seq:3}").expect("pattern"),
        job: "gig".into(),
        write_times: false,
        naming: SidecarNaming::WithExtension,
        words: Default::default(),
    }
}

#[test]
fn a_decision_a_stopped_run_did_not_carry_is_carried_by_the_next_once() {
    let t = tempfile::tempdir().expect("tempdir");
    let card = t.path().join("card");
    let shot: PathBuf = card.join("DCIM/100CANON/IMG_0001.JPG");
    std::fs::create_dir_all(shot.parent().expect("a folder")).expect("mkdir");
    std::fs::write(
        &shot,
        b"\xFF\xD8 a frame that is not much of a JPEG \xFF\xD9",
    )
    .expect("shot");
    let work = t.path().join("work");
    let mut catalog =
        Catalog::open(&t.path().join("catalog.sqlite"), SidecarNaming::default()).expect("open");
    let reject = Decision {
        flag: Flag::Reject,
        ..Decision::default()
    };
    catalog.decide(&shot, &reject).expect("held");
    assert_eq!(catalog.held_count().expect("count"), 1);

    // What a run killed between its commit and its carry leaves: the copy, recorded.
    let copied = work.join("gig_001.JPG");
    std::fs::create_dir_all(&work).expect("mkdir");
    std::fs::copy(&shot, &copied).expect("copy");
    let bytes = std::fs::metadata(&shot).expect("stat").len();
    catalog
        .record_ingested(&IngestedFile {
            sha256: copy::hash_of(&shot).expect("hash"),
            size: bytes,
            source: shot.clone(),
            dest: copied.clone(),
        })
        .expect("recorded");

    let opts = options(&card, &work);
    let cancel = AtomicBool::new(false);
    let planned = plan(&opts, &catalog, &cancel).expect("plan");
    assert_eq!(planned.already(), 1, "nothing left to copy");
    let outcome = run(&planned, &opts, &mut catalog, &cancel, &mut |_| {});
    assert_eq!(outcome.failed, Vec::new());
    assert_eq!(outcome.decisions_carried, 1, "{outcome:?}");
    assert_eq!(catalog.held_count().expect("count"), 0, "retired");
    assert_eq!(
        sidecar::read(&copied, SidecarNaming::WithExtension).expect("read"),
        Some(reject.clone())
    );
    // Once: a third run carries nothing, and a decision made on the copy since stands.
    let pick = Decision {
        flag: Flag::Pick,
        ..Decision::default()
    };
    catalog.decide(&copied, &pick).expect("culled on the drive");
    let planned = plan(&opts, &catalog, &cancel).expect("plan");
    let outcome = run(&planned, &opts, &mut catalog, &cancel, &mut |_| {});
    assert_eq!(outcome.decisions_carried, 0);
    assert_eq!(catalog.decision(&copied).expect("row"), Some(pick));
}
