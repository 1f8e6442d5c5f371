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
        if d.label.is_none() {
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

/// Read the decision fields from a packet. Errors on anything that is not well-formed XML with
/// an `rdf:Description`.
pub fn read(text: &str) -> Result<Fields, String> {
    let mut reader = NsReader::from_str(text);
    let mut fields = Fields::default();
    let mut descriptions = 0usize;
    let mut in_description = 0usize;
    // The field whose text is being read, and how many elements were open inside it.
    let mut capture: Option<(Field, String, usize)> = None;
    // Elements open: the reader does not mind a packet that ends inside one; we do.
    let mut open = 0usize;
    loop {
        let (ns, event) = reader.read_resolved_event().map_err(|e| e.to_string())?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
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

/// The other tools' words for `decision`: (preferred prefix, namespace, name, value). Only
/// what is set is written; an absent word means none to each of them.
fn other_tools_words(
    decision: &Decision,
    words: SidecarWords,
) -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    let mut out = Vec::new();
    match decision.flag {
        Flag::Pick => {
            if words.digikam {
                out.push(("digiKam", DIGIKAM, "PickLabel", "3"));
            }
            if words.photo_mechanic {
                out.push(("photomechanic", PHOTO_MECHANIC, "Tagged", "True"));
            }
        }
        Flag::Reject if words.digikam => out.push(("digiKam", DIGIKAM, "PickLabel", "1")),
        Flag::Reject | Flag::Unflagged => {}
    }
    if words.digikam
        && let Some(Label::Colour(c)) = &decision.label
        && let Some((_, n)) = DIGIKAM_COLOURS.iter().find(|(k, _)| k == c)
    {
        out.push(("digiKam", DIGIKAM, "ColorLabel", n));
    }
    out
}

/// A new packet holding only `decision`.
pub fn new_packet(decision: &Decision, words: SidecarWords) -> String {
    let mut attrs = format!("xmp:Rating=\"{}\"", decision.xmp_rating());
    if let Some(label) = &decision.label {
        attrs.push_str(&format!(" xmp:Label=\"{}\"", escape(label.xmp_value())));
    }
    if decision.flag == Flag::Pick {
        attrs.push_str(" darkroom:Pick=\"True\"");
    }
    let mut namespaces = String::new();
    for (prefix, uri, name, value) in other_tools_words(decision, words) {
        let declaration = format!("\n    xmlns:{prefix}=\"{uri}\"");
        if !namespaces.contains(&declaration) {
            namespaces.push_str(&declaration);
        }
        attrs.push_str(&format!(" {prefix}:{name}=\"{value}\""));
    }
    format!(
        "<?xpacket begin=\"\u{feff}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n\
<x:xmpmeta xmlns:x=\"adobe:ns:meta/\" x:xmptk=\"DarkRoom {version}\">\n \
<rdf:RDF xmlns:rdf=\"{RDF}\">\n  \
<rdf:Description rdf:about=\"\"\n    \
xmlns:xmp=\"{XMP}\"\n    \
xmlns:darkroom=\"{DARKROOM}\"{namespaces}\n    \
{attrs}/>\n \
</rdf:RDF>\n\
</x:xmpmeta>\n\
<?xpacket end=\"w\"?>\n",
        version = env!("CARGO_PKG_VERSION"),
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

/// Merge `decision` into an existing packet: every top-level `rdf:Description` loses its old
/// Rating, Label and Pick (attribute or element form), the first gains the new ones, and every
/// other byte of the packet is written back as it was.
pub fn merge(text: &str, decision: &Decision, words: SidecarWords) -> Result<String, String> {
    // Refuse what we could not read: a malformed sidecar is reported and left alone.
    read(text)?;
    let mut reader = NsReader::from_reader(text.as_bytes());
    let mut writer = Writer::new(Vec::with_capacity(text.len() + 128));
    let mut depth = 0usize;
    let mut rdf_depth: Option<usize> = None;
    let mut description_depth: Option<usize> = None;
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
                    let mut out =
                        BytesStart::new(String::from_utf8_lossy(e.name().as_ref()).into_owned());
                    for attr in e.attributes() {
                        let attr = attr.map_err(|err| err.to_string())?;
                        let (ans, alocal) = reader.resolve_attribute(attr.key);
                        if field_of(&ans, alocal.as_ref()).is_none() {
                            out.push_attribute(attr);
                        }
                    }
                    if !first_done {
                        first_done = true;
                        let (xmp, declare_xmp) = prefix_for(&reader, e, "xmp", XMP);
                        if declare_xmp {
                            out.push_attribute((format!("xmlns:{xmp}").as_str(), XMP));
                        }
                        out.push_attribute((
                            format!("{xmp}:Rating").as_str(),
                            decision.xmp_rating().to_string().as_str(),
                        ));
                        if let Some(label) = &decision.label {
                            out.push_attribute((
                                format!("{xmp}:Label").as_str(),
                                label.xmp_value(),
                            ));
                        }
                        if decision.flag == Flag::Pick {
                            let (dr, declare_dr) = prefix_for(&reader, e, "darkroom", DARKROOM);
                            if declare_dr {
                                out.push_attribute((format!("xmlns:{dr}").as_str(), DARKROOM));
                            }
                            out.push_attribute((format!("{dr}:Pick").as_str(), "True"));
                        }
                        // Each namespace declared once, however many of its words are written.
                        let mut prefixes: Vec<(&str, String)> = Vec::new();
                        for (preferred, uri, name, value) in other_tools_words(decision, words) {
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
                            out.push_attribute((format!("{prefix}:{name}").as_str(), value));
                        }
                    }
                    if is_empty {
                        write(&mut writer, Event::Empty(out))?;
                    } else {
                        description_depth = Some(depth);
                        depth += 1;
                        write(&mut writer, Event::Start(out))?;
                    }
                    continue;
                }
                if description_depth.is_some_and(|d| d + 1 == depth) && field.is_some() {
                    // An element-form Rating/Label/Pick: dropped, the attribute replaces it.
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
                if description_depth == Some(depth) {
                    description_depth = None;
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
        assert!(
            !reject.contains("Tagged") && !reject.contains("ColorLabel"),
            "{reject}"
        );
        let fresh = new_packet(&pick, SidecarWords::default());
        assert_eq!(read(&fresh).expect("reads").decision(), pick);
        assert!(fresh.contains(r#"photomechanic:Tagged="True""#), "{fresh}");
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
