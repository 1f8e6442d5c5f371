use std::collections::HashMap;
use std::path::PathBuf;

use crate::tags::SceneTag;
use crate::{PhotoAnalysis, ProposalRules};
use darkroom_catalog::{Change, ColourLabel, Decision, Flag, Label};

use super::fixtures::{analysis, folder, item};
use super::*;

/// The catalog's answer to `job`, as if it found `before` there.
fn answer(job: &DecisionJob, before: &Decision) -> DecisionAck {
    let Edit::Change(change) = &job.edit else {
        panic!("a change");
    };
    DecisionAck {
        id: job.id,
        seq: job.seq,
        result: Ok((before.clone(), change.applied_to(before))),
    }
}

fn one(jobs: Vec<DecisionJob>) -> DecisionJob {
    assert_eq!(jobs.len(), 1, "one photo changed");
    jobs.into_iter().next().expect("one job")
}

fn pick() -> Change {
    Change::Flag(Flag::Pick)
}

fn red() -> Change {
    Change::Label(Some(Label::Colour(ColourLabel::Red)))
}

#[test]
fn selection_moves_stop_at_the_ends() {
    let mut c = folder(5);
    c.step(-1);
    assert_eq!(c.selected, 0);
    c.step(3);
    assert_eq!(c.selected, 3);
    c.step(10);
    assert_eq!(c.selected, 4);
    c.select_visible(9);
    assert_eq!(c.selected, 4, "a position past the end is ignored");
    let mut empty = folder(0);
    empty.step(1);
    empty.toggle_loupe();
    assert_eq!(empty.view, View::Grid, "no loupe on nothing");
    assert_eq!(empty.selected_id(), None);
}

#[test]
fn compare_needs_two_photos() {
    let mut c = folder(1);
    c.compare();
    assert_eq!(c.view, View::Grid);
    let mut c = folder(2);
    c.compare();
    assert_eq!(c.view, View::Compare);
}

#[test]
fn a_decision_is_pending_until_acknowledged_and_undo_restores_it() {
    let mut c = folder(3);
    c.step(2);
    let job = one(c.decide(pick()));
    assert_eq!(job.id, c.id(2));
    assert_eq!(job.files, vec![PathBuf::from("/shoot/IMG_0002.jpg")]);
    assert_eq!(job.edit, Edit::Change(pick()));
    assert!(c.entries()[2].pending());
    assert!(
        c.decide(pick()).is_empty(),
        "the same decision again changes nothing"
    );
    assert_eq!(c.acknowledge(answer(&job, &Decision::default())), None);
    assert!(c.all_acknowledged());
    let undo = one(c.undo());
    assert_eq!(undo.id, c.id(2));
    assert_eq!(undo.edit, Edit::Revert { of: job.seq });
    assert_eq!(c.entries()[2].decision, Decision::default());
    assert!(c.undo().is_empty(), "nothing more");
}

#[test]
fn an_older_acknowledgement_never_shows_the_older_decision_again() {
    let mut c = folder(1);
    let reject = one(c.decide(Change::Flag(Flag::Reject)));
    let red_job = one(c.decide(red()));
    c.acknowledge(answer(&reject, &Decision::default()));
    let p = &c.entries()[0];
    assert!(p.pending(), "the red label is still on its way");
    assert_eq!(p.decision.label, Some(Label::Colour(ColourLabel::Red)));
    assert_eq!(p.decision.flag, Flag::Reject);
    let rejected = Change::Flag(Flag::Reject).applied_to(&Decision::default());
    c.acknowledge(answer(&red_job, &rejected));
    assert!(!c.entries()[0].pending());
    assert_eq!(c.entries()[0].decision, red().applied_to(&rejected));
}

/// Pressed before the photo's import answered: shown as a change on what the photo has,
/// and what the catalog finds there (another tool's stars and label) is kept.
#[test]
fn a_change_before_the_import_lands_on_what_the_photo_really_has() {
    let mut c = Culling::default();
    c.open(PathBuf::from("/shoot"));
    c.push(item("IMG_0000"));
    c.push(item("IMG_0001"));
    c.refilter();
    assert_eq!(c.loading(), 2);
    assert!(!c.entries()[0].loaded, "not known yet: shown as loading");
    let job = one(c.decide(pick()));
    assert!(
        c.decide(pick()).len() == 1,
        "not known to be picked already: sent again (the catalog decides)"
    );
    let theirs = Decision {
        flag: Flag::Unflagged,
        stars: 5,
        label: Some(Label::Colour(ColourLabel::Blue)),
    };
    // The import answers after the change was sent: the pick is shown on its stars.
    c.imported(c.id(0), Some(theirs.clone()), None);
    assert!(c.entries()[0].loaded);
    assert_eq!(c.entries()[0].decision, pick().applied_to(&theirs));
    c.acknowledge(answer(&job, &theirs));
    assert_eq!(c.entries()[0].decision.stars, 5);
    // Undo puts back what the catalog found, not the blank the window had.
    c.undo();
    c.undo();
    assert_eq!(c.entries()[0].decision, theirs);
    // An import that failed says why and leaves the photo unknown, never blank.
    c.imported(c.id(1), None, Some("database is locked".into()));
    assert!(!c.entries()[1].loaded);
    assert_eq!(c.entries()[1].error.as_deref(), Some("database is locked"));
    assert_eq!(c.loading(), 1);
}

