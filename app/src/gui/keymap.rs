//! The keymap, as data: every binding the grid, loupe and compare views answer to, with the
//! words the help overlay (`?`) shows for it.

use darkroom_catalog::ColourLabel;
use egui::{Key, Modifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Next,
    Previous,
    Up,
    Down,
    /// Shift+arrows: grow or shrink the selection.
    ExtendNext,
    ExtendPrevious,
    ExtendUp,
    ExtendDown,
    SelectAll,
    ToggleLoupe,
    Back,
    Compare,
    /// Shift+C: the whole scene side by side.
    CompareScene,
    Zoom,
    Zoom200,
    PinBest,
    ToggleClipping,
    ToggleSubject,
    /// F in the loupe and compare: the AF points the camera recorded.
    ToggleAfPoints,
    /// Shift+F: focus peaking over the photo shown.
    ToggleFocusPeaking,
    PeopleAcross,
    PanLeft,
    PanRight,
    PanUp,
    PanDown,
    Pick,
    Reject,
    Unflag,
    Stars(u8),
    Label(ColourLabel),
    Undo,
    Help,
    FilterAll,
    FilterPicks,
    FilterRejects,
    FilterUnflagged,
    FilterMinStars(u8),
    FilterLabel(ColourLabel),
    Settings,
    OpenFolder,
    SortBySharpness,
    ToggleBurst,
    IndexFaces,
    ProposeCull,
    ApplyProposal,
    DiscardProposal,
    ExportPicks,
    Ingest,
    SortByTime,
    SameMoment,
}

impl Action {
    /// Moves the selection to another photo: the frame it comes in answers it on screen.
    pub fn moves(self) -> bool {
        matches!(
            self,
            Action::Next
                | Action::Previous
                | Action::Up
                | Action::Down
                | Action::ExtendNext
                | Action::ExtendPrevious
                | Action::ExtendUp
                | Action::ExtendDown
        )
    }
}

/// Where a binding holds: one key may mean one thing in the grid and another over a photo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Everywhere,
    Grid,
    /// The loupe and compare: a photo (or several) shown large.
    Viewer,
}

pub struct Binding {
    pub key: Key,
    pub modifiers: Modifiers,
    pub scope: Scope,
    pub action: Action,
    pub keys: &'static str,
    pub help: &'static str,
}

const fn bind(key: Key, action: Action, keys: &'static str, help: &'static str) -> Binding {
    Binding {
        key,
        modifiers: Modifiers::NONE,
        scope: Scope::Everywhere,
        action,
        keys,
        help,
    }
}

/// A binding that holds in one view only.
const fn only(scope: Scope, b: Binding) -> Binding {
    Binding { scope, ..b }
}

const fn alt(key: Key, action: Action, keys: &'static str, help: &'static str) -> Binding {
    Binding {
        key,
        modifiers: Modifiers::ALT,
        scope: Scope::Everywhere,
        action,
        keys,
        help,
    }
}

const fn shift(key: Key, action: Action, keys: &'static str, help: &'static str) -> Binding {
    Binding {
        key,
        modifiers: Modifiers::SHIFT,
        scope: Scope::Everywhere,
        action,
        keys,
        help,
    }
}

const fn ctrl(key: Key, action: Action, keys: &'static str, help: &'static str) -> Binding {
    Binding {
        key,
        modifiers: Modifiers::COMMAND,
        scope: Scope::Everywhere,
        action,
        keys,
        help,
    }
}

