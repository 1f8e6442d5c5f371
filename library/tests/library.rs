//! The library on real photos. The real camera files we have (exiv2's CR3, DNG and CRW) are
//! tested in tests/e2e/hostile_files.rs; here RAW containers are built to their formats'
//! layouts (TIFF IFDs with JPEGInterchangeFormat and SubIFDs, the RAF header, CR3's boxes laid
//! out as the real R6 file has them) around real JPEGs made from the sample photos, for the
//! formats no real file of which is in a registry.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use darkroom_library::scan::{ScanEvent, scan};
use darkroom_library::thumbs::{self, Source, ThumbCache};
use darkroom_library::{ItemKind, LibraryError, preview};

fn photo(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../assets-cache/photos")
        .join(name);
    assert!(p.is_file(), "run scripts/fetch-assets: {}", p.display());
    p
}

/// A real photo re-encoded as a JPEG of the given long side.
fn jpeg(long_side: u32) -> Vec<u8> {
    let img = image::open(photo("astronaut.png"))
        .expect("decode")
        .thumbnail(long_side, long_side);
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new(&mut out)
        .encode_image(&img.into_rgb8())
        .expect("encode");
    out
}

/// A little-endian TIFF: IFD0 (orientation, a SubIFD pointer, a small JPEG), SubIFD (a large
/// JPEG), as NEF/ARW/CR2/DNG lay out their previews.
fn tiff_raw(small: &[u8], large: &[u8], orientation: u16) -> Vec<u8> {
    let ifd0 = 8usize;
    let ifd0_len = 2 + 4 * 12 + 4;
    let sub = ifd0 + ifd0_len;
    let sub_len = 2 + 2 * 12 + 4;
    let small_at = sub + sub_len;
    let large_at = small_at + small.len();
    let mut t = b"II*\0".to_vec();
    t.extend_from_slice(&(ifd0 as u32).to_le_bytes());
    let entry = |t: &mut Vec<u8>, tag: u16, typ: u16, value: u32| {
        t.extend_from_slice(&tag.to_le_bytes());
        t.extend_from_slice(&typ.to_le_bytes());
        t.extend_from_slice(&1u32.to_le_bytes());
        t.extend_from_slice(&value.to_le_bytes());
    };
    t.extend_from_slice(&4u16.to_le_bytes());
    entry(&mut t, 0x0112, 3, u32::from(orientation));
    entry(&mut t, 0x014A, 4, sub as u32);
    entry(&mut t, 0x0201, 4, small_at as u32);
    entry(&mut t, 0x0202, 4, small.len() as u32);
    t.extend_from_slice(&0u32.to_le_bytes());
    t.extend_from_slice(&2u16.to_le_bytes());
    entry(&mut t, 0x0201, 4, large_at as u32);
    entry(&mut t, 0x0202, 4, large.len() as u32);
    t.extend_from_slice(&0u32.to_le_bytes());
    t.extend_from_slice(small);
    t.extend_from_slice(large);
    t.extend_from_slice(&[0u8; 64]); // sensor data would follow
    t
}

fn raf(preview: &[u8]) -> Vec<u8> {
    let mut r = b"FUJIFILMCCD-RAW 0201FF383501".to_vec();
    r.resize(84, 0);
    let at = 160u32;
    r.extend_from_slice(&at.to_be_bytes());
    r.extend_from_slice(&(preview.len() as u32).to_be_bytes());
    r.resize(at as usize, 0);
    r.extend_from_slice(preview);
    r
}

