//! `darkroom index` on the real models and photos: the same faces as the single-image command,
//! the job's model_ids on every row, nothing re-indexed on a re-run but a changed file, a
//! corrupt file reported and skipped, and people that group the same face and only it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::support::*;
use darkroom_catalog::{Catalog, SidecarNaming};

fn index(dir: &Path, folder: &Path) -> serde_json::Value {
    index_with(dir, folder, &[])
}

fn index_with(dir: &Path, folder: &Path, args: &[&str]) -> serde_json::Value {
    let out = run_ok(
        darkroom_on(Rt::Ort, dir)
            .env("DARKROOM_MODELS", models())
            .args(["index", "--json"])
            .args(args)
            .arg("--catalog")
            .arg(dir.join("catalog.sqlite"))
            .arg(folder),
    );
    json(&out)
}

/// Look for the subject in every photo no face judges, as the index did before it looked only
/// where the subject can decide: what the tests of a catalog's upgrade measure.
const EVERYWHERE: &[&str] = &["--subjects", "everywhere"];

fn copy_photos(folder: &Path, names: &[&str]) {
    std::fs::create_dir_all(folder).expect("mkdir");
    for n in names {
        std::fs::copy(photo(n), folder.join(n)).expect("copy");
    }
}

/// The job ran U²-Netp on exactly the photos no face judges (a portrait's subject is its face:
/// its 0.5 s a photo is not spent there), and those are `unjudged` (`--subjects everywhere`).
fn assert_segmenter_ran_where_no_face_judges(report: &serde_json::Value, unjudged: &[&str]) {
    let mut not_judged: Vec<&str> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["judged_by_faces"] == false)
        .map(|r| {
            let path = Path::new(r["path"].as_str().expect("path"));
            path.file_name().and_then(|n| n.to_str()).expect("a name")
        })
        .collect();
    not_judged.sort_unstable();
    let mut expected = unjudged.to_vec();
    expected.sort_unstable();
    assert_eq!(not_judged, expected, "{report}");
    let stages = &report["stages"];
    assert_eq!(stages["segmented"], unjudged.len(), "{stages}");
    assert!(
        stages["segment_ms"].as_f64().is_some_and(|ms| ms > 0.0),
        "{stages}"
    );
}

const ALL: &[&str] = &[
    "astronaut.png",
    "camera.png",
    "chelsea.png",
    "coffee.png",
    "gauss.png",
    "grace_hopper.jpg",
    "newton.png",
    "rocket.jpg",
    "solvay_conference_1927.jpg",
];

#[test]
fn index_matches_faces_records_model_ids_and_resumes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    copy_photos(&folder, ALL);
    let report = index(dir.path(), &folder);
    assert_eq!(report["indexed"], ALL.len(), "{report}");
    assert_eq!(report["skipped"], 0);
    let ids = &report["model_ids"];
    assert_eq!(ids["detector"], "scrfd_2.5g");

    // The single-image command finds the same faces in each photo.
    let paths: Vec<PathBuf> = ALL.iter().map(|n| folder.join(n)).collect();
    let faces = json(&run_ok(
        darkroom_on(Rt::Ort, dir.path())
            .env("DARKROOM_MODELS", models())
            .args(["faces", "--json"])
            .args(&paths),
    ));
    let single: HashMap<String, usize> = faces["images"]
        .as_array()
        .expect("images")
        .iter()
        .map(|i| {
            (
                i["path"].as_str().expect("path").to_owned(),
                i["faces"].as_array().expect("faces").len(),
            )
        })
        .collect();
    for r in report["results"].as_array().expect("results") {
        let path = r["path"].as_str().expect("path");
        assert_eq!(
            r["faces"].as_array().expect("faces").len(),
            single[path],
            "{path}"
        );
    }
    assert_eq!(report["faces"], 34, "29 at Solvay, one in each portrait");

    // Every photo's row carries the job's model_ids and backend.
    let catalog = Catalog::open(&dir.path().join("catalog.sqlite"), SidecarNaming::default())
        .expect("catalog");
    for p in &paths {
        let i = catalog.photo_index(p).expect("query").expect("indexed");
        assert_eq!(i.stamp.detector, "scrfd_2.5g");
        assert_eq!(i.stamp.embedder.as_deref(), ids["embedder"].as_str());
        assert_eq!(i.stamp.eyes.as_deref(), ids["eyes"].as_str());
        assert_eq!(i.backend, report["backend"].as_str().expect("backend"));
        for f in &i.faces {
            assert!(f.embedding.as_ref().is_some_and(|e| e.len() == 512));
            assert!(f.person.is_some());
        }
    }
    drop(catalog);

    // Again: nothing to do.
    let again = index(dir.path(), &folder);
    assert_eq!(
        (again["indexed"].clone(), again["skipped"].clone()),
        (0.into(), ALL.len().into())
    );
    assert_eq!(again["faces"], 34, "the summary still covers the folder");

    // One file changes: only it is indexed again.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let changed = folder.join("rocket.jpg");
    let bytes = std::fs::read(&changed).expect("read");
    std::fs::write(&changed, bytes).expect("rewrite");
    let third = index(dir.path(), &folder);
    assert_eq!(third["indexed"], 1, "{third}");
    assert_eq!(third["skipped"], ALL.len() - 1);
}