pub const KEYMAP: &[Binding] = &[
    bind(Key::ArrowRight, Action::Next, "→", "Next photo"),
    bind(Key::ArrowLeft, Action::Previous, "←", "Previous photo"),
    bind(Key::ArrowUp, Action::Up, "↑", "Row up (grid)"),
    bind(Key::ArrowDown, Action::Down, "↓", "Row down (grid)"),
    shift(
        Key::ArrowRight,
        Action::ExtendNext,
        "Shift+→",
        "Select the next photo too",
    ),
    shift(
        Key::ArrowLeft,
        Action::ExtendPrevious,
        "Shift+←",
        "Select the previous photo too",
    ),
    shift(
        Key::ArrowUp,
        Action::ExtendUp,
        "Shift+↑",
        "Select to the row above (grid)",
    ),
    shift(
        Key::ArrowDown,
        Action::ExtendDown,
        "Shift+↓",
        "Select to the row below (grid)",
    ),
    ctrl(
        Key::A,
        Action::SelectAll,
        "Ctrl+A",
        "Select every photo shown",
    ),
    bind(
        Key::Space,
        Action::ToggleLoupe,
        "Space",
        "Loupe / back to grid",
    ),
    bind(
        Key::Enter,
        Action::ToggleLoupe,
        "Enter",
        "Loupe / back to grid",
    ),
    bind(
        Key::Escape,
        Action::Back,
        "Esc",
        "Back to grid, close overlays",
    ),
    bind(
        Key::C,
        Action::Compare,
        "C",
        "Compare: the selection, the burst, the scene, or the next photo",
    ),
    shift(
        Key::C,
        Action::CompareScene,
        "Shift+C",
        "Compare the whole scene (the first nine of its photos)",
    ),
    bind(
        Key::E,
        Action::PeopleAcross,
        "E",
        "Everyone's face across the selection or burst: who is sharp, eyes open, in which frame",
    ),
    bind(
        Key::J,
        Action::ToggleClipping,
        "J",
        "Loupe: mark blown-out (red) and crushed (blue) pixels",
    ),
    bind(
        Key::O,
        Action::ToggleSubject,
        "O",
        "Loupe: show the subject the focus is judged on, looked for if need be",
    ),
    bind(
        Key::K,
        Action::PinBest,
        "K",
        "Compare: keep this photo in view as the best so far (again: unpin)",
    ),
    bind(
        Key::Z,
        Action::Zoom,
        "Z",
        "Loupe: fit / 100 % at the pointer (or the chosen face, else the AF point)",
    ),
    shift(Key::Z, Action::Zoom200, "Shift+Z", "Loupe: fit / 200 %"),
    ctrl(
        Key::ArrowLeft,
        Action::PanLeft,
        "Ctrl+←",
        "Loupe zoomed: look further left",
    ),
    ctrl(
        Key::ArrowRight,
        Action::PanRight,
        "Ctrl+→",
        "Loupe zoomed: look further right",
    ),
    ctrl(
        Key::ArrowUp,
        Action::PanUp,
        "Ctrl+↑",
        "Loupe zoomed: look further up",
    ),
    ctrl(
        Key::ArrowDown,
        Action::PanDown,
        "Ctrl+↓",
        "Loupe zoomed: look further down",
    ),
    bind(Key::P, Action::Pick, "P", "Pick"),
    bind(Key::X, Action::Reject, "X", "Reject"),
    bind(Key::U, Action::Unflag, "U", "Unflag"),
    bind(Key::Num0, Action::Stars(0), "0", "No stars"),
    bind(Key::Num1, Action::Stars(1), "1", "1 star"),
    bind(Key::Num2, Action::Stars(2), "2", "2 stars"),
    bind(Key::Num3, Action::Stars(3), "3", "3 stars"),
    bind(Key::Num4, Action::Stars(4), "4", "4 stars"),
    bind(Key::Num5, Action::Stars(5), "5", "5 stars"),
    bind(
        Key::Num6,
        Action::Label(ColourLabel::Red),
        "6",
        "Red label (again: none)",
    ),
    bind(
        Key::Num7,
        Action::Label(ColourLabel::Yellow),
        "7",
        "Yellow label",
    ),
    bind(
        Key::Num8,
        Action::Label(ColourLabel::Green),
        "8",
        "Green label",
    ),
    bind(
        Key::Num9,
        Action::Label(ColourLabel::Blue),
        "9",
        "Blue label",
    ),
    ctrl(Key::Z, Action::Undo, "Ctrl+Z", "Undo the last decision"),
    bind(Key::Questionmark, Action::Help, "?", "This help"),
    bind(Key::F1, Action::Help, "F1", "This help"),
    bind(Key::A, Action::FilterAll, "A", "Show all"),
    only(
        Scope::Grid,
        bind(Key::F, Action::FilterPicks, "F", "Grid: show picks"),
    ),
    only(
        Scope::Viewer,
        bind(
            Key::F,
            Action::ToggleAfPoints,
            "F",
            "Loupe, compare: where the camera focused (its AF points; in focus: filled)",
        ),
    ),
    only(
        Scope::Viewer,
        shift(
            Key::F,
            Action::ToggleFocusPeaking,
            "Shift+F",
            "Loupe, compare: focus peaking (the sharp edges painted)",
        ),
    ),
    bind(Key::R, Action::FilterRejects, "R", "Show rejects"),
    bind(Key::N, Action::FilterUnflagged, "N", "Show unflagged"),
    alt(
        Key::Num1,
        Action::FilterMinStars(1),
        "Alt+1",
        "Show 1 star or more",
    ),
    alt(
        Key::Num2,
        Action::FilterMinStars(2),
        "Alt+2",
        "Show 2 stars or more",
    ),
    alt(
        Key::Num3,
        Action::FilterMinStars(3),
        "Alt+3",
        "Show 3 stars or more",
    ),
    alt(
        Key::Num4,
        Action::FilterMinStars(4),
        "Alt+4",
        "Show 4 stars or more",
    ),
    alt(
        Key::Num5,
        Action::FilterMinStars(5),
        "Alt+5",
        "Show 5 stars",
    ),
    alt(
        Key::Num6,
        Action::FilterLabel(ColourLabel::Red),
        "Alt+6",
        "Show red label",
    ),
    alt(
        Key::Num7,
        Action::FilterLabel(ColourLabel::Yellow),
        "Alt+7",
        "Show yellow label",
    ),
    alt(
        Key::Num8,
        Action::FilterLabel(ColourLabel::Green),
        "Alt+8",
        "Show green label",
    ),
    alt(
        Key::Num9,
        Action::FilterLabel(ColourLabel::Blue),
        "Alt+9",
        "Show blue label",
    ),
    ctrl(Key::Comma, Action::Settings, "Ctrl+,", "Settings"),
    ctrl(Key::O, Action::OpenFolder, "Ctrl+O", "Open a folder"),
    ctrl(
        Key::I,
        Action::IndexFaces,
        "Ctrl+I",
        "Index faces in this folder",
    ),
    ctrl(
        Key::P,
        Action::ProposeCull,
        "Ctrl+P",
        "Propose a cull of the folder (from the index)",
    ),
    ctrl(
        Key::Enter,
        Action::ApplyProposal,
        "Ctrl+Enter",
        "Apply the proposal (one undo)",
    ),
    ctrl(
        Key::Backspace,
        Action::DiscardProposal,
        "Ctrl+Backspace",
        "Discard the proposal",
    ),
    ctrl(
        Key::E,
        Action::ExportPicks,
        "Ctrl+E",
        "Copy the picks to a folder",
    ),
    ctrl(
        Key::G,
        Action::Ingest,
        "Ctrl+G",
        "Ingest a card onto the working drive and a backup",
    ),
    ctrl(
        Key::T,
        Action::SameMoment,
        "Ctrl+T",
        "Two photos of one moment: set the other camera's clock",
    ),
    bind(
        Key::T,
        Action::SortByTime,
        "T",
        "Shooting order (clocks corrected) / folder order",
    ),
    bind(
        Key::B,
        Action::ToggleBurst,
        "B",
        "Open / close the selected burst",
    ),
    bind(
        Key::S,
        Action::SortBySharpness,
        "S",
        "Sharpest first / folder order",
    ),
];

