//! People across a burst: which face of each frame is which person, so a grid can show one
//! row per person and one column per frame and answer "in which frame is everyone sharp with
//! open eyes". A face with a person id (the embedder's clusters) joins that person's row; one
//! without joins the row whose face sat nearest in the frames before (a burst's frames are
//! near-identical, so a person barely moves), else starts a row of its own.

/// One face of one frame, as the grid needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceAt {
    pub person: Option<i64>,
    /// The face's middle, as fractions of the frame's width and height.
    pub center: (f32, f32),
    pub sharpness: f32,
    pub eyes_closed: Option<bool>,
    /// Its eyes softer than the face: sharp elsewhere, not where it matters.
    pub eyes_soft: bool,
}

/// A face without a person id joins a row whose last face was at most this far away (a share
/// of the frame's diagonal-ish unit square).
pub const SAME_PLACE: f32 = 0.06;

/// One person across the frames: for each frame, the index of their face in it, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub person: Option<i64>,
    pub faces: Vec<Option<usize>>,
}

/// The rows for `frames` (each frame's faces, in the frames' order), in the order people
/// were first seen.
pub fn rows(frames: &[Vec<FaceAt>]) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    // Where each row's face was last seen, for faces without a person id.
    let mut last: Vec<(f32, f32)> = Vec::new();
    for (k, faces) in frames.iter().enumerate() {
        let mut taken = vec![false; rows.len()];
        for (i, f) in faces.iter().enumerate() {
            let by_person = f.person.and_then(|p| {
                rows.iter()
                    .position(|r| r.person == Some(p))
                    .filter(|&r| !taken[r])
            });
            let by_place = || {
                rows.iter()
                    .enumerate()
                    .filter(|(r, row)| !taken[*r] && (f.person.is_none() || row.person.is_none()))
                    .map(|(r, _)| (r, distance(last[r], f.center)))
                    .filter(|&(_, d)| d <= SAME_PLACE)
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(r, _)| r)
            };
            let r = match by_person.or_else(by_place) {
                Some(r) => r,
                None => {
                    rows.push(Row {
                        person: f.person,
                        faces: vec![None; frames.len()],
                    });
                    last.push(f.center);
                    taken.push(false);
                    rows.len() - 1
                }
            };
            rows[r].faces[k] = Some(i);
            if rows[r].person.is_none() {
                rows[r].person = f.person;
            }
            last[r] = f.center;
            taken[r] = true;
        }
    }
    rows
}

fn distance(a: (f32, f32), b: (f32, f32)) -> f32 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

/// The frames where everyone the frames show is in it, sharp (at least `sharp`), with open
/// eyes in focus: the answer the grid exists for. Indices into `frames`.
pub fn everyone_good(frames: &[Vec<FaceAt>], rows: &[Row], sharp: f32) -> Vec<usize> {
    (0..frames.len())
        .filter(|&k| {
            !rows.is_empty()
                && rows.iter().all(|r| {
                    r.faces[k].is_some_and(|i| {
                        let f = &frames[k][i];
                        f.sharpness >= sharp && f.eyes_closed != Some(true) && !f.eyes_soft
                    })
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(person: Option<i64>, x: f32, sharpness: f32, closed: bool) -> FaceAt {
        FaceAt {
            person,
            center: (x, 0.4),
            sharpness,
            eyes_closed: Some(closed),
            eyes_soft: false,
        }
    }

    #[test]
    fn faces_join_their_person_or_the_face_in_the_same_place() {
        let frames = vec![
            vec![face(Some(7), 0.2, 90.0, false), face(None, 0.7, 80.0, true)],
            // Listed the other way round, and the second person moved a little.
            vec![
                face(None, 0.72, 85.0, false),
                face(Some(7), 0.21, 95.0, false),
            ],
            // Someone new walks in; person 7 is blurry.
            vec![
                face(Some(7), 0.2, 10.0, false),
                face(None, 0.71, 80.0, false),
                face(None, 0.45, 80.0, false),
            ],
        ];
        let rows = rows(&frames);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].person, Some(7));
        assert_eq!(rows[0].faces, vec![Some(0), Some(1), Some(0)]);
        assert_eq!(rows[1].faces, vec![Some(1), Some(0), Some(1)]);
        assert_eq!(rows[2].faces, vec![None, None, Some(2)]);
        // With the newcomer, no frame has everyone. Without: frame 0 has a blink, frame 2 a
        // blur, frame 1 is the one.
        assert_eq!(everyone_good(&frames, &rows, 40.0), Vec::<usize>::new());
        let two = &rows[..2];
        assert_eq!(everyone_good(&frames, two, 40.0), vec![1]);
        // Sharp, eyes open, but focused past the eyes: not the one either.
        let mut missed = frames.clone();
        missed[1][0].eyes_soft = true;
        assert_eq!(everyone_good(&missed, two, 40.0), Vec::<usize>::new());
    }

    #[test]
    fn two_faces_of_one_frame_never_share_a_row() {
        let frames = vec![
            vec![face(None, 0.5, 50.0, false)],
            vec![face(None, 0.5, 50.0, false), face(None, 0.52, 50.0, false)],
        ];
        let rows = rows(&frames);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].faces, vec![None, Some(1)]);
    }
}