#[test]
fn a_corrupt_file_is_reported_and_the_job_completes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    copy_photos(&folder, &["grace_hopper.jpg", "coffee.png"]);
    let full = std::fs::read(photo("rocket.jpg")).expect("read");
    std::fs::write(folder.join("cut.jpg"), &full[..full.len() / 3]).expect("write");
    std::fs::write(folder.join("empty.png"), b"").expect("write");
    let report = index(dir.path(), &folder);
    assert_eq!(report["indexed"], 2, "{report}");
    let failed: HashSet<String> = report["failed"]
        .as_array()
        .expect("failed")
        .iter()
        .map(|f| {
            let path = f["path"].as_str().expect("path");
            let error = f["error"].as_str().expect("error");
            assert!(!error.is_empty());
            Path::new(path)
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        failed,
        HashSet::from(["cut.jpg".to_owned(), "empty.png".to_owned()])
    );
}

/// Each indexed photo's name (its stem) and the person of its one face (a photo with another
/// number of faces fails the test).
fn person_of_each_photo(report: &serde_json::Value) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for r in report["results"].as_array().expect("results") {
        let name = Path::new(r["path"].as_str().expect("path"))
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let faces = r["faces"].as_array().expect("faces");
        assert_eq!(faces.len(), 1, "{name}: {faces:?}");
        out.push((name, faces[0]["person"].as_i64().expect("a person")));
    }
    out
}

/// A fresh install: a models folder with only what the Arch package installs (read from its
/// PKGBUILD, so the test follows the package) finds people with no download. Obama in three
/// photos is one person; Biden, Grace Hopper and the astronaut are each their own.
#[test]
fn a_fresh_install_groups_people_with_the_models_it_ships() {
    let dir = tempfile::tempdir().expect("tempdir");
    let shipped = shipped_models(dir.path());
    let folder = one_person_in_three_photos(dir.path());
    let out = run_ok(
        darkroom_on(Rt::Ort, dir.path())
            .env("DARKROOM_MODELS", &shipped)
            .args(["index", "--json", "--catalog"])
            .arg(dir.path().join("catalog.sqlite"))
            .arg(&folder),
    );
    let report = json(&out);
    assert_eq!(report["model_ids"]["embedder"], "dlib_resnet", "{report}");
    let person_of: HashMap<String, i64> = person_of_each_photo(&report).into_iter().collect();
    let obama = person_of["obama"];
    assert_eq!(person_of["obama2"], obama, "{person_of:?}");
    assert_eq!(person_of["obama3"], obama, "{person_of:?}");
    let others: HashSet<i64> = ["biden", "grace_hopper", "astronaut"]
        .iter()
        .map(|n| person_of[*n])
        .collect();
    assert_eq!(others.len(), 3, "each their own: {person_of:?}");
    assert!(!others.contains(&obama), "{person_of:?}");
    assert_eq!(report["people"], 4, "{report}");
}

