#!/usr/bin/env python3
"""DarkRoom's model release tool: derived forms from data, checked, gated and recorded.

Release-time only: never packaged, never run on a user's machine. For every descriptor in
assets/model-forms.toml it runs the same three calls (model-shipping.md §04):

  get_target(form id) -> the descriptor
  plan(target)        -> where the source comes from and what will be written, or a refusal
                         (`refused`: the tool will not make it) or a block (`blocked`: it
                         cannot be made here), each with its reason
  convert(plan)       -> the artifact, never over its source

then checks what it made (onnx.checker, the opset and IO it declares, the size budget, a
session on ONNX Runtime *and* on tract through `darkroom models check`), runs the parity gate
(`darkroom parity`, the app's own decode and pipeline, on the evaluation set of the corpus) and
writes one release record per artifact: its identity block (source sha256, descriptor, tool
and library versions, calibration manifest hash), the artifact's sha256 and size, the checks,
the parity summary, the verdict, and the sha256 of the identity block. No form is dropped from
the report: each is `built` (with its verdict), `failed`, `blocked` or `refused`.

Usage (in the venv this script makes from requirements.txt; see `--help`):
  release.py build   --models DIR --assets DIR --darkroom BIN --out DIR [--only ID ...]
                     [--calibration MANIFEST#SET] [--publish]
  release.py convert ID --models DIR --assets DIR --out FILE     (plan + convert alone:
                     scripts/fetch-assets rebuilds the int8 fixture and checks its hash)
  release.py gate ID --artifact FILE --models DIR --assets DIR --darkroom BIN --out DIR
                     (the parity gate alone on a given artifact: exit 1 on a fail)

Exit status: 0 when every form is built with a passing verdict or refused/blocked with a
reason; 1 when a form failed a check or its gate; 2 on bad input (a manifest, a descriptor).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORMS = ROOT / "assets" / "model-forms.toml"
CARDS = ROOT / "assets" / "models.toml"
RECORDS = ROOT / "assets" / "model-releases.json"
REQUIREMENTS = Path(__file__).resolve().parent / "requirements.txt"

MECHANISMS = ("opset-upgrade", "ort-static-qdq", "tflite-convert", "dlib-convert")
GATES = ("detector-same", "detector-int8", "detector-recall", "embedder", "landmarks",
         "embedder-reference")
# The landmarks gate: each point within this fraction of its crop's side of the TFLite
# interpreter's (a face fills about two thirds of the mesh's crop: 0.15% of the face, a fifth
# of a pixel of the mesh's 192² crop; the converted forms are within 1.2e-6 on both runtimes,
# and the mesh with its first convolution's weights scaled by 1.1 moves a point by 0.0046),
# each other output (the mesh's face logit) within LANDMARK_OTHER_BOUND, over at least
# LANDMARK_MIN_CROPS crops of real faces.
LANDMARK_BOUND = 0.001
LANDMARK_OTHER_BOUND = 0.01
LANDMARK_MIN_CROPS = 12
# The embedder-reference gate: each real face's descriptor within this cosine of dlib's own
# (the reference program below, built against the system's dlib) on both runtimes, over at
# least EMBEDDER_MIN_CROPS faces. The converted form is at 1 - 5e-13 on 54 faces on both
# runtimes; with its first convolution's weights scaled by 1.1 it falls to 0.99948 (measured).
EMBEDDER_REFERENCE_BOUND = 0.99999
EMBEDDER_MIN_CROPS = 12
# The mean the app subtracts must be the file's (dlib's input layer), to this much.
EMBEDDER_MEAN_TOLERANCE = 1e-3
DLIB_REFERENCE = Path(__file__).resolve().parent / "dlib_reference.cpp"
# Per-channel QDQ writes DequantizeLinear's `axis`, which opset 13 introduced: quantising an
# opset-11 file writes an invalid model (measured on SCRFD-2.5G), so upgrade first.
QDQ_MIN_OPSET = 13
# Activation ranges are rounded outward to this many mantissa bits before they become scales:
# the calibration's last bits depend on the CPU's kernels (AVX2 / AVX-512), and an artifact is
# addressed by its hash, so the same inputs must make the same bytes on another machine.
RANGE_MANTISSA_BITS = 8


# The mechanisms that write ONNX from another framework's file: the module beside this script
# that does it (`convert(path, opset, ir_version)`, raising its `Unsupported`), and what it reads.
CONVERTERS = {
    "tflite-convert": ("tflite_onnx", "the TFLite graph"),
    "dlib-convert": ("dlib_onnx", "the dlib network"),
}


class Refused(Exception):
    """The tool will not make this form (a rule says so)."""


class Blocked(Exception):
    """The form cannot be made here (an input is missing)."""


class Failed(Exception):
    """The form was made and failed a check."""


class BadInput(Exception):
    """A descriptor or manifest is malformed."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def canonical_json(value) -> str:
    """What engine::releases::canonical_json writes: sorted keys, no whitespace."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def identity_hash(identity: dict) -> str:
    return hashlib.sha256(canonical_json(identity).encode("utf-8")).hexdigest()


# --- data ------------------------------------------------------------------------------------


def load_forms(path: Path = FORMS) -> dict[str, dict]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    forms: dict[str, dict] = {}
    for entry in data.get("form", []):
        fid = entry.get("id")
        if not fid or fid in forms:
            raise BadInput(f"a form without an id, or one listed twice ({fid}): {path}")
        for key in ("source", "model_id", "precision", "io_dtype", "mechanism", "opset",
                    "input_shape", "size_budget", "gate"):
            if key not in entry:
                raise BadInput(f"form {fid} has no {key}: {path}")
        if entry["gate"] == "detector-recall" and "reference" not in entry:
            raise BadInput(f"form {fid}: a detector-recall gate names its reference detector: {path}")
        if any(isinstance(v, float) for v in entry.values()):
            raise BadInput(f"form {fid}: no floats in a descriptor (it is hashed): {path}")
        forms[fid] = entry
    return forms


def model_id(card: dict) -> str:
    suffix = {"f32": "", "fp16": "_f16", "int8": "_i8"}[card["numeric_form"]]
    return card["family"] + suffix


def load_cards(path: Path = CARDS) -> dict[str, dict]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    return {model_id(c): c for c in data.get("model", [])}


@dataclass
class Photo:
    path: str
    sha256: str
    group: str
    set: str
    views: list[str]


def load_manifest(spec: str, assets: Path) -> tuple[Path, str, list[Photo]]:
    """`corpus/faces.toml#calibration` → (manifest file, set, that set's photos), refusing a
    manifest whose sets overlap by group or whose counts do not add up (fails closed)."""
    rel, _, wanted = spec.partition("#")
    manifest = ROOT / "assets" / rel if not Path(rel).is_absolute() else Path(rel)
    if not manifest.is_file():
        raise Blocked(f"no corpus manifest: {manifest}")
    with open(manifest, "rb") as f:
        data = tomllib.load(f)
    photos = [
        Photo(p["path"], p["sha256"], p["group"], p["set"], list(p.get("views", ["full"])))
        for p in data.get("photo", [])
    ]
    counts = data.get("counts", {})
    for name in ("calibration", "evaluation"):
        have = sum(1 for p in photos if p.set == name)
        if counts.get(name) != have:
            raise BadInput(f"the manifest says {counts.get(name)} {name} photos, it lists {have}: {manifest}")
    sides: dict[str, set[str]] = {}
    for p in photos:
        sides.setdefault(p.group, set()).add(p.set)
    both = sorted(g for g, s in sides.items() if len(s) > 1)
    if both:
        raise BadInput(f"groups on both sides of the split: {', '.join(both)}: {manifest}")
    chosen = [p for p in photos if p.set == (wanted or "calibration")]
    if not chosen:
        raise Blocked(f"the {wanted} set is empty: {manifest}")
    for p in chosen:
        path = assets / p.path
        if not path.is_file():
            raise Blocked(f"a manifest photo is missing: {path}")
        if sha256_file(path) != p.sha256:
            raise BadInput(f"a manifest photo's bytes differ from its sha256: {path}")
    return manifest, wanted or "calibration", chosen


def manifest_identity(manifest: Path, set_name: str, photos: list[Photo]) -> str:
    """The calibration set's hash: its photos' hashes and views, not the file's comments."""
    listing = [[p.sha256, p.views] for p in sorted(photos, key=lambda p: p.sha256)]
    return hashlib.sha256(canonical_json({"set": set_name, "photos": listing}).encode()).hexdigest()


# --- the three calls -------------------------------------------------------------------------


def get_target(forms: dict[str, dict], fid: str) -> dict:
    if fid not in forms:
        raise BadInput(f"no form {fid} in {FORMS}")
    return forms[fid]


@dataclass
class Plan:
    target: dict
    source_path: Path
    source_sha256: str
    card: dict
    out: Path
    calibration: tuple[Path, str, list[Photo]] | None = None
    calibration_root: Path | None = None


@dataclass
class Context:
    forms: dict[str, dict]
    cards: dict[str, dict]
    models: Path
    assets: Path
    out: Path
    calibration_override: str | None = None
    built: dict[str, Path] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)