#[test]
fn a_failed_write_shows_what_is_durable_and_names_the_photo() {
    let mut c = folder(1);
    let job = one(c.decide(Change::Stars(3)));
    let notice = c.acknowledge(DecisionAck {
        id: job.id,
        seq: job.seq,
        result: Err("database is locked".into()),
    });
    let notice = notice.expect("a notice");
    assert!(
        notice.contains("IMG_0000.jpg") && notice.contains("database is locked"),
        "{notice}"
    );
    assert_eq!(c.entries()[0].decision, Decision::default());
    assert!(c.all_acknowledged());
}

#[test]
fn decisions_the_catalog_will_never_answer_show_what_is_durable() {
    let mut c = folder(2);
    let first = one(c.decide(Change::Stars(4)));
    c.acknowledge(answer(&first, &Decision::default()));
    one(c.decide(pick()));
    c.abandon_pending("the catalog thread stopped unexpectedly: the decision was not saved");
    let p = &c.entries()[0];
    assert!(!p.pending() && c.all_acknowledged());
    assert_eq!((p.decision.flag, p.decision.stars), (Flag::Unflagged, 4));
    assert!(p.error.as_deref().is_some_and(|e| e.contains("not saved")));
}

#[test]
fn a_decision_that_cannot_be_sent_shows_what_is_recorded_and_why() {
    let mut c = folder(1);
    let job = one(c.decide(pick()));
    c.send_failed(job, "the catalog writer stopped".into());
    let p = &c.entries()[0];
    assert_eq!(p.decision, Decision::default());
    assert!(!p.pending());
    assert_eq!(p.error.as_deref(), Some("the catalog writer stopped"));
}

#[test]
fn a_folder_switch_leaves_nothing_to_undo_and_drops_old_results() {
    let mut a = folder(6);
    a.step(5);
    let job = one(a.decide(pick()));
    let old = job.id;
    a.open(PathBuf::from("/other"));
    a.push(item("ONLY"));
    a.refilter();
    assert!(
        a.undo().is_empty(),
        "undo never reaches the folder that was closed"
    );
    assert_eq!(
        a.acknowledge(answer(&job, &Decision::default())),
        None,
        "an acknowledgement for the old folder finds nothing"
    );
    a.imported(
        EntryId { index: 0, ..old },
        Some(Decision::default()),
        Some("x".into()),
    );
    assert!(a.entries()[0].error.is_none());
    assert!(!a.entries()[0].loaded);
    assert!(a.get(EntryId { index: 0, ..old }).is_none());
    assert!(a.get(a.id(0)).is_some());
    assert!(!a.set_analysis(old.generation(), Vec::new(), HashMap::new()));
}

#[test]
fn filters_admit_what_they_name() {
    let mut c = folder(4);
    c.decide(pick());
    c.step(1);
    c.decide(Change::Flag(Flag::Reject));
    c.step(1);
    c.decide(Change::Stars(4));
    c.decide(red());
    c.set_filter(Filter::Picks);
    assert_eq!(c.visible, vec![0]);
    c.set_filter(Filter::Rejects);
    assert_eq!(c.visible, vec![1]);
    c.set_filter(Filter::Unflagged);
    assert_eq!(c.visible, vec![2, 3]);
    c.set_filter(Filter::MinStars(3));
    assert_eq!(c.visible, vec![2]);
    c.set_filter(Filter::Label(ColourLabel::Red));
    assert_eq!(c.visible, vec![2]);
    assert_eq!(
        c.selected_index(),
        Some(2),
        "the selection follows its photo"
    );
    c.set_filter(Filter::Label(ColourLabel::Blue));
    assert!(c.visible.is_empty());
    assert!(
        c.decide(pick()).is_empty(),
        "nothing selected, nothing decided"
    );
}