#[test]
fn people_group_the_same_face_and_only_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("people");
    std::fs::create_dir_all(&folder).expect("mkdir");
    // Each portrait four ways: as taken, mirrored, cropped tighter and scaled, darker.
    for name in [
        "grace_hopper.jpg",
        "astronaut.png",
        "newton.png",
        "gauss.png",
    ] {
        let img = image::open(photo(name)).expect("photo").into_rgb8();
        let stem = Path::new(name)
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let (w, h) = img.dimensions();
        let crop =
            image::imageops::crop_imm(&img, w / 10, h / 12, w * 8 / 10, h * 10 / 12).to_image();
        let variants = [
            img.clone(),
            image::imageops::flip_horizontal(&img),
            image::imageops::resize(
                &crop,
                w * 3 / 4,
                h * 3 / 4,
                image::imageops::FilterType::Lanczos3,
            ),
            image::imageops::colorops::brighten(&img, -40),
        ];
        for (k, v) in variants.iter().enumerate() {
            v.save(folder.join(format!("{stem}_{k}.png")))
                .expect("save");
        }
    }
    let report = index(dir.path(), &folder);
    let mut person_of: HashMap<String, Vec<i64>> = HashMap::new();
    for (name, person) in person_of_each_photo(&report) {
        let stem = name.rsplit_once('_').expect("variant").0.to_owned();
        person_of.entry(stem).or_default().push(person);
    }
    let mut people = HashSet::new();
    for (stem, ids) in &person_of {
        assert_eq!(ids.len(), 4);
        assert!(ids.iter().all(|i| *i == ids[0]), "{stem}: {ids:?}");
        people.insert(ids[0]);
    }
    assert_eq!(people.len(), 4, "four people, apart: {person_of:?}");
    assert_eq!(report["people"], 4);

    // Key people: each of the four is in 4 of the 16 frames, so none is suggested; Grace
    // Hopper starred by her number, as `darkroom people` lists her.
    let people_cmd = |args: &[&str]| {
        darkroom_on(Rt::Ort, dir.path())
            .args(["people", "--json", "--catalog"])
            .arg(dir.path().join("catalog.sqlite"))
            .args(args)
            .output()
            .expect("darkroom starts")
    };
    let listed = |args: &[&str]| -> Vec<serde_json::Value> {
        let out = people_cmd(args);
        assert!(out.status.success(), "{out:?}");
        json(&out).as_array().expect("people").clone()
    };
    let all = listed(&["list"]);
    assert_eq!(all.len(), 4, "{all:?}");
    assert!(
        all.iter()
            .all(|p| p["starred"] == false && p["suggested"] == false)
    );
    let grace = person_of["grace_hopper"][0];
    let out = people_cmd(&["star", &format!("Person {grace}")]);
    assert!(out.status.success(), "{out:?}");
    // A name no one has changes nothing, even beside one that exists.
    let out = people_cmd(&["unstar", &format!("Person {grace}"), "Nobody"]);
    assert!(!out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Nobody"),
        "{out:?}"
    );
    let in_folder = listed(&["list", folder.to_str().expect("utf-8")]);
    for p in &in_folder {
        assert_eq!(p["frames"], 4, "{p}");
        assert_eq!(p["starred"], p["id"] == grace, "{p}");
    }
    // The star is read with every face of hers.
    let catalog = Catalog::open(&dir.path().join("catalog.sqlite"), SidecarNaming::default())
        .expect("catalog");
    let row = catalog
        .photo_index(&folder.join("grace_hopper_0.png"))
        .expect("query")
        .expect("indexed");
    assert!(row.faces[0].key, "{:?}", row.faces[0]);
}

#[test]
fn the_window_s_detector_and_blurry_threshold_hold_for_the_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    copy_photos(&folder, &["grace_hopper.jpg", "coffee.png"]);
    let settings = dir.path().join("settings.json");

    // A threshold no photo reaches: both are blurry.
    std::fs::write(&settings, r#"{"blurry_below": 1000000.0}"#).expect("write");
    let report = index(dir.path(), &folder);
    assert_eq!(report["blurry"], 2, "{report}");

    // A detector that is not installed: the job says which, and a flag overrides it.
    std::fs::write(&settings, r#"{"detector": "scrfd_500m"}"#).expect("write");
    let out = darkroom_on(Rt::Ort, dir.path())
        .env("DARKROOM_MODELS", models())
        .args(["index", "--json", "--catalog"])
        .arg(dir.path().join("catalog.sqlite"))
        .arg(&folder)
        .output()
        .expect("darkroom starts");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("scrfd_500m"), "{err}");
    let report = json(&run_ok(
        darkroom_on(Rt::Ort, dir.path())
            .env("DARKROOM_MODELS", models())
            .args(["index", "--json", "--detector", "scrfd_2.5g", "--catalog"])
            .arg(dir.path().join("catalog.sqlite"))
            .arg(&folder),
    ));
    assert_eq!(report["model_ids"]["detector"], "scrfd_2.5g");
}

