//! Compare: the selected photo and the next, side by side.

use crate::gui::intent::Intent;
use crate::gui::state::DarkRoom;
use crate::gui::theme::LOUPE_SIDE;

use super::loupe::{caption_ui, picture_ui, shown};

pub fn compare_ui(ui: &mut egui::Ui, app: &DarkRoom, intents: &mut Vec<Intent>) {
    let v = app.cull.selected;
    let Some(a) = shown(app, v) else {
        return;
    };
    let b = shown(app, v + 1);
    for (id, _, _) in [Some(a), b].into_iter().flatten() {
        intents.push(Intent::Show(id, LOUPE_SIDE));
    }
    ui.columns(2, |cols| {
        for (col, side) in cols.iter_mut().zip([Some(a), b]) {
            if let Some((_, photo, pictures)) = side {
                caption_ui(col, photo);
                picture_ui(col, &pictures.loupe, false);
            }
        }
    });
}
