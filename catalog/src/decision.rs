//! A photo's decision: pick/reject flag, stars and colour label, and how each maps to XMP.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    #[default]
    Unflagged,
    Pick,
    Reject,
}

/// The five colour labels Lightroom, Bridge, darktable and digiKam share, by their XMP names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColourLabel {
    Red,
    Yellow,
    Green,
    Blue,
    Purple,
}

impl ColourLabel {
    pub const ALL: [ColourLabel; 5] = [
        ColourLabel::Red,
        ColourLabel::Yellow,
        ColourLabel::Green,
        ColourLabel::Blue,
        ColourLabel::Purple,
    ];

    /// The `xmp:Label` value.
    pub fn xmp_name(self) -> &'static str {
        match self {
            ColourLabel::Red => "Red",
            ColourLabel::Yellow => "Yellow",
            ColourLabel::Green => "Green",
            ColourLabel::Blue => "Blue",
            ColourLabel::Purple => "Purple",
        }
    }
}

/// An `xmp:Label`: one of the colours, or any other text another tool wrote, kept as it was.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    Colour(ColourLabel),
    Other(String),
}

impl Label {
    pub fn from_xmp(text: &str) -> Option<Label> {
        let t = text.trim();
        if t.is_empty() {
            return None;
        }
        Some(
            ColourLabel::ALL
                .into_iter()
                .find(|c| c.xmp_name().eq_ignore_ascii_case(t))
                .map(Label::Colour)
                .unwrap_or_else(|| Label::Other(t.to_owned())),
        )
    }

    pub fn xmp_value(&self) -> &str {
        match self {
            Label::Colour(c) => c.xmp_name(),
            Label::Other(s) => s,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Decision {
    pub flag: Flag,
    /// 0 to 5.
    pub stars: u8,
    pub label: Option<Label>,
}

impl Decision {
    pub fn check(&self) -> Result<(), crate::CatalogError> {
        if self.stars > 5 {
            return Err(crate::CatalogError::InvalidDecision {
                reason: format!("{} stars (0 to 5)", self.stars),
            });
        }
        Ok(())
    }

    /// `xmp:Rating`: −1 for a reject (the convention every reader shares), else the stars.
    pub fn xmp_rating(&self) -> i32 {
        match self.flag {
            Flag::Reject => -1,
            _ => i32::from(self.stars),
        }
    }

    /// What a sidecar can hold of this decision: a reject's rating is −1, so its stars are not
    /// kept there (the catalog keeps them).
    pub fn as_in_sidecar(&self) -> Decision {
        let mut d = self.clone();
        if d.flag == Flag::Reject {
            d.stars = 0;
        }
        d
    }

    /// From what a sidecar says. Ratings outside −1..5 are clamped; fractional ones rounded.
    pub fn from_xmp(rating: Option<&str>, label: Option<&str>, pick: Option<&str>) -> Decision {
        let rating = rating
            .and_then(|r| r.trim().parse::<f64>().ok())
            .map(|r| r.round().clamp(-1.0, 5.0) as i32)
            .unwrap_or(0);
        let picked = pick.is_some_and(|p| {
            let p = p.trim();
            p.eq_ignore_ascii_case("true") || p == "1"
        });
        Decision {
            flag: if rating < 0 {
                Flag::Reject
            } else if picked {
                Flag::Pick
            } else {
                Flag::Unflagged
            },
            stars: rating.max(0) as u8,
            label: label.and_then(Label::from_xmp),
        }
    }
}

/// One decision as a photographer makes it: the flag, the stars or the label, as pressed. A
/// change is applied to what the photo really has (its catalog row, or its sidecar if it was
/// never imported), so a key pressed before the photo's import landed never wipes the rating
/// or label another tool wrote.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Flag(Flag),
    Stars(u8),
    Label(Option<Label>),
}

/// The fields of a decision, as bits of a catalog row's `pending_fields`: the fields changed in
/// DarkRoom and not yet written into the sidecar (`outside`).
pub const FLAG: i64 = 1;
pub const STARS: i64 = 2;
pub const LABEL: i64 = 4;
pub const ALL: i64 = FLAG | STARS | LABEL;

impl Change {
    /// The field this change makes, as a bit of [`ALL`].
    pub fn field(&self) -> i64 {
        match self {
            Change::Flag(_) => FLAG,
            Change::Stars(_) => STARS,
            Change::Label(_) => LABEL,
        }
    }

    /// `decision` with this change made.
    pub fn applied_to(&self, decision: &Decision) -> Decision {
        let mut d = decision.clone();
        match self {
            Change::Flag(f) => d.flag = *f,
            Change::Stars(s) => d.stars = *s,
            Change::Label(l) => d.label = l.clone(),
        }
        d
    }

    /// The change that puts back what `before` had in the field this one changes (its undo).
    pub fn undone_to(&self, before: &Decision) -> Change {
        match self {
            Change::Flag(_) => Change::Flag(before.flag),
            Change::Stars(_) => Change::Stars(before.stars),
            Change::Label(_) => Change::Label(before.label.clone()),
        }
    }

    pub fn check(&self) -> Result<(), crate::CatalogError> {
        self.applied_to(&Decision::default()).check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_touches_its_own_field_and_its_undo_puts_it_back() {
        let before = Decision {
            flag: Flag::Unflagged,
            stars: 5,
            label: Some(Label::Colour(ColourLabel::Blue)),
        };
        let pick = Change::Flag(Flag::Pick);
        let after = pick.applied_to(&before);
        assert_eq!(
            after,
            Decision {
                flag: Flag::Pick,
                ..before.clone()
            }
        );
        assert_eq!(pick.undone_to(&before).applied_to(&after), before);
        let red = Change::Label(Some(Label::Colour(ColourLabel::Red)));
        assert_eq!(red.undone_to(&before), Change::Label(before.label.clone()));
        assert!(Change::Stars(6).check().is_err());
    }
}
