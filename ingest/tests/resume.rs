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

/// Two runs of one card into one drive, the second planned before the first held the drive
/// (two card readers, or the window and the command line, started together): the second runs
/// once the first is done, finds each copy the first made under the name it planned, confirms
/// it by its bytes and counts it landed — no false "a file is already there", no `-2`, each
/// file once.
#[test]
fn a_run_planned_before_another_brought_the_card_in_finds_its_copies() {
    let t = tempfile::tempdir().expect("tempdir");
    let card = small_card(t.path(), 3);
    let folder = card.join("DCIM/100CANON");
    let work = t.path().join("work");
    let opts = options(&card, &work);
    let cancel = AtomicBool::new(false);
    let mut first =
        Catalog::open(&t.path().join("catalog.sqlite"), SidecarNaming::default()).expect("open");
    let mut second =
        Catalog::open(&t.path().join("catalog.sqlite"), SidecarNaming::default()).expect("open");
    let early = plan(&opts, &first, &cancel).expect("plan");
    let late = plan(&opts, &second, &cancel).expect("plan");
    assert_eq!(late.new_photos(), 3, "planned before anything landed");
    let done = run(&early, &opts, &mut first, &cancel, &mut |_| {});
    assert_eq!(done.failed, Vec::new());
    assert_eq!(done.copied_photos, 3);

    let outcome = run(&late, &opts, &mut second, &cancel, &mut |_| {});
    assert_eq!(outcome.failed, Vec::new(), "{outcome:?}");
    assert_eq!(outcome.stopped, None);
    let mut names: Vec<String> = std::fs::read_dir(&work)
        .expect("work")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["gig_001.JPG", "gig_002.JPG", "gig_003.JPG"]);
    for k in 1..=3 {
        assert_eq!(
            std::fs::read(work.join(format!("gig_{k:03}.JPG"))).expect("copy"),
            std::fs::read(folder.join(format!("IMG_{k:04}.JPG"))).expect("card")
        );
    }
    // A file of another's under a planned name is left as it is, and said.
    std::fs::write(
        folder.join("IMG_0004.JPG"),
        "\u{FF}\u{D8} frame 4 \u{FF}\u{D9}",
    )
    .expect("4");
    let stale = plan(&opts, &second, &cancel).expect("plan");
    assert_eq!(stale.new_photos(), 1);
    std::fs::write(work.join("gig_004.JPG"), "another program's").expect("theirs");
    let outcome = run(&stale, &opts, &mut second, &cancel, &mut |_| {});
    assert_eq!(outcome.failed.len(), 1, "{outcome:?}");
    assert!(
        outcome.failed[0]
            .1
            .contains("is not the photo (left as it is)"),
        "{outcome:?}"
    );
    assert_eq!(
        std::fs::read(work.join("gig_004.JPG")).expect("theirs"),
        b"another program's"
    );
}

/// A card of `n` small frames in `t/card`, `IMG_0001.JPG` on.
fn small_card(t: &Path, n: usize) -> PathBuf {
    let folder = t.join("card/DCIM/100CANON");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for k in 1..=n {
        std::fs::write(
            folder.join(format!("IMG_{k:04}.JPG")),
            format!("\u{FF}\u{D8} frame {k} \u{FF}\u{D9}"),
        )
        .expect("shot");
    }
    t.join("card")
}

/// The drive unmounted between the plan and "Copy and verify" (its path now the bare mount
/// point): the run refuses before a byte is written, and writes nothing there — not even the
/// lock. A link under a planned name to the card's own file is never taken for a copy.
#[cfg(unix)]
#[test]
fn a_drive_gone_since_the_plan_is_refused_and_a_link_is_not_a_copy() {
    let t = tempfile::tempdir().expect("tempdir");
    let card = small_card(t.path(), 2);
    let work = t.path().join("work");
    std::fs::create_dir_all(&work).expect("the drive");
    let opts = options(&card, &work);
    let cancel = AtomicBool::new(false);
    let mut catalog =
        Catalog::open(&t.path().join("catalog.sqlite"), SidecarNaming::default()).expect("open");
    let planned = plan(&opts, &catalog, &cancel).expect("plan");
    std::fs::rename(&work, t.path().join("unmounted")).expect("unmount");
    std::fs::create_dir(&work).expect("the bare mount point");
    let outcome = run(&planned, &opts, &mut catalog, &cancel, &mut |_| {});
    assert_eq!(
        outcome.stopped,
        Some(format!(
            "the drive is no longer there (unmounted, unplugged, or another in its place): {}",
            work.display()
        ))
    );
    assert_eq!(
        std::fs::read_dir(&work).expect("bare").count(),
        0,
        "nothing on the bare mount point"
    );

    // Planned again on the folder there now; then a link to the card's file takes a name.
    let planned = plan(&opts, &catalog, &cancel).expect("plan");
    let shot = card.join("DCIM/100CANON/IMG_0001.JPG");
    std::os::unix::fs::symlink(&shot, work.join("gig_001.JPG")).expect("link");
    let outcome = run(&planned, &opts, &mut catalog, &cancel, &mut |_| {});
    assert_eq!(outcome.failed.len(), 1, "{outcome:?}");
    assert!(
        outcome.failed[0].1.contains("is not a copy of its own"),
        "{outcome:?}"
    );
    assert!(
        work.join("gig_001.JPG")
            .symlink_metadata()
            .expect("there")
            .file_type()
            .is_symlink(),
        "left as it is"
    );
    assert_eq!(
        std::fs::read(work.join("gig_002.JPG")).expect("the other photo"),
        std::fs::read(card.join("DCIM/100CANON/IMG_0002.JPG")).expect("card")
    );
}
