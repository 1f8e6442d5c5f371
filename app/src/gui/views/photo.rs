//! One photo in a pane, fit or zoomed (`zoom.rs`): from its own pixels once they are here,
//! from its preview until then (the first paint never waits for a full decode), with a
//! navigator while zoomed. A drag pans, a double click zooms to 100 % there and back. The
//! loupe and each compare pane draw with it.

use egui::{Color32, Rect, Sense, Stroke, StrokeKind, pos2, vec2};

use crate::gui::intent::{Intent, ZoomChange};
use crate::gui::pictures::{Drew, Full, Picture, Pictures};
use crate::gui::state::Overlays;
use crate::gui::theme;
use crate::gui::zoom::{self, Placed, Zoom};

const UV: Rect = Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));

/// What drawing a photo gave: where it went (None while nothing is here to draw), from which
/// of its pictures, and whether it was clicked (compare makes that pane the one decided on).
pub struct Drawn {
    pub placed: Option<Placed>,
    pub drew: Option<Drew>,
    pub clicked: bool,
}

/// Draw the photo into the rest of `ui`, with the `overlays` asked for.
pub fn photo_ui(
    ui: &mut egui::Ui,
    pictures: &Pictures,
    zoom: &Zoom,
    overlays: Overlays,
    intents: &mut Vec<Intent>,
) -> Drawn {
    let pane = ui.available_rect_before_wrap();
    let response = ui.allocate_rect(pane, Sense::click_and_drag());
    let (placed, drew) = draw(ui, &response, pane, pictures, zoom, overlays, intents);
    Drawn {
        placed,
        drew,
        clicked: response.clicked(),
    }
}

fn draw(
    ui: &mut egui::Ui,
    response: &egui::Response,
    pane: Rect,
    pictures: &Pictures,
    zoom: &Zoom,
    overlays: Overlays,
    intents: &mut Vec<Intent>,
) -> (Option<Placed>, Option<Drew>) {
    let mut drew = None;
    // Stepping faster than pictures are made, the best already here is shown: the grid
    // thumbnail at once, the screen-sized picture when it comes, the photo's own pixels last.
    let mut from_thumbnail = false;
    let preview = match &pictures.loupe {
        Picture::Ready(tex) => Some(tex),
        Picture::Failed(err) => {
            ui.put(
                pane,
                egui::Label::new(egui::RichText::new(err).color(theme::ERROR_TEXT)),
            );
            return (None, None);
        }
        _ => {
            from_thumbnail = pictures.thumb.ready().is_some();
            pictures.thumb.ready()
        }
    };
    let full = pictures.full.ready();
    // Zoomed, while the whole is on its way: the rows on screen, decoded first.
    let part = pictures
        .full_part
        .as_ref()
        .filter(|_| full.is_none() && pictures.full.waiting() && !zoom.is_fit());
    // The photo's size in its own pixels; until any are here, the preview's stands in.
    let own_px = full.map(|f| f.size).or(part.map(|p| p.size));
    let Some(photo_px) = own_px.or(preview.map(|t| t.size_vec2())) else {
        ui.put(pane, egui::Spinner::new());
        return (None, None);
    };
    let ppp = ui.ctx().pixels_per_point();
    let photo = zoom::place(zoom, pane, photo_px, ppp);
    let placed = Placed { pane, photo };
    let painter = ui.painter_at(pane);
    // The preview while it has at least the pixels the screen shows; the photo's own beyond.
    let sharper = preview.is_none_or(|t| photo.width() * ppp > t.size_vec2().x + 0.5);
    match (full, preview) {
        (Some(full), _) if sharper || !zoom.is_fit() => {
            draw_tiles(&painter, (pane, photo), full.size, &full.tiles);
            drew = Some(Drew::Full);
        }
        (_, Some(tex)) => {
            painter.image(tex.id(), photo, UV, Color32::WHITE);
            drew = Some(if from_thumbnail {
                Drew::Thumbnail
            } else {
                Drew::Screen
            });
            if let Some(part) = part {
                draw_tiles(&painter, (pane, photo), part.size, &part.tiles);
                drew = Some(Drew::Part);
            }
        }
        (_, None) => {
            if let Some(part) = part {
                draw_tiles(&painter, (pane, photo), part.size, &part.tiles);
                drew = Some(Drew::Part);
            }
        }
    }
    if overlays.clipping
        && let Some(full) = full
    {
        painter.image(full.clipping.id(), photo, UV, Color32::WHITE);
    }
    if overlays.peaking {
        match full {
            Some(full) => {
                painter.image(full.peaking.id(), photo, UV, Color32::WHITE);
            }
            // Peaking is found on the photo's own pixels, never the preview's.
            None => note_ui(
                &painter,
                pane,
                1,
                "Focus peaking: waiting for the photo's own pixels",
            ),
        }
    }
    if overlays.subject
        && let Some(subject) = &pictures.subject
    {
        painter.image(subject.id(), photo, UV, Color32::WHITE);
    }
    if overlays.af_points {
        af_points_ui(&painter, pane, photo, &pictures.facts);
    }
    let mut words = zoom_words(zoom, &pictures.full);
    if from_thumbnail && full.is_none() {
        words.push_str(" · grid thumbnail until its picture is made");
    }
    response.widget_info(|| {
        egui::WidgetInfo::labeled(egui::Role::Image, true, format!("photo {words}"))
    });
    if !zoom.is_fit() {
        let galley = painter.layout_no_wrap(
            words,
            egui::FontId::proportional(theme::CAPTION_TEXT),
            Color32::WHITE,
        );
        let at = pane.left_top() + vec2(8.0, 8.0);
        painter.rect_filled(
            Rect::from_min_size(at, galley.size()).expand(4.0),
            3.0,
            theme::OVERLAY_FILL,
        );
        painter.galley(at, galley, Color32::WHITE);
    }
    if response.drag_started() || response.dragged() {
        let delta = response.drag_delta();
        if delta != egui::Vec2::ZERO {
            intents.push(Intent::Zoom(ZoomChange::Pan(delta)));
        }
    }
    if response.double_clicked()
        && let Some(at) = response
            .interact_pointer_pos()
            .and_then(|p| placed.point_at(p))
    {
        intents.push(Intent::Zoom(ZoomChange::At(zoom::FULL, at)));
    }
    if !zoom.is_fit() {
        navigator_ui(ui, &placed, preview.or(pictures.thumb.ready()), intents);
    }
    (Some(placed), drew)
}

