"""A TFLite flatbuffer as an ONNX graph, for the few operators DarkRoom's released TFLite models
use (MediaPipe's face mesh and iris landmark models): ADD, CONV_2D, DEPTHWISE_CONV_2D,
DEQUANTIZE (of a constant), MAX_POOL_2D, PAD, PRELU, RESHAPE. Anything else is refused by name,
never approximated.

Why not tflite2onnx 0.4.1: it stops on face_landmark.tflite's float16 weights (each behind a
DEQUANTIZE) with an IndexError in its layout pass. This converter folds those weights into f32
initialisers, runs every 4-D activation in NCHW (ONNX's Conv layout) and keeps the TFLite
graph's own boundary: the same input and output names, shapes (NHWC) and order, so the gate
feeds both the same tensor and compares outputs by name.

The bytes depend only on the TFLite file and this script: nodes and initialisers are written in
the graph's operator order, under names made from the TFLite tensor indices.
"""
from __future__ import annotations

import numpy as np

SUPPORTED = ("ADD", "CONV_2D", "DEPTHWISE_CONV_2D", "DEQUANTIZE", "MAX_POOL_2D", "PAD", "PRELU",
             "RESHAPE")
NCHW_FROM_NHWC = [0, 3, 1, 2]
NHWC_FROM_NCHW = [0, 2, 3, 1]


class Unsupported(Exception):
    """The TFLite graph uses something this converter does not carry over."""


def _op_names(tflite) -> dict[int, str]:
    return {v: k for k, v in vars(tflite.BuiltinOperator).items() if isinstance(v, int)}


def _dtype(tflite, code: int):
    table = {tflite.TensorType.FLOAT32: np.float32, tflite.TensorType.FLOAT16: np.float16,
             tflite.TensorType.INT32: np.int32, tflite.TensorType.INT64: np.int64}
    if code not in table:
        raise Unsupported(f"tensor type {code}")
    return table[code]