#[test]
fn scene_tags_are_counted_and_a_chip_filters_by_its_tag_and_a_scene_compares_whole() {
    use crate::analysis::ScenePlace;
    let mut c = folder(4);
    let gen_ = c.generation();
    let tagged = |i: usize, tags: &[SceneTag], scene: usize| PhotoAnalysis {
        tags: tags.iter().map(|&t| (t, 0.2)).collect(),
        scene: Some(ScenePlace {
            id: scene,
            position: 1,
            size: if scene == 0 { 3 } else { 1 },
        }),
        ..analysis(&c, i, 80.0, None)
    };
    let rows = vec![
        tagged(0, &[SceneTag::Sky, SceneTag::Water], 0),
        tagged(1, &[SceneTag::Sky], 0),
        tagged(2, &[SceneTag::Person], 0),
        tagged(3, &[], 1),
    ];
    assert!(c.set_analysis(gen_, rows, HashMap::new()));
    assert_eq!(
        c.tag_counts(),
        vec![
            (SceneTag::Sky, 2),
            (SceneTag::Water, 1),
            (SceneTag::Person, 1)
        ]
    );
    c.toggle_tag(SceneTag::Sky);
    assert_eq!(c.visible, vec![0, 1]);
    assert_eq!(c.filter.describe(), "sky");
    c.toggle_tag(SceneTag::Water);
    assert_eq!(c.visible, vec![0]);
    c.toggle_tag(SceneTag::Water);
    assert_eq!(c.filter, Filter::All);
    assert_eq!(c.visible, vec![0, 1, 2, 3]);
    // Where each scene starts in the grid, and Shift+C on one compares it whole.
    assert_eq!(c.scene_starts_at(0), Some((1, 3)));
    assert_eq!(c.scene_starts_at(1), None);
    assert_eq!(
        c.scene_starts_at(3),
        None,
        "a scene of one photo is not marked"
    );
    c.select_visible(1);
    let set = c.compare_scene();
    assert_eq!(c.view, View::Compare);
    assert_eq!(set, vec![c.id(0), c.id(1), c.id(2)]);
    assert_eq!(c.selected, 0, "the scene's first photo is shown");
    // C on a photo in no burst opens its scene too; on a scene of one, the photo and the next.
    c.view = View::Grid;
    c.select_visible(2);
    assert_eq!(c.compare(), vec![c.id(0), c.id(1), c.id(2)]);
    c.view = View::Grid;
    c.select_visible(3);
    assert_eq!(c.compare(), Vec::new());
    assert_eq!(c.view, View::Compare);
}

#[test]
fn bursts_stack_under_all_and_open_with_b_people_filter_sort_by_sharpness() {
    let mut c = folder(4);
    let gen_ = c.generation();
    let rows = vec![
        analysis(&c, 0, 10.0, Some((1, false))),
        analysis(&c, 1, 90.0, Some((1, true))),
        analysis(&c, 2, 50.0, None),
    ];
    assert!(c.set_analysis(gen_, rows, HashMap::from([(7, "Ada".to_owned())])));
    assert_eq!(
        c.visible,
        vec![1, 2, 3],
        "the burst shows as its suggested frame"
    );
    c.select_visible(0);
    c.toggle_burst();
    assert_eq!(c.visible, vec![0, 1, 2, 3]);
    c.toggle_sort_by_sharpness();
    assert_eq!(
        c.visible,
        vec![1, 2, 0, 3],
        "sharpest first, not indexed last"
    );
    c.toggle_person(8);
    assert_eq!(c.visible, vec![1], "person 8 is in photo 1 only");
    c.toggle_person(8);
    assert_eq!(c.filter, Filter::All);
    let people = c.people();
    assert_eq!(people[0].person, 7);
    assert_eq!(people[0].photos, 2);
    assert_eq!(c.person_label(7), "Ada");
    assert_eq!(c.name_person(8, "  "), None);
    assert_eq!(c.name_person(8, " Bo "), Some("Bo".into()));
    assert_eq!(c.person_label(8), "Bo");
}