fn cr3(small: &[u8], large: &[u8]) -> Vec<u8> {
    // As the Canon EOS R6 file in exiv2's test data lays them out: THMB in moov's Canon uuid
    // box, PRVW in a top-level uuid box of its own (8 bytes of its own before it).
    fn boxed(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut b = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        b.extend_from_slice(kind);
        b.extend_from_slice(body);
        b
    }
    let canon: [u8; 16] = [
        0x85, 0xc0, 0xb6, 0x87, 0x82, 0x0f, 0x11, 0xe0, 0x81, 0x11, 0xf4, 0xce, 0x46, 0x2b, 0x6a,
        0x48,
    ];
    let previews: [u8; 16] = [
        0xea, 0xf4, 0x2b, 0x5e, 0x1c, 0x98, 0x4b, 0x88, 0xb9, 0xfb, 0xb7, 0xdc, 0x40, 0x6e, 0x4d,
        0x16,
    ];
    // THMB: version/flags, width, height, JPEG size, 4 bytes; PRVW: 4+2 bytes, width, height,
    // 2 bytes, JPEG size. Then the JPEG.
    let mut thmb = vec![0u8; 16];
    thmb.extend_from_slice(small);
    let mut prvw = vec![0u8; 16];
    prvw.extend_from_slice(large);
    let mut uuid = canon.to_vec();
    uuid.extend(boxed(b"THMB", &thmb));
    let moov = boxed(b"moov", &boxed(b"uuid", &uuid));
    let mut puuid = previews.to_vec();
    puuid.extend_from_slice(&[0u8; 8]);
    puuid.extend(boxed(b"PRVW", &prvw));
    let mut c = Vec::new();
    c.extend_from_slice(&24u32.to_be_bytes());
    c.extend_from_slice(b"ftypcrx \0\0\0\x01crx isom");
    c.extend(moov);
    c.extend(boxed(b"uuid", &puuid));
    c
}

#[test]
fn the_largest_embedded_preview_is_found_in_each_container() {
    let (small, large) = (jpeg(160), jpeg(480));
    for (name, data) in [
        ("tiff", tiff_raw(&small, &large, 1)),
        ("raf", raf(&large)),
        ("cr3", cr3(&small, &large)),
    ] {
        let p = preview::embedded(&data).unwrap_or_else(|| panic!("{name}: no preview"));
        assert_eq!(p.width.max(p.height), 480, "{name}");
        assert!(data[p.range.clone()].starts_with(&large[..64]), "{name}");
        assert!(
            data[p.range.clone()].ends_with(&large[large.len() - 64..]),
            "{name}"
        );
        // A grid cell takes the smallest that fills it (a RAF has one); the loupe the largest.
        let smallest = if name == "raf" { 480 } else { 160 };
        for (side, long) in [(150, smallest), (161, 480), (4000, 480)] {
            let p = preview::for_side(&data, side).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(p.width.max(p.height), long, "{name} for {side}");
        }
    }
    assert!(
        preview::embedded(b"II*\0\xff\xff\xff\xff").is_none(),
        "lying offset"
    );
    assert!(preview::embedded(b"").is_none());
}

#[test]
fn raw_thumbnails_come_from_the_preview_the_right_way_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let nef = dir.path().join("DSC_0001.NEF");
    std::fs::write(&nef, tiff_raw(&jpeg(160), &jpeg(480), 6)).expect("write");
    let t = thumbs::make(&nef, 256).expect("thumbnail");
    assert_eq!(t.source, Source::EmbeddedPreview);
    let (w, h) = t.image.dimensions();
    assert!(w.max(h) == 256, "{w}x{h}");
    // astronaut.png is square; make the check meaningful with a landscape preview instead.
    let wide = image::open(photo("coffee.png"))
        .expect("decode")
        .thumbnail(480, 480);
    let mut wide_jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new(&mut wide_jpeg)
        .encode_image(&wide.into_rgb8())
        .expect("encode");
    let arw = dir.path().join("DSC_0002.ARW");
    std::fs::write(&arw, tiff_raw(&jpeg(160), &wide_jpeg, 6)).expect("write");
    let t = thumbs::make(&arw, 256).expect("thumbnail");
    let (w, h) = t.image.dimensions();
    assert!(
        h > w,
        "orientation 6 turns a landscape preview upright: {w}x{h}"
    );
}