/// Whether some binding of `key` names Shift: then Shift is part of every binding of that key
/// (Shift+→ is not also →). Elsewhere Shift is ignored, as keyboards that need it for digits
/// (AZERTY) do.
fn shift_matters(key: Key) -> bool {
    KEYMAP.iter().any(|b| b.key == key && b.modifiers.shift)
}

/// The binding a key press means in the grid or over a photo (`viewer`), if any.
fn binding_of(key: Key, modifiers: Modifiers, viewer: bool) -> Option<&'static Binding> {
    KEYMAP.iter().find(|b| {
        let here = match b.scope {
            Scope::Everywhere => true,
            Scope::Grid => !viewer,
            Scope::Viewer => viewer,
        };
        // Alt is part of a binding when it names it, and rules the others out.
        here && key == b.key
            && modifiers.alt == b.modifiers.alt
            && (!shift_matters(b.key) || modifiers.shift == b.modifiers.shift)
            && modifiers.matches_logically(b.modifiers)
    })
}

/// One key pressed this frame, as what it means in the grid and over a photo: which of the
/// two it is is decided when its turn comes, after the keys before it have acted (Enter then
/// F in one slow frame: F over the photo Enter opened).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Press {
    grid: Option<Action>,
    viewer: Option<Action>,
}

impl Press {
    /// The action in the grid, or over a photo (`viewer`).
    pub fn action(self, viewer: bool) -> Option<Action> {
        if viewer { self.viewer } else { self.grid }
    }
}

