//! Model release records (`assets/model-releases.json`, compiled in): what the release tool
//! (`tools/release/release.py`) made, from what, with which tools, and what the parity gate
//! said. Each record carries the sha256 of its own identity block, so a record edited by hand
//! no longer matches; a card that claims a derived form (`ModelCard::form`) is offered only
//! while a record for that form has the card's file hash and a passing verdict.
//!
//! The hash is over the identity block in a canonical JSON form both sides can write: keys
//! sorted, no whitespace, strings as JSON escapes them. The identity holds strings, integers
//! and booleans only, so no float formatting enters the hash.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::cards::{CardSet, ModelCard};
use crate::error::EngineError;
use crate::store::sha256_hex;

const BUILTIN_RECORDS: &str = include_str!("../../assets/model-releases.json");
const BUILTIN_ORIGIN: &str = "assets/model-releases.json (built in)";

/// The gate's verdict on an artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
}

/// The artifact a record describes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Artifact {
    pub file: String,
    pub sha256: String,
    pub size: u64,
}

/// One release record.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseRecord {
    /// Source sha256, descriptor, tool and library versions, calibration manifest hash.
    pub identity: Value,
    /// sha256 of [`canonical_json`] of `identity`.
    pub identity_sha256: String,
    pub artifact: Artifact,
    /// Each session check the tool ran ("onnxruntime", "tract") and its outcome.
    pub checks: BTreeMap<String, String>,
    /// The parity gate's summary, per runtime.
    pub parity: Value,
    pub verdict: Verdict,
}