def _same_pads(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """TensorFlow's SAME: the output is ceil(size / stride), the extra row or column after."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def convert(tflite_path: str, opset: int, ir_version: int):
    """The ONNX ModelProto for a TFLite file (one subgraph, f32 boundary)."""
    import onnx
    import tflite
    from onnx import TensorProto, helper, numpy_helper

    data = open(tflite_path, "rb").read()
    model = tflite.Model.GetRootAsModel(data, 0)
    if model.SubgraphsLength() != 1:
        raise Unsupported(f"{model.SubgraphsLength()} subgraphs")
    g = model.Subgraphs(0)
    names = _op_names(tflite)

    def tensor(i: int):
        return g.Tensors(i)

    def shape(i: int) -> list[int]:
        return [int(d) for d in tensor(i).ShapeAsNumpy()]

    def constant(i: int):
        t = tensor(i)
        raw = model.Buffers(t.Buffer()).DataAsNumpy()
        if isinstance(raw, int) or raw.size == 0:
            return None
        return np.frombuffer(raw.tobytes(), dtype=_dtype(tflite, t.Type())).reshape(shape(i))

    nodes, inits = [], []
    # Every activation: its ONNX name and whether it is held NCHW (4-D) or as TFLite has it.
    held: dict[int, tuple[str, bool]] = {}
    consts: dict[int, np.ndarray] = {}

    def const_name(arr: np.ndarray, name: str) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def act(i: int) -> tuple[str, bool]:
        if i not in held:
            raise Unsupported(f"tensor {tensor(i).Name().decode()} is read before it is made")
        return held[i]

    def fused(out_name: str, code: int, idx: int) -> str:
        """Apply a fused activation; returns the name the op itself must write."""
        if code == tflite.ActivationFunctionType.NONE:
            return out_name
        pre = f"t{idx}_pre"
        if code == tflite.ActivationFunctionType.RELU:
            nodes.append(helper.make_node("Relu", [pre], [out_name], name=f"n{idx}_relu"))
        elif code == tflite.ActivationFunctionType.RELU6:
            lo = const_name(np.array(0, np.float32), f"c{idx}_lo")
            hi = const_name(np.array(6, np.float32), f"c{idx}_hi")
            nodes.append(helper.make_node("Clip", [pre, lo, hi], [out_name], name=f"n{idx}_relu6"))
        else:
            raise Unsupported(f"fused activation {code}")
        return pre

    graph_inputs = []
    for k in range(g.InputsLength()):
        i = g.Inputs(k)
        t = tensor(i)
        if t.Type() != tflite.TensorType.FLOAT32:
            raise Unsupported("an input that is not f32")
        name = t.Name().decode()
        graph_inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape(i)))
        if len(shape(i)) == 4:
            nodes.append(helper.make_node("Transpose", [name], [f"t{i}"], perm=NCHW_FROM_NHWC,
                                          name=f"in{i}_nchw"))
            held[i] = (f"t{i}", True)
        else:
            held[i] = (name, False)

    for n in range(g.OperatorsLength()):
        op = g.Operators(n)
        oc = model.OperatorCodes(op.OpcodeIndex())
        kind = names.get(max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode()), "CUSTOM")
        if kind not in SUPPORTED:
            raise Unsupported(f"operator {kind} ({(oc.CustomCode() or b'').decode()})")
        ins = [op.Inputs(k) for k in range(op.InputsLength())]
        out = op.Outputs(0)
        out_name = f"t{out}"
        opts = op.BuiltinOptions()

        def options(cls):
            o = cls()
            o.Init(opts.Bytes, opts.Pos)
            return o

        if kind == "DEQUANTIZE":
            value = constant(ins[0])
            if value is None:
                raise Unsupported("DEQUANTIZE of an activation")
            if tensor(ins[0]).Type() != tflite.TensorType.FLOAT16:
                raise Unsupported("DEQUANTIZE of an integer tensor")
            consts[out] = value.astype(np.float32)
            continue

        def weight(i: int) -> np.ndarray:
            if i in consts:
                return consts[i]
            value = constant(i)
            if value is None:
                raise Unsupported(f"{kind} weight {tensor(i).Name().decode()} is not a constant")
            return value.astype(np.float32) if value.dtype == np.float16 else value

        if kind in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            x, nchw = act(ins[0])
            if not nchw:
                raise Unsupported(f"{kind} on a tensor that is not 4-D")
            w = weight(ins[1])
            _, h, wd, cin = shape(ins[0])
            if kind == "CONV_2D":
                o = options(tflite.Conv2DOptions)
                onnx_w = w.transpose(0, 3, 1, 2)  # OHWI -> OIHW
                group = 1
            else:
                o = options(tflite.DepthwiseConv2DOptions)
                onnx_w = w.transpose(3, 0, 1, 2)  # 1HW(C*M) -> (C*M)1HW
                group = cin
            kh, kw = w.shape[1], w.shape[2]
            dh, dw = o.DilationHFactor() or 1, o.DilationWFactor() or 1
            sh, sw = o.StrideH(), o.StrideW()
            if o.Padding() == tflite.Padding.SAME:
                top, bottom = _same_pads(h, kh, sh, dh)
                left, right = _same_pads(wd, kw, sw, dw)
            else:
                top = bottom = left = right = 0
            args = [x, const_name(onnx_w, f"w{n}")]
            if len(ins) > 2 and ins[2] >= 0:
                args.append(const_name(weight(ins[2]).astype(np.float32), f"b{n}"))
            target = fused(out_name, o.FusedActivationFunction(), n)
            nodes.append(helper.make_node(
                "Conv", args, [target], name=f"n{n}_conv", group=group, kernel_shape=[kh, kw],
                strides=[sh, sw], dilations=[dh, dw], pads=[top, left, bottom, right]))
            held[out] = (out_name, True)
        elif kind == "MAX_POOL_2D":
            x, nchw = act(ins[0])
            o = options(tflite.Pool2DOptions)
            _, h, wd, _ = shape(ins[0])
            fh, fw, sh, sw = o.FilterHeight(), o.FilterWidth(), o.StrideH(), o.StrideW()
            if o.Padding() == tflite.Padding.SAME:
                top, bottom = _same_pads(h, fh, sh, 1)
                left, right = _same_pads(wd, fw, sw, 1)
            else:
                top = bottom = left = right = 0
            target = fused(out_name, o.FusedActivationFunction(), n)
            nodes.append(helper.make_node(
                "MaxPool", [x], [target], name=f"n{n}_pool", kernel_shape=[fh, fw],
                strides=[sh, sw], pads=[top, left, bottom, right]))
            held[out] = (out_name, nchw)
        elif kind == "ADD":
            (a, an), (b, bn) = act(ins[0]), act(ins[1])
            if an != bn:
                raise Unsupported("ADD of tensors in different layouts")
            o = options(tflite.AddOptions)
            target = fused(out_name, o.FusedActivationFunction(), n)
            nodes.append(helper.make_node("Add", [a, b], [target], name=f"n{n}_add"))
            held[out] = (out_name, an)
        elif kind == "PAD":
            x, nchw = act(ins[0])
            p = weight(ins[1]).astype(np.int64)
            if nchw:
                p = p[NCHW_FROM_NHWC]
            pads = np.concatenate([p[:, 0], p[:, 1]])
            nodes.append(helper.make_node("Pad", [x, const_name(pads, f"p{n}")], [out_name],
                                          name=f"n{n}_pad", mode="constant"))
            held[out] = (out_name, nchw)
        elif kind == "PRELU":
            x, nchw = act(ins[0])
            alpha = weight(ins[1])
            if nchw:
                c = shape(ins[0])[3]
                if alpha.size == c:
                    alpha = alpha.reshape(c, 1, 1)
                elif alpha.ndim == 3:
                    alpha = alpha.transpose(2, 0, 1)
                else:
                    raise Unsupported(f"PRELU alpha of shape {alpha.shape}")
            nodes.append(helper.make_node("PRelu", [x, const_name(alpha, f"a{n}")], [out_name],
                                          name=f"n{n}_prelu"))
            held[out] = (out_name, nchw)
        elif kind == "RESHAPE":
            x, nchw = act(ins[0])
            if nchw:
                nodes.append(helper.make_node("Transpose", [x], [f"t{out}_nhwc"], perm=NHWC_FROM_NCHW,
                                              name=f"n{n}_nhwc"))
                x = f"t{out}_nhwc"
            new = np.array(shape(out), np.int64)
            nodes.append(helper.make_node("Reshape", [x, const_name(new, f"s{n}")], [out_name],
                                          name=f"n{n}_reshape"))
            held[out] = (out_name, False)

    graph_outputs = []
    for k in range(g.OutputsLength()):
        i = g.Outputs(k)
        name = tensor(i).Name().decode()
        x, nchw = act(i)
        if nchw:
            nodes.append(helper.make_node("Transpose", [x], [name], perm=NHWC_FROM_NCHW, name=f"out{i}_nhwc"))
        else:
            nodes.append(helper.make_node("Identity", [x], [name], name=f"out{i}"))
        graph_outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape(i)))

    graph = helper.make_graph(nodes, "darkroom_tflite", graph_inputs, graph_outputs, inits)
    onnx_model = helper.make_model(graph, producer_name="darkroom-release-tflite",
                                   opset_imports=[helper.make_opsetid("", opset)])
    onnx_model.ir_version = ir_version
    onnx.checker.check_model(onnx_model)
    return onnx_model
