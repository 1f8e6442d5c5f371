#!/usr/bin/env python3
"""The peer in `darkroom bench-index`: an Immich-style face pass over the same photos with the
same model files, in Python on ONNX Runtime's CPU provider, through insightface's model zoo as
Immich's machine-learning service uses it: decode the whole photo (OpenCV), SCRFD at 640x640
(insightface's `SCRFD.detect`, which reads this export's batched outputs; score threshold 0.7,
Immich's default), every face aligned with `face_align.norm_crop` and embedded in one batch
(`ArcFaceONNX.get_feat`). Sessions as Immich makes them: intra-op threads
MACHINE_LEARNING_MODEL_INTRA_OP_THREADS (default 2), inter-op 1, every graph optimisation.
Prints one JSON line: photos, faces, seconds, photos_per_s.

Usage: immich-pass.py --detector SCRFD.onnx --embedder ARCFACE.onnx DIR
(scripts/bench-index sets up the pinned venv it runs in).
"""
import argparse
import contextlib
import json
import os
import pathlib
import sys
import time

import cv2
import numpy as np
import onnxruntime as ort
from insightface.model_zoo import ArcFaceONNX
from insightface.model_zoo.scrfd import SCRFD
from insightface.utils import face_align


def session(path: str) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = int(os.environ.get("MACHINE_LEARNING_MODEL_INTRA_OP_THREADS", "2"))
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, sess_options=options, providers=["CPUExecutionProvider"])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--detector", required=True)
    p.add_argument("--embedder", required=True)
    p.add_argument("dir")
    a = p.parse_args()
    # insightface prints as it loads; standard output is for the one JSON line.
    with contextlib.redirect_stdout(sys.stderr):
        detector = SCRFD(model_file=a.detector, session=session(a.detector))
        detector.prepare(ctx_id=-1, det_thresh=0.7, input_size=(640, 640))
        embedder = ArcFaceONNX(model_file=a.embedder, session=session(a.embedder))
        embedder.prepare(ctx_id=-1)
    photos = sorted(
        f for f in pathlib.Path(a.dir).iterdir() if f.suffix.lower() in (".jpg", ".jpeg")
    )
    if not photos:
        sys.exit(f"immich-pass: no JPEGs in {a.dir}")
    for f in photos:  # the page cache warm, as for DarkRoom's run
        f.read_bytes()
    faces = 0
    started = time.perf_counter()
    for f in photos:
        img = cv2.imread(str(f))
        if img is None:
            continue
        boxes, landmarks = detector.detect(img)
        if len(boxes) == 0:
            continue
        crops = [face_align.norm_crop(img, lm) for lm in landmarks]
        feats = embedder.get_feat(crops)
        feats /= np.linalg.norm(feats, axis=1, keepdims=True)
        faces += len(crops)
    seconds = time.perf_counter() - started
    print(json.dumps({
        "photos": len(photos),
        "faces": faces,
        "seconds": seconds,
        "photos_per_s": len(photos) / seconds,
        "onnxruntime": ort.__version__,
    }))


if __name__ == "__main__":
    main()
