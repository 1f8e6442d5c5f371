"""dlib's face recogniser (`dlib_face_recognition_resnet_model_v1.dat`, Davis King's ResNet-29
metric network, released into the public domain) as an ONNX graph.

The .dat is dlib's own serialisation of the network its example `dnn_face_recognition_ex.cpp`
declares (`anet_type`). This module writes that declaration out as a chain of wrappers (layers,
tags and skips, from the loss down to the input), reads the file along it — each wrapper's
version top-down, the input layer, then each layer's details bottom-up, as dlib's `serialize`
nests them — and refuses a file that does not end where the chain does. A layer version or a
tensor shape it does not know is refused by name, never guessed.

The graph takes what dlib's input layer makes of a 150x150 RGB chip: planar RGB, each channel
minus the file's mean, divided by 256 (the model card says so; the app normalises). It ends at
the 128-d descriptor before the loss (not normalised: the app normalises). dlib's semantics
carried over:
- convolutions are cross-correlations with the file's padding (0 for a stride of 2);
- each `affine` (a batch norm frozen as gamma, beta) is folded into the convolution before it;
- `add_prev` adds tensors of different sizes as dlib does: the smaller zero-padded at the end
  of each axis (channels, rows, columns) to the larger;
- `avg_pool_everything` is a global average, `fc_no_bias` a product with the (inputs, outputs)
  matrix.

The bytes depend only on the .dat and this script.
"""
from __future__ import annotations



import numpy as np

CHIP = 150
DESCRIPTOR = 128


class Unsupported(Exception):
    """The file is not the network this converter reads."""


# --- the network's declaration -----------------------------------------------------------------


def _block(n: int, stride: int) -> list[tuple]:
    # block<N,BN,stride,SUBNET> = BN<con<N,3,3,1,1,relu<BN<con<N,3,3,stride,stride,SUBNET>>>>>
    return [("affine",), ("con", n, 3, 1), ("relu",), ("affine",), ("con", n, 3, stride)]


def _ares(n: int) -> list[tuple]:
    # relu<add_prev1<block<N,affine,1,tag1<SUBNET>>>>
    return [("relu",), ("add_prev", 1), *_block(n, 1), ("tag", 1)]


def _ares_down(n: int) -> list[tuple]:
    # relu<add_prev2<avg_pool<2,2,2,2,skip1<tag2<block<N,affine,2,tag1<SUBNET>>>>>>>
    return [("relu",), ("add_prev", 2), ("avg_pool", 2, 2), ("skip", 1), ("tag", 2),
            *_block(n, 2), ("tag", 1)]


def chain() -> list[tuple]:
    """`anet_type` from the loss down to (not including) the input layer."""
    levels = [
        _ares_down(256),                                   # alevel0
        _ares(256) + _ares(256) + _ares_down(256),         # alevel1
        _ares(128) + _ares(128) + _ares_down(128),         # alevel2
        _ares(64) + _ares(64) + _ares(64) + _ares_down(64),  # alevel3
        _ares(32) + _ares(32) + _ares(32),                 # alevel4
    ]
    return [("fc", DESCRIPTOR), ("avg_pool_everything",), *[w for lv in levels for w in lv],
            ("max_pool", 3, 2), ("relu",), ("affine",), ("con", 32, 7, 2)]


# --- dlib's serialisation ----------------------------------------------------------------------


class Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def byte(self) -> int:
        if self.at >= len(self.data):
            raise Unsupported(f"the file ends early, at byte {self.at}")
        b = self.data[self.at]
        self.at += 1
        return b

    def integer(self) -> int:
        """dlib's pack_int: a size byte (0x80: negative), then that many little-endian bytes."""
        head = self.byte()
        size, negative = head & 0x0F, bool(head & 0x80)
        if size > 8:
            raise Unsupported(f"an integer of {size} bytes at byte {self.at - 1}")
        value = 0
        for i in range(size):
            value |= self.byte() << (8 * i)
        return -value if negative else value

    def string(self) -> str:
        n = self.integer()
        s = self.data[self.at:self.at + n]
        if len(s) != n:
            raise Unsupported("the file ends inside a string")
        self.at += n
        return s.decode("latin-1")

    def boolean(self) -> bool:
        b = self.byte()
        if b not in (ord("0"), ord("1")):
            raise Unsupported(f"a bool written as {b:#x} at byte {self.at - 1}")
        return b == ord("1")

    def real(self) -> float:
        """dlib's float_details: an int64 mantissa and an int16 exponent, value = m * 2^e."""
        if self.at < len(self.data) and self.data[self.at] & 0x70:
            raise Unsupported(f"a number in dlib's old text form at byte {self.at}")
        mantissa, exponent = self.integer(), self.integer()
        if exponent in (32000, 32001, 32002):
            raise Unsupported(f"an infinite or NaN parameter at byte {self.at}")
        return float(np.ldexp(float(mantissa), exponent))

    def tensor(self) -> np.ndarray:
        """dlib's resizable_tensor: version 2, four dimensions, little-endian f32 data."""
        version = self.integer()
        if version != 2:
            raise Unsupported(f"tensor version {version} at byte {self.at}")
        shape = tuple(self.integer() for _ in range(4))
        n = int(np.prod(shape))
        raw = self.data[self.at:self.at + 4 * n]
        if len(raw) != 4 * n:
            raise Unsupported("the file ends inside a tensor")
        self.at += 4 * n
        return np.frombuffer(raw, dtype="<f4").reshape(shape).astype(np.float32)

    def alias_tensor(self) -> tuple[int, ...]:
        version = self.integer()
        if version != 1:
            raise Unsupported(f"alias tensor version {version} at byte {self.at}")
        return tuple(self.integer() for _ in range(4))

    def expect(self, what: str, allowed: tuple[str, ...]) -> str:
        got = self.string()
        if got not in allowed:
            raise Unsupported(f"{what}: '{got}', not one of {allowed}")
        return got


def _multipliers(r: Reader, n: int) -> None:
    for _ in range(n):
        r.real()


def read_layer(r: Reader, kind: tuple) -> dict:
    """One add_layer's details, checked against the declaration."""
    name = kind[0]
    if name == "con":
        version = r.expect("a convolution", ("con_4", "con_5", "con_6"))
        params = r.tensor()
        filters, nr, nc = r.integer(), r.integer(), r.integer()
        sy, sx, py, px = r.integer(), r.integer(), r.integer(), r.integer()
        wshape, bshape = r.alias_tensor(), r.alias_tensor()
        _multipliers(r, 4)
        use_bias = r.boolean() if version in ("con_5", "con_6") else True
        if version == "con_6" and r.boolean():
            # dlib's fuse_layers() folds a following relu into the convolution: not this network.
            raise Unsupported("a convolution with a relu fused into it")
        _, n, k, s = kind
        if (filters, nr, nc, sy, sx) != (n, k, k, s, s):
            raise Unsupported(f"a convolution {filters}x{nr}x{nc}/{sy}, declared {n}x{k}x{k}/{s}")
        w_count, b_count = int(np.prod(wshape)), int(np.prod(bshape))
        flat = params.reshape(-1)
        if flat.size != w_count + (b_count if use_bias else 0):
            raise Unsupported(f"a convolution's {flat.size} parameters for {wshape} and {bshape}")
        weights = flat[:w_count].reshape(wshape)
        bias = flat[w_count:w_count + b_count] if use_bias else np.zeros(filters, np.float32)
        return {"op": "con", "w": weights, "b": bias, "stride": sy, "pad": (py, px)}
    if name == "affine":
        version = r.expect("an affine layer", ("affine_", "affine_2"))
        params = r.tensor()
        gshape, bshape = r.alias_tensor(), r.alias_tensor()
        mode = r.integer()
        if version == "affine_2" and r.boolean():
            # Disabled by dlib's fuse_layers(): folded into the convolution already.
            raise Unsupported("an affine layer disabled (fused into its convolution)")
        if mode != 0:
            raise Unsupported(f"an affine layer in mode {mode}, not per channel (0)")
        k = int(np.prod(gshape))
        flat = params.reshape(-1)
        if flat.size != 2 * k or int(np.prod(bshape)) != k:
            raise Unsupported(f"an affine layer's {flat.size} parameters for {k} channels")
        return {"op": "affine", "gamma": flat[:k], "beta": flat[k:]}
    if name == "relu":
        version = r.expect("a relu", ("relu_", "relu_2"))
        if version == "relu_2" and r.boolean():
            raise Unsupported("a relu disabled (fused into its convolution)")
        return {"op": "relu"}
    if name in ("max_pool", "avg_pool", "avg_pool_everything"):
        tag = "max_pool" if name == "max_pool" else "avg_pool"
        r.expect("a pooling layer", (tag + "_", tag + "_2"))
        nr, nc, sy, sx, py, px = (r.integer() for _ in range(6))
        if name == "avg_pool_everything":
            if (nr, nc) != (0, 0):
                raise Unsupported(f"a global pool declared {nr}x{nc}")
        elif (nr, nc, sy, sx) != (kind[1], kind[1], kind[2], kind[2]):
            raise Unsupported(f"a pool {nr}x{nc}/{sy}, declared {kind[1]}x{kind[1]}/{kind[2]}")
        return {"op": name, "k": nr, "stride": sy, "pad": (py, px)}
    if name == "add_prev":
        r.expect("an add_prev", ("add_prev_",))
        return {"op": "add_prev", "tag": kind[1]}
    if name == "fc":
        version = r.expect("a fully connected layer", ("fc_2", "fc_3"))
        outputs, inputs = r.integer(), r.integer()
        params = r.tensor()
        wshape, bshape = r.alias_tensor(), r.alias_tensor()
        bias_mode = r.integer()
        _multipliers(r, 4)
        if version == "fc_3":
            r.boolean()  # use_bias, which a no-bias layer's mode already says
        if bias_mode != 1 or outputs != kind[1]:
            raise Unsupported(f"a fully connected layer with {outputs} outputs, bias mode {bias_mode}")
        if int(np.prod(wshape)) != inputs * outputs or params.size != inputs * outputs:
            raise Unsupported(f"a fully connected layer's weights {wshape} for {inputs}x{outputs}")
        w = params.reshape(-1)[:int(np.prod(wshape))].reshape(inputs, outputs)
        return {"op": "fc", "w": w}
    raise Unsupported(f"no reader for {name}")


