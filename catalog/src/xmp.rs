//! XMP packets: read a decision out of one, and merge a decision into one without disturbing
//! anything else in it. Names are resolved through their namespaces, so a sidecar that binds
//! the XMP namespace to another prefix is read and merged correctly.
//!
//! A decision is written in the words each culling tool reads (docs/XMP-INTEROP.md): stars and
//! a reject as `xmp:Rating` (−1 a reject), the label as `xmp:Label`'s colour name (Lightroom,
//! Bridge, Capture One, darktable and digiKam read it), a pick as `darkroom:Pick`, digiKam's
//! `digiKam:PickLabel` and Photo Mechanic's `photomechanic:Tagged`, and the label again as
//! `digiKam:ColorLabel`. On reading, another tool's words count where ours are silent: digiKam's
//! pick label and colour label, Photo Mechanic's tag, darktable's `darktable:colorlabels`.

use quick_xml::Writer;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::{Namespace, QName, ResolveResult};
use quick_xml::reader::NsReader;
use serde::{Deserialize, Serialize};

use crate::decision::{ColourLabel, Decision, Flag, Label};

pub const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
/// The XMP basic schema (`xmp:Rating`, `xmp:Label`).
pub const XMP: &str = "http://ns.adobe.com/xap/1.0/";
/// DarkRoom's own schema, for what XMP basic cannot say (a pick).
pub const DARKROOM: &str = "http://ns.darkroom.photo/xmp/1.0/";
/// digiKam's schema (`digiKam:PickLabel` 0 none, 1 rejected, 2 pending, 3 accepted;
/// `digiKam:ColorLabel` 0 none, 1 red, 2 orange, 3 yellow, 4 green, 5 blue, 6 magenta, 7 gray,
/// 8 black, 9 white).
pub const DIGIKAM: &str = "http://www.digikam.org/ns/1.0/";
/// Photo Mechanic's schema (`photomechanic:Tagged`, True or False).
pub const PHOTO_MECHANIC: &str = "http://ns.camerabits.com/photomechanic/1.0/";
/// darktable's schema (`darktable:colorlabels`, an rdf:Seq of 0 red, 1 yellow, 2 green, 3 blue,
/// 4 purple).
pub const DARKTABLE: &str = "http://darktable.sf.net/";

/// digiKam's colour label numbers for ours.
const DIGIKAM_COLOURS: [(ColourLabel, &str); 5] = [
    (ColourLabel::Red, "1"),
    (ColourLabel::Yellow, "3"),
    (ColourLabel::Green, "4"),
    (ColourLabel::Blue, "5"),
    (ColourLabel::Purple, "6"),
];
/// darktable's colour label numbers for ours.
const DARKTABLE_COLOURS: [(ColourLabel, &str); 5] = [
    (ColourLabel::Red, "0"),
    (ColourLabel::Yellow, "1"),
    (ColourLabel::Green, "2"),
    (ColourLabel::Blue, "3"),
    (ColourLabel::Purple, "4"),
];

/// The decision fields as a sidecar spells them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Fields {
    pub rating: Option<String>,
    pub label: Option<String>,
    pub pick: Option<String>,
    pub digikam_pick: Option<String>,
    pub digikam_colour: Option<String>,
    pub photo_mechanic_tagged: Option<String>,
    /// The items of `darktable:colorlabels`, space-separated.
    pub darktable_colours: Option<String>,
}

impl Fields {
    pub fn decision(&self) -> Decision {
        let mut d = Decision::from_xmp(
            self.rating.as_deref(),
            self.label.as_deref(),
            self.pick.as_deref(),
        );
        // Another tool's words for the same decision count where ours say nothing.
        if d.flag == Flag::Unflagged {
            d.flag = match self.digikam_pick.as_deref().map(str::trim) {
                Some("1") => Flag::Reject,
                Some("3") => Flag::Pick,
                _ if self
                    .photo_mechanic_tagged
                    .as_deref()
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("true")) =>
                {
                    Flag::Pick
                }
                _ => Flag::Unflagged,
            };
            if d.flag == Flag::Reject {
                d.stars = 0;
            }
        }
        // An empty `xmp:Label` is ours saying "no label": other tools' labels count only where
        // ours is absent.
        if self.label.is_none() {
            let number = |table: &[(ColourLabel, &str)], v: Option<&str>| {
                let v = v?.split_whitespace().next()?;
                table
                    .iter()
                    .find(|(_, n)| *n == v)
                    .map(|(c, _)| Label::Colour(*c))
            };
            d.label = number(&DIGIKAM_COLOURS, self.digikam_colour.as_deref())
                .or_else(|| number(&DARKTABLE_COLOURS, self.darktable_colours.as_deref()));
        }
        d
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Rating,
    Label,
    Pick,
    DigikamPick,
    DigikamColour,
    PhotoMechanicTagged,
    DarktableColours,
}

fn bound_to(ns: &ResolveResult<'_>, uri: &str) -> bool {
    matches!(ns, ResolveResult::Bound(Namespace(n)) if *n == uri.as_bytes())
}

