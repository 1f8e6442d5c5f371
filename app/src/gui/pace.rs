//! How the person moves through the loupe — which way, how fast, whether they stopped — and,
//! from it, what the picture pool makes first: the photo shown, then those coming in the
//! direction of travel. Skimming (steps faster than a screen picture is made) asks for grid
//! thumbnails only, far ahead, so every step has a picture at once; a stop asks for the screen
//! picture, then, after a short dwell, the photo's own pixels.

use std::time::Duration;

use darkroom_index::culling::EntryId;

use crate::gui::theme::{LOUPE_SIDE, THUMB_SIDE};
use crate::gui::workers::Want;

/// Steps closer together than this are skimming: a screen picture (a ⅜ decode of a 24 MP
/// JPEG, ~90 ms on a core, then its upload) would be late for the photo it was made for.
pub const SKIM_BELOW: Duration = Duration::from_millis(180);
/// How long a photo is looked at, not skimming, before its own pixels are decoded, at a pace
/// that stays on each photo long enough for them to come (see [`Pace::full_dwell`]).
pub const FULL_DWELL: Duration = Duration::from_millis(40);
/// A pace this slow looks at every photo: its own pixels are asked for at once.
pub const LOOKING: Duration = Duration::from_millis(700);

/// What the pool's work costs now (running means it measures).
#[derive(Debug, Clone, Copy)]
pub struct Costs {
    /// A grid thumbnail.
    pub thumb: Duration,
    /// A photo's own pixels, decode to tiles.
    pub full: Duration,
}
/// Grid thumbnails made ahead in the direction of travel while skimming (a 256 px thumbnail
/// is 175 KB as a texture: 24 of them are 4 MB) …
pub const THUMBS_AHEAD: usize = 24;
/// … and while tapping, where the screen pictures of the next photos come first and each
/// thumbnail begun holds a core the next screen picture may want.
pub const THUMBS_AHEAD_TAPPING: usize = 8;
/// Of those, made even while the photo's own pixels are: the first steps of a walk that
/// starts after a long look must not wait for a full decode.
pub const THUMBS_BEFORE_FULL: usize = 2;

/// Where the person is and how they got there.
#[derive(Default)]
pub struct Pace {
    /// The photo shown and its place among the photos shown.
    at: Option<(EntryId, usize)>,
    /// When it became the one shown, on the window's clock (egui's input time: the system's
    /// in the window, a frame's step in a test harness, so a test's pace is its frames').
    since: Option<Duration>,
    /// The time between the last two steps of one photo; None after a jump or the first step.
    interval: Option<Duration>,
    /// +1 forward, −1 back.
    direction: isize,
}

/// What the loupe asks the picture pool for, most wanted first, and which photos' own pixels.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub pictures: Vec<(EntryId, Want)>,
    pub full: Vec<EntryId>,
    /// When the plan changes by itself (a dwell ends, skimming turns into a stop): the window
    /// draws a frame then.
    pub revisit_in: Option<Duration>,
    /// How many of `pictures`' first entries come before the photo's own pixels: while those
    /// are being made, the rest waits, so a stop's full decode shares the cores only with the
    /// photo's and the next one's screen pictures and two thumbnails.
    pub before_full: usize,
    /// Of those, how many come before the photo's own pixels are decoded: with them asked
    /// for, the next photo's screen picture waits for the decode (which then has the cores to
    /// itself) and is made while the tiles are cut and go up.
    pub while_decoding: usize,
}

impl Pace {
    /// The photo shown is `id`, the `v`th shown, at `now`: a step, a jump or nothing new.
    pub fn observe(&mut self, shown: Option<(EntryId, usize)>, now: Duration) {
        let Some((id, v)) = shown else {
            *self = Pace::default();
            return;
        };
        match self.at {
            Some((was, _)) if was == id => return,
            Some((_, from)) => {
                let by = v as isize - from as isize;
                self.direction = if by < 0 { -1 } else { 1 };
                self.interval = (by.abs() == 1)
                    .then(|| self.since.map(|t| now.saturating_sub(t)))
                    .flatten();
            }
            None => {
                self.direction = 1;
                self.interval = None;
            }
        }
        self.at = Some((id, v));
        self.since = Some(now);
    }

    /// +1 when the last step went forward (or there was none), −1 when it went back.
    pub fn direction(&self) -> isize {
        if self.direction < 0 { -1 } else { 1 }
    }

    /// How long the photo shown has been it.
    pub fn shown_for(&self, now: Duration) -> Duration {
        self.since.map_or(Duration::ZERO, |t| now.saturating_sub(t))
    }

