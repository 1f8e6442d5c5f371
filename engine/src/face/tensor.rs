//! Photo → input tensor: resize and normalise.

use darkroom_library::resize::{self, Filter};
use image::{RgbImage, imageops};

use crate::cards::{Colour, InputSpec};

/// Antialiased bilinear resize (PIL's BILINEAR), SIMD: on a 6 MP photo this is most of the
/// detector's pre-processing, and the `image` crate's scalar filter is ~20x slower.
pub fn resize_bilinear(img: &RgbImage, w: u32, h: u32) -> RgbImage {
    resize::rgb(img, w, h, Filter::Bilinear)
}

/// The scale that fits an `iw`x`ih` photo into `w`x`h` keeping its aspect.
pub fn letterbox_scale(iw: u32, ih: u32, w: u32, h: u32) -> f32 {
    (w as f32 / iw as f32).min(h as f32 / ih as f32)
}

/// Scale `img` to fit `w`x`h` keeping aspect and place it at the top-left of a black canvas
/// (SCRFD's training letterbox). Returns the canvas and the scale applied.
pub fn letterbox_top_left(img: &RgbImage, w: u32, h: u32) -> (RgbImage, f32) {
    let (iw, ih) = img.dimensions();
    let scale = letterbox_scale(iw, ih, w, h);
    let nw = ((iw as f32 * scale).round() as u32).clamp(1, w);
    let nh = ((ih as f32 * scale).round() as u32).clamp(1, h);
    let resized = resize_bilinear(img, nw, nh);
    let mut canvas = RgbImage::new(w, h);
    imageops::replace(&mut canvas, &resized, 0, 0);
    (canvas, scale)
}

/// Where the photo sits in the model's input: input = photo × scale + pad.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fitted {
    pub scale: f32,
    pub pad_x: f32,
    pub pad_y: f32,
    /// The photo's size.
    pub width: u32,
    pub height: u32,
}

/// Ultralytics' letterbox grey.
const YOLO_PAD: u8 = 114;

/// Scale `img` to fit `w`x`h` keeping aspect and centre it on a grey canvas (YOLO's letterbox).
/// Returns the canvas and where the photo sits in it.
pub fn letterbox_centre(img: &RgbImage, w: u32, h: u32) -> (RgbImage, Fitted) {
    let (iw, ih) = img.dimensions();
    let scale = letterbox_scale(iw, ih, w, h);
    let nw = ((iw as f32 * scale).round() as u32).clamp(1, w);
    let nh = ((ih as f32 * scale).round() as u32).clamp(1, h);
    let resized = resize_bilinear(img, nw, nh);
    let (pad_x, pad_y) = ((w - nw) / 2, (h - nh) / 2);
    let mut canvas = RgbImage::from_pixel(w, h, image::Rgb([YOLO_PAD; 3]));
    imageops::replace(&mut canvas, &resized, i64::from(pad_x), i64::from(pad_y));
    let fitted = Fitted {
        scale,
        pad_x: pad_x as f32,
        pad_y: pad_y as f32,
        width: iw,
        height: ih,
    };
    (canvas, fitted)
}

/// The photo stretched to the card's input and normalised: what a model that reads the whole
/// frame (a salient-object segmenter, a scene model) is fed.
pub fn stretched_nchw(img: &RgbImage, spec: &InputSpec) -> Vec<f32> {
    let (h, w) = spec.hw();
    let input = resize_bilinear(img, w as u32, h as u32);
    let mut tensor = Vec::new();
    normalise_nchw(&input, spec, &mut tensor);
    tensor
}

/// Pixels → (v - mean) / std, planar NCHW, in the card's channel order.
pub fn normalise_nchw(img: &RgbImage, spec: &InputSpec, out: &mut Vec<f32>) {
    let (w, h) = img.dimensions();
    let plane = (w * h) as usize;
    out.clear();
    out.resize(plane * spec.colour.channels(), 0.0);
    let order: [usize; 3] = match spec.colour {
        Colour::Bgr => [2, 1, 0],
        _ => [0, 1, 2],
    };
    // Multiply by the reciprocal: same result to the last bit or two, a third of the time.
    let inv: Vec<f32> = spec.std.iter().map(|s| 1.0 / s).collect();
    match spec.colour {
        Colour::Grey => {
            for (i, p) in img.pixels().enumerate() {
                let y = 0.299 * p[0] as f32 + 0.587 * p[1] as f32 + 0.114 * p[2] as f32;
                out[i] = (y - spec.mean[0]) * inv[0];
            }
        }
        Colour::Rgb | Colour::Bgr => {
            let (planes, _) = out.split_at_mut(plane * 3);
            let (c0, rest) = planes.split_at_mut(plane);
            let (c1, c2) = rest.split_at_mut(plane);
            for (i, p) in img.as_raw().chunks_exact(3).enumerate() {
                c0[i] = (p[order[0]] as f32 - spec.mean[0]) * inv[0];
                c1[i] = (p[order[1]] as f32 - spec.mean[1]) * inv[1];
                c2[i] = (p[order[2]] as f32 - spec.mean[2]) * inv[2];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{Layout, Resize};

    #[test]
    fn letterbox_keeps_aspect_and_pads_bottom_right() {
        let img = RgbImage::from_pixel(200, 100, image::Rgb([255, 255, 255]));
        let (canvas, scale) = letterbox_top_left(&img, 640, 640);
        assert_eq!(scale, 3.2);
        assert_eq!(canvas.dimensions(), (640, 640));
        assert_eq!(canvas.get_pixel(10, 10)[0], 255);
        assert_eq!(canvas.get_pixel(639, 319)[0], 255);
        assert_eq!(canvas.get_pixel(10, 330)[0], 0, "padding below the photo");
    }

    #[test]
    fn normalise_is_planar_and_honours_channel_order() {
        let mut img = RgbImage::new(2, 1);
        img.put_pixel(0, 0, image::Rgb([10, 20, 30]));
        img.put_pixel(1, 0, image::Rgb([40, 50, 60]));
        let mut spec = InputSpec {
            name: "x".into(),
            shape: vec![1, 3, 1, 2],
            layout: Layout::Nchw,
            colour: Colour::Rgb,
            mean: vec![0.0; 3],
            std: vec![1.0; 3],
            resize: Resize::Stretch,
        };
        let mut out = Vec::new();
        normalise_nchw(&img, &spec, &mut out);
        assert_eq!(out, vec![10.0, 40.0, 20.0, 50.0, 30.0, 60.0]);
        spec.colour = Colour::Bgr;
        normalise_nchw(&img, &spec, &mut out);
        assert_eq!(out, vec![30.0, 60.0, 20.0, 50.0, 10.0, 40.0]);
    }
}