def _add_layer_trailer(r: Reader, version: int, bottom: bool) -> None:
    """What an add_layer writes after its details: three flags and cached tensors."""
    for _ in range(3):
        r.boolean()
    r.tensor()  # x_grad
    r.tensor()  # cached_output
    if bottom:
        r.tensor()  # grad_final
        if version == 3:
            r.integer()  # _sample_expansion_factor
    elif version == 2:
        r.tensor()  # params_grad


def read(path: str) -> tuple[list[tuple], list[dict], list[float]]:
    """The chain, each layer's details in chain order (None for tags and skips), and the input
    layer's per-channel means (red, green, blue)."""
    r = Reader(open(path, "rb").read())
    if r.integer() != 1:
        raise Unsupported("not a dlib loss layer (version)")
    loss = r.expect("the loss", ("loss_metric_", "loss_metric_2"))
    if loss == "loss_metric_2":
        r.real(), r.real()  # margin, distance threshold: training only
    wrappers = chain()
    versions = []
    for w in wrappers:
        v = r.integer()
        allowed = (1,) if w[0] in ("tag", "skip") else (1, 2)
        if w[0] not in ("tag", "skip") and w is wrappers[-1]:
            allowed = (2, 3)
        if v not in allowed:
            raise Unsupported(f"{w[0]} at depth {len(versions)}: version {v}")
        versions.append(v)
    r.expect("the input layer", ("input_rgb_image_sized",))
    means = [r.real(), r.real(), r.real()]
    nr, nc = r.integer(), r.integer()
    if (nr, nc) != (CHIP, CHIP):
        raise Unsupported(f"an input of {nr}x{nc}, not {CHIP}x{CHIP}")
    details: list[dict | None] = [None] * len(wrappers)
    for i in range(len(wrappers) - 1, -1, -1):
        w = wrappers[i]
        if w[0] in ("tag", "skip"):
            continue
        details[i] = read_layer(r, w)
        _add_layer_trailer(r, versions[i], bottom=i == len(wrappers) - 1)
    if r.at != len(r.data):
        raise Unsupported(f"{len(r.data) - r.at} bytes left after the network")
    return wrappers, details, means


# --- the ONNX graph ----------------------------------------------------------------------------