/// A catalog indexed before the subject and eye-level measures existed (schema 3: no
/// `subjects`, no segmenter or measures on `indexed`, no eye focus on `faces`) opens, and the
/// next index only measures what is new: faces, embeddings and people stay the rows they were.
#[test]
fn a_catalog_from_before_the_subject_is_measured_again_not_indexed_again() {
    const SOME: &[&str] = &[
        "astronaut.png",
        "grace_hopper.jpg",
        "rocket.jpg",
        "chelsea.png",
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    copy_photos(&folder, SOME);
    let first = index_with(dir.path(), &folder, EVERYWHERE);
    assert_eq!(first["indexed"], SOME.len(), "{first}");
    assert_eq!(first["model_ids"]["segmenter"], "u2netp");
    assert_segmenter_ran_where_no_face_judges(&first, &["rocket.jpg", "chelsea.png"]);
    let db = dir.path().join("catalog.sqlite");
    let faces_of = || -> Vec<(i64, Vec<u8>, Option<i64>)> {
        let conn = rusqlite::Connection::open(&db).expect("open");
        let mut stmt = conn
            .prepare("SELECT id, embedding, person FROM faces ORDER BY id")
            .expect("query");
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("faces")
    };
    let faces_before = faces_of();
    assert_eq!(
        faces_before.len(),
        2,
        "the astronaut's and Grace Hopper's faces"
    );
    // Take the catalog back to what version 3 wrote.
    {
        let conn = rusqlite::Connection::open(&db).expect("open");
        // Version 3's own tables (SQLite cannot drop a column its schema text ends with).
        conn.execute_batch(
            "DROP TABLE subjects;
             CREATE TABLE indexed_v3 (
                 photo INTEGER PRIMARY KEY REFERENCES photos(id) ON DELETE CASCADE,
                 size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, detector TEXT NOT NULL,
                 embedder TEXT, eyes TEXT, backend TEXT NOT NULL, width INTEGER NOT NULL,
                 height INTEGER NOT NULL, sharpness REAL NOT NULL, phash INTEGER NOT NULL,
                 captured_at REAL, indexed_at INTEGER NOT NULL);
             INSERT INTO indexed_v3 SELECT photo, size, mtime_ns, detector, embedder, eyes,
                 backend, width, height, sharpness, phash, captured_at, indexed_at FROM indexed;
             DROP TABLE indexed;
             ALTER TABLE indexed_v3 RENAME TO indexed;
             CREATE TABLE faces_v3 (
                 id INTEGER PRIMARY KEY,
                 photo INTEGER NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
                 x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL,
                 score REAL NOT NULL, landmarks BLOB NOT NULL, embedding BLOB,
                 detector TEXT NOT NULL, embedder TEXT, sharpness REAL NOT NULL,
                 eyes_closed INTEGER, person INTEGER);
             INSERT INTO faces_v3 SELECT id, photo, x0, y0, x1, y1, score, landmarks, embedding,
                 detector, embedder, sharpness, eyes_closed, person FROM faces;
             DROP TABLE faces;
             ALTER TABLE faces_v3 RENAME TO faces;
             CREATE INDEX faces_photo ON faces(photo);
             CREATE INDEX faces_person ON faces(person);
             PRAGMA user_version = 3;",
        )
        .expect("version 3");
    }
    let again = index_with(dir.path(), &folder, EVERYWHERE);
    assert_eq!(
        (&again["indexed"], &again["remeasured"], &again["skipped"]),
        (&0.into(), &SOME.len().into(), &0.into()),
        "{again}"
    );
    assert_segmenter_ran_where_no_face_judges(&again, &["rocket.jpg", "chelsea.png"]);
    assert_eq!(
        faces_of(),
        faces_before,
        "faces, embeddings and people untouched"
    );
    let catalog = Catalog::open(&db, SidecarNaming::default()).expect("catalog");
    let astronaut = catalog
        .photo_index(&folder.join("astronaut.png"))
        .expect("query")
        .expect("indexed");
    assert_eq!(astronaut.stamp.measures, darkroom_catalog::MEASURES);
    assert!(
        astronaut.subject.is_none(),
        "her face judges the photo: no subject is looked for"
    );
    let rocket = catalog
        .photo_index(&folder.join("rocket.jpg"))
        .expect("query")
        .expect("indexed");
    assert!(rocket.faces.is_empty(), "{:?}", rocket.faces);
    let subject = rocket.subject.expect("the rocket's subject row");
    assert_eq!(subject.segmenter, "u2netp");
    assert_eq!(
        subject.mask.len(),
        (subject.mask_width * subject.mask_height).div_ceil(8) as usize
    );
    assert!(
        astronaut.faces[0].eyes_sharpness.is_some(),
        "her eyes are measured"
    );
    assert!(
        astronaut.faces[0].expression.is_some(),
        "and her expression, by the mesh"
    );
    drop(catalog);
    // And then there is nothing left to do.
    let third = index_with(dir.path(), &folder, EVERYWHERE);
    assert_eq!(third["skipped"], SOME.len(), "{third}");
}

/// A catalog indexed before the face mesh (measures 5: no expressions, the eye-state model's
/// verdicts) gets the mesh's measures and verdicts on its stored faces: measured again, never
/// detected again; faces, embeddings and people stay as they were.
#[test]
fn a_catalog_from_before_the_mesh_gets_its_measures_without_detecting_again() {
    const SOME: &[&str] = &["astronaut.png", "grace_hopper.jpg", "rocket.jpg"];
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    copy_photos(&folder, SOME);
    let first = index(dir.path(), &folder);
    assert_eq!(
        first["model_ids"]["mesh"], "face_mesh+iris_landmark",
        "{first}"
    );
    assert_eq!(
        first["model_ids"]["eyes"], "face_mesh+iris_landmark",
        "{first}"
    );
    let db = dir.path().join("catalog.sqlite");
    /// A face row's id, embedding, person and left eye's openness.
    type Row = (i64, Vec<u8>, Option<i64>, Option<f64>);
    let rows = || -> Vec<Row> {
        let conn = rusqlite::Connection::open(&db).expect("open");
        let mut stmt = conn
            .prepare("SELECT id, embedding, person, eye_open_l FROM faces ORDER BY id")
            .expect("query");
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("faces")
    };
    let before = rows();
    assert_eq!(before.len(), 2, "{before:?}");
    assert!(before.iter().all(|r| r.3.is_some()), "measured: {before:?}");
    // As the eye-state model's index left it: no mesh, no expression, measures 5; and its
    // verdicts (closed, which the mesh must overturn).
    rusqlite::Connection::open(&db)
        .expect("open")
        .execute_batch(
            "UPDATE indexed SET measures = 5, mesh = NULL, eyes = 'fr_eye';
             UPDATE faces SET eyes_closed = 1, eye_open_l = NULL, eye_open_r = NULL, smile = NULL,
                 gaze_yaw = NULL, gaze_pitch = NULL, head_yaw = NULL, head_pitch = NULL;",
        )
        .expect("measures 5");
    let again = index(dir.path(), &folder);
    assert_eq!(
        (&again["indexed"], &again["remeasured"], &again["skipped"]),
        (&0.into(), &SOME.len().into(), &0.into()),
        "{again}"
    );
    assert_eq!(again["stages"]["meshed"], 2, "{again}");
    let after = rows();
    assert_eq!(
        after.iter().map(|r| (r.0, &r.1, r.2)).collect::<Vec<_>>(),
        before.iter().map(|r| (r.0, &r.1, r.2)).collect::<Vec<_>>(),
        "the same face rows, embeddings and people"
    );
    for (b, a) in before.iter().zip(&after) {
        let (x, y) = (b.3.expect("before"), a.3.expect("measured again"));
        assert!((x - y).abs() < 1e-4, "the same measure: {x} then {y}");
    }
    for r in again["results"].as_array().expect("results") {
        for f in r["faces"].as_array().expect("faces") {
            assert_eq!(f["eyes"], "open", "{f}");
            assert!(f["expression"]["eye_open"].is_array(), "{f}");
        }
    }
    let third = index(dir.path(), &folder);
    assert_eq!(third["skipped"], SOME.len(), "{third}");
}

/// A catalog whose measures version 2 stored a subject on a portrait (version 2 segmented every
/// photo) is measured again, not indexed again, and the portrait's subject is dropped: its face
/// judges it. The rocket's is looked for again (every photo, as version 2 did).
#[test]
fn a_portraits_subject_from_measures_2_is_dropped_when_measured_again() {
    const TWO: &[&str] = &["astronaut.png", "rocket.jpg"];
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    copy_photos(&folder, TWO);
    let first = index_with(dir.path(), &folder, EVERYWHERE);
    assert_segmenter_ran_where_no_face_judges(&first, &["rocket.jpg"]);
    let db = dir.path().join("catalog.sqlite");
    {
        let conn = rusqlite::Connection::open(&db).expect("open");
        // The rocket's subject row copied onto the photo with a face, as version 2 left one.
        conn.execute_batch(
            "INSERT INTO subjects (photo, segmenter, class, score, mask_width, mask_height, mask,
                 sharpness, background)
             SELECT f.photo, s.segmenter, s.class, s.score, s.mask_width, s.mask_height, s.mask,
                 s.sharpness, s.background
             FROM subjects s, (SELECT DISTINCT photo FROM faces) f;
             UPDATE indexed SET measures = 2, segmenter = 'u2netp';",
        )
        .expect("version 2's rows");
    }
    let catalog = Catalog::open(&db, SidecarNaming::default()).expect("catalog");
    let subject_of = |name: &str| {
        catalog
            .photo_index(&folder.join(name))
            .expect("query")
            .expect("indexed")
            .subject
    };
    assert!(
        subject_of("astronaut.png").is_some(),
        "the stale row is in place"
    );
    let again = index_with(dir.path(), &folder, EVERYWHERE);
    assert_eq!(
        (&again["indexed"], &again["remeasured"]),
        (&0.into(), &TWO.len().into()),
        "{again}"
    );
    assert_segmenter_ran_where_no_face_judges(&again, &["rocket.jpg"]);
    assert!(
        subject_of("astronaut.png").is_none(),
        "her face judges her photo"
    );
    assert!(subject_of("rocket.jpg").is_some());
    let astronaut = again["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| {
            r["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("astronaut.png"))
        })
        .expect("the astronaut's result");
    assert!(astronaut.get("subject").is_none(), "{astronaut}");
}