/// Where the camera focused, over the photo at whatever zoom (`photo` is the whole photo's
/// rectangle on screen): the points in focus filled, the chosen ones outlined, the rest of
/// the grid faint; a file without AF points says so.
fn af_points_ui(
    painter: &egui::Painter,
    pane: Rect,
    photo: Rect,
    facts: &crate::gui::pictures::Slot<darkroom_library::facts::Facts>,
) {
    use crate::gui::pictures::Slot;
    let Slot::Ready(facts) = facts else {
        return;
    };
    let on_screen = |r: [f32; 4]| {
        Rect::from_min_max(
            photo.min + vec2(r[0], r[1]) * photo.size(),
            photo.min + vec2(r[2], r[3]) * photo.size(),
        )
    };
    let af = facts.af.as_ref();
    let points = af.map_or(&[][..], |af| &af.points[..]);
    let whole_grid = points.len() <= theme::AF_GRID_MAX;
    for p in points {
        let r = on_screen(p.rect);
        if p.in_focus == Some(true) {
            painter.rect_filled(r, 0.0, theme::AF_IN_FOCUS_FILL);
            painter.rect_stroke(
                r,
                0.0,
                Stroke::new(2.0, theme::AF_IN_FOCUS),
                StrokeKind::Outside,
            );
        } else if p.selected {
            painter.rect_stroke(
                r,
                0.0,
                Stroke::new(2.0, theme::AF_CHOSEN),
                StrokeKind::Outside,
            );
        } else if whole_grid {
            painter.rect_stroke(
                r,
                0.0,
                Stroke::new(1.0, theme::AF_OTHER),
                StrokeKind::Outside,
            );
        }
    }
    let words = match af {
        None => Some("No AF points in this file's maker notes".to_owned()),
        Some(af) if af.focus_area().is_none() => Some(format!(
            "{}: {}",
            af.mode.as_deref().unwrap_or("AF"),
            af.unplaced.map_or_else(
                || "no AF point with a position in the file".to_owned(),
                |u| u.words()
            )
        )),
        Some(af) => af.mode.clone(),
    };
    if let Some(words) = words {
        note_ui(painter, pane, 0, &words);
    }
}