def plan(target: dict, ctx: Context) -> Plan:
    fid = target["id"]
    if target["mechanism"] not in MECHANISMS:
        raise Refused(f"unknown mechanism {target['mechanism']} (known: {', '.join(MECHANISMS)})")
    if target["gate"] not in GATES:
        raise Refused(f"unknown gate {target['gate']} (known: {', '.join(GATES)})")
    source = target["source"]
    # The card the form's chain starts from decides the rules, before anything is looked for.
    origin = source
    while origin in ctx.forms:
        origin = ctx.forms[origin]["source"]
    card_id = origin if source not in ctx.forms else ctx.forms[source]["model_id"]
    card = ctx.cards.get(card_id) or ctx.cards.get(origin)
    if card is None:
        raise BadInput(f"form {fid}: no card {card_id} in {CARDS}")
    if card["role"] == "embedder" and target["precision"] != "f32":
        raise Refused("the embedder runs in f32 on every rung (inference-backends §7, NFR-INF-1)")
    if source in ctx.forms:
        if source not in ctx.built:
            raise Blocked(f"its source form {source} was not built ({ctx.status.get(source, 'not planned')})")
        source_path = ctx.built[source]
        source_opset = ctx.forms[source]["opset"]
    else:
        source_path = None
        source_opset = None
    if source_path is None and "upstream_file" in target:
        # This form replaces its card's file: the card pins the form's bytes, the upstream
        # export is pinned here.
        source_path = ctx.assets / target["upstream_file"]
        if not source_path.is_file():
            raise Blocked(f"the upstream file is not here: {source_path}")
        if sha256_file(source_path) != target["upstream_sha256"]:
            raise Blocked(f"the upstream file is not the pinned {target['upstream_sha256']}: {source_path}")
    elif source_path is None:
        source_path = ctx.models / card["file"]
        if not source_path.is_file():
            raise Blocked(f"the canonical file is not installed here: {source_path}")
        pinned = card.get("sha256")
        if pinned is None:
            raise Blocked(f"card {card_id} pins no sha256, so its source cannot be identified")
    source_sha = sha256_file(source_path)
    if (source_path.parent == ctx.models and "upstream_file" not in target and card.get("sha256")
            and source_sha != card["sha256"]):
        raise Blocked(f"the canonical file's sha256 {source_sha} is not the card's: {source_path}")
    out = ctx.out / f"{fid}.onnx"
    if out.resolve() == source_path.resolve():
        raise Refused(f"would convert in place: {out}")
    calibration = None
    if target["mechanism"] == "ort-static-qdq":
        if source_opset is None:
            import onnx

            source_opset = max(o.version for o in onnx.load(str(source_path), load_external_data=False).opset_import
                               if o.domain in ("", "ai.onnx"))
        if source_opset < QDQ_MIN_OPSET:
            raise Refused(f"per-channel QDQ needs opset ≥ {QDQ_MIN_OPSET}, the source is {source_opset}: upgrade first")
        if card["input"]["resize"] != "letterbox_top_left":
            raise Blocked(f"calibration inputs for {card['input']['resize']} are not made by this tool")
        spec = ctx.calibration_override or target.get("calibration")
        if not spec:
            raise Refused("ort-static-qdq without a calibration manifest (never random tensors)")
        calibration = load_manifest(spec, ctx.assets)
    return Plan(target, source_path, source_sha, card, out, calibration, ctx.assets)