def convert(dat_path: str, opset: int, ir_version: int):
    """The ONNX ModelProto: input `input` [1,3,150,150] (dlib's normalised chip), output
    `descriptor` [1,128]."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    wrappers, details, _ = read(dat_path)
    nodes, inits = [], []
    counter = [0]

    def name(prefix: str) -> str:
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def const(prefix: str, value: np.ndarray) -> str:
        n = name(prefix)
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), n))
        return n

    def node(op: str, inputs: list[str], **attrs) -> str:
        out = name(op.lower())
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    # Shapes are static (one 150x150 chip), so the padding add_prev needs is known here.
    x, shape = "input", (3, CHIP, CHIP)
    tags: dict[int, tuple[str, tuple]] = {}
    pending_conv = None  # a convolution whose following affine may fold into it

    def emit_conv(c: dict) -> None:
        nonlocal x, shape
        w, b = c["w"], c["b"]
        py, px = c["pad"]
        k, s = w.shape[2], c["stride"]
        x = node("Conv", [x, const("w", w), const("b", b)], kernel_shape=[k, k], strides=[s, s],
                 pads=[py, px, py, px])
        shape = (w.shape[0], (shape[1] + 2 * py - k) // s + 1, (shape[2] + 2 * px - k) // s + 1)

    for i in range(len(wrappers) - 1, -1, -1):
        w, d = wrappers[i], details[i]
        if pending_conv is not None and (d is None or d["op"] != "affine"):
            emit_conv(pending_conv)
            pending_conv = None
        if w[0] == "tag":
            tags[w[1]] = (x, shape)
        elif w[0] == "skip":
            x, shape = tags[w[1]]
        elif d["op"] == "con":
            pending_conv = d
        elif d["op"] == "affine":
            if pending_conv is None:
                raise Unsupported("an affine layer not after a convolution")
            g = d["gamma"]
            if g.size != pending_conv["w"].shape[0]:
                raise Unsupported(f"an affine layer of {g.size} channels after {pending_conv['w'].shape[0]} filters")
            pending_conv = {**pending_conv, "w": pending_conv["w"] * g[:, None, None, None],
                            "b": pending_conv["b"] * g + d["beta"]}
            emit_conv(pending_conv)
            pending_conv = None
        elif d["op"] == "relu":
            x = node("Relu", [x])
        elif d["op"] in ("max_pool", "avg_pool"):
            k, s = d["k"], d["stride"]
            py, px = d["pad"]
            if (py, px) != (0, 0):
                raise Unsupported("a padded pool (dlib divides by the window's inside)")
            x = node("MaxPool" if d["op"] == "max_pool" else "AveragePool", [x],
                     kernel_shape=[k, k], strides=[s, s])
            shape = (shape[0], (shape[1] - k) // s + 1, (shape[2] - k) // s + 1)
        elif d["op"] == "avg_pool_everything":
            x = node("GlobalAveragePool", [x])
            shape = (shape[0], 1, 1)
        elif d["op"] == "add_prev":
            other, oshape = tags[d["tag"]]
            full = tuple(max(a, b) for a, b in zip(shape, oshape))

            def padded(t: str, s: tuple) -> str:
                if s == full:
                    return t
                ends = [0, full[0] - s[0], full[1] - s[1], full[2] - s[2]]
                return node("Pad", [t, const("pads", np.array([0, 0, 0, 0] + ends, np.int64))])

            x = node("Add", [padded(x, shape), padded(other, oshape)])
            shape = full
        elif d["op"] == "fc":
            flat = node("Flatten", [x], axis=1)
            nodes.append(helper.make_node("MatMul", [flat, const("fc", d["w"])], ["descriptor"],
                                          name="descriptor"))
            x = "descriptor"
    if x != "descriptor":
        raise Unsupported("the network does not end in its descriptor")
    graph = helper.make_graph(
        nodes, "dlib_face_recognition_resnet_model_v1",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, CHIP, CHIP])],
        [helper.make_tensor_value_info("descriptor", TensorProto.FLOAT, [1, DESCRIPTOR])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="darkroom tools/release/dlib_onnx.py")
    model.ir_version = ir_version
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    import sys

    wrappers, details, m = read(sys.argv[1])
    layers = [d for d in details if d]
    print(f"{len(wrappers)} wrappers, {len(layers)} layers, means {m}")
    counts: dict[str, int] = {}
    for d in layers:
        counts[d["op"]] = counts.get(d["op"], 0) + 1
    print(counts)

