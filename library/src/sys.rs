//! The library's foreign calls of its own, and with `engine::sys` the only place in the
//! workspace where `unsafe` is allowed: libjpeg-turbo's cropping region (`tj3SetCroppingRegion`),
//! which the `turbojpeg` crate does not expose, so that a photo's rows can be decoded in bands
//! on several cores at once (`jpeg::decode_full_in_bands`). The function is safe to call; every
//! `unsafe` block says why it is sound.
#![allow(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::ffi::CStr;

use libc::c_int;
use turbojpeg_sys as tj;

/// A TurboJPEG decompressor of our own, destroyed when dropped.
struct Decompressor(tj::tjhandle);

impl Decompressor {
    fn new() -> Result<Self, String> {
        // SAFETY: tj3Init takes a plain integer and has no preconditions; a null answer (out of
        // memory) is checked before the handle is used.
        let handle = unsafe { tj::tj3Init(tj::TJINIT_TJINIT_DECOMPRESS as c_int) };
        if handle.is_null() {
            return Err("libjpeg-turbo could not start a decompressor".into());
        }
        Ok(Decompressor(handle))
    }

    /// libjpeg-turbo's words for the last failure on this handle.
    fn error(&self) -> String {
        // SAFETY: the handle is live; tj3GetErrorStr answers a NUL-terminated string that the
        // handle (or the library, for a static message) owns and that is copied here before any
        // other call on the handle.
        unsafe {
            let words = tj::tj3GetErrorStr(self.0);
            if words.is_null() {
                return "libjpeg-turbo failed without a message".into();
            }
            CStr::from_ptr(words).to_string_lossy().into_owned()
        }
    }

    fn get(&self, param: tj::TJPARAM) -> c_int {
        // SAFETY: the handle is live; reading a parameter has no other effect.
        unsafe { tj::tj3Get(self.0, param as c_int) }
    }

    fn set(&self, param: tj::TJPARAM, value: c_int) -> Result<(), String> {
        // SAFETY: the handle is live; a parameter libjpeg-turbo refuses is answered -1.
        match unsafe { tj::tj3Set(self.0, param as c_int, value) } {
            0 => Ok(()),
            _ => Err(self.error()),
        }
    }
}

impl Drop for Decompressor {
    fn drop(&mut self) {
        // SAFETY: the handle came from tj3Init, is destroyed once, and nothing borrows it.
        unsafe { tj::tj3Destroy(self.0) }
    }
}

/// Decode the rows `top ..` of a lossy JPEG at full scale into `out`, which holds a whole
/// number of the photo's rows at its full width: RGB when `channels` is 3, grey when 1.
/// `scan_limit` caps a progressive file's scans. Rows above `top` are only entropy-decoded
/// (libjpeg-turbo skips their inverse DCT and colour conversion); rows below the band are not
/// read. Any error or warning is an error in libjpeg-turbo's words, as is an `out` that does
/// not hold whole rows of this photo inside it.
pub fn decode_rows(
    bytes: &[u8],
    top: u32,
    channels: usize,
    scan_limit: u32,
    out: &mut [u8],
) -> Result<(), String> {
    let format = match channels {
        3 => tj::TJPF_TJPF_RGB,
        1 => tj::TJPF_TJPF_GRAY,
        _ => {
            return Err(format!(
                "{channels} channels a pixel is not a format asked for"
            ));
        }
    };
    let d = Decompressor::new()?;
    // SAFETY: the pointer and length are those of a live slice, which libjpeg-turbo only reads.
    let read = unsafe { tj::tj3DecompressHeader(d.0, bytes.as_ptr(), bytes.len() as _) };
    if read != 0 {
        return Err(d.error());
    }
    if d.get(tj::TJPARAM_TJPARAM_LOSSLESS) != 0 {
        return Err("a lossless JPEG has no cropping region".into());
    }
    let width = usize::try_from(d.get(tj::TJPARAM_TJPARAM_JPEGWIDTH)).unwrap_or(0);
    let height = usize::try_from(d.get(tj::TJPARAM_TJPARAM_JPEGHEIGHT)).unwrap_or(0);
    let pitch = width.saturating_mul(channels);
    if pitch == 0 || out.is_empty() || !out.len().is_multiple_of(pitch) {
        return Err(format!(
            "{} bytes are not whole rows of a {width} px wide photo",
            out.len()
        ));
    }
    let rows = out.len() / pitch;
    let top = usize::try_from(top).unwrap_or(usize::MAX);
    if top.checked_add(rows).is_none_or(|end| end > height) {
        return Err(format!(
            "rows {top}.. ({rows} of them) are not inside a {height} px high photo"
        ));
    }
    let as_int = |n: usize| c_int::try_from(n).map_err(|_| format!("{n} is past libjpeg-turbo"));
    let (top_i, rows_i, pitch_i) = (as_int(top)?, as_int(rows)?, as_int(pitch)?);
    d.set(
        tj::TJPARAM_TJPARAM_SCANLIMIT,
        c_int::try_from(scan_limit).unwrap_or(c_int::MAX),
    )?;
    let region = tj::tjregion {
        x: 0,
        y: top_i,
        // The whole width.
        w: 0,
        h: rows_i,
    };
    // SAFETY: the handle is live and its header was read, as the call requires.
    if unsafe { tj::tj3SetCroppingRegion(d.0, region) } != 0 {
        return Err(d.error());
    }
    // SAFETY: libjpeg-turbo writes the cropping region's rows (`rows`, checked inside the photo
    // this handle read) of `pitch` bytes each, the photo's width (read from this handle's own
    // header) times the format's bytes a pixel: exactly `out.len()` bytes, which `out` holds.
    // `bytes` is only read.
    let decoded = unsafe {
        tj::tj3Decompress8(
            d.0,
            bytes.as_ptr(),
            bytes.len() as _,
            out.as_mut_ptr(),
            pitch_i,
            format,
        )
    };
    if decoded != 0 {
        return Err(d.error());
    }
    Ok(())
}