    /// How long the photo shown waits before its own pixels are asked for. At a pace that
    /// stays on each photo long enough for them to come (a dwell and their cost), a short
    /// dwell; at a faster one (tapping at 4 a second) only once the person has stayed longer
    /// than their pace, so tapping never pays for 24 MP decodes it moves on from; none after
    /// a jump, the first photo or a slow pace.
    ///
    /// `screen_up`: the photo's screen picture is on screen already (made ahead while the last
    /// photo was looked at): at a pace slow enough for the full, the short dwell only gave the
    /// screen picture the cores first, so there is none.
    pub fn full_dwell(&self, full_cost: Duration, screen_up: bool) -> Duration {
        match self.interval {
            None => Duration::ZERO,
            Some(i) if i >= LOOKING => Duration::ZERO,
            Some(i) if i >= FULL_DWELL + full_cost && screen_up => Duration::ZERO,
            Some(i) if i >= FULL_DWELL + full_cost => FULL_DWELL,
            Some(i) => (i + i / 4).max(FULL_DWELL),
        }
    }

    /// Stepping faster than screen pictures are made, and not stopped yet.
    pub fn skimming(&self, now: Duration) -> bool {
        self.interval.is_some_and(|i| i < SKIM_BELOW) && self.shown_for(now) < SKIM_BELOW
    }

    /// The loupe's plan at `now`; `around(k)` is the photo `k` places from the one shown (in
    /// the order shown), if there is one; `zoomed`: at 100 % or more, where the photo's own
    /// pixels are what the screen shows; `screen_up`: its screen picture is up already.
    ///
    /// `costs.thumb`: how long a grid thumbnail takes to make now. Skimming faster than that, a
    /// thumbnail begun for the photo shown (or the next) comes after the person has moved on,
    /// and one begun for a photo far enough ahead comes before they reach it: the pool starts
    /// `lead` photos ahead, where a thumbnail is done in time, then fills in the nearer ones.
    pub fn plan(
        &self,
        now: Duration,
        zoomed: bool,
        screen_up: bool,
        costs: Costs,
        around: impl Fn(isize) -> Option<EntryId>,
    ) -> Plan {
        let mut plan = Plan::default();
        let Some((shown, _)) = self.at else {
            return plan;
        };
        let d = self.direction;
        let skimming = self.skimming(now);
        let shown_for = self.shown_for(now);
        let dwell = self.full_dwell(costs.full, screen_up);
        // Its own pixels are asked for now.
        let full_now = zoomed || (!skimming && shown_for >= dwell);
        let mut pictures = std::mem::take(&mut plan.pictures);
        let thumb = |k: isize| around(d * k).map(|id| (id, Want::Side(THUMB_SIDE)));
        let ahead = THUMBS_AHEAD as isize;
        if skimming {
            let step = self
                .interval
                .unwrap_or(SKIM_BELOW)
                .max(Duration::from_millis(1));
            let lead = costs.thumb.as_nanos().div_ceil(step.as_nanos());
            let lead = isize::try_from(lead).unwrap_or(ahead).clamp(0, ahead);
            pictures.extend((lead.max(1)..=ahead).filter_map(thumb));
            pictures.extend((1..lead).rev().filter_map(thumb));
            pictures.push((shown, Want::Side(THUMB_SIDE)));
            pictures.push((shown, Want::Facts));
            // Zoomed, its own pixels are asked for while skimming too: nothing waits for them.
            plan.before_full = pictures.len();
            plan.while_decoding = plan.before_full;
        } else {
            pictures.push((shown, Want::Side(THUMB_SIDE)));
            pictures.push((shown, Want::Side(LOUPE_SIDE)));
            pictures.push((shown, Want::Facts));
            let next: Vec<_> = around(d)
                .into_iter()
                .flat_map(|next| [(next, Want::Side(LOUPE_SIDE)), (next, Want::Facts)])
                .collect();
            // A stop within a walk: the next photo's screen picture waits for the decode.
            // Not after a jump or a long look, where a walk may begin: its first steps want
            // the cores for their thumbnails more than the next screen picture's wait frees.
            let in_walk = self.interval.is_some_and(|i| i < LOOKING);
            let wait_decode = in_walk && full_now;
            if !wait_decode {
                pictures.extend(next.iter().copied());
            }
            // The next two thumbnails too: a stop that turns into a walk again (a long look,
            // then a burst) has them at once.
            pictures.extend((1..=THUMBS_BEFORE_FULL as isize).filter_map(thumb));
            plan.while_decoding = pictures.len();
            if wait_decode {
                pictures.extend(next);
            }
            plan.before_full = pictures.len();
            pictures.extend(
                (THUMBS_BEFORE_FULL as isize + 1..=THUMBS_AHEAD_TAPPING as isize).filter_map(thumb),
            );
        }
        plan.pictures = pictures;
        let pictures = &mut plan.pictures;
        if !skimming && let Some(back) = around(-d) {
            pictures.push((back, Want::Side(LOUPE_SIDE)));
            pictures.push((back, Want::Facts));
        }
        if full_now {
            plan.full.push(shown);
        }
        if zoomed {
            plan.full.extend(around(d));
        }
        plan.revisit_in = if skimming {
            Some(SKIM_BELOW.saturating_sub(shown_for))
        } else if !zoomed && shown_for < dwell {
            Some(dwell.saturating_sub(shown_for))
        } else {
            None
        };
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The costs on this 2-core machine's 24 MP JPEGs.
    const COST: Costs = Costs {
        thumb: Duration::from_millis(75),
        full: Duration::from_millis(250),
    };

    fn photos(n: usize) -> Vec<EntryId> {
        let cull = darkroom_index::culling::fixtures::folder(n);
        (0..n).map(|i| cull.id(i)).collect()
    }

    fn around(ids: &[EntryId], at: usize) -> impl Fn(isize) -> Option<EntryId> + '_ {
        move |k| at.checked_add_signed(k).and_then(|v| ids.get(v).copied())
    }