/// Which of our fields a resolved name is.
fn field_of(ns: &ResolveResult<'_>, local: &[u8]) -> Option<Field> {
    if bound_to(ns, XMP) {
        match local {
            b"Rating" => Some(Field::Rating),
            b"Label" => Some(Field::Label),
            _ => None,
        }
    } else if bound_to(ns, DARKROOM) && local == b"Pick" {
        Some(Field::Pick)
    } else if bound_to(ns, DIGIKAM) && local == b"PickLabel" {
        Some(Field::DigikamPick)
    } else if bound_to(ns, DIGIKAM) && local == b"ColorLabel" {
        Some(Field::DigikamColour)
    } else if bound_to(ns, PHOTO_MECHANIC) && local == b"Tagged" {
        Some(Field::PhotoMechanicTagged)
    } else if bound_to(ns, DARKTABLE) && local == b"colorlabels" {
        Some(Field::DarktableColours)
    } else {
        None
    }
}

fn set(fields: &mut Fields, field: Field, value: String) {
    let slot = match field {
        Field::Rating => &mut fields.rating,
        Field::Label => &mut fields.label,
        Field::Pick => &mut fields.pick,
        Field::DigikamPick => &mut fields.digikam_pick,
        Field::DigikamColour => &mut fields.digikam_colour,
        Field::PhotoMechanicTagged => &mut fields.photo_mechanic_tagged,
        Field::DarktableColours => &mut fields.darktable_colours,
    };
    *slot = Some(value);
}

/// Attributes one element may have, attributes and namespace declarations one packet may
/// have: real sidecars have a few hundred and a few dozen. More is refused, in time linear in
/// the packet: each attribute is compared with the others of its element, and each name
/// resolved against every declaration in scope, so a hostile packet of 100,000 would take
/// hours.
const MAX_ATTRIBUTES: usize = 2048;
const MAX_PACKET_ATTRIBUTES: usize = 20_000;
const MAX_DECLARATIONS: usize = 256;

/// What a packet has used of its limits so far.
#[derive(Default)]
struct Limits {
    attributes: usize,
    declarations: usize,
}

