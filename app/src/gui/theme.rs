//! The window's colours and sizes, in one place.

use darkroom_catalog::ColourLabel;
use egui::Color32;

pub use crate::services::{LOUPE_SIDE, THUMB_SIDE};
/// A grid cell's side in points.
pub const CELL: f32 = 180.0;
/// The people strip's face chips, in points.
pub const PERSON_CHIP: f32 = 40.0;
/// Loupe close-ups are shown at most this high, in points (their pixels stay the photo's).
pub const CLOSE_UP_HEIGHT: f32 = 128.0;
/// The loupe's filmstrip: its cells' side in points, and how many photos each side of the
/// one shown.
pub const FILMSTRIP_CELL: f32 = 64.0;
pub const FILMSTRIP_EACH_SIDE: usize = 6;
/// The filmstrip shows only where the loupe has at least this much height.
pub const FILMSTRIP_MIN_HEIGHT: f32 = 480.0;
/// Overlay windows' width.
pub const WINDOW_WIDTH: f32 = 560.0;
/// Room kept above and below an overlay window, and its title bar's height: the overlay fits the
/// window and scrolls inside.
pub const WINDOW_MARGIN: f32 = 32.0;
pub const WINDOW_TITLE: f32 = 36.0;
/// A cell's caption and the index's marks over its photo.
pub const CELL_TEXT: f32 = 11.0;
/// The loupe's and compare's caption.
pub const CAPTION_TEXT: f32 = 14.0;
/// "cannot read" in a cell whose picture failed.
pub const CELL_FAILED_TEXT: f32 = 14.0;
/// The cell's error badge: its radius and its "!".
pub const BADGE_RADIUS: f32 = 9.0;
pub const BADGE_TEXT: f32 = 13.0;
/// The colour label's bar under a cell.
pub const LABEL_BAR: f32 = 6.0;

/// Errors, in text and in a cell's badge.
pub const ERROR_TEXT: Color32 = Color32::LIGHT_RED;
pub const ERROR_BADGE: Color32 = Color32::from_rgb(200, 40, 40);
/// A forced backend, a notice that needs a look.
pub const WARNING: Color32 = Color32::from_rgb(230, 160, 40);
pub const EYES_CLOSED: Color32 = Color32::from_rgb(230, 120, 90);
/// Rejected photos are dimmed by this much black.
pub const REJECT_DIM: u8 = 140;
/// Behind the marks drawn over a photo.
pub const MARKS_BACKGROUND: u8 = 170;

pub fn label_colour(c: ColourLabel) -> Color32 {
    match c {
        ColourLabel::Red => Color32::from_rgb(220, 50, 47),
        ColourLabel::Yellow => Color32::from_rgb(230, 200, 40),
        ColourLabel::Green => Color32::from_rgb(80, 170, 60),
        ColourLabel::Blue => Color32::from_rgb(50, 110, 220),
        ColourLabel::Purple => Color32::from_rgb(150, 80, 190),
    }
}

/// The decision's glyphs (egui's monochrome emoji fonts carry them) and their colours.
pub const STAR: &str = "★";
pub const PICK_GLYPH: &str = "⚑";
pub const REJECT_GLYPH: &str = "✖";
pub const LABEL_DOT: &str = "●";
pub const STAR_COLOUR: Color32 = Color32::from_rgb(240, 200, 60);
pub const PICK_COLOUR: Color32 = Color32::from_rgb(110, 210, 110);
pub const REJECT_COLOUR: Color32 = Color32::from_rgb(235, 90, 80);

/// An auto-cull proposal's marks: its own colours, never a decision's.
/// A scene's start in the grid: the bar down the cell's edge and the chip with its size.
pub const SCENE_MARK: Color32 = Color32::from_rgb(250, 200, 90);
pub const SCENE_BAR: f32 = 4.0;
pub const PROPOSED_PICK: Color32 = Color32::from_rgb(120, 220, 200);
pub const PROPOSED_REJECT: Color32 = Color32::from_rgb(240, 170, 200);
/// How strongly the rest of a selection is tinted with the selection colour.
pub const SELECTION_FILL: f32 = 0.35;

/// The zoomed loupe's navigator: its long side and its distance from the pane's corner, in
/// points; the outline of the part shown.
pub const NAVIGATOR_SIDE: f32 = 160.0;
pub const NAVIGATOR_MARGIN: f32 = 12.0;
pub const NAVIGATOR_VIEW: Color32 = Color32::from_rgb(255, 210, 60);
/// Behind what is drawn over a photo (the zoom level, the navigator).
pub const OVERLAY_FILL: Color32 = Color32::from_black_alpha(170);
/// The face close-up the zoom goes to.
pub const CHOSEN_FACE: Color32 = Color32::from_rgb(255, 210, 60);
/// Between compare's panes, in points.
pub const COMPARE_GAP: f32 = 6.0;
/// The loupe's histogram, in points.
pub const HISTOGRAM_WIDTH: f32 = 192.0;
pub const HISTOGRAM_HEIGHT: f32 = 72.0;
/// The loupe's line of facts (camera, lens, exposure).
pub const FACTS_TEXT: f32 = 12.0;
/// People across a burst: a face cell's side, in points.
pub const ACROSS_CELL: f32 = 112.0;

/// AF points (F): the points in focus filled and outlined in this colour, the chosen ones
/// outlined, the rest of the grid faint.
pub const AF_IN_FOCUS: Color32 = Color32::from_rgb(255, 60, 60);
pub const AF_IN_FOCUS_FILL: Color32 = Color32::from_rgba_premultiplied(90, 20, 20, 90);
pub const AF_CHOSEN: Color32 = Color32::from_rgb(255, 200, 60);
pub const AF_OTHER: Color32 = Color32::from_rgba_premultiplied(90, 90, 90, 90);
/// A grid of more points than this (a mirrorless body's 1,053) is drawn by its points in
/// focus and chosen only: the rest would hide the photo.
pub const AF_GRID_MAX: usize = 100;
