//! Greedy non-maximum suppression over [x0, y0, x1, y1] boxes.

pub fn iou(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    let iw = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let ih = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = iw * ih;
    let area = |r: &[f32; 4]| (r[2] - r[0]).max(0.0) * (r[3] - r[1]).max(0.0);
    let union = area(a) + area(b) - inter;
    if union <= 0.0 { 0.0 } else { inter / union }
}

/// Indices of the boxes kept, best score first: each box suppresses later ones that overlap it
/// by more than `threshold`.
pub fn nms(boxes: &[[f32; 4]], scores: &[f32], threshold: f32) -> Vec<usize> {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut keep: Vec<usize> = Vec::new();
    for i in order {
        if keep.iter().all(|&k| iou(&boxes[k], &boxes[i]) <= threshold) {
            keep.push(i);
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_lower_scores_are_suppressed() {
        let boxes = [
            [0.0, 0.0, 10.0, 10.0],
            [1.0, 1.0, 11.0, 11.0],
            [20.0, 20.0, 30.0, 30.0],
        ];
        let keep = nms(&boxes, &[0.8, 0.9, 0.7], 0.4);
        assert_eq!(keep, vec![1, 2]);
        assert!((iou(&boxes[0], &boxes[0]) - 1.0).abs() < 1e-6);
        assert_eq!(iou(&boxes[0], &boxes[2]), 0.0);
    }
}