#[test]
fn scan_pairs_raw_and_jpeg_follows_links_once_and_reports_problems() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::copy(photo("grace_hopper.jpg"), root.join("IMG_0001.JPG")).expect("copy");
    std::fs::write(
        root.join("IMG_0001.CR2"),
        tiff_raw(&jpeg(160), &jpeg(480), 1),
    )
    .expect("raw");
    std::fs::write(root.join("IMG_0002.RAF"), raf(&jpeg(480))).expect("raw");
    std::fs::create_dir(root.join("day2")).expect("mkdir");
    std::fs::copy(photo("coffee.png"), root.join("day2/coffee.png")).expect("copy");
    std::fs::write(root.join("notes.txt"), b"not a photo").expect("write");
    #[cfg(unix)]
    std::os::unix::fs::symlink(root, root.join("day2/loop")).expect("symlink");

    let mut items = Vec::new();
    let mut errors = Vec::new();
    scan(root, &AtomicBool::new(false), &mut |e| {
        match e {
            ScanEvent::Item(i) => items.push(i),
            ScanEvent::Error(e) => errors.push(e.to_string()),
        }
        true
    });
    let kinds: Vec<(String, ItemKind)> = items
        .iter()
        .map(|i| {
            (
                i.primary
                    .file_name()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned(),
                i.kind,
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("IMG_0001.CR2".to_owned(), ItemKind::RawPlusJpeg),
            ("IMG_0002.RAF".to_owned(), ItemKind::Raw),
            ("coffee.png".to_owned(), ItemKind::Raster),
        ]
    );
    assert_eq!(items[0].display_file(), root.join("IMG_0001.JPG"));
    #[cfg(unix)]
    assert!(
        errors
            .iter()
            .any(|e| e.contains("symlink loop") && e.ends_with("loop")),
        "{errors:?}"
    );
}

/// PNG's chunk CRC (so the hostile header is otherwise valid).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn thumb_err(path: &Path) -> LibraryError {
    thumbs::make(path, 256).expect_err("must fail")
}

#[test]
fn hostile_files_fail_alone_with_their_cause() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(d.join("zero.jpg"), b"").expect("write");
    let e = thumb_err(&d.join("zero.jpg"));
    assert!(e.to_string().ends_with("zero.jpg"), "{e}");

    // A PNG header claiming 100000x100000 pixels.
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend_from_slice(&100_000u32.to_be_bytes());
    ihdr.extend_from_slice(&100_000u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut huge = b"\x89PNG\r\n\x1a\n\0\0\0\x0d".to_vec();
    huge.extend_from_slice(&ihdr);
    huge.extend_from_slice(&crc32(&ihdr).to_be_bytes());
    // An IDAT (a tiny zlib stream) and IEND, so only the size is wrong.
    for (kind, body) in [
        (&b"IDAT"[..], &b"\x78\x9c\x03\x00\x00\x00\x00\x01"[..]),
        (b"IEND", b""),
    ] {
        let mut chunk = kind.to_vec();
        chunk.extend_from_slice(body);
        huge.extend_from_slice(&(body.len() as u32).to_be_bytes());
        huge.extend_from_slice(&chunk);
        huge.extend_from_slice(&crc32(&chunk).to_be_bytes());
    }
    std::fs::write(d.join("huge.png"), &huge).expect("write");
    let e = thumb_err(&d.join("huge.png"));
    assert!(e.to_string().contains("pixel limit"), "{e}");

    let full = std::fs::read(photo("grace_hopper.jpg")).expect("read");
    std::fs::write(d.join("truncated.jpg"), &full[..full.len() / 3]).expect("write");
    let e = thumb_err(&d.join("truncated.jpg"));
    assert!(
        e.to_string().contains("truncated JPEG") && e.to_string().ends_with("truncated.jpg"),
        "{e}"
    );

    // Wrong extension: a PNG named .jpg is decoded by content.
    std::fs::copy(photo("coffee.png"), d.join("really_png.jpg")).expect("copy");
    assert!(thumbs::make(&d.join("really_png.jpg"), 256).is_ok());

    std::fs::write(d.join("empty.NEF"), b"II*\0\x08\0\0\0\0\0").expect("write");
    let e = thumb_err(&d.join("empty.NEF"));
    assert!(e.to_string().contains("no embedded preview"), "{e}");
    assert!(thumbs::make(&d.join("missing.jpg"), 256).is_err());
}