/// A line of words over the pane's bottom-left corner, `row` lines up from the bottom.
fn note_ui(painter: &egui::Painter, pane: Rect, row: usize, words: &str) {
    let galley = painter.layout_no_wrap(
        words.to_owned(),
        egui::FontId::proportional(theme::CAPTION_TEXT),
        Color32::WHITE,
    );
    let line = galley.size().y + 12.0;
    let at = pos2(
        pane.left() + 8.0,
        pane.bottom() - 8.0 - galley.size().y - row as f32 * line,
    );
    painter.rect_filled(
        Rect::from_min_size(at, galley.size()).expand(4.0),
        3.0,
        theme::OVERLAY_FILL,
    );
    painter.galley(at, galley, Color32::WHITE);
}

/// "100 %", with what the loupe is still waiting for or could not get.
fn zoom_words(zoom: &Zoom, full: &Full) -> String {
    let Some(scale) = zoom.scale else {
        return "fit".to_owned();
    };
    let level = format!("{:.0} %", scale * 100.0);
    match full {
        Full::Ready(_) => level,
        Full::Failed(err) => format!("{level} of the preview: {err}"),
        Full::None | Full::Requested => format!("{level} · loading the photo's own pixels…"),
    }
}

/// The whole photo, small, in the pane's corner, with the part shown outlined; a click or a
/// drag there moves the view.
fn navigator_ui(
    ui: &mut egui::Ui,
    placed: &Placed,
    picture: Option<&egui::TextureHandle>,
    intents: &mut Vec<Intent>,
) {
    let side = theme::NAVIGATOR_SIDE;
    let aspect = placed.photo.width() / placed.photo.height().max(1.0);
    let size = if aspect >= 1.0 {
        vec2(side, side / aspect)
    } else {
        vec2(side * aspect, side)
    };
    let margin = vec2(theme::NAVIGATOR_MARGIN, theme::NAVIGATOR_MARGIN);
    let rect = Rect::from_min_size(placed.pane.right_bottom() - size - margin, size);
    if !placed.pane.contains_rect(rect) {
        return;
    }
    let response = ui.interact(
        rect,
        ui.scope_id().with("navigator"),
        Sense::click_and_drag(),
    );
    let painter = ui.painter_at(placed.pane);
    painter.rect_filled(rect.expand(2.0), 2.0, theme::OVERLAY_FILL);
    if let Some(tex) = picture {
        painter.image(tex.id(), rect, UV, Color32::WHITE);
    }
    let v = placed.visible();
    let shown = Rect::from_min_max(
        rect.min + v.min.to_vec2() * rect.size(),
        rect.min + v.max.to_vec2() * rect.size(),
    );
    painter.rect_stroke(
        shown,
        0.0,
        Stroke::new(1.5, theme::NAVIGATOR_VIEW),
        StrokeKind::Outside,
    );
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, "navigator"));
    if (response.clicked() || response.dragged())
        && let Some(pos) = response.interact_pointer_pos()
    {
        let p = (pos - rect.min) / rect.size();
        intents.push(Intent::Zoom(ZoomChange::LookAt(pos2(
            p.x.clamp(0.0, 1.0),
            p.y.clamp(0.0, 1.0),
        ))));
    }
}

/// Tiles of a photo's own pixels (each with the rectangle of a `size` photo it holds) where
/// they fall in `photo` (the whole photo's rectangle on screen), those inside `pane`.
fn draw_tiles(
    painter: &egui::Painter,
    (pane, photo): (Rect, Rect),
    size: egui::Vec2,
    tiles: &[(Rect, egui::TextureHandle)],
) {
    let k = photo.size() / size;
    for (at, tex) in tiles {
        let r = Rect::from_min_size(photo.min + at.min.to_vec2() * k, at.size() * k);
        if r.intersects(pane) {
            painter.image(tex.id(), r, UV, Color32::WHITE);
        }
    }
}
