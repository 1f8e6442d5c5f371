//! The Ingest window as a photographer uses it: a card chosen, the names its photos will get
//! previewed live as the pattern changes, a name already taken on the drive asked about, then
//! the copy to a working folder and a backup — the window showing the working folder as the
//! photos land. The snapshots (preview, the question, progress) were looked at.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::gui::{harness_with, ort_cpu, settle};
use crate::snapshots::Snap;
use crate::support::camera_card;
use darkroom_app::gui::workers::{INGEST_BACKUP, INGEST_CARD, INGEST_TO};
use darkroom_app::services::ingest::Progress;
use egui_kittest::kittest::Queryable;

fn files(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).expect("under").display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn the_ingest_window_previews_names_asks_about_a_taken_one_and_shows_photos_as_they_land() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Fixed folders: their paths are in the snapshots.
    let base: PathBuf = std::env::temp_dir().join("darkroom-gui-ingest");
    let _ = std::fs::remove_dir_all(&base);
    let card = camera_card(&base);
    let (work, backup) = (base.join("work"), base.join("backup"));
    std::fs::create_dir_all(&work).expect("mkdir");
    std::fs::write(work.join("wedding_001.JPG"), b"another shoot's frame").expect("write");
    let answers = (card.clone(), work.clone(), backup.clone());
    let mut h = harness_with(
        dir.path(),
        None,
        ort_cpu(),
        Arc::new(move |ask| match ask.title {
            INGEST_CARD => Some(answers.0.clone()),
            INGEST_TO => Some(answers.1.clone()),
            INGEST_BACKUP => Some(answers.2.clone()),
            _ => None,
        }),
    );
    settle(&mut h);
    h.get_by_label("Ingest a card…").click();
    settle(&mut h);
    h.get_by_label("Card…").click();
    settle(&mut h);
    h.get_by_label_contains("3 photos on the card");
    h.get_by_label("IMG_0002.JPG  →  2003-09-26/IMG_0002.JPG");

    // The preview follows the pattern and the job as they are typed.
    h.state_mut().windows.ingest.pattern = "{job}_{seq:3}".into();
    h.state_mut().windows.ingest.job = "wedding".into();
    h.get_by_label("Working folder…").click();
    settle(&mut h);
    h.get_by_label("Backup…").click();
    settle(&mut h);
    h.get_by_label("IMG_0002.JPG  →  wedding_001.JPG");
    h.get_by_label("IMG_0003.JPG  →  wedding_002.JPG");
    h.get_by_label("IMG_0001.CR3  →  wedding_003.CR3");
    h.snap("ingest_preview");

    // The working folder already has a wedding_001.JPG of another shoot: asked, not assumed.
    h.get_by_label("Copy and verify").click();
    settle(&mut h);
    h.get_by_label_contains("1 photo would land on a name another file already has");
    h.snap("ingest_asks");
    assert_eq!(files(&work), ["wedding_001.JPG"], "nothing copied before the answer");
    h.get_by_label("Number them (-2, -3…)").click();
    settle(&mut h);

    // The working folder is open in the window with what landed; the other file is kept.
    assert_eq!(h.state().cull.root.as_deref(), Some(work.as_path()));
    let mut shown: Vec<String> = h
        .state()
        .cull
        .entries()
        .iter()
        .map(|e| e.item.primary.file_name().expect("a name").to_string_lossy().into_owned())
        .collect();
    shown.sort();
    assert_eq!(
        shown,
        ["wedding_001-2.JPG", "wedding_001.JPG", "wedding_002.JPG", "wedding_003.CR3"],
        "each photo once, the pair as one"
    );
    assert_eq!(
        std::fs::read(work.join("wedding_001.JPG")).expect("kept"),
        b"another shoot's frame"
    );
    assert_eq!(
        files(&backup),
        [
            "wedding_001-2.JPG",
            "wedding_002.JPG",
            "wedding_003.CR3",
            "wedding_003.CR3.xmp",
            "wedding_003.JPG"
        ]
    );
    assert_eq!(
        std::fs::read(backup.join("wedding_003.CR3")).expect("copy"),
        std::fs::read(card.join("DCIM/100CANON/IMG_0001.CR3")).expect("card")
    );
    h.get_by_label_contains("Ingest: 3 photos copied (5 files");

    // Read again as a photographer reopening it: the grid in the folder's order (above, the
    // photos came in as they landed, around the scan of what was there).
    h.state_mut().open(work.clone());
    settle(&mut h);
    // What a run shows while it copies (a frozen progress: the copy above was too quick to
    // catch), with the way back to culling.
    h.state_mut().windows.ingest.show_progress(Progress {
        files_done: 12,
        files_total: 40,
        bytes_done: 310_000_000,
        bytes_total: 1_020_000_000,
        photos_done: 5,
        photos_total: 16,
        elapsed: std::time::Duration::from_secs(4),
    });
    h.state_mut().overlay = darkroom_app::gui::Overlay::Ingest;
    h.run_steps(2);
    h.get_by_label("12 of 40 files · 310 of 1020 MB · 78 MB/s · 9 s left");
    h.snap("ingest_progress");
    let _ = std::fs::remove_dir_all(&base);
}