#[test]
fn the_thumbnail_cache_is_keyed_by_path_size_and_mtime() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = ThumbCache::new(dir.path().join("thumbs"));
    let p = dir.path().join("a.jpg");
    std::fs::copy(photo("grace_hopper.jpg"), &p).expect("copy");
    let first = cache.get(&p, 128).expect("thumb");
    assert_eq!(first.source, Source::Decoded);
    let second = cache.get(&p, 128).expect("thumb");
    assert_eq!(second.source, Source::Cache);
    assert_eq!(second.image.dimensions(), first.image.dimensions());
    let key = cache.key_path(&p, 128).expect("key");
    std::fs::copy(photo("coffee.png"), &p).expect("replace the photo");
    assert_ne!(
        cache.key_path(&p, 128).expect("key"),
        key,
        "a changed file is a new key"
    );
    assert_eq!(cache.get(&p, 128).expect("thumb").source, Source::Decoded);
}

#[test]
fn a_jpeg_thumbnail_decoded_at_reduced_scale_is_the_right_way_up() {
    // coffee.png is landscape; tagged "rotate 90 CW" (6) its thumbnail must be portrait.
    let img = image::open(photo("coffee.png"))
        .expect("decode")
        .into_rgb8();
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new(&mut jpeg)
        .encode_image(&img)
        .expect("encode");
    let mut tiff = b"II*\0\x08\0\0\0\x01\0".to_vec();
    tiff.extend_from_slice(&[0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]);
    let mut app1 = b"Exif\0\0".to_vec();
    app1.extend_from_slice(&tiff);
    let mut tagged = jpeg[..2].to_vec();
    tagged.extend_from_slice(&[0xFF, 0xE1]);
    tagged.extend_from_slice(&((app1.len() + 2) as u16).to_be_bytes());
    tagged.extend_from_slice(&app1);
    tagged.extend_from_slice(&jpeg[2..]);
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("rotated.jpg");
    std::fs::write(&p, tagged).expect("write");
    let t = thumbs::make(&p, 64).expect("thumbnail");
    let (w, h) = t.image.dimensions();
    assert!(h > w && h.max(w) == 64, "{w}x{h}");
}

/// A PNG bomb: `side`×`side` grey pixels of zeros in a fixed-Huffman deflate stream of
/// 258-byte back-references (13 bits each), so a file of about a megabyte asks for seconds of
/// inflating and unfiltering on a slow machine.
fn png_bomb(side: u32) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }
    impl Bits {
        // Deflate packs bits from the least significant end; Huffman codes go MSB first.
        fn put(&mut self, value: u32, count: u32) {
            self.acc |= u64::from(value) << self.n;
            self.n += count;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }
        fn code(&mut self, code: u32, len: u32) {
            let rev = code.reverse_bits() >> (32 - len);
            self.put(rev, len);
        }
    }
    let total = u64::from(side) * (u64::from(side) + 1);
    let mut b = Bits {
        out: vec![0x78, 0x01],
        acc: 0,
        n: 0,
    };
    b.put(1, 1); // the final block
    b.put(1, 2); // fixed Huffman codes
    b.code(0x30, 8); // literal 0
    let pairs = (total - 1) / 258;
    for _ in 0..pairs {
        b.code(0b1100_0101, 8); // length 258 (symbol 285)
        b.code(0, 5); // distance 1
    }
    for _ in 0..(total - 1) % 258 {
        b.code(0x30, 8);
    }
    b.code(0, 7); // end of block
    if b.n > 0 {
        b.out.push(b.acc as u8);
    }
    // Adler-32 of `total` zero bytes: a = 1, b = total (mod 65521).
    let adler = (((total % 65_521) as u32) << 16) | 1;
    b.out.extend_from_slice(&adler.to_be_bytes());
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&side.to_be_bytes());
    ihdr.extend_from_slice(&side.to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]);
    for (kind, body) in [(&b"IHDR"[..], &ihdr[..]), (b"IDAT", &b.out), (b"IEND", b"")] {
        let mut chunk = kind.to_vec();
        chunk.extend_from_slice(body);
        png.extend_from_slice(&(body.len() as u32).to_be_bytes());
        png.extend_from_slice(&chunk);
        png.extend_from_slice(&crc32(&chunk).to_be_bytes());
    }
    png
}