    #[test]
    fn skimming_asks_for_thumbnails_ahead_and_a_stop_for_the_screen_picture_then_the_full() {
        let ids = photos(40);
        let t0 = Duration::from_secs(100);
        let mut pace = Pace::default();
        pace.observe(Some((ids[10], 10)), t0);
        // Key repeat, backwards: 50 ms a step.
        for (k, v) in [9usize, 8, 7].into_iter().enumerate() {
            pace.observe(
                Some((ids[v], v)),
                t0 + Duration::from_millis(50 * (k as u64 + 1)),
            );
        }
        let now = t0 + Duration::from_millis(160);
        assert!(pace.skimming(now));
        let plan = pace.plan(now, false, false, COST, around(&ids, 7));
        assert!(
            !plan
                .pictures
                .iter()
                .any(|(_, w)| *w == Want::Side(LOUPE_SIDE)),
            "no screen picture while skimming"
        );
        let thumbs: Vec<EntryId> = plan
            .pictures
            .iter()
            .filter(|(_, w)| *w == Want::Side(THUMB_SIDE))
            .map(|(id, _)| *id)
            .collect();
        // 75 ms a thumbnail at 50 ms a step: begun two ahead, it is there in time; the one
        // ahead and the one shown after.
        assert_eq!(
            thumbs,
            [
                ids[5], ids[4], ids[3], ids[2], ids[1], ids[0], ids[6], ids[7]
            ]
        );
        // Cheap thumbnails (embedded previews): the next one first.
        let cheap = Costs {
            thumb: Duration::from_millis(2),
            ..COST
        };
        let plan = pace.plan(now, false, false, cheap, around(&ids, 7));
        assert_eq!(plan.pictures[0], (ids[6], Want::Side(THUMB_SIDE)));
        assert!(plan.full.is_empty());
        assert_eq!(
            plan.revisit_in,
            Some(SKIM_BELOW.saturating_sub(Duration::from_millis(10)))
        );
        // Stopped: the screen picture first after the thumbnail, two thumbnails ahead, the
        // next one's screen picture, then the full.
        let stopped = t0 + Duration::from_millis(150) + SKIM_BELOW;
        assert!(!pace.skimming(stopped));
        let plan = pace.plan(stopped, false, false, COST, around(&ids, 7));
        assert_eq!(
            plan.pictures[..6],
            [
                (ids[7], Want::Side(THUMB_SIDE)),
                (ids[7], Want::Side(LOUPE_SIDE)),
                (ids[7], Want::Facts),
                (ids[6], Want::Side(THUMB_SIDE)),
                (ids[5], Want::Side(THUMB_SIDE)),
                (ids[6], Want::Side(LOUPE_SIDE)),
            ]
        );
        // The next one's screen picture waits for the decode, not for the upload.
        assert_eq!((plan.while_decoding, plan.before_full), (5, 7));
        assert_eq!(
            plan.full,
            vec![ids[7]],
            "the dwell is shorter than the stop"
        );
    }

