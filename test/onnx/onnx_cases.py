#!/usr/bin/python3
"""Small ONNX models for dlc's lit tests, with numpy reference outputs.

Models are built at test time with onnx.helper (Debian's onnx 1.12, which
has no onnx.reference: the expected outputs are numpy formulas written here).

  onnx_cases.py gen OUTDIR CASE...          write OUTDIR/CASE.onnx (a tensor
                                            of bad_tensors(): CASE.pb)
  onnx_cases.py run --dlc PATH OUTDIR GROUP run every case of GROUP with
                                            `dlc run --device=sim --check`
                                            and compare with numpy
  onnx_cases.py inputs OUTDIR CASE          write CASE's inputs as .npy and .pb
  onnx_cases.py list                        groups and their cases
"""
import argparse
import math
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
RNG = np.random.default_rng(1234)
CASES = {}


def case(group):
    def register(fn):
        CASES[fn.__name__] = (group, fn)
        return fn
    return register


def rand(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape).astype(np.float32)


def vi(name, arr_or_shape, elem=TensorProto.FLOAT):
    if isinstance(arr_or_shape, np.ndarray):
        elem = helper.np_dtype_to_tensor_dtype(arr_or_shape.dtype) \
            if hasattr(helper, "np_dtype_to_tensor_dtype") else \
            onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[arr_or_shape.dtype]
        shape = arr_or_shape.shape
    else:
        shape = arr_or_shape
    return helper.make_tensor_value_info(name, elem, list(shape))


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def model(nodes, inputs, outputs, inits=(), opset=OPSET):
    """inputs: {name: array}; outputs: {name: expected array}."""
    graph = helper.make_graph(
        nodes, "test",
        [vi(n, a) for n, a in inputs.items()],
        [vi(n, a) for n, a in outputs.items()],
        initializer=list(inits))
    m = helper.make_model(graph,
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m, inputs, outputs


def node(op, ins, outs, name=None, **attrs):
    return helper.make_node(op, ins, outs, name=name or outs[0], **attrs)


# ---------------------------------------------------------------------------
# numpy references
# ---------------------------------------------------------------------------

def np_conv(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0),
            dil=(1, 1), group=1):
    n, c, h, wd = x.shape
    oc, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64),
                ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (h + pads[0] + pads[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd + pads[1] + pads[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((n, oc, oh, ow))
    ocg = oc // group
    for o in range(oc):
        g = o // ocg
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * strides[0]:i * strides[0] + dil[0] * (kh - 1) + 1:dil[0],
                           j * strides[1]:j * strides[1] + dil[1] * (kw - 1) + 1:dil[1]]
                y[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def np_conv_transpose(x, w, strides, pads, out_pad=(0, 0)):
    n, c, h, wd = x.shape
    _, oc, kh, kw = w.shape
    fh = strides[0] * (h - 1) + out_pad[0] + kh
    fw = strides[1] * (wd - 1) + out_pad[1] + kw
    full = np.zeros((n, oc, fh, fw))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * strides[0]:i * strides[0] + kh,
                 j * strides[1]:j * strides[1] + kw] += np.einsum(
                     "nc,cokl->nokl", x[:, :, i, j], w)
    return full[:, :, pads[0]:fh - pads[2], pads[1]:fw - pads[3]].astype(np.float32)


def np_pool(x, k, s, pads, kind, oh, ow, include_pad=False):
    n, c, h, w = x.shape
    y = np.zeros((n, c, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - pads[0], j * s[1] - pads[1]
            h1, w1 = h0 + k[0], w0 + k[1]
            hs, ws_ = max(h0, 0), max(w0, 0)
            he, we = min(h1, h), min(w1, w)
            win = x[:, :, hs:he, ws_:we]
            if kind == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                if include_pad:
                    cnt = (min(h1, h + pads[2]) - h0) * (min(w1, w + pads[3]) - w0)
                else:
                    cnt = (he - hs) * (we - ws_)
                y[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return y.astype(np.float32)


def np_erf(x):
    return np.vectorize(math.erf)(x.astype(np.float64)).astype(np.float32)


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

@case("elementwise")
def ew_arith():
    a, b, c = rand(2, 3, 4), rand(4), rand(3, 1)
    p = rand(2, 3, 4, lo=0.5, hi=2.0)
    nodes = [node("Add", ["a", "b"], ["s"]), node("Mul", ["s", "c"], ["m"]),
             node("Sub", ["m", "a"], ["d"]), node("Div", ["d", "p"], ["q"]),
             node("Pow", ["p", "c"], ["pw"]), node("Max", ["q", "b", "c"], ["mx"]),
             node("Min", ["a", "b"], ["mn"]), node("Mean", ["a", "p"], ["mean"]),
             node("Sum", ["a", "b", "c"], ["sum"])]
    s = a + b
    m = s * c
    q = (m - a) / p
    return model(nodes, {"a": a, "b": b, "c": c, "p": p},
                 {"q": q, "pw": np.power(p, c), "mx": np.maximum(np.maximum(q, b), c),
                  "mn": np.minimum(a, b), "mean": (a + p) / 2, "sum": a + b + c})


@case("elementwise")
def ew_unary():
    x = rand(3, 5, lo=0.1, hi=3.0)
    y = rand(3, 5)
    nodes = [node("Sqrt", ["x"], ["sq"]), node("Exp", ["y"], ["ex"]),
             node("Log", ["x"], ["lg"]), node("Neg", ["y"], ["ng"]),
             node("Abs", ["y"], ["ab"]), node("Reciprocal", ["x"], ["rc"]),
             node("Pow", ["y", "two"], ["p2"])]
    return model(nodes, {"x": x, "y": y},
                 {"sq": np.sqrt(x), "ex": np.exp(y), "lg": np.log(x), "ng": -y,
                  "ab": np.abs(y), "rc": 1 / x, "p2": y * y},
                 [init("two", np.array(2.0, np.float32))])


@case("elementwise")
def ew_compare():
    a, b = rand(2, 4), rand(4)
    nodes = [node("Less", ["a", "b"], ["lt"]), node("Greater", ["a", "b"], ["gt"]),
             node("Equal", ["a", "a"], ["eq"]), node("Not", ["lt"], ["nlt"]),
             node("Where", ["lt", "a", "b"], ["w"]),
             node("Cast", ["lt"], ["ltf"], to=TensorProto.FLOAT)]
    return model(nodes, {"a": a, "b": b},
                 {"lt": a < b, "gt": a > b, "eq": np.ones((2, 4), bool),
                  "nlt": ~(a < b), "w": np.where(a < b, a, b),
                  "ltf": (a < b).astype(np.float32)})


@case("activations")
def act_basic():
    x = rand(2, 3, 8, lo=-3, hi=3)
    nodes = [node("Relu", ["x"], ["relu"]),
             node("LeakyRelu", ["x"], ["leaky"], alpha=0.1),
             node("Clip", ["x", "lo", "hi"], ["clip"]),
             node("Clip", ["x", "", "hi"], ["cliphi"]),
             node("Sigmoid", ["x"], ["sig"]), node("Tanh", ["x"], ["tanh"]),
             node("Erf", ["x"], ["erf"]),
             node("HardSigmoid", ["x"], ["hsig"], alpha=0.25, beta=0.4),
             node("HardSwish", ["x"], ["hswish"]),
             node("Softplus", ["x"], ["softplus"]),
             node("Elu", ["x"], ["elu"], alpha=0.7),
             node("PRelu", ["x", "slope"], ["prelu"])]
    slope = rand(8)
    return model(nodes, {"x": x},
                 {"relu": np.maximum(x, 0), "leaky": np.where(x < 0, 0.1 * x, x),
                  "clip": np.clip(x, -1.0, 1.5), "cliphi": np.minimum(x, 1.5),
                  "sig": 1 / (1 + np.exp(-x)), "tanh": np.tanh(x), "erf": np_erf(x),
                  "hsig": np.clip(0.25 * x + 0.4, 0, 1),
                  "hswish": x * np.clip(x / 6 + 0.5, 0, 1),
                  "softplus": np.log1p(np.exp(x)),
                  "elu": np.where(x < 0, 0.7 * (np.exp(x) - 1), x),
                  "prelu": np.where(x < 0, x * slope, x)},
                 [init("lo", np.array(-1.0, np.float32)),
                  init("hi", np.array(1.5, np.float32)), init("slope", slope)])


@case("activations")
def act_gelu_erf():
    # The Erf-based GELU pattern PyTorch exports before opset 20.
    x = rand(4, 16, lo=-3, hi=3)
    nodes = [node("Div", ["x", "sqrt2"], ["d"]), node("Erf", ["d"], ["e"]),
             node("Add", ["e", "one"], ["a"]), node("Mul", ["x", "a"], ["m"]),
             node("Mul", ["m", "half"], ["y"])]
    y = 0.5 * x * (1 + np_erf(x / np.float32(math.sqrt(2))))
    return model(nodes, {"x": x}, {"y": y},
                 [init("sqrt2", np.array(math.sqrt(2), np.float32)),
                  init("one", np.array(1.0, np.float32)),
                  init("half", np.array(0.5, np.float32))])


@case("matmul")
def mm_matmul():
    a, b = rand(2, 3, 4, 5), rand(5, 6)
    v, u = rand(5), rand(3, 5, 2)
    nodes = [node("MatMul", ["a", "b"], ["ab"]),
             node("MatMul", ["v", "b"], ["vb"]),
             node("MatMul", ["u", "v2"], ["uv"]),
             node("MatMul", ["a", "w"], ["aw"])]
    w = rand(5, 7)
    v2 = rand(2)
    return model(nodes, {"a": a, "b": b, "v": v, "u": u, "v2": v2},
                 {"ab": a @ b, "vb": v @ b, "uv": u @ v2, "aw": a @ w},
                 [init("w", w)])


@case("matmul")
def mm_einsum():
    # Einsum as models write it: products with batch, row, column and
    # contracted indices in any order, an implicit output, broadcasting
    # under an ellipsis, outer products, sums of one operand's indices.
    a, b = rand(3, 4), rand(4, 5)
    q, k = rand(2, 6, 3, 4), rand(2, 7, 3, 4)
    e1, e2 = rand(2, 1, 3, 4), rand(5, 4, 2)
    u, w = rand(3), rand(5)
    c = rand(2, 3, 4)
    eqs = [("ab", "ij,jk->ik", ["a", "b"], a @ b),
           ("attn", "bihd,bjhd->bhij", ["q", "k"], np.einsum("bihd,bjhd->bhij", q, k)),
           ("implicit", "ij,kj", ["a", "a"], np.einsum("ij,kj", a, a)),
           ("ellipsis", "...ij,...jk->...ik", ["e1", "e2"],
            np.einsum("...ij,...jk->...ik", e1, e2)),
           ("outer", "i,j->ij", ["u", "w"], np.outer(u, w)),
           ("rowdot", "ij,ij->i", ["a", "a"], np.einsum("ij,ij->i", a, a)),
           ("sumfirst", "ij,jk->k", ["a", "b"], np.einsum("ij,jk->k", a, b)),
           ("transpose", "bij->jbi", ["c"], np.einsum("bij->jbi", c)),
           ("reduce", " b i j -> j ", ["c"], np.einsum("bij->j", c))]
    nodes = [node("Einsum", ins, [name], equation=eq) for name, eq, ins, _ in eqs]
    return model(nodes, {"a": a, "b": b, "q": q, "k": k, "e1": e1, "e2": e2,
                         "u": u, "w": w, "c": c},
                 {name: want.astype(np.float32) for name, _, _, want in eqs})


@case("matmul")
def mm_gemm():
    a, b, at = rand(4, 6), rand(6, 3), rand(6, 4)
    bt = rand(3, 6)
    c1, c2 = rand(3), rand(4, 1)
    nodes = [node("Gemm", ["a", "b", "c1"], ["y1"]),
             node("Gemm", ["at", "bt", "c2"], ["y2"], transA=1, transB=1,
                  alpha=0.5, beta=2.0),
             node("Gemm", ["a", "wt"], ["y3"], transB=1)]
    wt = rand(5, 6)
    return model(nodes, {"a": a, "b": b, "at": at, "bt": bt},
                 {"y1": a @ b + c1, "y2": 0.5 * (at.T @ bt.T) + 2.0 * c2,
                  "y3": a @ wt.T},
                 [init("c1", c1), init("c2", c2), init("wt", wt)])


@case("shape")
def shape_reshape():
    x = rand(2, 3, 4)
    nodes = [node("Reshape", ["x", "s1"], ["r1"]),
             node("Reshape", ["x", "s2"], ["r2"]),
             node("Flatten", ["x"], ["f"], axis=2),
             node("Transpose", ["x"], ["t"], perm=[2, 0, 1]),
             node("Unsqueeze", ["x", "ax"], ["u"]),
             node("Squeeze", ["u", "ax"], ["sq"]),
             node("Concat", ["x", "x"], ["c"], axis=-1),
             node("Identity", ["x"], ["id"]),
             node("Dropout", ["x"], ["dr"])]
    return model(nodes, {"x": x},
                 {"r1": x.reshape(2, 12), "r2": x.reshape(6, 4),
                  "f": x.reshape(6, 4), "t": x.transpose(2, 0, 1),
                  "u": x.reshape(2, 1, 3, 4), "sq": x,
                  "c": np.concatenate([x, x], -1), "id": x, "dr": x},
                 [init("s1", np.array([0, -1], np.int64)),
                  init("s2", np.array([-1, 4], np.int64)),
                  init("ax", np.array([1], np.int64))])


@case("shape")
def shape_folding():
    # Shape arithmetic as exporters write it: folded while importing.
    x = rand(2, 3, 4)
    nodes = [node("Shape", ["x"], ["shp"]),
             node("Gather", ["shp", "zero"], ["n"], axis=0),
             node("Unsqueeze", ["n", "ax0"], ["n1"]),
             node("Concat", ["n1", "minus1"], ["newshape"], axis=0),
             node("Reshape", ["x", "newshape"], ["y"]),
             node("ConstantOfShape", ["shp"], ["ones"],
                  value=numpy_helper.from_array(np.array([1.0], np.float32))),
             node("Add", ["x", "ones"], ["xp1"]),
             node("Range", ["r0", "r1", "r2"], ["rng"]),
             node("Cast", ["rng"], ["rngf"], to=TensorProto.FLOAT),
             node("Add", ["x", "rngf"], ["xr"]),
             node("Constant", [], ["k"], value_float=3.0),
             node("Mul", ["x", "k"], ["x3"])]
    return model(nodes, {"x": x},
                 {"y": x.reshape(2, 12), "xp1": x + 1,
                  "xr": x + np.arange(0, 4, dtype=np.float32), "x3": 3 * x},
                 [init("zero", np.array(0, np.int64)),
                  init("ax0", np.array([0], np.int64)),
                  init("minus1", np.array([-1], np.int64)),
                  init("r0", np.array(0, np.int64)), init("r1", np.array(4, np.int64)),
                  init("r2", np.array(1, np.int64))])


@case("shape")
def shape_window_mask():
    # A shifted-window model's constants (torchvision's Swin): the padding
    # to a multiple of the window from Mod of the shape, pads through a
    # Transpose, and an attention mask written by ScatterND; all folded.
    x = rand(1, 5, 6)
    xp = np.pad(x, ((0, 0), (0, 0), (0, 1)))
    mask = np.zeros((5, 7), np.float32)
    mask[1] = 2
    mask[3] = 2
    mask[1, 2] = 5
    nodes = [node("Shape", ["x"], ["shp"]),
             node("Gather", ["shp", "two"], ["w"], axis=0),
             node("Mod", ["w", "seven"], ["wm"]),
             node("Sub", ["seven", "wm"], ["d"]),
             node("Mod", ["d", "seven"], ["pr"]),
             node("Unsqueeze", ["pr", "ax0"], ["pr1"]),
             node("Concat", ["zeros5", "pr1"], ["pcol"], axis=0),
             node("Reshape", ["pcol", "shape32"], ["p32"]),
             node("Transpose", ["p32"], ["p23"], perm=[1, 0]),
             node("Reshape", ["p23", "minus1"], ["pads"]),
             node("Pad", ["x", "pads"], ["xp"]),
             node("ConstantOfShape", ["mshape"], ["m0"],
                  value=numpy_helper.from_array(np.array([0.0], np.float32))),
             node("ScatterND", ["m0", "rows", "rowvals"], ["m1"]),
             node("ScatterND", ["m1", "elem", "elemval"], ["m2"]),
             node("Add", ["xp", "m2"], ["y"]),
             node("Mod", ["neg7", "three"], ["im"]),
             node("Cast", ["im"], ["imf"], to=TensorProto.FLOAT),
             node("Mod", ["negf", "twof"], ["fm"], fmod=1),
             node("Add", ["imf", "fm"], ["c"]),
             node("Add", ["x", "c"], ["z"])]
    # (The pads [0, 0, 0, 0, 0, 1] are built by columns and transposed.)
    return model(nodes, {"x": x},
                 {"y": xp + mask, "z": x + (2.0 - 1.5)},
                 [init("two", np.array(2, np.int64)),
                  init("seven", np.array(7, np.int64)),
                  init("ax0", np.array([0], np.int64)),
                  init("zeros5", np.zeros(5, np.int64)),
                  init("shape32", np.array([3, 2], np.int64)),
                  init("minus1", np.array([-1], np.int64)),
                  init("mshape", np.array([5, 7], np.int64)),
                  init("rows", np.array([[1], [3]], np.int64)),
                  init("rowvals", np.full((2, 7), 2.0, np.float32)),
                  init("elem", np.array([[1, 2]], np.int64)),
                  init("elemval", np.array([5.0], np.float32)),
                  init("neg7", np.array(-7, np.int64)),
                  init("three", np.array(3, np.int64)),
                  init("negf", np.array(-7.5, np.float32)),
                  init("twof", np.array(2.0, np.float32))])


@case("shape")
def shape_slice_split():
    x = rand(4, 6, 5)
    nodes = [node("Slice", ["x", "st", "en", "axes", "steps"], ["s1"]),
             node("Slice", ["x", "st2", "en2"], ["s2"]),
             node("Split", ["x", "split"], ["p0", "p1"], axis=1),
             node("Split", ["x"], ["q0", "q1"], axis=0),
             node("Expand", ["b", "eshape"], ["e"]),
             node("Tile", ["b", "reps"], ["t"]),
             node("Pad", ["x", "pads", "pval"], ["pd"]),
             node("Gather", ["x", "gi"], ["g"], axis=2),
             node("Gather", ["x", "gs"], ["gsc"], axis=1),
             node("Slice", ["x", "rst", "ren", "rax", "rsteps"], ["rev"])]
    b = rand(1, 5)
    return model(nodes, {"x": x, "b": b},
                 {"s1": x[1:4:2, :, -3:], "s2": x[-100:2, 1:100],
                  "p0": x[:, :2], "p1": x[:, 2:], "q0": x[:2], "q1": x[2:],
                  "e": np.broadcast_to(b, (3, 4, 5)).copy(), "t": np.tile(b, (2, 3)),
                  "pd": np.pad(x, ((0, 0), (1, 2), (0, 1)), constant_values=0.5),
                  "g": x[:, :, [4, 0, 1]], "gsc": x[:, -1],
                  "rev": x[::-1, 4:0:-2]},
                 [init("st", np.array([1, -3], np.int64)),
                  init("en", np.array([100, 9223372036854775807], np.int64)),
                  init("axes", np.array([0, 2], np.int64)),
                  init("steps", np.array([2, 1], np.int64)),
                  init("st2", np.array([-100, 1], np.int64)),
                  init("en2", np.array([2, 100], np.int64)),
                  init("split", np.array([2, 4], np.int64)),
                  init("eshape", np.array([3, 4, 1], np.int64)),
                  init("reps", np.array([2, 3], np.int64)),
                  init("pads", np.array([0, 1, 0, 0, 2, 1], np.int64)),
                  init("pval", np.array(0.5, np.float32)),
                  init("gi", np.array([4, 0, -4], np.int64)),
                  init("gs", np.array(-1, np.int64)),
                  init("rst", np.array([-1, 4], np.int64)),
                  init("ren", np.array([-100, 0], np.int64)),
                  init("rax", np.array([0, 1], np.int64)),
                  init("rsteps", np.array([-1, -2], np.int64))])


@case("gather")
def gather_embedding():
    table = rand(10, 8)
    ids = np.array([[1, 9, 3], [0, 0, 7]], np.int64)
    nodes = [node("Gather", ["table", "ids"], ["emb"], axis=0)]
    return model(nodes, {"ids": ids}, {"emb": table[ids]}, [init("table", table)])


@case("reduce")
def reduce_ops():
    x = rand(2, 3, 4, lo=0.1, hi=2)
    nodes = [node("ReduceMean", ["x"], ["mean"], axes=[1], keepdims=1),
             node("ReduceSum", ["x", "ax"], ["sum"], keepdims=0),
             node("ReduceMax", ["x"], ["max"], axes=[-1], keepdims=0),
             node("ReduceMin", ["x"], ["min"], axes=[0, 2]),
             node("ReduceL2", ["x"], ["l2"], axes=[2]),
             node("ReduceLogSumExp", ["x"], ["lse"], axes=[1]),
             node("ArgMax", ["x"], ["amax"], axis=1, keepdims=0)]
    return model(nodes, {"x": x},
                 {"mean": x.mean(1, keepdims=True), "sum": x.sum((0, 2)),
                  "max": x.max(-1), "min": x.min((0, 2), keepdims=True),
                  "l2": np.sqrt((x * x).sum(2, keepdims=True)),
                  "lse": np.log(np.exp(x).sum(1, keepdims=True)),
                  "amax": x.argmax(1).astype(np.int64)},
                 [init("ax", np.array([0, 2], np.int64))])


@case("reduce")
def reduce_softmax_layernorm():
    x = rand(2, 5, 8, lo=-3, hi=3)
    scale, bias = rand(8), rand(8)
    nodes = [node("Softmax", ["x"], ["sm"], axis=1),
             node("LogSoftmax", ["x"], ["lsm"]),
             node("LayerNormalization", ["x", "scale", "bias"], ["ln"],
                  axis=-1, epsilon=1e-5)]
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return model(nodes, {"x": x},
                 {"sm": np_softmax(x, 1), "lsm": np.log(np_softmax(x, -1)),
                  "ln": (x - mean) / np.sqrt(var + 1e-5) * scale + bias},
                 [init("scale", scale), init("bias", bias)])


@case("conv")
def conv_basic():
    x = rand(1, 4, 9, 9)
    w1, b1 = rand(6, 4, 3, 3), rand(6)
    w2 = rand(4, 2, 3, 3)
    w3 = rand(8, 4, 1, 1)
    nodes = [node("Conv", ["x", "w1", "b1"], ["y1"], pads=[1, 1, 1, 1],
                  strides=[2, 2]),
             node("Conv", ["x", "w2"], ["y2"], group=2, dilations=[2, 2],
                  pads=[2, 1, 2, 1]),
             node("Conv", ["x", "w3"], ["y3"], auto_pad="SAME_UPPER",
                  strides=[2, 2])]
    return model(nodes, {"x": x},
                 {"y1": np_conv(x, w1, b1, (2, 2), (1, 1, 1, 1)),
                  "y2": np_conv(x, w2, None, (1, 1), (2, 1, 2, 1), (2, 2), 2),
                  "y3": np_conv(x, w3, None, (2, 2), (0, 0, 0, 0))},
                 [init("w1", w1), init("b1", b1), init("w2", w2), init("w3", w3)])


@case("conv")
def conv_bn_relu():
    # Conv + BatchNormalization (folded into the weights) + Relu, the
    # building block of torchvision CNNs; weights become dense_resource.
    x = rand(1, 3, 8, 8)
    w, b = rand(8, 3, 3, 3), rand(8)
    gamma, beta = rand(8, lo=0.5, hi=1.5), rand(8)
    mean, var = rand(8), rand(8, lo=0.5, hi=2.0)
    nodes = [node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"],
                  ["bn"], epsilon=1e-3),
             node("Relu", ["bn"], ["y"])]
    c = np_conv(x, w, b, pads=(1, 1, 1, 1))
    bn = (c - mean.reshape(1, -1, 1, 1)) / np.sqrt(var.reshape(1, -1, 1, 1) + 1e-3) \
        * gamma.reshape(1, -1, 1, 1) + beta.reshape(1, -1, 1, 1)
    return model(nodes, {"x": x}, {"y": np.maximum(bn, 0)},
                 [init("w", w), init("b", b), init("gamma", gamma),
                  init("beta", beta), init("mean", mean), init("var", var)])


@case("conv")
def conv_1d_pool_1d():
    # 1-D Conv and MaxPool (ceil mode) run as 2-D ops over a height of 1.
    x, w, b = rand(2, 4, 10), rand(6, 2, 3), rand(6)
    nodes = [node("Conv", ["x", "w", "b"], ["y"], group=2, pads=[1, 0],
                  strides=[2]),
             node("MaxPool", ["y"], ["p"], kernel_shape=[2], strides=[2],
                  ceil_mode=1)]
    y = np_conv(x[:, :, None, :], w[:, :, None, :], b, (1, 2), (0, 1, 0, 0),
                (1, 1), 2)[:, :, 0]
    p = np.stack([y[..., 2 * i:2 * i + 2].max(-1) for i in range(3)], -1)
    return model(nodes, {"x": x}, {"y": y, "p": p},
                 [init("w", w), init("b", b)])


@case("conv")
def conv_transpose():
    x = rand(1, 4, 5, 5)
    w, b = rand(4, 3, 3, 3), rand(3)
    nodes = [node("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 2],
                  pads=[1, 1, 1, 1], output_padding=[1, 1])]
    y = np_conv_transpose(x, w, (2, 2), (1, 1, 1, 1), (1, 1)) + b.reshape(1, -1, 1, 1)
    return model(nodes, {"x": x}, {"y": y}, [init("w", w), init("b", b)])


@case("conv")
def conv_batchnorm_standalone():
    x = rand(2, 3, 4, 4)
    gamma, beta = rand(3), rand(3)
    mean, var = rand(3), rand(3, lo=0.5, hi=2.0)
    nodes = [node("BatchNormalization", ["x", "gamma", "beta", "mean", "var"],
                  ["y"])]
    r = lambda v: v.reshape(1, -1, 1, 1)
    y = (x - r(mean)) / np.sqrt(r(var) + 1e-5) * r(gamma) + r(beta)
    return model(nodes, {"x": x}, {"y": y},
                 [init("gamma", gamma), init("beta", beta), init("mean", mean),
                  init("var", var)])


@case("pool")
def pool_ops():
    x = rand(1, 3, 7, 7)
    nodes = [node("MaxPool", ["x"], ["mp"], kernel_shape=[3, 3], strides=[2, 2],
                  pads=[1, 1, 1, 1]),
             node("MaxPool", ["x"], ["mpc"], kernel_shape=[2, 2], strides=[2, 2],
                  ceil_mode=1),
             node("AveragePool", ["x"], ["ap"], kernel_shape=[3, 3],
                  strides=[2, 2], pads=[1, 1, 1, 1]),
             node("AveragePool", ["x"], ["api"], kernel_shape=[3, 3],
                  strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1),
             node("GlobalAveragePool", ["x"], ["gap"])]
    return model(nodes, {"x": x},
                 {"mp": np_pool(x, (3, 3), (2, 2), (1, 1, 1, 1), "max", 4, 4),
                  "mpc": np_pool(x, (2, 2), (2, 2), (0, 0, 0, 0), "max", 4, 4),
                  "ap": np_pool(x, (3, 3), (2, 2), (1, 1, 1, 1), "avg", 4, 4),
                  "api": np_pool(x, (3, 3), (2, 2), (1, 1, 1, 1), "avg", 4, 4, True),
                  "gap": x.mean((2, 3), keepdims=True)})


@case("resize")
def resize_ops():
    x = rand(1, 2, 3, 4)
    nodes = [node("Resize", ["x", "", "scales"], ["near"], mode="nearest",
                  coordinate_transformation_mode="asymmetric",
                  nearest_mode="floor"),
             node("Resize", ["x", "", "", "sizes"], ["lin"], mode="linear",
                  coordinate_transformation_mode="align_corners")]
    near = x.repeat(2, axis=2).repeat(2, axis=3)

    def align(n_in, n_out):
        c = np.arange(n_out) * (n_in - 1) / (n_out - 1)
        lo = np.floor(c).astype(int)
        hi = np.minimum(lo + 1, n_in - 1)
        return lo, hi, c - lo
    lo_h, hi_h, fh = align(3, 5)
    lo_w, hi_w, fw = align(4, 7)
    rows = x[:, :, lo_h] * (1 - fh)[:, None] + x[:, :, hi_h] * fh[:, None]
    lin = rows[..., lo_w] * (1 - fw) + rows[..., hi_w] * fw
    return model(nodes, {"x": x}, {"near": near, "lin": lin.astype(np.float32)},
                 [init("scales", np.array([1, 1, 2, 2], np.float32)),
                  init("sizes", np.array([1, 2, 5, 7], np.int64))])


@case("types")
def types_f16():
    # f16 end to end: weights, MatMul, Conv, Softmax and a Cast to f32.
    x = rand(2, 8).astype(np.float16)
    w = rand(8, 20).astype(np.float16)
    img = rand(1, 2, 5, 5).astype(np.float16)
    k = rand(3, 2, 3, 3).astype(np.float16)
    nodes = [node("MatMul", ["x", "w"], ["h"]), node("Relu", ["h"], ["r"]),
             node("Softmax", ["r"], ["sm"]),
             node("Cast", ["sm"], ["out_via_f16"], to=TensorProto.FLOAT),
             node("Conv", ["img", "k"], ["c"], pads=[1, 1, 1, 1])]
    h = np.maximum(x.astype(np.float32) @ w.astype(np.float32), 0)
    c = np_conv(img.astype(np.float32), k.astype(np.float32), pads=(1, 1, 1, 1))
    return model(nodes, {"x": x, "img": img},
                 {"out_via_f16": np_softmax(h, -1).astype(np.float32),
                  "c": c.astype(np.float16)},
                 [init("w", w), init("k", k)])


@case("types")
def types_int():
    # int64/int32/bool arithmetic, comparisons and casts (float -> int
    # truncates toward zero, as ONNX specifies).
    a = np.array([[3, -7, 12], [0, 5, -2]], np.int64)
    b = np.array([2, 3, -4], np.int64)
    f = np.array([[1.7, -1.7, 2.5], [-2.5, 0.4, -0.6]], np.float32)
    nodes = [node("Add", ["a", "b"], ["s"]), node("Mul", ["a", "b"], ["m"]),
             node("Greater", ["a", "b"], ["gt"]),
             node("Cast", ["f"], ["fi"], to=TensorProto.INT32),
             node("Cast", ["a"], ["af"], to=TensorProto.FLOAT),
             node("ReduceMax", ["a"], ["mx"], axes=[1], keepdims=0),
             node("Where", ["gt", "a", "b"], ["w"])]
    return model(nodes, {"a": a, "b": b, "f": f},
                 {"s": a + b, "m": a * b, "gt": a > b,
                  "fi": np.trunc(f).astype(np.int32), "af": a.astype(np.float32),
                  "mx": a.max(1), "w": np.where(a > b, a, b)})


@case("attention")
def attention_gqa():
    # Grouped-query attention as a Llama-style export writes it: 4 query
    # heads, keys and values of 2 heads, repeat_kv as Unsqueeze, Expand,
    # Reshape; K^T by Transpose, the scale by Div, Softmax.
    b, s, e, h, hkv, d = 2, 8, 32, 4, 2, 8
    x = rand(b, s, e)
    wq, wk, wv = rand(e, h * d), rand(e, hkv * d), rand(e, hkv * d)
    nodes = [node("MatMul", ["x", "wq"], ["q0"]),
             node("Reshape", ["q0", "qshape"], ["q1"]),
             node("Transpose", ["q1"], ["q"], perm=[0, 2, 1, 3])]
    for t in ("k", "v"):
        nodes += [node("MatMul", ["x", "w" + t], [t + "0"]),
                  node("Reshape", [t + "0", "kvshape"], [t + "1"]),
                  node("Transpose", [t + "1"], [t + "2"], perm=[0, 2, 1, 3]),
                  node("Unsqueeze", [t + "2", "axis2"], [t + "3"]),
                  node("Expand", [t + "3", "expanded"], [t + "4"]),
                  node("Reshape", [t + "4", "repeated"], [t])]
    nodes += [node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
              node("MatMul", ["q", "kt"], ["scores"]),
              node("Div", ["scores", "scale"], ["scaled"]),
              node("Softmax", ["scaled"], ["p"], axis=-1),
              node("MatMul", ["p", "v"], ["o"]),
              node("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3]),
              node("Reshape", ["ot", "outshape"], ["y"])]
    q = (x @ wq).reshape(b, s, h, d).transpose(0, 2, 1, 3)
    k = (x @ wk).reshape(b, s, hkv, d).transpose(0, 2, 1, 3)
    v = (x @ wv).reshape(b, s, hkv, d).transpose(0, 2, 1, 3)
    k = np.repeat(k, h // hkv, axis=1)
    v = np.repeat(v, h // hkv, axis=1)
    p = np_softmax(q.astype(np.float64) @ k.transpose(0, 1, 3, 2) /
                   np.sqrt(d), -1)
    y = (p @ v).transpose(0, 2, 1, 3).reshape(b, s, h * d)
    i64 = lambda *v: np.array(v, np.int64)
    return model(nodes, {"x": x}, {"y": y.astype(np.float32)},
                 [init("wq", wq), init("wk", wk), init("wv", wv),
                  init("qshape", i64(b, s, h, d)),
                  init("kvshape", i64(b, s, hkv, d)),
                  init("axis2", i64(2)),
                  init("expanded", i64(b, hkv, h // hkv, s, d)),
                  init("repeated", i64(b, h, s, d)),
                  init("scale", np.array(np.sqrt(d), np.float32)),
                  init("outshape", i64(b, s, h * d))])


@case("weights")
def weights_mlp():
    # An MLP with initializers large enough to go to the resource section.
    x = rand(4, 32)
    w1, b1, w2 = rand(32, 64), rand(64), rand(64, 10)
    nodes = [node("MatMul", ["x", "fc1.weight"], ["h"]),
             node("Add", ["h", "fc1.bias"], ["hb"]),
             node("Relu", ["hb"], ["a"]),
             node("MatMul", ["a", "fc2/weight:0"], ["y"])]
    return model(nodes, {"x": x}, {"y": np.maximum(x @ w1 + b1, 0) @ w2},
                 [init("fc1.weight", w1), init("fc1.bias", b1),
                  init("fc2/weight:0", w2)])


# Models whose import must fail, for the error tests.
def bad_models():
    x = rand(2, 2)
    yield "unsupported_op", model(
        [node("Sin", ["x"], ["y"], name="my_sin")], {"x": x}, {"y": x})[0]
    yield "bad_opset", model([node("Relu", ["x"], ["y"])], {"x": x}, {"y": x},
                             opset=11)[0]
    m = model([node("Relu", ["x"], ["y"])], {"x": x}, {"y": x})[0]
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    m.graph.output[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    yield "dynamic", m
    yield "double", model([node("Relu", ["x"], ["y"])],
                          {"x": x.astype(np.float64)},
                          {"y": x.astype(np.float64)})[0]
    yield "reflect_pad", model(
        [node("Pad", ["x", "p"], ["y"], name="pad", mode="reflect")],
        {"x": x}, {"y": np.zeros((2, 4), np.float32)},
        [init("p", np.array([0, 1, 0, 1], np.int64))])[0]
    yield "einsum_diagonal", model(
        [node("Einsum", ["x"], ["y"], name="diag", equation="ii->i")],
        {"x": x}, {"y": np.diag(x)})[0]
    yield "einsum_three", model(
        [node("Einsum", ["x", "x", "x"], ["y"], name="three",
              equation="ij,jk,kl->il")], {"x": x}, {"y": x @ x @ x})[0]
    yield from structure_models()
    yield from fuzz_models()
    yield from file_models()


def external(name, dims, location, **keys):
    """An f32 TensorProto whose data is external: `location`, then the
    other keys (offset, length) as given."""
    t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in [("location", location)] + sorted(keys.items()):
        e = t.external_data.add()
        e.key, e.value = k, str(v)
    return t


def file_models():
    """Models whose external data file the test makes (test/onnx/
    external-files.test): `w`, f32[2, 2] from w.bin beside the model, is
    the Identity output, so a file read by mistake would be returned."""
    yf = [vi("y", (2, 2))]
    identity = node("Identity", ["w"], ["y"], name="identity")
    yield "ext_identity", raw_model(
        [identity], [], yf, [external("w", [2, 2], "w.bin", length=16)])
    yield "ext_identity_offset", raw_model(
        [identity], [], yf,
        [external("w", [2, 2], "w.bin", offset=64, length=16)])
    yield "ext_identity_nolength", raw_model(
        [identity], [], yf, [external("w", [2, 2], "w.bin", offset=4)])
    # A model with an f32[2, 2] input for the .pb inputs of bad_tensors().
    yield "relu22", raw_model([node("Relu", ["x"], ["y"])], [vi("x", (2, 2))],
                              yf)
    # Locations outside the folder by their spelling (test/onnx/
    # external-escape.test), and offsets and lengths that are not a range
    # inside w.bin (test/onnx/external-ranges.test).
    for name, location in EXT_LOCATIONS.items():
        yield "ext_identity_loc_" + name, raw_model(
            [identity], [], yf, [external("w", [2, 2], location, length=16)])
    for name, keys in EXT_RANGES.items():
        yield "ext_identity_" + name, raw_model(
            [identity], [], yf, [external("w", [2, 2], "w.bin", **keys)])
    yield from nested_models()


# Locations that name a file outside the model's folder by their spelling.
EXT_LOCATIONS = {
    "abs": "/etc/passwd",
    "dotdot": "../w.bin",
    "inner_dotdot": "data/../../w.bin",
    "dot_dotdot": "./../w.bin",
    "empty": "",
}

# External data keys of an f32[2, 2] tensor (16 bytes) in a 16-byte w.bin
# that is not a range inside the file, or not a number.
EXT_RANGES = {
    "offset_end": dict(offset=16, length=16),
    "offset_past_by_one": dict(offset=1, length=16),
    "offset_int64_max": dict(offset=2 ** 63 - 1, length=16),
    "offset_2p63": dict(offset=2 ** 63, length=16),
    "offset_2p64_minus_1": dict(offset=2 ** 64 - 1, length=16),
    "offset_2p64": dict(offset=2 ** 64, length=16),
    "offset_negative": dict(offset=-1, length=16),
    "offset_plus": dict(offset="+0", length=16),
    "offset_text": dict(offset="4x", length=16),
    "offset_blank": dict(offset="", length=16),
    "length_short": dict(length=15),
    "length_long": dict(length=17),
    "length_negative": dict(length=-16),
    "length_minus_one": dict(length=-1),
    "length_2p64": dict(length=2 ** 64),
    "length_text": dict(length="16 "),
}


def nested_if_bytes(depth):
    """The bytes of a ModelProto whose graph nests `depth` If nodes, each the
    only node of the then-branch of the one above (the innermost branch
    empty). Written with the wire format directly, in linear time: each
    level is a header (graph.node, node.op_type, node.attribute, its name,
    type and graph) followed by the level below."""
    def varint(n):
        out = bytearray()
        while True:
            out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
            n >>= 7
            if not n:
                return bytes(out)

    def key(field, wire):
        return varint(field << 3 | wire)

    # Innermost first: the length of each level's graph.
    graph = [0]
    headers = []
    for _ in range(depth):
        attr_head = (key(1, 2) + varint(11) + b"then_branch" + key(20, 0) +
                     varint(5) + key(6, 2) + varint(graph[-1]))
        node_head = (key(4, 2) + varint(2) + b"If" + key(5, 2) +
                     varint(len(attr_head) + graph[-1]))
        head = key(1, 2) + varint(len(node_head) + len(attr_head) +
                                  graph[-1]) + node_head + attr_head
        headers.append(head)
        graph.append(len(head) + graph[-1])
    return (key(1, 0) + varint(8) + key(7, 2) + varint(graph[-1]) +
            b"".join(reversed(headers)))


def nested_models():
    """Models nested past protobuf's limit of 100 messages (test/onnx/
    nesting.test): If nodes whose then-branch is the next If, and a type
    nested in sequence types. Each level is small (no copies of a branch),
    so 200 levels are a few KB."""
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    inputs = [vi("x", (2,)),
              helper.make_tensor_value_info("c", TensorProto.BOOL, [])]
    leaf = helper.make_graph([node("Identity", ["x"], ["y"])], "leaf", [], [y])
    for depth in (5, 31, 32, 200):
        g = leaf
        for i in range(depth):
            g = helper.make_graph(
                [node("If", ["c"], ["y"], name="if%d" % i, then_branch=g,
                      else_branch=leaf)], "level%d" % (i + 1), [], [y])
        yield "nested_if_%d" % depth, raw_model(list(g.node), inputs, [y])
    yield "nested_if_30000", nested_if_bytes(30000)
    t = helper.make_tensor_type_proto(TensorProto.FLOAT, [2])
    for _ in range(150):
        t = helper.make_sequence_type_proto(t)
    yield "nested_sequence_type", raw_model(
        [node("Identity", ["x"], ["y"])], [helper.make_value_info("x", t)], [y])


def bad_tensors():
    """TensorProto inputs (NAME.pb) whose data is external: `x`, f32[2, 2]
    from x.bin beside the .pb file (test/onnx/external-files.test)."""
    yield "ext_input", external("x", [2, 2], "x.bin", length=16)
    for name, location in EXT_LOCATIONS.items():
        yield "ext_input_loc_" + name, external("x", [2, 2], location,
                                                length=16)
    yield "ext_input_offset_negative", external("x", [2, 2], "x.bin",
                                                offset=-1, length=16)
    yield "ext_input_offset_end", external("x", [2, 2], "x.bin", offset=16,
                                           length=16)


def structure_models():
    """Models whose graph or header is malformed (built without the checker)."""
    x = vi("x", (2, 2))
    relu = node("Relu", ["x"], ["y"])
    m = raw_model([relu], [x], [vi("y", (2, 2))])
    del m.opset_import[:]
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    yield "no_default_opset", m
    m = raw_model([helper.make_node("Frob", ["x"], ["y"], name="frob",
                                    domain="com.example")],
                  [x], [vi("y", (2, 2))])
    m.opset_import.append(helper.make_opsetid("com.example", 3))
    yield "custom_domain", m
    yield "no_input_shape", raw_model(
        [relu], [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [vi("y", (2, 2))])
    yield "output_not_produced", raw_model([relu], [x], [vi("z", (2, 2))])
    yield "output_type_mismatch", raw_model(
        [relu], [x], [vi("y", (2, 2), TensorProto.INT64)])
    yield "output_size_mismatch", raw_model([relu], [x], [vi("y", (2, 3))])
    # A node with no outputs (found by fuzz-onnx: Dropout's pass-through
    # wrote an output that did not exist).
    yield "node_no_outputs", raw_model(
        [node("Dropout", ["x"], [], name="drop"), relu], [x],
        [vi("y", (2, 2))])
    m = onnx.ModelProto()
    m.ir_version = 8
    m.opset_import.append(helper.make_opsetid("", OPSET))
    yield "no_graph", m
    # Names defined twice: two nodes of one output, two graph inputs of one
    # name, a node output that shadows an input or an initializer.
    yield "dup_node_output", raw_model(
        [relu, node("Neg", ["x"], ["y"], name="neg")], [x], [vi("y", (2, 2))])
    yield "dup_output_in_node", raw_model(
        [node("Split", ["x"], ["y", "y"], name="split", axis=0)], [x],
        [vi("y", (1, 2))])
    yield "dup_graph_input", raw_model(
        [node("Add", ["x", "x"], ["y"], name="add")], [x, vi("x", (2, 2))],
        [vi("y", (2, 2))])
    yield "dup_initializer", raw_model(
        [node("Add", ["x", "w"], ["y"], name="add")], [x], [vi("y", (2, 2))],
        [init("w", np.ones((2, 2), np.float32)),
         init("w", np.zeros((2, 2), np.float32))])
    yield "output_shadows_input", raw_model(
        [node("Relu", ["x"], ["x"], name="relu_x")], [x], [vi("x", (2, 2))])
    yield "output_shadows_initializer", raw_model(
        [node("Relu", ["x"], ["w"], name="relu_w"),
         node("Add", ["w", "w"], ["y"], name="add")], [x], [vi("y", (2, 2))],
        [init("w", np.ones((2, 2), np.float32))])
    # An input that names an initializer (IR < 4): the initializer is its
    # default value and the model imports with it as a constant.
    yield "input_default_initializer", raw_model(
        [node("Add", ["x", "w"], ["y"], name="add")], [x, vi("w", (2, 2))],
        [vi("y", (2, 2))], [init("w", np.ones((2, 2), np.float32))])


def raw_model(nodes, inputs, outputs, inits=()):
    """A model without onnx.checker: inputs and outputs are value infos."""
    graph = helper.make_graph(nodes, "test", inputs, outputs,
                              initializer=list(inits))
    m = helper.make_model(graph,
                          opset_imports=[helper.make_opsetid("", OPSET)])
    m.ir_version = 8
    return m


def fuzz_models():
    """Malformed models of the kinds fuzz-onnx found (test/onnx/fuzz.test):
    sizes, counts and indices that overflow, are negative, NaN or out of
    range. The importer must answer each with a located error."""
    i64 = lambda *v: np.array(v, np.int64)
    big = 2 ** 62
    f = TensorProto.FLOAT
    x22 = [vi("x", [2, 2])]
    yf = [helper.make_tensor_value_info("y", f, None)]
    # ConstantOfShape: a shape over dlc's tensor limit, a negative one, and
    # (imports) one too big to fold, which becomes a splat constant.
    yield "fuzz_const_of_shape_huge", raw_model(
        [node("ConstantOfShape", ["s"], ["y"], name="cos")], [], yf,
        [init("s", i64(2 ** 20, 2 ** 20, 2 ** 20))])
    yield "fuzz_const_of_shape_negative", raw_model(
        [node("ConstantOfShape", ["s"], ["y"], name="cos")], [], yf,
        [init("s", i64(-2, 3))])
    yield "fuzz_const_of_shape_splat", raw_model(
        [node("ConstantOfShape", ["s"], ["y"], name="cos",
              value=numpy_helper.from_array(np.array([2.5], np.float32)))],
        [], yf, [init("s", i64(1024, 4096))])
    # Range: NaN and a count too large to materialize.
    yield "fuzz_range_nan", raw_model(
        [node("Range", ["a", "b", "c"], ["y"], name="range")], [], yf,
        [init("a", np.array(0, np.float32)), init("b", np.array(10, np.float32)),
         init("c", np.array(np.nan, np.float32))])
    yield "fuzz_range_huge", raw_model(
        [node("Range", ["a", "b", "c"], ["y"], name="range")], [], yf,
        [init("a", np.array(0, np.int64)), init("b", np.array(big, np.int64)),
         init("c", np.array(1, np.int64))])
    # Initializers: dims without the data, and data shorter than the dims.
    huge = TensorProto(name="w", data_type=f, dims=[2 ** 40, 2 ** 40])
    yield "fuzz_init_huge", raw_model(
        [node("Add", ["x", "w"], ["y"], name="add")], x22, yf, [huge])
    short = TensorProto(name="w", data_type=f, dims=[2, 2],
                        raw_data=b"\0" * 12)
    yield "fuzz_init_short", raw_model(
        [node("Add", ["x", "w"], ["y"], name="add")], x22, yf, [short])
    ext = TensorProto(name="w", data_type=f, dims=[2, 2])
    ext.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "../../etc/passwd"), ("length", "16")):
        e = ext.external_data.add()
        e.key, e.value = k, v
    yield "fuzz_external_escape", raw_model(
        [node("Add", ["x", "w"], ["y"], name="add")], x22, yf, [ext])
    # A graph input over the limit (and with --input-shape, see fuzz.test).
    yield "fuzz_input_huge", raw_model(
        [node("Relu", ["x"], ["y"])], [vi("x", [2 ** 31, 2 ** 31])], yf)
    # Shape arithmetic that overflows int64.
    yield "fuzz_tile_overflow", raw_model(
        [node("Tile", ["x", "r"], ["y"], name="tile")], x22, yf,
        [init("r", i64(big, 4))])
    yield "fuzz_reshape_overflow", raw_model(
        [node("Reshape", ["x", "s"], ["y"], name="reshape")], x22, yf,
        [init("s", i64(2 ** 40, 2 ** 40, -1))])
    yield "fuzz_pad_overflow", raw_model(
        [node("Pad", ["x", "p"], ["y"], name="pad")], x22, yf,
        [init("p", i64(0, 2 ** 63 - 1, 0, 1))])
    # Window attributes of 0, negative or huge.
    w = init("w", rand(1, 1, 1, 1))
    x4 = [vi("x", [1, 1, 4, 4])]
    yield "fuzz_conv_stride0", raw_model(
        [node("Conv", ["x", "w"], ["y"], name="conv", strides=[0, 1])],
        x4, yf, [w])
    yield "fuzz_convt_dilation_huge", raw_model(
        [node("ConvTranspose", ["x", "w"], ["y"], name="convt",
              dilations=[big, 1])], x4, yf, [w])
    yield "fuzz_pool_kernel0", raw_model(
        [node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[0, 2])],
        x4, yf)
    # Split sizes, Gather indices, axes, perms, scales out of range.
    yield "fuzz_split_negative", raw_model(
        [node("Split", ["x", "s"], ["a", "b"], name="split", axis=0)], x22,
        [vi("a", [1, 2]), vi("b", [1, 2])], [init("s", i64(-1, 3))])
    yield "fuzz_gather_oob", raw_model(
        [node("Gather", ["x", "i"], ["y"], name="gather")], x22, yf,
        [init("i", i64(0, 5))])
    yield "fuzz_softmax_scalar", raw_model(
        [node("Softmax", ["x"], ["y"], name="softmax")], [vi("x", [])], yf)
    yield "fuzz_transpose_repeat", raw_model(
        [node("Transpose", ["x"], ["y"], name="transpose", perm=[0, 0])],
        x22, yf)
    yield "fuzz_resize_nan", raw_model(
        [node("Resize", ["x", "", "s"], ["y"], name="resize")], x22, yf,
        [init("s", np.array([np.nan, 1], np.float32))])
    # A missing input.
    yield "fuzz_matmul_one_input", raw_model(
        [node("MatMul", ["x"], ["y"], name="matmul")], x22, yf)
    # Slices with INT64_MIN/INT64_MAX (imports), and folded integer
    # arithmetic that wraps instead of overflowing (imports).
    yield "fuzz_slice_extremes", raw_model(
        [node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], name="slice")],
        x22, yf,
        [init("st", i64(2 ** 63 - 1)), init("en", i64(-2 ** 63)),
         init("ax", i64(0)), init("sp", i64(-2 ** 63))])
    yield "fuzz_fold_wrap", raw_model(
        [node("Add", ["a", "b"], ["y"], name="add")], [],
        [helper.make_tensor_value_info("y", TensorProto.INT64, None)],
        [init("a", i64(2 ** 63 - 1)), init("b", i64(1))])


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def tolerance(name, expected):
    # f16 results, and f32 results computed in f16 ("..._via_f16").
    if expected.dtype == np.float16 or name.endswith("_via_f16"):
        return 1e-2
    return 1e-4 if expected.dtype.kind == "f" else 0.0


def run_case(dlc, outdir, name):
    m, inputs, outputs = CASES[name][1]()
    path = os.path.join(outdir, name + ".onnx")
    onnx.save(m, path)
    cmd = [dlc, "run", path, "--device=sim", "--check", "--quiet",
           "--output-dir", os.path.join(outdir, name + ".out")]
    for i, (n, a) in enumerate(inputs.items()):
        p = os.path.join(outdir, "%s.in%d.npy" % (name, i))
        np.save(p, a)
        cmd += ["--input", "%s=%s" % (n, p)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    print(proc.stdout, end="")
    if proc.returncode != 0:
        print("case %s: dlc run failed (exit %d):\n%s" % (name, proc.returncode,
                                                          proc.stderr))
        return False
    ok = True
    for i, (n, want) in enumerate(outputs.items()):
        got = np.load(os.path.join(outdir, name + ".out", "output_%d.npy" % i))
        if got.shape != want.shape:
            print("case %s: output %s has shape %s, numpy says %s" %
                  (name, n, got.shape, want.shape))
            ok = False
            continue
        if want.dtype == bool or want.dtype.kind in "iu":
            good = np.array_equal(got.astype(np.int64), want.astype(np.int64))
            err = 0.0 if good else 1.0
        else:
            err = float(np.linalg.norm(got.astype(np.float64) - want) /
                        max(np.linalg.norm(want.astype(np.float64)), 1e-30))
            good = err <= tolerance(n, want)
        print("case %s output %s: %s (relative error %.3g vs numpy)" %
              (name, n, "ok" if good else "MISMATCH", err))
        ok &= good
    return ok


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("outdir")
    g.add_argument("cases", nargs="+")
    g.add_argument("--external", action="store_true",
                   help="store every initializer as ONNX external data")
    r = sub.add_parser("run")
    r.add_argument("--dlc", required=True)
    r.add_argument("outdir")
    r.add_argument("groups", nargs="+")
    t = sub.add_parser("inputs")
    t.add_argument("outdir")
    t.add_argument("case")
    sub.add_parser("list")
    args = parser.parse_args()
    if args.cmd == "list":
        for name, (group, _) in CASES.items():
            print(group, name)
        return 0
    os.makedirs(args.outdir, exist_ok=True)
    if args.cmd == "inputs":
        # The case's inputs as NAME.npy and ONNX TensorProto NAME.pb files.
        for n, a in CASES[args.case][1]()[1].items():
            np.save(os.path.join(args.outdir, n + ".npy"), a)
            with open(os.path.join(args.outdir, n + ".pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())
        return 0
    if args.cmd == "gen":
        bad = dict(bad_models())
        tensors = dict(bad_tensors())
        for name in args.cases:
            if name in tensors:
                with open(os.path.join(args.outdir, name + ".pb"), "wb") as f:
                    f.write(tensors[name].SerializeToString())
                continue
            m = bad[name] if name in bad else CASES[name][1]()[0]
            path = os.path.join(args.outdir, name + ".onnx")
            if isinstance(m, bytes):
                with open(path, "wb") as f:
                    f.write(m)
            elif args.external:
                onnx.save(m, path, save_as_external_data=True,
                          all_tensors_to_one_file=True,
                          location=name + ".weights", size_threshold=0)
            else:
                onnx.save(m, path)
        return 0
    ok = True
    for group in args.groups:
        names = [n for n, (g, _) in CASES.items() if g == group or n == group]
        if not names:
            print("no case or group named '%s'" % group)
            return 2
        for name in names:
            ok &= run_case(args.dlc, args.outdir, name)
    print("ALL OK" if ok else "FAILURES")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