#[test]
fn a_decode_past_its_time_is_cut_off_and_every_header_size_meets_the_pixel_budget() {
    use darkroom_library::budget::{Budget, MAX_DECODE_TIME, MAX_PIXELS};
    use darkroom_library::{decode, jpeg_dc};
    use std::time::Duration;

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bomb.png");
    // 196 MP: within the pixel budget, so only the clock can stop it.
    let bomb = png_bomb(14_000);
    assert!(bomb.len() < 2 << 20, "{} bytes", bomb.len());
    std::fs::write(&path, &bomb).expect("write");
    let e =
        decode::load_oriented_within(&path, &Budget::new(MAX_PIXELS, Duration::from_millis(20)))
            .expect_err("cut off");
    assert!(
        e.to_string().contains("decoding was cut off after 0.0 s")
            && e.to_string().ends_with("bomb.png"),
        "{e}"
    );
    // The same header against a smaller pixel budget is refused before it is inflated.
    let e = decode::load_oriented_within(&path, &Budget::new(100_000_000, MAX_DECODE_TIME))
        .expect_err("over the pixel budget");
    assert!(
        e.to_string()
            .contains("larger than the 100000000 pixel limit"),
        "{e}"
    );

    // Our own decoders check the clock as they go: the DC decoder, the scaled JPEG decode and
    // the thumbnail through them.
    let jpeg_path = photo("grace_hopper.jpg");
    let bytes = std::fs::read(&jpeg_path).expect("read");
    let spent = Budget::new(MAX_PIXELS, Duration::ZERO);
    std::thread::sleep(Duration::from_millis(1));
    assert_eq!(
        jpeg_dc::decode(&bytes, 1, &spent),
        Err(jpeg_dc::DcError::TimedOut(Duration::ZERO))
    );
    assert!(decode::jpeg_scaled(&bytes, &spent, |w, h| (w, h)).is_none());
    let e = thumbs::make_within(&jpeg_path, 64, &spent).expect_err("cut off");
    assert!(e.to_string().contains("cut off"), "{e}");
    assert!(
        thumbs::make(&jpeg_path, 64).is_ok(),
        "the default budget suffices"
    );

    // A preview whose header claims 65000x65000 is passed over for the real one, in the
    // preview parser as in the decoders.
    let (small, large) = (jpeg(160), jpeg(480));
    let mut liar = large.clone();
    let sof = liar
        .windows(2)
        .position(|w| w == [0xFF, 0xC0])
        .expect("baseline SOF0");
    liar[sof + 5..sof + 9].copy_from_slice(&[0xFD, 0xE8, 0xFD, 0xE8]);
    let data = tiff_raw(&small, &liar, 1);
    let p = preview::embedded(&data).expect("the small preview");
    assert_eq!(p.width.max(p.height), 160);
    assert_eq!(
        jpeg_dc::decode(&liar, 1, &Budget::start()),
        Ok(None),
        "the DC decoder declines a frame over the budget"
    );
}

/// A shoot with a RAW + JPEG pair and a sidecar of each naming, a plain JPEG in a subfolder
/// with the same name as one at the top, as two cards' folders have.
fn shoot(dir: &Path) -> (PathBuf, Vec<darkroom_library::Item>) {
    let root = dir.join("shoot");
    std::fs::create_dir_all(root.join("card2")).expect("mkdir");
    let raw = tiff_raw(&jpeg(160), &jpeg(640), 1);
    std::fs::write(root.join("IMG_0001.NEF"), &raw).expect("write");
    std::fs::write(root.join("IMG_0001.JPG"), jpeg(640)).expect("write");
    std::fs::write(root.join("IMG_0001.NEF.xmp"), "<x:xmpmeta/>").expect("write");
    std::fs::write(root.join("IMG_0001.xmp"), "<x:xmpmeta>lr</x:xmpmeta>").expect("write");
    std::fs::write(root.join("IMG_0002.jpg"), jpeg(320)).expect("write");
    std::fs::write(root.join("card2/IMG_0002.jpg"), jpeg(200)).expect("write");
    let mut items = Vec::new();
    scan(&root, &AtomicBool::new(false), &mut |e| {
        if let ScanEvent::Item(i) = e {
            items.push(i);
        }
        true
    });
    items.sort_by(|a, b| a.primary.cmp(&b.primary));
    (root, items)
}