    #[test]
    fn tapping_prefetches_the_next_screen_picture_and_waits_a_dwell_for_the_full() {
        let ids = photos(5);
        let t0 = Duration::from_secs(100);
        let mut pace = Pace::default();
        pace.observe(Some((ids[0], 0)), t0);
        pace.observe(Some((ids[1], 1)), t0 + Duration::from_millis(250));
        let now = t0 + Duration::from_millis(260);
        assert!(!pace.skimming(now));
        let plan = pace.plan(now, false, false, COST, around(&ids, 1));
        assert_eq!(plan.pictures[3], (ids[2], Want::Side(LOUPE_SIDE)));
        assert!(plan.pictures.contains(&(ids[0], Want::Side(LOUPE_SIDE))));
        assert!(plan.full.is_empty(), "within the dwell");
        // Tapping at 4 a second is faster than a dwell and a full decode (250 ms): its own
        // pixels once the person stays longer than their pace.
        let dwell = Duration::from_micros(312_500);
        assert_eq!(
            plan.revisit_in,
            Some(dwell.saturating_sub(Duration::from_millis(10)))
        );
        let at = |t: Duration| {
            pace.plan(
                t0 + Duration::from_millis(250) + t,
                false,
                false,
                COST,
                around(&ids, 1),
            )
        };
        assert!(
            at(dwell.saturating_sub(Duration::from_millis(1)))
                .full
                .is_empty()
        );
        assert_eq!(at(dwell).full, vec![ids[1]]);
        // At 2 a second a photo's own pixels come within the step: after the short dwell.
        let mut slower = Pace::default();
        slower.observe(Some((ids[0], 0)), t0);
        slower.observe(Some((ids[1], 1)), t0 + Duration::from_millis(500));
        let plan = slower.plan(
            t0 + Duration::from_millis(500) + FULL_DWELL,
            false,
            false,
            COST,
            around(&ids, 1),
        );
        assert_eq!(plan.full, vec![ids[1]]);
        // … and at once where its screen picture is up already (made ahead).
        let ahead = |screen_up| {
            slower
                .plan(
                    t0 + Duration::from_millis(501),
                    false,
                    screen_up,
                    COST,
                    around(&ids, 1),
                )
                .full
        };
        assert_eq!(ahead(true), vec![ids[1]]);
        assert!(ahead(false).is_empty(), "the screen picture first");
        // Not at 4 a second, screen picture or not.
        assert!(
            pace.plan(now, false, true, COST, around(&ids, 1))
                .full
                .is_empty()
        );
        // Zoomed: the photo's own pixels at once, and the next one's.
        assert_eq!(
            pace.plan(now, true, false, COST, around(&ids, 1)).full,
            vec![ids[1], ids[2]]
        );
        // Looking at each photo a while: no dwell.
        pace.observe(Some((ids[2], 2)), t0 + Duration::from_millis(250) + LOOKING);
        let plan = pace.plan(
            t0 + Duration::from_millis(250) + LOOKING,
            false,
            false,
            COST,
            around(&ids, 2),
        );
        assert_eq!(plan.full, vec![ids[2]]);
        // … where a walk may begin: the next screen picture does not wait for the decode.
        assert_eq!(plan.while_decoding, plan.before_full);
        assert_eq!(plan.pictures[3], (ids[3], Want::Side(LOUPE_SIDE)));
    }

    #[test]
    fn a_jump_is_not_a_step() {
        let ids = photos(30);
        let t0 = Duration::from_secs(100);
        let mut pace = Pace::default();
        pace.observe(Some((ids[0], 0)), t0);
        pace.observe(Some((ids[1], 1)), t0 + Duration::from_millis(40));
        pace.observe(Some((ids[20], 20)), t0 + Duration::from_millis(80));
        assert!(
            !pace.skimming(t0 + Duration::from_millis(90)),
            "a click far away"
        );
        pace.observe(Some((ids[19], 19)), t0 + Duration::from_millis(120));
        assert!(pace.skimming(t0 + Duration::from_millis(130)));
        let plan = pace.plan(
            t0 + Duration::from_millis(130),
            false,
            false,
            COST,
            around(&ids, 19),
        );
        assert_eq!(
            plan.pictures[0],
            (ids[17], Want::Side(THUMB_SIDE)),
            "backwards"
        );
        pace.observe(None, t0);
        assert_eq!(
            pace.plan(t0, false, false, COST, around(&ids, 0)),
            Plan::default()
        );
    }
}