/// The photos of a report, by file name.
fn result_of<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["path"].as_str().is_some_and(|p| p.ends_with(name)))
        .unwrap_or_else(|| panic!("no result for {name}: {report}"))
}

/// The subject is looked for after every photo's faces, and only where it can change a
/// decision: the two frames of a burst of the rocket get theirs, the cup alone does not (the
/// proposal judges it on its whole frame) until asked for (`--subjects everywhere`, as the
/// loupe's O asks for one photo), and no photo is looked in twice.
#[test]
fn the_subject_is_looked_for_only_where_it_can_decide() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    copy_photos(&folder, &["rocket.jpg", "coffee.png", "astronaut.png"]);
    std::fs::copy(photo("rocket.jpg"), folder.join("rocket_2.jpg")).expect("copy");
    let first = index(dir.path(), &folder);
    assert_eq!(first["indexed"], 4, "{first}");
    let (rocket, rocket_2, cup, astronaut) = (
        result_of(&first, "rocket.jpg"),
        result_of(&first, "rocket_2.jpg"),
        result_of(&first, "coffee.png"),
        result_of(&first, "astronaut.png"),
    );
    // The folder is what the test says: the rockets one burst, the cup a scene of its own.
    assert!(
        rocket["burst"].is_u64() && rocket["burst"] == rocket_2["burst"],
        "{first}"
    );
    assert_eq!(cup["scene"]["size"], 1, "{cup}");
    assert!(cup["burst"].is_null(), "{cup}");
    for r in [rocket, rocket_2] {
        assert_eq!(r["subject_sought"], true, "{r}");
        assert!(r["subject"]["sharpness"].is_number(), "found: {r}");
    }
    assert_eq!(cup["subject_sought"], false, "{cup}");
    assert!(cup.get("subject").is_none(), "{cup}");
    assert_eq!(astronaut["judged_by_faces"], true, "{astronaut}");
    assert_eq!(astronaut["subject_sought"], false, "{astronaut}");
    assert_eq!(first["sought"], 2, "{first}");
    assert_eq!(first["stages"]["segmented"], 2, "{first}");

    // Asked for everywhere: only the cup is left to look in, its faces not detected again.
    let everywhere = index_with(dir.path(), &folder, EVERYWHERE);
    assert_eq!(
        (&everywhere["skipped"], &everywhere["sought"]),
        (&4.into(), &1.into()),
        "{everywhere}"
    );
    let cup = result_of(&everywhere, "coffee.png");
    assert_eq!(cup["subject_sought"], true, "{cup}");
    assert!(cup["subject"]["sharpness"].is_number(), "{cup}");

    // Nothing is looked in twice.
    let again = index(dir.path(), &folder);
    assert_eq!(
        (
            &again["skipped"],
            &again["sought"],
            &again["stages"]["segmented"]
        ),
        (&4.into(), &0.into(), &0.into()),
        "{again}"
    );
}