#[test]
fn export_copies_every_file_and_sidecar_byte_for_byte_and_never_overwrites_unasked() {
    use darkroom_library::export::{self, Existing, ExportError, Mode, Plan};
    let go = |plan: &Plan, mode, existing| {
        export::run(plan, mode, existing, &AtomicBool::new(false), &mut |_| {})
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, items) = shoot(dir.path());
    assert_eq!(items.len(), 3, "the pair is one item: {items:?}");
    let dest = dir.path().join("editor");

    let missing = Plan::new(&items, &root, &dest).expect_err("no such folder");
    assert!(
        matches!(missing, ExportError::NoDestination(_)),
        "{missing}"
    );
    assert!(missing.to_string().contains("does not exist"), "{missing}");
    assert!(
        Plan::new(&items, &root, &root).is_err(),
        "a photo is never copied onto itself"
    );

    std::fs::create_dir(&dest).expect("mkdir");
    let plan = Plan::new(&items, &root, &dest).expect("plan");
    let names: Vec<String> = plan
        .files
        .iter()
        .map(|f| {
            f.source
                .strip_prefix(&root)
                .expect("under root")
                .display()
                .to_string()
        })
        .collect();
    for want in [
        "IMG_0001.NEF",
        "IMG_0001.NEF.xmp",
        "IMG_0001.xmp",
        "IMG_0001.JPG",
        "IMG_0002.jpg",
        "card2/IMG_0002.jpg",
    ] {
        assert!(names.contains(&want.to_owned()), "{want} in {names:?}");
    }
    assert_eq!(names.len(), 6, "each file once: {names:?}");
    let mut seen = Vec::new();
    let report = export::run(
        &plan,
        Mode::Copy,
        Existing::Refuse,
        &AtomicBool::new(false),
        &mut |p| seen.push(p),
    )
    .expect("export");
    assert_eq!(report.copied.len(), 6);
    let last = seen.last().expect("progress");
    assert_eq!((last.files_done, last.bytes_done), (6, plan.total_bytes()));
    for f in &plan.files {
        let copy = dest.join(f.source.strip_prefix(&root).expect("under root"));
        assert_eq!(
            std::fs::read(&copy).expect("copied"),
            std::fs::read(&f.source).expect("original"),
            "{}",
            copy.display()
        );
    }
    let list = std::fs::read_to_string(report.list_file.as_ref().expect("a list")).expect("list");
    assert_eq!(
        list.lines().filter(|l| !l.starts_with('#')).count(),
        6,
        "{list}"
    );
    assert!(list.contains("card2/IMG_0002.jpg"), "{list}");

    // Again: everything is there now. Refused before anything is written, unless asked.
    std::fs::write(dest.join("IMG_0002.jpg"), b"the editor's own file").expect("write");
    let again = Plan::new(&items, &root, &dest).expect("plan");
    assert_eq!(again.conflicts().count(), 6);
    let refused = go(&again, Mode::Copy, Existing::Refuse).expect_err("files are there");
    assert!(
        refused.to_string().contains("6 files already exist"),
        "{refused}"
    );
    assert_eq!(
        std::fs::read(dest.join("IMG_0002.jpg")).expect("read"),
        b"the editor's own file"
    );
    let skipped = go(&again, Mode::Copy, Existing::Skip).expect("skip");
    assert_eq!((skipped.copied.len(), skipped.skipped.len()), (0, 6));
    assert_eq!(
        std::fs::read(dest.join("IMG_0002.jpg")).expect("read"),
        b"the editor's own file"
    );
    go(&again, Mode::Copy, Existing::Overwrite).expect("overwrite");
    assert_eq!(
        std::fs::read(dest.join("IMG_0002.jpg")).expect("read"),
        std::fs::read(root.join("IMG_0002.jpg")).expect("read")
    );
    assert!(
        dest.join("darkroom-export-2.txt").is_file(),
        "an earlier list is kept"
    );

    // Cancelled before the first file: nothing half-written, nothing listed.
    let fresh = dir.path().join("fresh");
    std::fs::create_dir(&fresh).expect("mkdir");
    let plan = Plan::new(&items, &root, &fresh).expect("plan");
    let cancelled = export::run(
        &plan,
        Mode::Copy,
        Existing::Refuse,
        &AtomicBool::new(true),
        &mut |_| {},
    )
    .expect("cancel is not an error");
    assert!(cancelled.cancelled && cancelled.copied.is_empty());
    assert_eq!(
        std::fs::read_dir(&fresh).expect("ls").count(),
        0,
        "nothing left behind"
    );

    // A move takes the originals away once their copies are there.
    let moved = go(&plan, Mode::Move, Existing::Refuse).expect("move");
    assert_eq!(moved.copied.len(), 6);
    assert!(!root.join("IMG_0001.NEF").exists() && fresh.join("IMG_0001.NEF").is_file());
    assert!(fresh.join("card2/IMG_0002.jpg").is_file());
}

