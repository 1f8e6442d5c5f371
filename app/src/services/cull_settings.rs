//! The auto-cull's settings from the command line's side: the rules as the window's Settings
//! have them, and `--without` words. The folder's cull itself (decisions, the proposal and its
//! JSON form, people's names) is `darkroom_index::folder`, which the window shares.

use darkroom_index::Thresholds;
use darkroom_index::proposal::{ProposalRules, ReasonKind};

use super::AppSettings;

/// The thresholds (scenes included) and the proposal's rules the window's Settings hold.
pub fn rules_of(settings: &AppSettings) -> (Thresholds, ProposalRules) {
    let mut thresholds = Thresholds::default();
    if let Some(v) = settings.blurry_below {
        thresholds.blurry_below = v;
    }
    thresholds.scenes = settings.culling.scenes;
    thresholds.eye_judge = settings.culling.eye_judge;
    let rules = ProposalRules::new(
        settings.culling.strictness,
        settings.culling.keep_per_burst,
        thresholds.blurry_below,
    );
    (thresholds, rules)
}

/// `--without` words to reason kinds; Err names the word and the words there are.
pub fn reason_kinds(words: &[String]) -> anyhow::Result<std::collections::BTreeSet<ReasonKind>> {
    words
        .iter()
        .map(|w| {
            ReasonKind::from_word(w).ok_or_else(|| {
                anyhow::anyhow!(
                    "no such reason: {w} (one of {})",
                    ReasonKind::ALL.map(ReasonKind::word).join(", ")
                )
            })
        })
        .collect()
}