impl Limits {
    fn check(&mut self, element: &BytesStart<'_>) -> Result<(), String> {
        for (n, attr) in element.attributes().with_checks(false).enumerate() {
            if n >= MAX_ATTRIBUTES {
                return Err(format!(
                    "an element has more than {MAX_ATTRIBUTES} attributes"
                ));
            }
            self.attributes += 1;
            if self.attributes > MAX_PACKET_ATTRIBUTES {
                return Err(format!(
                    "more than {MAX_PACKET_ATTRIBUTES} attributes in the packet"
                ));
            }
            let Ok(attr) = attr else { continue };
            let key = attr.key.as_ref();
            if key == b"xmlns" || key.starts_with(b"xmlns:") {
                self.declarations += 1;
                if self.declarations > MAX_DECLARATIONS {
                    return Err(format!(
                        "more than {MAX_DECLARATIONS} namespace declarations"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Read the decision fields from a packet. Errors on anything that is not well-formed XML with
/// an `rdf:Description`, or that is past the [`Limits`].
pub fn read(text: &str) -> Result<Fields, String> {
    let mut reader = NsReader::from_str(text);
    let mut fields = Fields::default();
    let mut descriptions = 0usize;
    let mut in_description = 0usize;
    // The field whose text is being read, and how many elements were open inside it.
    let mut capture: Option<(Field, String, usize)> = None;
    // Elements open: the reader does not mind a packet that ends inside one; we do.
    let mut open = 0usize;
    let mut limits = Limits::default();
    loop {
        let (ns, event) = reader.read_resolved_event().map_err(|e| e.to_string())?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                limits.check(e)?;
                let is_empty = matches!(event, Event::Empty(_));
                if !is_empty {
                    open += 1;
                }
                let is_description =
                    bound_to(&ns, RDF) && e.local_name().as_ref() == b"Description";
                let field = field_of(&ns, e.local_name().as_ref());
                if is_description {
                    descriptions += 1;
                    for attr in e.attributes() {
                        let attr = attr.map_err(|err| err.to_string())?;
                        let (ans, local) = reader.resolve_attribute(attr.key);
                        if let Some(f) = field_of(&ans, local.as_ref()) {
                            let v = attr.unescape_value().map_err(|err| err.to_string())?;
                            set(&mut fields, f, v.into_owned());
                        }
                    }
                    if !is_empty {
                        in_description += 1;
                    }
                } else if let Some((_, buf, _)) = capture.as_mut() {
                    // An item of an array (darktable's rdf:Seq): items stay apart.
                    buf.push(' ');
                } else if in_description > 0
                    && let Some(f) = field
                    && !is_empty
                {
                    capture = Some((f, String::new(), open));
                }
            }
            Event::Text(t) => {
                if let Some((_, buf, _)) = capture.as_mut() {
                    buf.push_str(&t.decode().map_err(|e| e.to_string())?);
                }
            }
            Event::End(ref e) => {
                let closing = open;
                open = open.saturating_sub(1);
                if let Some((f, value, level)) = capture.take() {
                    if level == closing {
                        set(&mut fields, f, value.trim().to_owned());
                    } else {
                        // The end of an element inside the field: go on reading it.
                        capture = Some((f, value, level));
                    }
                } else if bound_to(&ns, RDF) && e.local_name().as_ref() == b"Description" {
                    in_description = in_description.saturating_sub(1);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if open > 0 {
        return Err(format!(
            "the packet ends inside {open} open element(s) (cut off?)"
        ));
    }
    if descriptions == 0 {
        return Err("no rdf:Description".to_owned());
    }
    Ok(fields)
}

/// Which other tools' words a sidecar carries beside the ones every tool reads (`xmp:Rating`,
/// `xmp:Label`). A setting: both by default, so one cull lands intact in each; a photographer
/// who uses neither can keep the sidecars to the common words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SidecarWords {
    /// `digiKam:PickLabel` (pick, reject) and `digiKam:ColorLabel`.
    pub digikam: bool,
    /// `photomechanic:Tagged` (pick).
    pub photo_mechanic: bool,
}

impl Default for SidecarWords {
    fn default() -> Self {
        SidecarWords {
            digikam: true,
            photo_mechanic: true,
        }
    }
}

/// A new packet holding only `decision`, in the words Settings chose.
pub fn new_packet(decision: &Decision, words: SidecarWords) -> String {
    let mut namespaces = String::new();
    let mut attrs = Vec::new();
    for (field, action) in plan(&Fields::default(), decision, words) {
        let Action::Set(value) = action else { continue };
        let (prefix, uri, name) = name_of(field);
        if field != Field::Rating && field != Field::Label {
            let declaration = format!("\n    xmlns:{prefix}=\"{uri}\"");
            if !namespaces.contains(&declaration) {
                namespaces.push_str(&declaration);
            }
        }
        attrs.push(format!("{prefix}:{name}=\"{}\"", escape(&value)));
    }
    format!(
        "<?xpacket begin=\"\u{feff}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n\
<x:xmpmeta xmlns:x=\"adobe:ns:meta/\" x:xmptk=\"DarkRoom {version}\">\n \
<rdf:RDF xmlns:rdf=\"{RDF}\">\n  \
<rdf:Description rdf:about=\"\"\n    \
xmlns:xmp=\"{XMP}\"{namespaces}\n    \
{attrs}/>\n \
</rdf:RDF>\n\
</x:xmpmeta>\n\
<?xpacket end=\"w\"?>\n",
        version = env!("CARGO_PKG_VERSION"),
        attrs = attrs.join(" "),
    )
}

fn escape(text: &str) -> String {
    quick_xml::escape::escape(text).into_owned()
}

/// A prefix for `uri` on this element: one the element itself declares for it, else
/// `preferred` if it is unbound or already means `uri`, else a numbered variant. The bool says
/// whether it must be declared.
fn prefix_for(
    reader: &NsReader<&[u8]>,
    element: &BytesStart<'_>,
    preferred: &str,
    uri: &str,
) -> (String, bool) {
    let declared = element.attributes().flatten().find_map(|a| {
        let key = a.key.as_ref();
        let prefix = key.strip_prefix(b"xmlns:")?;
        (a.value.as_ref() == uri.as_bytes()).then(|| String::from_utf8_lossy(prefix).into_owned())
    });
    if let Some(prefix) = declared {
        return (prefix, false);
    }
    for n in 0.. {
        let candidate = if n == 0 {
            preferred.to_owned()
        } else {
            format!("{preferred}{n}")
        };
        let probe = format!("{candidate}:x");
        let (ns, _) = reader.resolve_attribute(QName(probe.as_bytes()));
        match ns {
            ResolveResult::Bound(Namespace(u)) if u == uri.as_bytes() => return (candidate, false),
            ResolveResult::Unknown(_) | ResolveResult::Unbound => return (candidate, true),
            ResolveResult::Bound(_) => {}
        }
    }
    unreachable!("an unbound prefix always exists")
}

/// What a merge does with one of the words it knows.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Action {
    /// Left where it is, as it is: a word of another tool that this decision does not contradict.
    Keep,
    Remove,
    /// Written with this value (for darktable's labels: the items, space-separated).
    Set(String),
}

/// digiKam's pick label values that say pick or reject (2 is "pending", 0 none: kept).
const DIGIKAM_DECIDED: [&str; 2] = ["1", "3"];

fn is_true(v: &str) -> bool {
    let v = v.trim();
    v.eq_ignore_ascii_case("true") || v == "1"
}

/// What to do with each word so the packet says `decision` while everything it does not say is
/// kept: ours (`xmp:Rating`, `xmp:Label`, `darkroom:Pick`) are always written; another tool's
/// word for the flag or the label is changed only when that part of the decision changed (and
/// then only to say the same as ours), or added where Settings asks for that tool's words. A
/// value DarkRoom does not map (digiKam's orange, grey, black or white label, its "pending"
/// pick, darktable's other labels) survives every decision that does not replace it.
fn plan(fields: &Fields, decision: &Decision, words: SidecarWords) -> Vec<(Field, Action)> {
    let prev = fields.decision();
    let flag_changed = prev.flag != decision.flag;
    let label_changed = prev.label != decision.label;
    let mut out = vec![
        (
            Field::Rating,
            Action::Set(decision.xmp_rating().to_string()),
        ),
        (
            Field::Pick,
            if decision.flag == Flag::Pick {
                Action::Set("True".into())
            } else {
                Action::Remove
            },
        ),
    ];

    let digikam_pick = fields.digikam_pick.as_deref().map(str::trim);
    let pick_code = match decision.flag {
        Flag::Pick => Some("3"),
        Flag::Reject => Some("1"),
        Flag::Unflagged => None,
    };
    out.push((
        Field::DigikamPick,
        match (digikam_pick, pick_code) {
            (None, Some(code)) if words.digikam => Action::Set(code.into()),
            (None, _) => Action::Keep,
            (Some(_), _) if !flag_changed => Action::Keep,
            (Some(_), Some(code)) => Action::Set(code.into()),
            (Some(v), None) if DIGIKAM_DECIDED.contains(&v) => Action::Remove,
            (Some(_), None) => Action::Keep,
        },
    ));
    let tagged = fields.photo_mechanic_tagged.as_deref();
    let pick = decision.flag == Flag::Pick;
    out.push((
        Field::PhotoMechanicTagged,
        match tagged {
            None if pick && words.photo_mechanic => Action::Set("True".into()),
            None => Action::Keep,
            Some(_) if !flag_changed => Action::Keep,
            Some(_) if pick => Action::Set("True".into()),
            Some(v) if is_true(v) => Action::Set("False".into()),
            Some(_) => Action::Keep,
        },
    ));

    let colour = match &decision.label {
        Some(Label::Colour(c)) => Some(*c),
        _ => None,
    };
    let number = |table: &[(ColourLabel, &'static str)], c: ColourLabel| {
        table.iter().find(|(k, _)| *k == c).map(|(_, n)| *n)
    };
    let digikam_colour = fields.digikam_colour.as_deref().map(str::trim);
    let digikam_mapped = |v: &str| DIGIKAM_COLOURS.iter().any(|(_, n)| *n == v);
    let digikam_action = match (
        digikam_colour,
        colour.and_then(|c| number(&DIGIKAM_COLOURS, c)),
    ) {
        (None, Some(n)) if words.digikam => Action::Set(n.into()),
        (None, _) => Action::Keep,
        (Some(_), _) if !label_changed => Action::Keep,
        (Some(_), Some(n)) => Action::Set(n.into()),
        (Some(v), None) if digikam_mapped(v) => Action::Remove,
        (Some(_), None) => Action::Keep,
    };
    let darktable_action = match &fields.darktable_colours {
        Some(items) if label_changed => {
            let mut list: Vec<&str> = items.split_whitespace().collect();
            let before = list.clone();
            if let Some(Label::Colour(p)) = &prev.label
                && let Some(n) = number(&DARKTABLE_COLOURS, *p)
            {
                list.retain(|i| *i != n);
            }
            if let Some(n) = colour.and_then(|c| number(&DARKTABLE_COLOURS, c))
                && !list.contains(&n)
            {
                list.insert(0, n);
            }
            if list == before {
                Action::Keep
            } else if list.is_empty() {
                Action::Remove
            } else {
                Action::Set(list.join(" "))
            }
        }
        _ => Action::Keep,
    };
    // With no label of ours, another tool's label word left in the packet would be read as
    // one: an empty `xmp:Label` says "none" in the words every tool reads first.
    let foreign_label = {
        let kept = |a: &Action, old: Option<&str>| match a {
            Action::Keep => old.map(str::to_owned),
            Action::Set(v) => Some(v.clone()),
            Action::Remove => None,
        };
        let probe = Fields {
            digikam_colour: kept(&digikam_action, digikam_colour),
            darktable_colours: kept(&darktable_action, fields.darktable_colours.as_deref()),
            ..Fields::default()
        };
        probe.decision().label.is_some()
    };
    out.push((
        Field::Label,
        match &decision.label {
            Some(l) => Action::Set(l.xmp_value().to_owned()),
            None if foreign_label => Action::Set(String::new()),
            None => Action::Remove,
        },
    ));
    out.push((Field::DigikamColour, digikam_action));
    out.push((Field::DarktableColours, darktable_action));
    out
}

/// The preferred prefix and namespace a field is written under.
fn name_of(field: Field) -> (&'static str, &'static str, &'static str) {
    match field {
        Field::Rating => ("xmp", XMP, "Rating"),
        Field::Label => ("xmp", XMP, "Label"),
        Field::Pick => ("darkroom", DARKROOM, "Pick"),
        Field::DigikamPick => ("digiKam", DIGIKAM, "PickLabel"),
        Field::DigikamColour => ("digiKam", DIGIKAM, "ColorLabel"),
        Field::PhotoMechanicTagged => ("photomechanic", PHOTO_MECHANIC, "Tagged"),
        Field::DarktableColours => ("darktable", DARKTABLE, "colorlabels"),
    }
}

/// Merge `decision` into an existing packet: the words [`plan`] changes are taken out of every
/// top-level `rdf:Description` (attribute or element form) and written into the first, and
/// every other byte of the packet is written back as it was.
pub fn merge(text: &str, decision: &Decision, words: SidecarWords) -> Result<String, String> {
    // Refuse what we could not read: a malformed sidecar is reported and left alone.
    let fields = read(text)?;
    let plan = plan(&fields, decision, words);
    let action = |f: Field| {
        plan.iter()
            .find(|(g, _)| *g == f)
            .map_or(&Action::Keep, |(_, a)| a)
    };
    let mut reader = NsReader::from_reader(text.as_bytes());
    let mut writer = Writer::new(Vec::with_capacity(text.len() + 256));
    let mut depth = 0usize;
    let mut rdf_depth: Option<usize> = None;
    // The open top-level Description's depth and its name's prefix (for rdf:Seq and rdf:li).
    let mut description: Option<(usize, String)> = None;
    let mut first_done = false;
    let mut skipping: Option<usize> = None;
    let write = |w: &mut Writer<Vec<u8>>, e: Event<'_>| w.write_event(e).map_err(|e| e.to_string());
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let (ns, event) = reader
            .read_resolved_event_into(&mut buf)
            .map_err(|e| e.to_string())?;
        let is_rdf = bound_to(&ns, RDF);
        let field = match &event {
            Event::Start(e) | Event::Empty(e) => field_of(&ns, e.local_name().as_ref()),
            _ => None,
        };
        let event = event.into_owned();
        if let Some(level) = skipping {
            match &event {
                // `read` refuses a packet that ends inside an element; should one get here,
                // it is an error, not a loop waiting for an end that never comes.
                Event::Eof => return Err("the packet ends inside an element".to_owned()),
                Event::Start(_) => depth += 1,
                Event::End(_) => {
                    depth -= 1;
                    if depth == level {
                        skipping = None;
                    }
                }
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let is_empty = matches!(event, Event::Empty(_));
                let local = e.local_name().as_ref().to_vec();
                if is_rdf && local == b"RDF" && rdf_depth.is_none() {
                    rdf_depth = Some(depth);
                }
                let top_description =
                    is_rdf && local == b"Description" && rdf_depth.is_some_and(|d| d + 1 == depth);
                if top_description {
                    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                    let rdf_prefix = name.split_once(':').map(|(p, _)| p.to_owned());
                    let mut out = BytesStart::new(name);
                    for attr in e.attributes() {
                        let attr = attr.map_err(|err| err.to_string())?;
                        let (ans, alocal) = reader.resolve_attribute(attr.key);
                        match field_of(&ans, alocal.as_ref()) {
                            Some(f) if *action(f) != Action::Keep => {}
                            _ => out.push_attribute(attr),
                        }
                    }
                    if !first_done {
                        first_done = true;
                        // Each namespace declared once, however many of its words are written.
                        let mut prefixes: Vec<(&str, String)> = Vec::new();
                        for (f, a) in &plan {
                            let Action::Set(value) = a else { continue };
                            if *f == Field::DarktableColours {
                                // An array: written in place of the old one, as an element.
                                continue;
                            }
                            let (preferred, uri, local) = name_of(*f);
                            let prefix = match prefixes.iter().find(|(u, _)| *u == uri) {
                                Some((_, p)) => p.clone(),
                                None => {
                                    let (p, declare) = prefix_for(&reader, e, preferred, uri);
                                    if declare {
                                        out.push_attribute((format!("xmlns:{p}").as_str(), uri));
                                    }
                                    prefixes.push((uri, p.clone()));
                                    p
                                }
                            };
                            out.push_attribute((
                                format!("{prefix}:{local}").as_str(),
                                value.as_str(),
                            ));
                        }
                    }
                    if is_empty {
                        write(&mut writer, Event::Empty(out))?;
                    } else {
                        description = Some((depth, rdf_prefix.unwrap_or_else(|| "rdf".into())));
                        depth += 1;
                        write(&mut writer, Event::Start(out))?;
                    }
                    continue;
                }
                if let Some((d, rdf)) = &description
                    && *d + 1 == depth
                    && let Some(f) = field
                    && *action(f) != Action::Keep
                {
                    if f == Field::DarktableColours
                        && let Action::Set(items) = action(f)
                    {
                        let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                        write_seq(&mut writer, &name, rdf, items)?;
                    }
                    // Otherwise dropped: the first Description carries the word now.
                    if !is_empty {
                        skipping = Some(depth);
                        depth += 1;
                    }
                    continue;
                }
                if !is_empty {
                    depth += 1;
                }
                write(&mut writer, event)?;
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if description.as_ref().is_some_and(|(d, _)| *d == depth) {
                    description = None;
                }
                if rdf_depth == Some(depth) {
                    rdf_depth = None;
                }
                write(&mut writer, event)?;
            }
            Event::Eof => break,
            other => write(&mut writer, other)?,
        }
    }
    let out = String::from_utf8(writer.into_inner()).map_err(|e| e.to_string())?;
    // Check our own work before anyone writes it.
    let back = read(&out)?.decision();
    if back != decision.as_in_sidecar() {
        return Err(format!(
            "merge did not round-trip: wrote {decision:?}, read {back:?}"
        ));
    }
    Ok(out)
}

/// darktable's labels as it writes them: `<darktable:colorlabels><rdf:Seq><rdf:li>…`.
fn write_seq(w: &mut Writer<Vec<u8>>, name: &str, rdf: &str, items: &str) -> Result<(), String> {
    let seq = format!("{rdf}:Seq");
    let li = format!("{rdf}:li");
    let mut events = vec![
        Event::Start(BytesStart::new(name)),
        Event::Start(BytesStart::new(seq.as_str())),
    ];
    for item in items.split_whitespace() {
        events.push(Event::Start(BytesStart::new(li.as_str())));
        events.push(Event::Text(quick_xml::events::BytesText::new(item)));
        events.push(Event::End(quick_xml::events::BytesEnd::new(li.as_str())));
    }
    events.push(Event::End(quick_xml::events::BytesEnd::new(seq.as_str())));
    events.push(Event::End(quick_xml::events::BytesEnd::new(name)));
    for e in events {
        w.write_event(e).map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_packet_default(d: &Decision) -> String {
        new_packet(d, SidecarWords::default())
    }
    use crate::decision::{ColourLabel, Label};

    /// Found by `scripts/fuzz` (target xmp): an element-form Rating cut off by the end of the
    /// packet made `merge` skip towards an end tag forever.
    #[test]
    fn a_packet_cut_off_inside_an_element_is_refused_not_merged_forever() {
        let cut = concat!(
            r#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#,
            r#"<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:Rating>pmeta>"#
        );
        let d = decision(Flag::Pick, 2, None);
        // On another thread, so the old behaviour fails this test instead of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        let d2 = d.clone();
        std::thread::spawn(move || {
            let _ = tx.send(merge(cut, &d2, SidecarWords::default()));
        });
        let e = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("merge returns")
            .expect_err("refused");
        assert!(e.contains("ends inside"), "{e}");
        assert!(read(cut).is_err());
    }

    fn decision(flag: Flag, stars: u8, label: Option<ColourLabel>) -> Decision {
        Decision {
            flag,
            stars,
            label: label.map(Label::Colour),
        }
    }

    #[test]
    fn a_new_packet_reads_back() {
        for d in [
            decision(Flag::Pick, 4, Some(ColourLabel::Green)),
            decision(Flag::Reject, 0, None),
            decision(Flag::Unflagged, 0, None),
        ] {
            assert_eq!(
                read(&new_packet(&d, SidecarWords::default()))
                    .expect("reads")
                    .decision(),
                d.as_in_sidecar()
            );
        }
    }

    const FOREIGN: &str = r#"<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 5.5.0">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:ap="http://ns.adobe.com/xap/1.0/"
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:darktable="http://darktable.sf.net/"
    ap:CreatorTool="darktable 4.6" darktable:xmp_version="5">
   <ap:Rating>2</ap:Rating>
   <dc:subject>
    <rdf:Bag>
     <rdf:li>Solvay &amp; friends</rdf:li>
    </rdf:Bag>
   </dc:subject>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"#;

    #[test]
    fn reads_element_form_under_any_prefix() {
        let f = read(FOREIGN).expect("reads");
        assert_eq!(f.rating.as_deref(), Some("2"));
    }

    #[test]
    fn merge_replaces_ours_and_keeps_everything_else() {
        let d = decision(Flag::Pick, 5, Some(ColourLabel::Red));
        let merged = merge(FOREIGN, &d, SidecarWords::default()).expect("merges");
        assert_eq!(read(&merged).expect("reads").decision(), d);
        // The existing prefix for the XMP namespace is reused, the old element dropped.
        assert!(merged.contains(r#"ap:Rating="5""#), "{merged}");
        assert!(!merged.contains("<ap:Rating>"), "{merged}");
        for kept in [
            r#"ap:CreatorTool="darktable 4.6""#,
            r#"darktable:xmp_version="5""#,
            "<rdf:li>Solvay &amp; friends</rdf:li>",
            r#"<?xpacket end="w"?>"#,
        ] {
            assert!(merged.contains(kept), "{kept} lost:\n{merged}");
        }
        // Merging again changes only our fields.
        let again = merge(
            &merged,
            &decision(Flag::Unflagged, 1, None),
            SidecarWords::default(),
        )
        .expect("merges");
        assert!(
            again.contains(r#"ap:Rating="1""#) && !again.contains("Label"),
            "{again}"
        );
        assert!(!again.contains("Pick"), "{again}");
    }

    #[test]
    fn other_tools_words_are_read_where_ours_are_silent_and_written_with_ours() {
        let packet = |body: &str| {
            format!(
                r#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="{RDF}">
<rdf:Description rdf:about="" xmlns:digiKam="{DIGIKAM}" xmlns:photomechanic="{PHOTO_MECHANIC}"
 xmlns:darktable="{DARKTABLE}" xmlns:xmp="{XMP}">{body}</rdf:Description></rdf:RDF></x:xmpmeta>"#
            )
        };
        let read_back = |body: &str| read(&packet(body)).expect("reads").decision();
        // digiKam: rejected, green; accepted.
        let d = read_back(
            "<digiKam:PickLabel>1</digiKam:PickLabel><digiKam:ColorLabel>4</digiKam:ColorLabel>",
        );
        assert_eq!(
            (d.flag, d.label),
            (Flag::Reject, Some(Label::Colour(ColourLabel::Green)))
        );
        assert_eq!(
            read_back("<digiKam:PickLabel>3</digiKam:PickLabel>").flag,
            Flag::Pick
        );
        assert_eq!(
            read_back("<digiKam:PickLabel>2</digiKam:PickLabel>").flag,
            Flag::Unflagged
        );
        // Photo Mechanic's tag is a pick.
        assert_eq!(
            read_back("<photomechanic:Tagged>True</photomechanic:Tagged>").flag,
            Flag::Pick
        );
        // darktable's labels are an array; the first is taken.
        let d = read_back(
            "<darktable:colorlabels><rdf:Seq><rdf:li>3</rdf:li><rdf:li>0</rdf:li></rdf:Seq></darktable:colorlabels>",
        );
        assert_eq!(d.label, Some(Label::Colour(ColourLabel::Blue)));
        // Ours win where both speak: a rating of −1 is a reject whatever digiKam said.
        let d = read_back(
            "<xmp:Rating>-1</xmp:Rating><digiKam:PickLabel>3</digiKam:PickLabel><xmp:Label>Red</xmp:Label><digiKam:ColorLabel>4</digiKam:ColorLabel>",
        );
        assert_eq!(
            (d.flag, d.label),
            (Flag::Reject, Some(Label::Colour(ColourLabel::Red)))
        );

        // Written: each tool's words beside ours, each namespace declared once; a new
        // decision takes the old words away.
        let pick = decision(Flag::Pick, 3, Some(ColourLabel::Purple));
        let merged = merge(FOREIGN, &pick, SidecarWords::default()).expect("merges");
        for word in [
            r#"digiKam:PickLabel="3""#,
            r#"digiKam:ColorLabel="6""#,
            r#"photomechanic:Tagged="True""#,
        ] {
            assert!(merged.contains(word), "{word}:\n{merged}");
        }
        assert_eq!(merged.matches("xmlns:digiKam=").count(), 1, "{merged}");
        assert_eq!(read(&merged).expect("reads").decision(), pick);
        let reject = merge(
            &merged,
            &decision(Flag::Reject, 0, None),
            SidecarWords::default(),
        )
        .expect("merges");
        assert!(reject.contains(r#"digiKam:PickLabel="1""#), "{reject}");
        // Photo Mechanic's tag now says no; the label DarkRoom took away leaves digiKam's too.
        assert!(
            reject.contains(r#"photomechanic:Tagged="False""#) && !reject.contains("ColorLabel"),
            "{reject}"
        );
        let fresh = new_packet(&pick, SidecarWords::default());
        assert_eq!(read(&fresh).expect("reads").decision(), pick);
        assert!(fresh.contains(r#"photomechanic:Tagged="True""#), "{fresh}");
    }

    /// Values DarkRoom does not map survive every decision that does not replace them:
    /// digiKam's orange label and "pending" pick, darktable's second label, Photo Mechanic's
    /// colour class; a changed label replaces only the one DarkRoom read.
    #[test]
    fn words_another_tool_owns_survive_each_kind_of_decision() {
        let packet = format!(
            r#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="{RDF}">
<rdf:Description rdf:about="" xmlns:digiKam="{DIGIKAM}" xmlns:photomechanic="{PHOTO_MECHANIC}"
 xmlns:xmp="{XMP}" digiKam:ColorLabel="2" digiKam:PickLabel="2" photomechanic:ColorClass="3"/>
</rdf:RDF></x:xmpmeta>"#
        );
        let words = SidecarWords::default();
        let stars = merge(&packet, &decision(Flag::Unflagged, 3, None), words).expect("merges");
        let f = read(&stars).expect("reads");
        assert_eq!(
            f.digikam_colour.as_deref(),
            Some("2"),
            "orange kept: {stars}"
        );
        assert_eq!(
            f.digikam_pick.as_deref(),
            Some("2"),
            "pending kept: {stars}"
        );
        assert!(stars.contains(r#"photomechanic:ColorClass="3""#), "{stars}");
        let red = merge(
            &stars,
            &decision(Flag::Unflagged, 3, Some(ColourLabel::Red)),
            words,
        )
        .expect("merges");
        assert_eq!(
            read(&red).expect("reads").digikam_colour.as_deref(),
            Some("1")
        );
        assert_eq!(
            read(&red).expect("reads").digikam_pick.as_deref(),
            Some("2")
        );
        let picked = merge(
            &red,
            &decision(Flag::Pick, 3, Some(ColourLabel::Red)),
            words,
        )
        .expect("merges");
        assert_eq!(
            read(&picked).expect("reads").digikam_pick.as_deref(),
            Some("3")
        );
        let unflagged = merge(
            &picked,
            &decision(Flag::Unflagged, 3, Some(ColourLabel::Red)),
            words,
        )
        .expect("merges");
        assert_eq!(
            read(&unflagged).expect("reads").digikam_pick,
            None,
            "{unflagged}"
        );
        assert!(
            unflagged.contains(r#"photomechanic:ColorClass="3""#),
            "{unflagged}"
        );

        // darktable: red and blue; DarkRoom reads red.
        let dt = format!(
            r#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="{RDF}">
<rdf:Description rdf:about="" xmlns:darktable="{DARKTABLE}" xmlns:xmp="{XMP}" xmp:Rating="1">
<darktable:colorlabels><rdf:Seq><rdf:li>0</rdf:li><rdf:li>3</rdf:li></rdf:Seq></darktable:colorlabels>
</rdf:Description></rdf:RDF></x:xmpmeta>"#
        );
        let none = SidecarWords {
            digikam: false,
            photo_mechanic: false,
        };
        let d = read(&dt).expect("reads").decision();
        assert_eq!(d.label, Some(Label::Colour(ColourLabel::Red)));
        let starred = merge(
            &dt,
            &Decision {
                stars: 4,
                ..d.clone()
            },
            none,
        )
        .expect("merges");
        assert_eq!(
            read(&starred).expect("reads").darktable_colours.as_deref(),
            Some("0 3"),
            "{starred}"
        );
        let green = merge(
            &starred,
            &decision(Flag::Unflagged, 4, Some(ColourLabel::Green)),
            none,
        )
        .expect("merges");
        assert_eq!(
            read(&green).expect("reads").darktable_colours.as_deref(),
            Some("2 3"),
            "green replaces red, blue stays: {green}"
        );
        let cleared = merge(&green, &decision(Flag::Unflagged, 4, None), none).expect("merges");
        let f = read(&cleared).expect("reads");
        assert_eq!(f.darktable_colours.as_deref(), Some("3"), "{cleared}");
        assert_eq!(f.label.as_deref(), Some(""), "ours say none: {cleared}");
        assert_eq!(f.decision().label, None);
    }

    #[test]
    fn unknown_labels_survive_a_rating_change() {
        let text = new_packet_default(&Decision {
            flag: Flag::Unflagged,
            stars: 1,
            label: Some(Label::Other("Approved".into())),
        });
        let mut d = read(&text).expect("reads").decision();
        assert_eq!(d.label, Some(Label::Other("Approved".into())));
        d.stars = 3;
        let merged = merge(&text, &d, SidecarWords::default()).expect("merges");
        assert!(merged.contains(r#"xmp:Label="Approved""#), "{merged}");
    }

    #[test]
    fn packets_of_hostile_sizes_are_refused_with_a_reason() {
        let decision = decision(Flag::Pick, 0, None);
        let words = SidecarWords::default();
        let many = |n: usize, declare: bool| {
            let mut attrs = String::new();
            for i in 0..n {
                if declare {
                    attrs.push_str(&format!(" xmlns:n{i}=\"urn:n{i}\""));
                } else {
                    attrs.push_str(&format!(" xmp:a{i}=\"v\""));
                }
            }
            format!(
                "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"{RDF}\">\
                 <rdf:Description xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"{attrs}/>\
                 </rdf:RDF></x:xmpmeta>"
            )
        };
        let e = merge(&many(100_000, false), &decision, words).expect_err("refused");
        assert_eq!(e, "an element has more than 2048 attributes");
        let e = merge(&many(1_000, true), &decision, words).expect_err("refused");
        assert_eq!(e, "more than 256 namespace declarations");
        // A packet within the limits is merged as before.
        assert!(merge(&many(2_000, false), &decision, words).is_ok());
        // 100,000 attributes in elements of 1,000 each.
        let mut elements = String::new();
        for e in 0..100 {
            elements.push_str("<rdf:li");
            for i in 0..1_000 {
                elements.push_str(&format!(" xmp:e{e}a{i}=\"v\""));
            }
            elements.push_str("/>");
        }
        let packet = format!(
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"{RDF}\">\
             <rdf:Description xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"><xmp:List><rdf:Bag>\
             {elements}</rdf:Bag></xmp:List></rdf:Description></rdf:RDF></x:xmpmeta>"
        );
        let e = merge(&packet, &decision, words).expect_err("refused");
        assert_eq!(e, "more than 20000 attributes in the packet");
    }

    #[test]
    fn malformed_packets_are_refused() {
        for bad in [
            "",
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF",
            "<a><b></a>",
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>",
        ] {
            assert!(
                merge(bad, &Decision::default(), SidecarWords::default()).is_err(),
                "{bad:?}"
            );
        }
    }
}