/// On a case-insensitive file system (Windows, macOS) `IMG.xmp` and `IMG.XMP` are one file
/// seen under two spellings; a hard link is that here. The export copies it once, and a second
/// export is not refused by the copy it just made.
#[test]
fn a_sidecar_seen_under_two_spellings_is_exported_once() {
    use darkroom_library::export::{self, Existing, Mode, Plan};
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("shoot");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::write(root.join("IMG_0007.JPG"), jpeg(320)).expect("write");
    std::fs::write(root.join("IMG_0007.xmp"), "<x:xmpmeta>lr</x:xmpmeta>").expect("write");
    std::fs::hard_link(root.join("IMG_0007.xmp"), root.join("IMG_0007.XMP")).expect("link");
    assert_eq!(
        darkroom_library::sidecars::of(&root.join("IMG_0007.JPG")),
        vec![root.join("IMG_0007.xmp")]
    );
    let mut items = Vec::new();
    scan(&root, &AtomicBool::new(false), &mut |e| {
        if let ScanEvent::Item(i) = e {
            items.push(i);
        }
        true
    });
    let dest = dir.path().join("editor");
    std::fs::create_dir(&dest).expect("mkdir");
    let plan = Plan::new(&items, &root, &dest).expect("plan");
    assert_eq!(
        plan.files.len(),
        2,
        "the photo and one sidecar: {:?}",
        plan.files
    );
    let report = export::run(
        &plan,
        Mode::Copy,
        Existing::Refuse,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .expect("export");
    assert_eq!(report.copied.len(), 2);
}

/// The SIMD resize, typed per pixel kind (`resize` is left out of the library's own unit-test
/// build: index::luma's tests hold its bilinear filter to the image crate's Triangle).
#[test]
fn each_pixel_kind_resizes_to_the_size_asked() {
    use darkroom_library::resize::{Filter, luma, rgb};
    use image::{GrayImage, RgbImage};
    let ramp = RgbImage::from_fn(64, 48, |x, _| image::Rgb([x as u8 * 4, 90, 200]));
    let small = rgb(&ramp, 8, 8, Filter::Box);
    assert_eq!(small.dimensions(), (8, 8));
    // Box over 8 columns of a ramp of step 4: the cell's mean, its centre column's value.
    let p = small.get_pixel(0, 0).0;
    assert!(
        (i32::from(p[0]) - 14).abs() <= 1 && p[1] == 90 && p[2] == 200,
        "{p:?}"
    );
    let flat = luma(
        &GrayImage::from_pixel(30, 20, image::Luma([77])),
        7,
        5,
        Filter::Bilinear,
    );
    assert_eq!(flat.dimensions(), (7, 5));
    assert!(flat.as_raw().iter().all(|&v| v == 77));
}