/// The keys pressed this frame, in the order pressed, repeats included, each with what it
/// means in either scope.
pub fn presses(events: &[egui::Event]) -> Vec<Press> {
    // A layout that types "?" may also send it as a key: one press, not two.
    let question_key = events.iter().any(|e| {
        matches!(
            e,
            egui::Event::Key {
                key: Key::Questionmark,
                pressed: true,
                ..
            }
        )
    });
    events
        .iter()
        .filter_map(|e| match e {
            egui::Event::Key {
                key,
                pressed: true,
                modifiers,
                ..
            } => {
                let action = |viewer| binding_of(*key, *modifiers, viewer).map(|b| b.action);
                Some(Press {
                    grid: action(false),
                    viewer: action(true),
                })
            }
            egui::Event::Text(t) if t == "?" && !question_key => Some(Press {
                grid: Some(Action::Help),
                viewer: Some(Action::Help),
            }),
            _ => None,
        })
        .filter(|p| p.grid.is_some() || p.viewer.is_some())
        .collect()
}

/// The actions pressed this frame, one per key event in the order the keys were pressed,
/// repeats included: a culler's P then → inside one slow frame picks the photo P was pressed
/// on, and → → moves two photos. `viewer`: the loupe or compare is shown, not the grid, for
/// every key alike (where a key may change that, `presses` decides key by key).
pub fn pressed(events: &[egui::Event], viewer: bool) -> Vec<Action> {
    presses(events)
        .into_iter()
        .filter_map(|p| p.action(viewer))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(key: Key, modifiers: Modifiers, repeat: bool) -> egui::Event {
        egui::Event::Key {
            key,
            physical_key: None,
            pressed: true,
            repeat,
            modifiers,
        }
    }

    fn actions(events: Vec<egui::Event>) -> Vec<Action> {
        pressed(&events, false)
    }

    #[test]
    fn f_shows_picks_in_the_grid_and_the_af_points_over_a_photo() {
        let none = Modifiers::NONE;
        let f = || {
            vec![
                key(Key::F, none, false),
                key(Key::F, Modifiers::SHIFT, false),
            ]
        };
        assert_eq!(pressed(&f(), false), vec![Action::FilterPicks]);
        assert_eq!(
            pressed(&f(), true),
            vec![Action::ToggleAfPoints, Action::ToggleFocusPeaking]
        );
        // The keys every view shares still hold over a photo.
        assert_eq!(
            pressed(&[key(Key::P, none, false)], true),
            vec![Action::Pick]
        );
        // Each key carries both meanings, for the window to choose as its turn comes: Enter
        // then F in one frame is the loupe and then its AF points.
        let both = presses(&[key(Key::Enter, none, false), key(Key::F, none, false)]);
        assert_eq!(
            both.iter().map(|p| p.action(false)).collect::<Vec<_>>(),
            vec![Some(Action::ToggleLoupe), Some(Action::FilterPicks)]
        );
        assert_eq!(both[1].action(true), Some(Action::ToggleAfPoints));
        assert_eq!(
            presses(&[key(Key::F, Modifiers::SHIFT, false)])[0].action(false),
            None,
            "Shift+F means nothing in the grid"
        );
        // No two bindings of one view share a key and modifiers.
        for (i, a) in KEYMAP.iter().enumerate() {
            for b in &KEYMAP[i + 1..] {
                let overlap = a.scope == b.scope
                    || a.scope == Scope::Everywhere
                    || b.scope == Scope::Everywhere;
                assert!(
                    !(overlap && a.key == b.key && a.modifiers == b.modifiers),
                    "{} and {} clash",
                    a.keys,
                    b.keys
                );
            }
        }
    }

    #[test]
    fn keys_of_one_frame_are_actions_in_the_order_pressed() {
        let none = Modifiers::NONE;
        assert_eq!(
            actions(vec![
                key(Key::P, none, false),
                key(Key::ArrowRight, none, false)
            ]),
            vec![Action::Pick, Action::Next]
        );
        assert_eq!(
            actions(vec![
                key(Key::ArrowRight, none, false),
                key(Key::ArrowRight, none, true),
                key(Key::X, none, false),
            ]),
            vec![Action::Next, Action::Next, Action::Reject],
            "a held key's repeats move as many photos"
        );
        assert_eq!(
            actions(vec![
                key(Key::Z, Modifiers::COMMAND, false),
                key(Key::Z, none, false),
                key(Key::ArrowRight, Modifiers::SHIFT, false),
            ]),
            vec![Action::Undo, Action::Zoom, Action::ExtendNext]
        );
        assert_eq!(
            actions(vec![
                key(Key::Questionmark, Modifiers::SHIFT, false),
                egui::Event::Text("?".into())
            ]),
            vec![Action::Help],
            "one press of ?, sent as a key and as text"
        );
        assert_eq!(
            actions(vec![egui::Event::Text("?".into())]),
            vec![Action::Help]
        );
    }
}