def convert(p: Plan) -> Path:
    import onnx
    from onnx import version_converter

    tmp = p.out.with_name(f".{p.out.name}.partial")
    p.out.parent.mkdir(parents=True, exist_ok=True)
    if p.target["mechanism"] in CONVERTERS:
        import importlib

        module, what = CONVERTERS[p.target["mechanism"]]
        converter = importlib.import_module(module)
        try:
            model = converter.convert(str(p.source_path), p.target["opset"], p.target["ir_version"])
        except converter.Unsupported as e:
            raise Failed(f"{what} cannot be carried over: {e}") from e
        onnx.save(model, str(tmp))
    elif p.target["mechanism"] == "opset-upgrade":
        model = onnx.load(str(p.source_path))
        model = fixed_input_shape(model, p.target["input_shape"])
        model = version_converter.convert_version(model, p.target["opset"])
        # The converter leaves ir_version where it was (7 for these files).
        model.ir_version = p.target.get("ir_version", model.ir_version)
        onnx.checker.check_model(model)
        onnx.save(model, str(tmp))
    else:
        quantise(p, tmp)
    os.replace(tmp, p.out)
    return p.out


def fixed_input_shape(model, shape: list[int]):
    """The graph with its one data input at the descriptor's shape. An export fixed at another
    size (CenterFace's is 10×3×32×32) gets the descriptor's, its outputs' shapes inferred again,
    and the weights it lists as inputs (an IR 3 habit) or never uses dropped. A graph already at
    that shape is returned untouched, so its conversion's bytes stay what they were."""
    from onnx import shape_inference

    weights = {w.name for w in model.graph.initializer}
    data = [i for i in model.graph.input if i.name not in weights]
    if len(data) != 1:
        raise Failed(f"{len(data)} data inputs; a form has one")
    dims = data[0].type.tensor_type.shape.dim
    if [d.dim_value if d.HasField("dim_value") else -1 for d in dims] == list(shape):
        return model
    if len(dims) != len(shape):
        raise Failed(f"input rank {len(dims)}, the descriptor's shape has {len(shape)}")
    del model.graph.input[:]
    model.graph.input.extend(data)
    for d, v in zip(model.graph.input[0].type.tensor_type.shape.dim, shape):
        d.Clear()
        d.dim_value = v
    for o in model.graph.output:
        o.type.tensor_type.ClearField("shape")
    del model.graph.value_info[:]
    used = {name for node in model.graph.node for name in node.input}
    kept = [w for w in model.graph.initializer if w.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    return shape_inference.infer_shapes(model, strict_mode=True)


# --- calibration -----------------------------------------------------------------------------


def views_of(img, views: list[str]):
    """The derived views `darkroom parity` makes too: the photo, canvas:S, tiles:N."""
    from PIL import Image

    for view in views:
        if view == "full":
            yield img
        elif view.startswith("canvas:"):
            s = float(view.split(":", 1)[1])
            w, h = img.size
            small = img.resize((max(1, round(w * s)), max(1, round(h * s))), Image.BILINEAR)
            canvas = Image.new("RGB", (w, h))
            canvas.paste(small, (0, 0))
            yield canvas
        elif view.startswith("tiles:"):
            n = int(view.split(":", 1)[1])
            w, h = img.size
            for ty in range(n):
                for tx in range(n):
                    yield img.crop((tx * w // n, ty * h // n, (tx + 1) * w // n, (ty + 1) * h // n))
        else:
            raise BadInput(f"unknown view {view}")


def detector_input(img, card: dict):
    """The app's detector preprocessing (engine::face::tensor): top-left letterbox with PIL's
    antialiased bilinear, (v - mean) / std, planar NCHW."""
    import numpy as np
    from PIL import Image

    _, _, H, W = card["input"]["shape"]
    w, h = img.size
    scale = min(W / w, H / h)
    nw, nh = min(W, max(1, round(w * scale))), min(H, max(1, round(h * scale)))
    canvas = Image.new("RGB", (W, H))
    canvas.paste(img.resize((nw, nh), Image.BILINEAR), (0, 0))
    a = np.asarray(canvas, dtype=np.float32)
    if card["input"]["colour"] == "BGR":
        a = a[:, :, ::-1]
    mean = np.array(card["input"]["mean"], dtype=np.float32)
    std = np.array(card["input"]["std"], dtype=np.float32)
    a = (a - mean) * (np.float32(1.0) / std)
    return np.ascontiguousarray(a.transpose(2, 0, 1)[None])


def calibration_inputs(p: Plan):
    from PIL import Image, ImageOps

    assert p.calibration is not None
    _, _, photos = p.calibration
    for photo in photos:
        with Image.open(p.calibration_root / photo.path) as im:
            img = ImageOps.exif_transpose(im).convert("RGB")
        for view in views_of(img, photo.views):
            yield detector_input(view, p.card)


def round_outward(lo, hi):
    import numpy as np

    def grid(v, up: bool):
        v = float(v)
        if v == 0.0 or not math.isfinite(v):
            return v
        e = math.floor(math.log2(abs(v)))
        q = 2.0 ** (e - RANGE_MANTISSA_BITS)
        return (math.ceil(v / q) if up else math.floor(v / q)) * q

    lo_r = np.vectorize(lambda v: grid(v, False))(lo).astype(np.asarray(lo).dtype)
    hi_r = np.vectorize(lambda v: grid(v, True))(hi).astype(np.asarray(hi).dtype)
    return lo_r, hi_r


def quantise(p: Plan, out: Path) -> None:
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat,
                                          QuantType, calibrate, quantize_static)

    class Reader(CalibrationDataReader):
        def __init__(self, name: str, inputs):
            self.name = name
            self.inputs = iter(inputs)

        def get_next(self):
            t = next(self.inputs, None)
            return None if t is None else {self.name: t}

    original = calibrate.MinMaxCalibrater.compute_data

    def rounded(self):
        data = original(self)
        pairs = {}
        for name, td in data.data.items():
            lo, hi = round_outward(td.range_value[0], td.range_value[1])
            pairs[name] = (lo, hi)
        self.calibrate_tensors_range = calibrate.TensorsData(CalibrationMethod.MinMax, pairs)
        return self.calibrate_tensors_range

    # The quantiser advises its own pre-processing pass on every run; the graph here is already
    # shape-inferred and the advice is noise in the report.
    logging.getLogger().setLevel(logging.ERROR)
    types = {"int8": QuantType.QInt8, "uint8": QuantType.QUInt8}
    calibrate.MinMaxCalibrater.compute_data = rounded
    try:
        quantize_static(
            str(p.source_path),
            str(out),
            Reader(p.card["input"]["name"], calibration_inputs(p)),
            quant_format=QuantFormat.QDQ,
            per_channel=bool(p.target.get("per_channel", True)),
            weight_type=types[p.target.get("weights", "int8")],
            activation_type=types[p.target.get("activations", "uint8")],
            calibrate_method=CalibrationMethod.MinMax,
            extra_options={"CalibTensorRangeSymmetric": False},
            calibration_providers=["CPUExecutionProvider"],
        )
    finally:
        calibrate.MinMaxCalibrater.compute_data = original


# --- checks, gate, record --------------------------------------------------------------------


def darkroom_env(runtime: str) -> dict:
    """darkroom on one runtime: DARKROOM_RUNTIME=tract starts it on tract; without it, it loads
    ONNX Runtime as it always does (DARKROOM_ORT_LIB, beside the binary, the data dir, the
    system), and `models check` says which it ran on, so a silent fall to tract is caught."""
    env = {k: v for k, v in os.environ.items() if k not in ("DARKROOM_RUNTIME", "DARKROOM_BACKEND")}
    if runtime == "tract":
        env["DARKROOM_RUNTIME"] = "tract"
    return env


def run_darkroom(darkroom: Path, args: list[str], runtime: str) -> tuple[int, str, str]:
    proc = subprocess.run([str(darkroom), *args], env=darkroom_env(runtime), capture_output=True,
                          text=True, timeout=1800)
    return proc.returncode, proc.stdout, proc.stderr


def check(p: Plan, artifact: Path, darkroom: Path | None, models: Path) -> dict[str, str]:
    import onnx
    import onnxruntime as ort

    model = onnx.load(str(artifact))
    onnx.checker.check_model(model)
    opset = max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if opset != p.target["opset"]:
        raise Failed(f"opset {opset}, the descriptor says {p.target['opset']}")
    if "ir_version" in p.target and model.ir_version != p.target["ir_version"]:
        raise Failed(f"ir_version {model.ir_version}, the descriptor says {p.target['ir_version']}")
    dims = [d.dim_value if d.HasField("dim_value") else -1
            for d in model.graph.input[0].type.tensor_type.shape.dim]
    if dims != list(p.target["input_shape"]):
        raise Failed(f"input shape {dims}, the descriptor says {p.target['input_shape']}")
    if model.graph.input[0].type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
        raise Failed("the IO boundary is not f32")
    size = artifact.stat().st_size
    if size > p.target["size_budget"]:
        raise Failed(f"{size} bytes, over the budget of {p.target['size_budget']}")
    ort.InferenceSession(str(artifact), providers=["CPUExecutionProvider"])
    checks = {"onnx.checker": "passed", "onnxruntime (python)": "built"}
    if darkroom is None:
        return checks
    for runtime in ("onnxruntime", "tract"):
        code, out, err = run_darkroom(
            darkroom, ["models", "check", str(artifact), "--as", p.target["model_id"], "--json",
                       "--models", str(models)], runtime)
        if code != 0:
            raise Failed(f"darkroom models check on {runtime}: {(err or out).strip().splitlines()[-1:]}")
        answer = json.loads(out)
        if answer.get("runtime_kind") != runtime:
            raise Blocked(f"darkroom ran on {answer.get('runtime_kind')} when asked for {runtime}")
        checks[runtime] = "built"
    return checks


def gate_runtimes(target: dict) -> list[str]:
    # The f32 forms must make the same detections on both runtimes to replace the canonical
    # file; the int8 detector is offered on ONNX Runtime only (tract runs QDQ slower than f32).
    # A detector of another family (detector-recall) serves on every rung, tract's included.
    both = target["gate"] in ("detector-same", "detector-recall")
    return ["onnxruntime", "tract"] if both else ["onnxruntime"]


def reference_of(p: Plan) -> str:
    """What the gate holds the artifact to: its source, or for a detector of another family
    (detector-recall) the installed detector it would stand in for, by model_id."""
    if p.target["gate"] == "detector-recall":
        return p.target["reference"]
    return str(p.source_path)


def crops_on(p: Plan, gate: str, artifact: Path, darkroom: Path, assets: Path, models: Path,
             out_dir: Path, runtime: str) -> tuple[Path, dict]:
    """`darkroom parity --gate GATE --crops DIR` on one runtime: the folder of the crops' input
    tensors and the report (each crop's outputs), for the release tool's reference to check."""
    crops = out_dir / f"{p.target['id']}.crops.{runtime}"
    shutil.rmtree(crops, ignore_errors=True)
    report = out_dir / f"{p.target['id']}.parity.{runtime}.json"
    code, out, err = run_darkroom(darkroom, [
        "parity", "--gate", gate, "--reference", str(p.source_path),
        "--candidate", str(artifact), "--as", p.target["model_id"],
        "--manifest", str(ROOT / "assets" / "corpus" / "faces.toml"), "--root", str(assets),
        "--models", str(models), "--crops", str(crops), "--json", "--out", str(report)], runtime)
    if code != 0 or not report.is_file():
        raise Failed(f"darkroom parity on {runtime} exited {code}: {(err or out).strip()[-400:]}")
    return crops, json.loads(report.read_text())


def landmark_parity(p: Plan, artifact: Path, darkroom: Path, assets: Path, models: Path,
                    out_dir: Path) -> tuple[dict, str]:
    """The landmarks gate: the app crops the evaluation set's faces as it would for this model,
    runs the form on each runtime and writes each crop's input tensor and outputs; the TFLite
    interpreter runs the upstream file on the same tensors. Fails closed: no interpreter, no
    upstream file, too few crops or a crop's tensor missing is a failure, never a pass."""
    import numpy as np

    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError as e:
        raise Failed(f"the reference (the TFLite interpreter, ai-edge-litert) is not installed: {e}") from e
    if not p.source_path.is_file():
        raise Failed(f"the reference file is missing: {p.source_path}")
    interpreter = Interpreter(model_path=str(p.source_path))
    interpreter.allocate_tensors()
    given = interpreter.get_input_details()[0]
    outputs = {d["name"]: d["index"] for d in interpreter.get_output_details()}
    summaries, verdict = {}, "pass"
    for runtime in ("onnxruntime", "tract"):
        crops, result = crops_on(p, "landmarks", artifact, darkroom, assets, models, out_dir, runtime)
        rows = result.get("crops", [])
        reasons, worst, other_worst = [], 0.0, 0.0
        if len(rows) < LANDMARK_MIN_CROPS:
            reasons.append(f"{len(rows)} crops of real faces, fewer than {LANDMARK_MIN_CROPS}")
        for row in rows:
            tensor = crops / row["input"]
            if not tensor.is_file():
                raise Failed(f"a crop's input is missing: {tensor}")
            x = np.fromfile(tensor, dtype="<f4")
            if x.size != int(np.prod(given["shape"])):
                raise Failed(f"a crop's input has {x.size} values, the model takes {given['shape']}: {tensor}")
            interpreter.set_tensor(given["index"], x.reshape(given["shape"]))
            interpreter.invoke()
            side = float(given["shape"][1])
            for name, index in outputs.items():
                want = interpreter.get_tensor(index).reshape(-1)
                got = np.asarray(row["outputs"].get(name, []), dtype=np.float32)
                if got.size != want.size:
                    reasons.append(f"{row['input']}: output {name} has {got.size} values, the reference {want.size}")
                    continue
                # A NaN compares as nothing (max() would drop it): a value that is not a number
                # fails outright, the form's or the reference's.
                if not (np.isfinite(got).all() and np.isfinite(want).all()):
                    reasons.append(f"{row['input']}: output {name} holds a value that is not a finite number")
                    continue
                if want.size % 3 == 0 and want.size > 3:
                    # x, y and the depth (the head's turn is read from it), each point's distance.
                    d = np.linalg.norm(got.reshape(-1, 3) - want.reshape(-1, 3), axis=1) / side
                    worst = max(worst, float(d.max()))
                else:
                    other_worst = max(other_worst, float(np.abs(got - want).max()))
        if worst > LANDMARK_BOUND:
            reasons.append(f"a point {worst:.4f} of its crop's side from the reference (bound {LANDMARK_BOUND})")
        if other_worst > LANDMARK_OTHER_BOUND:
            reasons.append(f"an output {other_worst:.4f} from the reference (bound {LANDMARK_OTHER_BOUND})")
        summaries[runtime] = {"crops": len(rows), "worst_point": worst, "worst_other": other_worst,
                              "bound": LANDMARK_BOUND, "verdict": "fail" if reasons else "pass",
                              "reasons": reasons}
        if reasons:
            verdict = "fail"
    return summaries, verdict


def dlib_reference(out_dir: Path) -> tuple[Path, str]:
    """The embedder gate's reference program, built (once per output folder) against the
    system's dlib (Debian's libdlib-dev), and dlib's version. Fails closed without either."""
    try:
        dlib_version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libdlib-dev"],
                                      capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        raise Failed(f"the reference (dlib, Debian's libdlib-dev) is not installed: {e}") from e
    # Named by its source's hash: a changed program is built again, never reused.
    source_sha = sha256_file(DLIB_REFERENCE)
    program = out_dir / f"dlib_reference-{source_sha[:12]}"
    if not program.is_file():
        built = subprocess.run(["g++", "-O2", "-std=c++17", "-o", str(program), str(DLIB_REFERENCE),
                                "-ldlib", "-lpthread"], capture_output=True, text=True)
        if built.returncode != 0:
            raise Failed(f"the dlib reference did not build: {built.stderr.strip()[-400:]}")
    return program, f"dlib {dlib_version}, dlib_reference.cpp {source_sha[:12]}"


def embedder_reference_parity(p: Plan, artifact: Path, darkroom: Path, assets: Path, models: Path,
                              out_dir: Path) -> tuple[dict, str]:
    """The embedder-reference gate: the app aligns the evaluation set's faces as it would for
    this model and writes each chip (8-bit RGB) with the form's descriptor, on each runtime;
    dlib runs its own file on the same chips, its own preprocessing included. Fails closed: no
    dlib, no source file, too few faces, a chip missing, a descriptor for each chip not given or
    a mean that is not the file's is a failure, never a pass."""
    import numpy as np

    if not p.source_path.is_file():
        raise Failed(f"the reference file is missing: {p.source_path}")
    program, reference = dlib_reference(out_dir)
    summaries, verdict = {}, "pass"
    for runtime in ("onnxruntime", "tract"):
        crops, result = crops_on(p, "embedder-reference", artifact, darkroom, assets, models, out_dir,
                                 runtime)
        rows = result.get("crops", [])
        reasons = []
        if len(rows) < EMBEDDER_MIN_CROPS:
            reasons.append(f"{len(rows)} crops of real faces, fewer than {EMBEDDER_MIN_CROPS}")
        chips = [crops / row.get("chip", "") for row in rows]
        for c in chips:
            if not c.is_file():
                raise Failed(f"a face's chip is missing: {c}")
        worst, means = 1.0, None
        if rows:
            ran = subprocess.run([str(program), str(p.source_path), *map(str, chips)],
                                 capture_output=True, text=True)
            if ran.returncode != 0:
                raise Failed(f"the dlib reference exited {ran.returncode}: {ran.stderr.strip()[-400:]}")
            answer = json.loads(ran.stdout)
            means = answer["means"]
            if len(answer["descriptors"]) != len(rows):
                raise Failed(f"dlib gave {len(answer['descriptors'])} descriptors for {len(rows)} chips")
            app_means = result.get("mean", [])
            if len(app_means) != 3 or max(abs(a - b) for a, b in zip(app_means, means)) > EMBEDDER_MEAN_TOLERANCE:
                reasons.append(f"the app subtracts {app_means}, dlib's file {means}")
            for row, want in zip(rows, answer["descriptors"]):
                got = np.asarray(row["outputs"].get("descriptor", []), dtype=np.float64)
                want = np.asarray([np.nan if v is None else v for v in want], dtype=np.float64)
                if got.size != want.size:
                    reasons.append(f"{row['input']}: {got.size} values, dlib's {want.size}")
                    continue
                if not (np.isfinite(got).all() and np.isfinite(want).all()):
                    reasons.append(f"{row['input']}: a value that is not a finite number")
                    continue
                norms = np.linalg.norm(got) * np.linalg.norm(want)
                cos = float(got @ want / norms) if norms > 0 else 0.0
                worst = min(worst, cos)
        if worst < EMBEDDER_REFERENCE_BOUND:
            reasons.append(f"a face's descriptor at cosine {worst:.6f} to dlib's (bound {EMBEDDER_REFERENCE_BOUND})")
        summaries[runtime] = {"crops": len(rows), "worst_cosine": worst, "bound": EMBEDDER_REFERENCE_BOUND,
                              "reference": reference, "means": means,
                              "verdict": "fail" if reasons else "pass", "reasons": reasons}
        if reasons:
            verdict = "fail"
    return summaries, verdict


def parity(p: Plan, artifact: Path, darkroom: Path, assets: Path, models: Path, out_dir: Path) -> tuple[dict, str]:
    if p.target["gate"] == "landmarks":
        return landmark_parity(p, artifact, darkroom, assets, models, out_dir)
    if p.target["gate"] == "embedder-reference":
        return embedder_reference_parity(p, artifact, darkroom, assets, models, out_dir)
    summaries = {}
    verdict = "pass"
    for runtime in gate_runtimes(p.target):
        report = out_dir / f"{p.target['id']}.parity.{runtime}.json"
        code, out, err = run_darkroom(darkroom, [
            "parity", "--reference", reference_of(p), "--candidate", str(artifact),
            "--as", p.target["model_id"], "--gate", p.target["gate"],
            "--manifest", str(ROOT / "assets" / "corpus" / "faces.toml"), "--root", str(assets),
            "--models", str(models), "--json", "--out", str(report)], runtime)
        if code not in (0, 1) or not report.is_file():
            raise Failed(f"darkroom parity on {runtime} exited {code}: {(err or out).strip()[-400:]}")
        result = json.loads(report.read_text())
        summaries[runtime] = result.get("summary", {})
        summaries[runtime]["verdict"] = result.get("verdict")
        summaries[runtime]["reasons"] = result.get("reasons", [])
        if code != 0 or result.get("verdict") != "pass":
            verdict = "fail"
    return summaries, verdict


def tool_versions(target: dict) -> dict[str, str]:
    from importlib.metadata import version

    import numpy
    import onnx
    import onnxruntime
    import PIL

    versions = {}
    if target["mechanism"] == "tflite-convert":
        versions = {"tflite_onnx.py": sha256_file(Path(__file__).with_name("tflite_onnx.py")),
                    "tflite": version("tflite"), "ai-edge-litert": version("ai-edge-litert")}
    elif target["mechanism"] == "dlib-convert":
        versions = {"dlib_onnx.py": sha256_file(Path(__file__).with_name("dlib_onnx.py"))}
    return versions | {
        "release.py": sha256_file(Path(__file__)),
        "requirements.txt": sha256_file(REQUIREMENTS),
        "python": ".".join(map(str, sys.version_info[:3])),
        "onnx": onnx.__version__,
        "onnxruntime": onnxruntime.__version__,
        "numpy": numpy.__version__,
        "pillow": PIL.__version__,
    }


def make_record(p: Plan, artifact: Path, checks: dict, parity_summary: dict, verdict: str) -> dict:
    identity = {
        "form": p.target["id"],
        "model_id": p.target["model_id"],
        "descriptor": p.target,
        "source_sha256": p.source_sha256,
        "calibration_manifest_sha256": (manifest_identity(*p.calibration) if p.calibration else None),
        "tools": tool_versions(p.target),
    }
    return {
        "identity": identity,
        "identity_sha256": identity_hash(identity),
        "artifact": {"file": artifact.name, "sha256": sha256_file(artifact), "size": artifact.stat().st_size},
        "checks": checks,
        "parity": parity_summary,
        "verdict": verdict,
    }


def publish(records: list[dict], path: Path = RECORDS) -> None:
    """Replace each form's record in the repository's records file (others kept)."""
    existing = json.loads(path.read_text()).get("records", []) if path.is_file() else []
    forms = {r["identity"]["form"] for r in records}
    merged = [r for r in existing if r["identity"]["form"] not in forms] + records
    merged.sort(key=lambda r: r["identity"]["form"])
    tmp = path.with_suffix(".json.partial")
    tmp.write_text(json.dumps({"records": merged}, indent=2, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


# --- commands --------------------------------------------------------------------------------


def order(forms: dict[str, dict], only: list[str] | None) -> list[str]:
    """Sources before what is made from them; with --only, the named forms and their sources."""
    wanted = set(only or forms)
    for fid in list(wanted):
        if fid not in forms:
            raise BadInput(f"no form {fid} in {FORMS}")
        src = forms[fid]["source"]
        while src in forms:
            wanted.add(src)
            src = forms[src]["source"]
    done: list[str] = []
    def visit(fid: str) -> None:
        if fid in done:
            return
        src = forms[fid]["source"]
        if src in forms:
            visit(src)
        done.append(fid)
    for fid in forms:
        if fid in wanted:
            visit(fid)
    return done


def cmd_build(args) -> int:
    forms = load_forms()
    ctx = Context(forms, load_cards(), Path(args.models), Path(args.assets), Path(args.out),
                  args.calibration)
    ctx.out.mkdir(parents=True, exist_ok=True)
    if ctx.out.resolve() == ctx.models.resolve():
        raise BadInput(f"--out is the models directory; the tool never writes over its sources: {ctx.out}")
    report, records, worst = [], [], 0
    for fid in order(forms, args.only):
        target = get_target(forms, fid)
        row = {"form": fid, "model_id": target["model_id"], "mechanism": target["mechanism"]}
        try:
            p = plan(target, ctx)
            artifact = convert(p)
            checks = check(p, artifact, Path(args.darkroom), ctx.models)
            summary, verdict = parity(p, artifact, Path(args.darkroom), ctx.assets, ctx.models, ctx.out)
            record = make_record(p, artifact, checks, summary, verdict)
            records.append(record)
            (ctx.out / f"{fid}.record.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
            ctx.built[fid] = artifact
            row.update(status="built", verdict=verdict, artifact=str(artifact),
                       sha256=record["artifact"]["sha256"], size=record["artifact"]["size"],
                       identity_sha256=record["identity_sha256"])
            if verdict != "pass":
                worst = max(worst, 1)
        except Refused as e:
            row.update(status="refused", reason=str(e))
        except Blocked as e:
            row.update(status="blocked", reason=str(e))
        except Failed as e:
            row.update(status="failed", reason=str(e))
            worst = max(worst, 1)
        ctx.status[fid] = row["status"] + (f": {row['reason']}" if "reason" in row else "")
        report.append(row)
        print(f"{fid:24} {row['status']:8} {row.get('verdict', '')} {row.get('reason', row.get('sha256', ''))}")
    (ctx.out / "report.json").write_text(json.dumps({"forms": report}, indent=2, ensure_ascii=False) + "\n")
    if args.publish:
        publish([r for r in records if r["verdict"] == "pass"])
    return worst


def cmd_convert(args) -> int:
    forms = load_forms()
    out = Path(args.out)
    with tempfile.TemporaryDirectory() as tmp:
        ctx = Context(forms, load_cards(), Path(args.models), Path(args.assets), Path(tmp))
        sources = set()
        for fid in order(forms, [args.form]):
            p = plan(get_target(forms, fid), ctx)
            sources.add(p.source_path.resolve())
            ctx.built[fid] = convert(p)
        if out.resolve() in sources:
            raise Refused(f"would convert in place: {out}")
        shutil.copyfile(ctx.built[args.form], out)
    return 0


def cmd_gate(args) -> int:
    """The gate alone on a given artifact (a form rebuilt elsewhere, or one altered on purpose):
    its source is planned as the build plans it, so a missing reference blocks, never passes."""
    forms = load_forms()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ctx = Context(forms, load_cards(), Path(args.models), Path(args.assets), out)
    p = plan(get_target(forms, args.form), ctx)
    try:
        summary, verdict = parity(p, Path(args.artifact), Path(args.darkroom), ctx.assets, ctx.models, out)
    except Failed as e:
        print(f"{args.form:24} failed   {e}")
        return 1
    print(json.dumps({"form": args.form, "verdict": verdict, "parity": summary}, indent=2, ensure_ascii=False))
    return 0 if verdict == "pass" else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="plan, convert, check, gate and record every form")
    b.add_argument("--models", required=True, help="the installed canonical models")
    b.add_argument("--assets", required=True, help="where the corpus manifest's paths are")
    b.add_argument("--darkroom", required=True, help="the darkroom binary (checks and gate)")
    b.add_argument("--out", required=True, help="artifacts, records and report.json go here")
    b.add_argument("--only", nargs="*", help="these forms (and the forms they are made from)")
    b.add_argument("--calibration", help="another calibration manifest#set (tests)")
    b.add_argument("--publish", action="store_true", help="write passing records to assets/model-releases.json")
    g = sub.add_parser("gate", help="the parity gate alone on a given artifact for a form")
    g.add_argument("form")
    g.add_argument("--artifact", required=True)
    g.add_argument("--models", required=True)
    g.add_argument("--assets", required=True)
    g.add_argument("--darkroom", required=True)
    g.add_argument("--out", required=True)
    c = sub.add_parser("convert", help="plan + convert one form (and its sources) to a file")
    c.add_argument("form")
    c.add_argument("--models", required=True)
    c.add_argument("--assets", required=True)
    c.add_argument("--out", required=True)
    args = ap.parse_args()
    try:
        commands = {"build": cmd_build, "gate": cmd_gate, "convert": cmd_convert}
        return commands[args.command](args)
    except (BadInput, Refused, Blocked) as e:
        print(f"release.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