/// Subjects found before stand: a catalog the build before the second pass left (its segmenter
/// recorded on every row, measures 6) is neither indexed, measured nor looked in again under
/// the default scope, the cup alone keeping the subject found then; measured again for an
/// older measures version, the found subjects are kept, the segmenter not run; and a job with
/// no segmenter installed keeps them too.
#[test]
fn subjects_found_before_stand_through_an_upgrade_and_a_measure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    copy_photos(&folder, &["rocket.jpg", "coffee.png", "astronaut.png"]);
    let first = index_with(dir.path(), &folder, EVERYWHERE);
    assert_eq!(first["sought"], 2, "{first}");
    let has_subject = |report: &serde_json::Value, name: &str| {
        result_of(report, name)["subject"]["sharpness"].is_number()
    };
    let db = dir.path().join("catalog.sqlite");
    // As the build before the second pass left it: its segmenter on every row.
    rusqlite::Connection::open(&db)
        .expect("open")
        .execute_batch("UPDATE indexed SET segmenter = 'u2netp';")
        .expect("the old build's rows");
    let again = index(dir.path(), &folder);
    assert_eq!(
        (
            &again["skipped"],
            &again["sought"],
            &again["stages"]["segmented"]
        ),
        (&3.into(), &0.into(), &0.into()),
        "{again}"
    );
    assert!(has_subject(&again, "rocket.jpg") && has_subject(&again, "coffee.png"));
    assert_eq!(result_of(&again, "astronaut.png")["subject_sought"], false);

    // An older measures version: measured again, never looked in again, the subjects kept.
    rusqlite::Connection::open(&db)
        .expect("open")
        .execute_batch("UPDATE indexed SET measures = 5;")
        .expect("measures 5");
    let third = index(dir.path(), &folder);
    assert_eq!(
        (
            &third["remeasured"],
            &third["sought"],
            &third["stages"]["segmented"]
        ),
        (&3.into(), &0.into(), &0.into()),
        "{third}"
    );
    assert!(
        has_subject(&third, "rocket.jpg") && has_subject(&third, "coffee.png"),
        "{third}"
    );

    // Without a segmenter installed, what one found stands: nothing measured again or lost.
    let without = dir.path().join("models-without-segmenter");
    std::fs::create_dir_all(&without).expect("mkdir");
    for entry in std::fs::read_dir(models()).expect("models") {
        let path = entry.expect("entry").path();
        let name = path.file_name().expect("a name").to_owned();
        if !name.to_string_lossy().starts_with("u2netp") {
            std::os::unix::fs::symlink(&path, without.join(name)).expect("link");
        }
    }
    let models_flag = without.to_string_lossy().into_owned();
    let fourth = index_with(dir.path(), &folder, &["--models", &models_flag]);
    assert!(fourth["model_ids"]["segmenter"].is_null(), "{fourth}");
    assert_eq!(
        (&fourth["skipped"], &fourth["remeasured"]),
        (&3.into(), &0.into()),
        "{fourth}"
    );
    assert!(
        has_subject(&fourth, "rocket.jpg") && has_subject(&fourth, "coffee.png"),
        "{fourth}"
    );
}
