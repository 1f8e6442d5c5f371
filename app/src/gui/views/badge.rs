//! A photo's decision as glyphs, for the grid, the loupe and compare: a ★ per star, ⚑ for a
//! pick, ✖ for a reject, a dot of the colour label's colour, "…" while the catalog has not
//! said what the photo has, and "saving…" until it is durable. The words stay in the widgets' accessible labels (screen readers, tests).

use darkroom_catalog::{Flag, Label};
use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId};

use crate::gui::theme;
use darkroom_index::culling::Photo;

/// "3 stars · Pick · saving…": the decision in words.
pub fn words(p: &Photo) -> String {
    let mut parts = Vec::new();
    match p.decision.stars {
        0 => {}
        1 => parts.push("1 star".into()),
        n => parts.push(format!("{n} stars")),
    }
    match p.decision.flag {
        Flag::Pick => parts.push("Pick".into()),
        Flag::Reject => parts.push("Reject".into()),
        Flag::Unflagged => {}
    }
    if let Some(Label::Colour(c)) = &p.decision.label {
        parts.push(format!("{} label", c.xmp_name()));
    }
    if !p.loaded {
        // Not known yet: what another tool wrote may be on its way.
        parts.push("loading…".into());
    }
    if p.pending() {
        parts.push("saving…".into());
    }
    parts.join(" · ")
}

/// The decision as glyphs, at `size` points, appended to `job`.
pub fn append_glyphs(job: &mut LayoutJob, p: &Photo, size: f32, text: Color32) {
    let glyph = |job: &mut LayoutJob, s: &str, font: FontId, colour: Color32| {
        job.append(
            s,
            2.0,
            TextFormat {
                font_id: font,
                color: colour,
                ..Default::default()
            },
        );
    };
    let proportional = FontId::proportional(size);
    let d = &p.decision;
    if d.stars > 0 {
        glyph(
            job,
            &theme::STAR.repeat(usize::from(d.stars)),
            proportional.clone(),
            theme::STAR_COLOUR,
        );
    }
    match d.flag {
        Flag::Pick => glyph(
            job,
            theme::PICK_GLYPH,
            proportional.clone(),
            theme::PICK_COLOUR,
        ),
        Flag::Reject => glyph(
            job,
            theme::REJECT_GLYPH,
            proportional.clone(),
            theme::REJECT_COLOUR,
        ),
        Flag::Unflagged => {}
    }
    if let Some(Label::Colour(c)) = &d.label {
        // The dot is in the monospace face (Hack has it; the proportional faces do not).
        glyph(
            job,
            theme::LABEL_DOT,
            FontId::monospace(size),
            theme::label_colour(*c),
        );
    }
    if !p.loaded {
        glyph(job, "…", proportional.clone(), text);
    }
    if p.pending() {
        glyph(job, "saving…", proportional, text);
    }
}

/// The file name, then the decision as glyphs.
pub fn caption(p: &Photo, size: f32, text: Color32) -> LayoutJob {
    let mut job = LayoutJob::default();
    job.append(
        &p.file_name(),
        0.0,
        TextFormat {
            font_id: FontId::proportional(size),
            color: text,
            ..Default::default()
        },
    );
    append_glyphs(&mut job, p, size, text);
    job
}
