//! A photo's scene tags from the scene model's per-class coverage (ADE20K's 150 classes): the
//! classes grouped into what a photographer filters by, a tag where its classes cover enough of
//! the frame. The groups and the share are data.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SceneTag {
    Sky,
    Water,
    Vegetation,
    Mountain,
    Building,
    Street,
    Indoors,
    Person,
    Vehicle,
    Animal,
}

/// Each tag, its word, and the ADE20K classes it stands for.
pub const SCENE_TAGS: &[(SceneTag, &str, &[&str])] = &[
    (SceneTag::Sky, "sky", &["sky"]),
    (
        SceneTag::Water,
        "water",
        &[
            "water",
            "sea",
            "river",
            "lake",
            "waterfall",
            "swimming pool",
            "fountain",
        ],
    ),
    (
        SceneTag::Vegetation,
        "vegetation",
        &["tree", "grass", "plant", "field", "flower", "palm"],
    ),
    (
        SceneTag::Mountain,
        "mountain",
        &["mountain", "hill", "rock", "sand", "earth", "land"],
    ),
    (
        SceneTag::Building,
        "building",
        &[
            "building",
            "house",
            "skyscraper",
            "tower",
            "hovel",
            "bridge",
        ],
    ),
    (
        SceneTag::Street,
        "street",
        &[
            "road",
            "sidewalk",
            "path",
            "streetlight",
            "traffic light",
            "signboard",
        ],
    ),
    (
        SceneTag::Indoors,
        "indoors",
        &[
            "wall", "floor", "ceiling", "bed", "cabinet", "table", "chair", "sofa", "shelf",
        ],
    ),
    (SceneTag::Person, "person", &["person"]),
    (
        SceneTag::Vehicle,
        "vehicle",
        &[
            "car", "bus", "truck", "van", "boat", "ship", "airplane", "bicycle", "minibike",
        ],
    ),
    (SceneTag::Animal, "animal", &["animal"]),
];

/// A tag's classes must cover at least this share of the frame.
pub const TAG_MIN_SHARE: f32 = 0.05;

impl SceneTag {
    pub fn word(self) -> &'static str {
        SCENE_TAGS
            .iter()
            .find(|(t, _, _)| *t == self)
            .map_or("", |(_, w, _)| w)
    }

    pub fn from_word(word: &str) -> Option<SceneTag> {
        SCENE_TAGS
            .iter()
            .find(|(_, w, _)| w.eq_ignore_ascii_case(word))
            .map(|(t, _, _)| *t)
    }
}

/// The tags of a photo whose classes cover `coverage` (class, share), with the share each
/// tag's classes cover together, largest first.
pub fn tags(coverage: &[(String, f32)]) -> Vec<(SceneTag, f32)> {
    let mut out: Vec<(SceneTag, f32)> = SCENE_TAGS
        .iter()
        .map(|(tag, _, classes)| {
            let share = coverage
                .iter()
                .filter(|(c, _)| classes.contains(&c.as_str()))
                .map(|(_, s)| s)
                .sum::<f32>();
            (*tag, share)
        })
        .filter(|&(_, share)| share >= TAG_MIN_SHARE)
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_group_into_tags_above_the_share() {
        let coverage: Vec<(String, f32)> = [
            ("sky", 0.375),
            ("person", 0.21875),
            ("building", 0.1875),
            ("tree", 0.109375),
            ("water", 0.03),
            ("sea", 0.03),
            ("car", 0.04),
        ]
        .iter()
        .map(|&(c, s)| (c.to_owned(), s))
        .collect();
        let got: Vec<SceneTag> = tags(&coverage).into_iter().map(|(t, _)| t).collect();
        assert_eq!(
            got,
            vec![
                SceneTag::Sky,
                SceneTag::Person,
                SceneTag::Building,
                SceneTag::Vegetation,
                SceneTag::Water
            ],
            "water and sea together pass the share; the car alone does not"
        );
        for (tag, word, _) in SCENE_TAGS {
            assert_eq!(SceneTag::from_word(word), Some(*tag));
            assert_eq!(tag.word(), *word);
        }
    }

    #[test]
    fn every_tag_names_ade20k_classes_only() {
        let cards = darkroom_engine::CardSet::builtin().expect("cards");
        let card = cards.get("ade20k_scene").expect("the scene card");
        let classes = cards.classes(card).expect("ade20k150");
        for (tag, _, members) in SCENE_TAGS {
            for m in *members {
                assert!(
                    classes.iter().any(|c| c == m),
                    "{tag:?}: {m} is no ADE20K class"
                );
            }
        }
    }
}