/// Someone in at least half of the photos with faces (and in three at least) is suggested as a
/// key person until starred; photos without faces do not count against them.
#[test]
fn the_person_in_half_the_photos_with_faces_is_suggested_until_starred() {
    let mut c = folder(9);
    let gen_ = c.generation();
    // Person 7 in photos 0, 2, 4; person 8 in 1, 3, 5; photos 6, 7 and 8 have no face: each
    // is in 3 of the 6 photos with faces (3 of all 9 would not be half).
    let rows = |c: &Culling, starred: bool| {
        (0..9)
            .map(|i| {
                let mut a = analysis(c, i, 50.0, None);
                if i >= 6 {
                    a.faces = 0;
                    a.people.clear();
                } else if starred && i % 2 == 0 {
                    a.doing.key = vec![0];
                }
                a
            })
            .collect::<Vec<_>>()
    };
    let unstarred = rows(&c, false);
    assert!(c.set_analysis(gen_, unstarred, HashMap::new()));
    let suggested = |c: &Culling| {
        c.people()
            .iter()
            .map(|p| (p.person, p.photos, p.key, p.suggested))
            .collect::<Vec<_>>()
    };
    assert_eq!(suggested(&c), [(7, 3, false, true), (8, 3, false, true)]);
    let starred = rows(&c, true);
    assert!(c.set_analysis(gen_, starred, HashMap::new()));
    assert_eq!(suggested(&c), [(7, 3, true, false), (8, 3, false, true)]);
}

#[test]
fn shift_and_ctrl_select_and_a_decision_on_five_is_one_undo_step() {
    let mut c = folder(8);
    c.step(1);
    c.extend(2);
    assert_eq!(c.targets(), vec![1, 2, 3], "Shift+→ twice from the anchor");
    c.select(5, SelectHow::Range);
    assert_eq!(c.targets(), vec![1, 2, 3, 4, 5]);
    assert_eq!(c.selected, 5, "the keys move on from the end of the range");
    let jobs = c.decide(pick());
    assert_eq!(jobs.len(), 5);
    assert!((1..=5).all(|i| c.entries()[i].decision.flag == Flag::Pick));
    let undone = c.undo();
    assert_eq!(undone.len(), 5, "one step undoes all five");
    assert!(
        c.entries()
            .iter()
            .all(|e| e.decision == Decision::default())
    );
    assert!(c.undo().is_empty());

    c.select(6, SelectHow::Toggle);
    assert_eq!(
        c.targets(),
        vec![1, 2, 3, 4, 5, 6],
        "Ctrl+click adds to the selection"
    );
    c.select(5, SelectHow::Toggle);
    assert_eq!(c.targets(), vec![1, 2, 3, 4, 6], "and takes away");
    assert!(
        c.is_selected(c.visible[c.selected]) && c.selected != 5,
        "the current photo stays one of the selection"
    );
    c.select(2, SelectHow::Toggle);
    assert_eq!(
        c.selected, 1,
        "the nearest still selected, the first of a tie"
    );
    c.step(1);
    assert_eq!(c.targets(), vec![2], "a plain move selects one photo");
    c.select(0, SelectHow::Range);
    assert_eq!(c.selection_len(), 3);
    c.set_filter(Filter::Picks);
    assert!(
        c.targets().is_empty(),
        "no pick is shown: a decision reaches nothing hidden"
    );
}

#[test]
fn a_toggle_on_a_mixed_selection_turns_on_for_all() {
    let mut c = folder(3);
    one(c.decide(red()));
    c.select(2, SelectHow::Range);
    assert!(!c.targets_all(|d| d.label == Some(Label::Colour(ColourLabel::Red))));
    let jobs = c.decide(red());
    assert_eq!(jobs.len(), 2, "the one already red is not sent again");
    assert!(c.targets_all(|d| d.label == Some(Label::Colour(ColourLabel::Red))));
}

/// A reason set aside stays aside when the analysis comes again (the scene controls moved,
/// an index job ended) and the proposal is made anew from it.
#[test]
fn t_sorts_by_corrected_capture_time_and_a_pair_gives_the_shown_photo_first() {
    use crate::analysis::CaptureClock;
    let mut c = folder(3);
    let gen_ = c.generation();
    let timed = |c: &Culling, i: usize, body: &str, at: f64, offset_s: f64| PhotoAnalysis {
        clock: CaptureClock {
            body: Some(body.into()),
            captured_at: Some(at),
            offset_s,
        },
        ..analysis(c, i, 50.0, None)
    };
    // Photo 2's body runs an hour slow, corrected: it was taken between 0 and 1.
    let rows = vec![
        timed(&c, 0, "A", 100.0, 0.0),
        timed(&c, 1, "A", 300.0, 0.0),
        timed(&c, 2, "B", 200.0 - 3_600.0, 3_600.0),
    ];
    assert!(c.set_analysis(gen_, rows, HashMap::new()));
    assert_eq!(c.visible, [0, 1, 2], "folder order");
    c.toggle_sort_by_time();
    assert_eq!(c.visible, [0, 2, 1], "shooting order on one clock");
    assert_eq!(
        c.bodies(),
        [("A".to_owned(), 2, 0.0), ("B".to_owned(), 1, 3_600.0)]
    );
    c.toggle_sort_by_sharpness();
    assert!(!c.sort_by_time, "one order at a time");
    c.toggle_sort_by_sharpness();
    assert_eq!(c.visible, [0, 1, 2]);

    assert!(c.selected_pair().is_none(), "one photo is no pair");
    c.select_visible(0);
    c.extend(1);
    let (shown, other) = c.selected_pair().expect("a pair");
    assert_eq!(shown.item.primary, c.entries()[1].item.primary);
    assert_eq!(other.item.primary, c.entries()[0].item.primary);
}