impl ReleaseRecord {
    /// A detector-recall gate's measure (None for any other gate): per runtime the share found
    /// above the floor and the input-size band below it ("<40"), the worst runtime's.
    pub fn detector_recall(&self) -> Option<DetectorRecall> {
        let descriptor = self.identity.get("descriptor")?;
        if descriptor.get("gate").and_then(Value::as_str) != Some("detector-recall") {
            return None;
        }
        let reference = descriptor.get("reference")?.as_str()?.to_owned();
        // Per runtime: (found above the floor, the floor, recall below it).
        let runtimes = self
            .parity
            .as_object()?
            .values()
            .map(|summary| {
                let above = summary.get("found_above_floor")?.as_f64()?;
                let low = summary
                    .get("bands")?
                    .get("input")?
                    .as_array()?
                    .iter()
                    .find_map(|b| Some((b, b.get("band")?.as_str()?.strip_prefix('<')?)))?;
                let floor_px: u32 = low.1.trim().parse().ok()?;
                Some((above, floor_px, low.0.get("recall").and_then(Value::as_f64)))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(DetectorRecall {
            reference,
            floor_px: runtimes.first()?.1,
            above: runtimes.iter().map(|r| r.0).reduce(f64::min)?,
            below: runtimes.iter().filter_map(|r| r.2).reduce(f64::min),
        })
    }

    /// The form id (`assets/model-forms.toml`) the record is for.
    pub fn form(&self) -> Option<&str> {
        self.identity.get("form").and_then(Value::as_str)
    }

    /// The model_id the artifact serves under.
    pub fn model_id(&self) -> Option<&str> {
        self.identity.get("model_id").and_then(Value::as_str)
    }
}

/// What a detector's `detector-recall` gate measured against its reference detector, the worst
/// of the runtimes it ran on: for the Models window and Settings to say what it finds.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectorRecall {
    /// The reference detector's model_id.
    pub reference: String,
    /// The size floor of the gate (input pixels): faces at least this big are the bar's.
    pub floor_px: u32,
    /// Share of the reference's faces at or above the floor the detector found.
    pub above: f64,
    /// Share of the smaller ones, where there were any.
    pub below: Option<f64>,
}

impl DetectorRecall {
    /// In words, e.g. "finds 100% of scrfd_2.5g's faces of 40 px and more, 69% of smaller ones".
    pub fn words(&self) -> String {
        let below = self
            .below
            .map(|b| format!(", {:.0}% of smaller ones", b * 100.0))
            .unwrap_or_default();
        format!(
            "finds {:.0}% of {}'s faces of {} px and more{below}",
            self.above * 100.0,
            self.reference,
            self.floor_px
        )
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordsFile {
    records: Vec<ReleaseRecord>,
}

/// Every release record, each re-hashed from its identity block when parsed.
#[derive(Debug, Clone)]
pub struct ReleaseSet {
    records: Vec<ReleaseRecord>,
}

impl ReleaseSet {
    /// The records compiled into the binary.
    pub fn builtin() -> Result<Self, EngineError> {
        Self::parse(BUILTIN_RECORDS, BUILTIN_ORIGIN)
    }

    /// Parse a records file; a record whose identity does not hash to its `identity_sha256`,
    /// or a form recorded twice, is refused with the form named.
    pub fn parse(text: &str, origin: &str) -> Result<Self, EngineError> {
        let invalid = |reason: String| EngineError::ReleasesInvalid {
            reason,
            origin: origin.to_owned(),
        };
        let file: RecordsFile = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let mut forms = std::collections::BTreeSet::new();
        for (i, record) in file.records.iter().enumerate() {
            let Some(form) = record.form() else {
                return Err(invalid(format!("record {i} has no identity.form")));
            };
            if !forms.insert(form.to_owned()) {
                return Err(invalid(format!("form {form} is recorded twice")));
            }
            let found = identity_hash(&record.identity);
            if !found.eq_ignore_ascii_case(&record.identity_sha256) {
                return Err(invalid(format!(
                    "form {form}: the identity block hashes to {found}, the record says {}",
                    record.identity_sha256
                )));
            }
        }
        Ok(ReleaseSet {
            records: file.records,
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = &ReleaseRecord> {
        self.records.iter()
    }

    pub fn for_form(&self, form: &str) -> Option<&ReleaseRecord> {
        self.records.iter().find(|r| r.form() == Some(form))
    }

    /// Why `card` may not be offered, or `None` when it may: a card that claims no derived
    /// form needs no record; one that does needs a record of that form, for the card's
    /// model_id, with the card's file hash and a passing verdict.
    pub fn refusal(&self, card: &ModelCard) -> Option<String> {
        let form = card.form.as_deref()?;
        let id = card.model_id();
        let Some(record) = self.for_form(form) else {
            return Some(format!("{id}: no release record for form {form}"));
        };
        if record.model_id() != Some(id.as_str()) {
            return Some(format!(
                "{id}: the record for form {form} is for {}",
                record.model_id().unwrap_or("no model_id")
            ));
        }
        match &card.sha256 {
            Some(sha) if sha.eq_ignore_ascii_case(&record.artifact.sha256) => {}
            Some(sha) => {
                return Some(format!(
                    "{id}: the card's file is {sha}, the record for form {form} released {}",
                    record.artifact.sha256
                ));
            }
            None => return Some(format!("{id}: a derived form needs a pinned sha256")),
        }
        if record.verdict != Verdict::Pass {
            return Some(format!("{id}: form {form} failed its parity gate"));
        }
        None
    }

    /// What the released form of `card` finds against its reference detector, where its gate
    /// measured that.
    pub fn detector_recall(&self, card: &ModelCard) -> Option<DetectorRecall> {
        self.for_form(card.form.as_deref()?)?.detector_recall()
    }

    /// Whether `card` may be offered (see [`ReleaseSet::refusal`]).
    pub fn passed(&self, card: &ModelCard) -> bool {
        self.refusal(card).is_none()
    }

    /// Every card's refusal, for CI: empty when each card that claims a form is released.
    pub fn check_cards(&self, cards: &CardSet) -> Vec<String> {
        cards.iter().filter_map(|c| self.refusal(c)).collect()
    }
}

/// Why `card` may not be used, against the built-in records (parsed once): the sessions ask
/// this before building any session from the store, so a derived form whose record is
/// missing or failed is refused by every consumer, not only hidden in Settings.
pub fn builtin_refusal(card: &ModelCard) -> Option<String> {
    card.form.as_ref()?;
    match builtin_set() {
        Ok(set) => set.refusal(card),
        Err(e) => Some(e.clone()),
    }
}

/// What the built-in record of `card`'s form measured it to find (see
/// [`ReleaseSet::detector_recall`]).
pub fn builtin_detector_recall(card: &ModelCard) -> Option<DetectorRecall> {
    builtin_set().as_ref().ok()?.detector_recall(card)
}

/// The built-in records, parsed once per process.
fn builtin_set() -> &'static Result<ReleaseSet, String> {
    static BUILTIN: std::sync::OnceLock<Result<ReleaseSet, String>> = std::sync::OnceLock::new();
    BUILTIN.get_or_init(|| ReleaseSet::builtin().map_err(|e| e.to_string()))
}

/// sha256 of the canonical JSON of an identity block.
pub fn identity_hash(identity: &Value) -> String {
    sha256_hex(canonical_json(identity).as_bytes())
}

/// Keys sorted at every level, no whitespace; what Python's
/// `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` writes for
/// strings, integers, booleans, null, arrays and objects.
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(form: &str, model_id: &str, sha: &str, verdict: &str) -> String {
        let identity = serde_json::json!({
            "form": form,
            "model_id": model_id,
            "source_sha256": "ab".repeat(32),
            "tools": {"onnx": "1.23.2", "onnxruntime": "1.31.1"},
            "descriptor": {"opset": 17, "per_channel": true, "input_shape": [1, 3, 640, 640]},
        });
        let hash = identity_hash(&identity);
        format!(
            r#"{{"identity": {identity}, "identity_sha256": "{hash}",
                "artifact": {{"file": "x.onnx", "sha256": "{sha}", "size": 10}},
                "checks": {{"onnxruntime": "built"}}, "parity": {{}}, "verdict": "{verdict}"}}"#
        )
    }

    fn card_with(form: Option<&str>, sha: &str) -> ModelCard {
        let cards = CardSet::builtin().expect("builtin cards");
        let mut card = cards.get("scrfd_2.5g").expect("card").clone();
        card.numeric_form = crate::cards::NumericForm::Int8;
        card.form = form.map(str::to_owned);
        card.sha256 = Some(sha.to_owned());
        card
    }

    #[test]
    fn the_built_in_records_rehash_and_every_card_claiming_a_form_is_released() {
        let records = ReleaseSet::builtin().expect("every built-in record re-hashes");
        let cards = CardSet::builtin().expect("builtin cards");
        assert_eq!(records.check_cards(&cards), Vec::<String>::new());
        assert!(
            cards.iter().any(|c| c.form.is_some()),
            "at least one card claims a derived form, so the check above is not vacuous"
        );
    }

    #[test]
    fn canonical_json_sorts_keys_and_has_no_whitespace() {
        let v: Value = serde_json::from_str(r#"{"b": [1, {"d": "é\"", "c": true}], "a": null}"#)
            .expect("json");
        assert_eq!(
            canonical_json(&v),
            r#"{"a":null,"b":[1,{"c":true,"d":"é\""}]}"#
        );
    }

    #[test]
    fn a_tampered_identity_block_fails_the_rehash() {
        let sha = "cd".repeat(32);
        let good = format!(
            r#"{{"records": [{}]}}"#,
            record("f-i8", "scrfd_2.5g_i8", &sha, "pass")
        );
        ReleaseSet::parse(&good, "test").expect("a sound record parses");
        // One byte of the identity block: opset 17 → 18.
        let tampered = good.replacen("\"opset\":17", "\"opset\":18", 1);
        assert_ne!(tampered, good);
        let err = ReleaseSet::parse(&tampered, "test").expect_err("tampered");
        assert!(err.to_string().contains("form f-i8"), "{err}");
        // The same for the built-in file itself, one byte at a time in its identity.
        let text = BUILTIN_RECORDS.replacen(
            "\"onnxruntime\": \"1.31.1\"",
            "\"onnxruntime\": \"1.31.2\"",
            1,
        );
        assert_ne!(
            text, BUILTIN_RECORDS,
            "the built-in records name onnxruntime 1.31.1"
        );
        ReleaseSet::parse(&text, "test").expect_err("an edited built-in record");
    }

    #[test]
    fn a_card_claiming_a_form_needs_a_passing_record_with_its_hash() {
        let sha = "cd".repeat(32);
        let text = format!(
            r#"{{"records": [{}, {}]}}"#,
            record("f-i8", "scrfd_2.5g_i8", &sha, "pass"),
            record("f-bad", "scrfd_2.5g_i8", &sha, "fail")
        );
        let set = ReleaseSet::parse(&text, "test").expect("parses");
        assert!(set.passed(&card_with(Some("f-i8"), &sha)));
        assert!(
            set.passed(&card_with(None, &sha)),
            "no form claimed, no record needed"
        );
        let no_record = set
            .refusal(&card_with(Some("f-missing"), &sha))
            .expect("refused");
        assert!(no_record.contains("no release record"), "{no_record}");
        let other = set
            .refusal(&card_with(Some("f-i8"), &"ef".repeat(32)))
            .expect("refused");
        assert!(other.contains("released"), "{other}");
        let failed = set
            .refusal(&card_with(Some("f-bad"), &sha))
            .expect("refused");
        assert!(failed.contains("failed its parity gate"), "{failed}");
    }

    #[test]
    fn the_built_in_check_refuses_a_form_without_a_record() {
        let cards = CardSet::builtin().expect("builtin cards");
        let released = cards.get("scrfd_2.5g_i8").expect("card");
        assert_eq!(builtin_refusal(released), None);
        let mut unreleased = released.clone();
        unreleased.form = Some("scrfd_2.5g-i4".to_owned());
        let why = builtin_refusal(&unreleased).expect("refused");
        assert!(why.contains("no release record"), "{why}");
    }

    #[test]
    fn a_form_recorded_twice_is_refused() {
        let sha = "cd".repeat(32);
        let r = record("f-i8", "scrfd_2.5g_i8", &sha, "pass");
        let err =
            ReleaseSet::parse(&format!(r#"{{"records": [{r}, {r}]}}"#), "test").expect_err("twice");
        assert!(err.to_string().contains("twice"), "{err}");
    }

    #[test]
    fn the_released_centerface_says_what_it_finds_and_the_int8_detector_nothing() {
        let cards = CardSet::builtin().expect("builtin cards");
        let set = ReleaseSet::builtin().expect("records");
        let recall = set
            .detector_recall(cards.get("centerface").expect("card"))
            .expect("CenterFace's gate measured its recall");
        assert_eq!(recall.reference, "scrfd_2.5g");
        assert_eq!(recall.floor_px, 40);
        assert!((recall.above - 1.0).abs() < 1e-9, "{recall:?}");
        let below = recall.below.expect("small faces measured");
        assert!((0.5..0.9).contains(&below), "{recall:?}");
        assert_eq!(
            recall.words(),
            format!(
                "finds 100% of scrfd_2.5g's faces of 40 px and more, {:.0}% of smaller ones",
                below * 100.0
            )
        );
        // Another gate measures no recall; a card without a form has no record.
        assert_eq!(
            set.detector_recall(cards.get("scrfd_2.5g_i8").expect("card")),
            None
        );
        assert_eq!(
            set.detector_recall(cards.get("u2netp").expect("card")),
            None
        );
    }
}