#[test]
fn a_refined_proposal_stays_refined_when_the_analysis_is_read_again() {
    use crate::proposal::ReasonKind;
    let mut c = folder(3);
    let gen_ = c.generation();
    let rows = |c: &Culling| {
        vec![
            PhotoAnalysis {
                eyes_closed: true,
                closed_eyes: vec![0],
                ..analysis(c, 0, 90.0, None)
            },
            analysis(c, 1, 10.0, None),
            analysis(c, 2, 90.0, None),
        ]
    };
    let first = rows(&c);
    c.set_analysis(gen_, first, HashMap::new());
    assert_eq!(c.propose(rules()), Ok((0, 2)));
    let mut refined = rules();
    refined.without.insert(ReasonKind::EyesClosed);
    assert_eq!(c.propose(refined), Ok((0, 1)));
    assert_eq!(c.proposed(0), None);
    let again = rows(&c);
    assert!(c.set_analysis(gen_, again, HashMap::new()));
    assert_eq!(c.proposal_counts(), Some((0, 1)), "still refined");
    assert!(
        c.proposal_rules()
            .is_some_and(|r| r.without.contains(&ReasonKind::EyesClosed))
    );
    assert_eq!(c.proposed(0), None);
    assert_eq!(
        c.proposed(1).map(|p| p.reason().kind()),
        Some(ReasonKind::Blurry)
    );
}

#[test]
fn the_proposal_never_touches_a_decided_photo_applies_in_one_step_and_undoes_in_one() {
    let mut c = folder(4);
    assert!(
        c.propose(rules()).is_err(),
        "nothing indexed, nothing proposed"
    );
    let gen_ = c.generation();
    let rows = vec![
        analysis(&c, 0, 10.0, Some((1, false))),
        analysis(&c, 1, 90.0, Some((1, true))),
        analysis(&c, 2, 5.0, None),
        analysis(&c, 3, 5.0, None),
    ];
    c.set_analysis(gen_, rows, HashMap::new());
    c.select_visible(c.visible.iter().position(|&i| i == 3).expect("shown"));
    one(c.decide(Change::Stars(2)));
    assert_eq!(c.propose(rules()), Ok((1, 2)));
    assert_eq!(c.proposed(1).map(|p| p.flag), Some(Flag::Pick));
    assert_eq!(c.proposed(0).map(|p| p.flag), Some(Flag::Reject));
    assert_eq!(c.proposed(3), None, "stars given: never proposed for");
    // Decided while the proposal is shown: it drops out of it.
    c.select_visible(c.visible.iter().position(|&i| i == 2).expect("shown"));
    one(c.decide(pick()));
    assert_eq!(c.proposal_counts(), Some((1, 1)));
    let jobs = c.apply_proposal();
    assert_eq!(jobs.len(), 2);
    assert_eq!(c.entries()[0].decision.flag, Flag::Reject);
    assert_eq!(c.entries()[1].decision.flag, Flag::Pick);
    assert_eq!(
        c.entries()[2].decision.flag,
        Flag::Pick,
        "the photographer's"
    );
    assert_eq!(c.entries()[3].decision.stars, 2);
    assert_eq!(c.proposal_counts(), None, "applied: gone");
    assert_eq!(c.undo().len(), 2, "one step");
    assert_eq!(c.entries()[0].decision, Decision::default());
    assert_eq!(c.entries()[1].decision, Decision::default());
    assert_eq!(
        c.entries()[2].decision.flag,
        Flag::Pick,
        "not part of that step"
    );
    c.propose(rules()).expect("indexed");
    c.discard_proposal();
    assert_eq!(c.proposed(1), None);
}

fn rules() -> ProposalRules {
    ProposalRules::new(crate::Strictness::Balanced, 1, 40.0)
}
