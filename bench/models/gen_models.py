#!/usr/bin/env python3
"""Generates the benchmark models of dlc: dlc-dialect MLIR and .npy tensors.

Every model exists twice: here as MLIR for dlc, and in bench/torch_models.py
as the same PyTorch module; both load the same .npy files, so they compute
the same function on the same numbers. Values come from a counter-based
generator (SplitMix64 of the element index, keyed by the tensor's name and
the seed), so they do not depend on numpy's version or on the order in which
tensors are made, and a tensor of the same name and shape has the same
values in every model that holds it.

Models (--size bench; --size smoke gives tiny versions for CI):
  mlp             4 x Linear(4096, 4096), ReLU between, batch 256
  bert_bB_sS      BERT-base encoder layer (hidden 768, 12 heads, FFN 3072,
                  erf GELU, post-LN, eps 1e-12), B in {8, 32}, S in {128, 512}
  gpt2_b8_s1024   GPT-2-small decoder block (hidden 768, 12 heads, causal
                  attention, tanh GELU, pre-LN, eps 1e-5), batch 8, seq 1024
  layernorm, softmax, bias_gelu, add_layernorm
                  row microbenchmarks on 16384 x 8192 (512 MiB in f32, ten
                  times the 50 MB L2 of an H100)
  attention_s2048_d64, attention_s2048_d128, attention_causal_s2048_d128
                  scaled dot-product attention on q, k, v [batch * heads,
                  seq, head dim]: batch 4, seq 2048, 16 heads of 64 or 8 of
                  128 (the same 68.7 GFLOP; causal counts the computed half),
                  written as the explicit products and softmax that dlc
                  forms into one flash-attention kernel
each as <name>_f32 and <name>_bf16 (weights, inputs, outputs and every
tensor between kernels in bf16; layer norms, softmaxes and GELUs compute in
f32 inside their kernels, as PyTorch does).

Weights are function arguments by default (--weights inputs): packages stay
small enough to carry to a GPU machine, and the .npy files are generated
there. --weights constants embeds them as dense_resource constants instead
(the deployable form; docs/benchmarks.md measures compile time with both).

Output, for each model in OUT/<model>/:
  model.mlir      the model (func.func @main), unless --no-mlir
  manifest.json   inputs in argument order (file, dtype, shape, role),
                  outputs, configuration, FLOPs and minimal bytes
  <input>.npy     each input, unless --no-npy (bf16 as '<V2' raw bits)
and OUT/models.json, the list of models written.

    gen_models.py --out DIR [--size bench|smoke] [--only PATTERN,...]
                  [--weights inputs|constants] [--no-npy] [--no-mlir] [--list]

Needs only Python 3 and numpy.
"""

import argparse
import fnmatch
import json
import math
import os
import sys

import numpy as np

DEFAULT_SEED = 2026

# Sizes. "smoke" keeps every structural feature (heads, residuals, masks,
# both dtypes) at a size the sim device and the reference interpreter run in
# seconds.
SIZES = {
    "bench": {
        "mlp": dict(batch=256, width=4096, layers=4),
        "bert": dict(hidden=768, heads=12, ffn=3072,
                     shapes=[(8, 128), (32, 128), (8, 512), (32, 512)]),
        "gpt2": dict(hidden=768, heads=12, ffn=3072, shapes=[(8, 1024)]),
        # ViT-B/16 at 224x224: 196 patches and the class token.
        "vit": dict(hidden=768, heads=12, ffn=3072, shapes=[(1, 197), (32, 197)]),
        "resnet50": dict(batch=32, image=224, width=64, blocks=[3, 4, 6, 3], classes=1000),
        "micro": dict(rows=16384, cols=8192),
        "attention": [dict(batch=4, heads=16, seq=2048, head_dim=64, causal=False),
                      dict(batch=4, heads=8, seq=2048, head_dim=128, causal=False),
                      dict(batch=4, heads=8, seq=2048, head_dim=128, causal=True)],
    },
    "smoke": {
        "mlp": dict(batch=8, width=64, layers=4),
        "bert": dict(hidden=64, heads=4, ffn=128, shapes=[(2, 16)]),
        "gpt2": dict(hidden=64, heads=4, ffn=256, shapes=[(2, 32)]),
        "vit": dict(hidden=64, heads=4, ffn=256, shapes=[(1, 17)]),
        "resnet50": dict(batch=2, image=32, width=8, blocks=[1, 2, 1, 1], classes=10),
        "micro": dict(rows=32, cols=96),
        "attention": [dict(batch=1, heads=2, seq=80, head_dim=16, causal=False),
                      dict(batch=1, heads=1, seq=80, head_dim=32, causal=False),
                      dict(batch=1, heads=1, seq=80, head_dim=32, causal=True)],
    },
}

DTYPES = ("f32", "bf16")
BERT_EPS = 1e-12
GPT2_EPS = 1e-5
VIT_EPS = 1e-6
MICRO_EPS = 1e-5
# The causal mask's fill value: the lowest f32, as HF GPT-2 uses the dtype's
# minimum. A finite value keeps every row's maximum finite in both
# implementations; dlc-form-attention turns a fill at or below -2^126 into
# `causal` (docs/fusion.md), and keeps larger ones (-1e9) as explicit masks.
MASK_VALUE = -3.4028234663852886e38

#===----------------------------------------------------------------------===#
# Deterministic values
#===----------------------------------------------------------------------===#

_M64 = (1 << 64) - 1
_CHUNK = 1 << 22


def _fnv1a64(text):
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & _M64
    return h


def _splitmix64(x):
    """SplitMix64's finalizer on a uint64 array (wrapping arithmetic)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def uniform(key, seed, shape):
    """float32 values uniform in [-1, 1) (multiples of 2^-23), a function of
    (key, seed, element index) only."""
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    stream = np.uint64(_fnv1a64("%d/%s" % (seed, key)))
    out = np.empty(n, dtype=np.float32)
    with np.errstate(over="ignore"):
        for start in range(0, n, _CHUNK):
            stop = min(n, start + _CHUNK)
            idx = np.arange(start, stop, dtype=np.uint64)
            z = _splitmix64(idx ^ stream)
            # 24 random bits -> [0, 2^24) -> [-1, 1) exactly in float32.
            u = (z >> np.uint64(40)).astype(np.float32)
            out[start:stop] = u * np.float32(2.0 / (1 << 24)) - np.float32(1.0)
    return out.reshape(shape)


def to_bf16_bits(a):
    """float32 -> bfloat16 bits (uint16), rounding to nearest even."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (rounded >> np.uint32(16)).astype(np.uint16)


def bf16_bits_to_f32(bits):
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


class Init:
    """How a tensor's values are drawn: offset + scale * uniform."""

    def __init__(self, scale, offset=0.0):
        self.scale = scale
        self.offset = offset

    def make(self, key, seed, shape):
        u = uniform(key, seed, shape)
        v = u * np.float32(self.scale)
        if self.offset:
            v = v + np.float32(self.offset)
        return v.astype(np.float32)


def linear_init(fan_in):
    # PyTorch's default Linear initialization bound, 1/sqrt(fan_in).
    return Init(1.0 / math.sqrt(fan_in))


def conv_init(fan_in, gain=2.0):
    # Variance gain / fan_in (He's initialization for gain 2, which keeps
    # the activations' scale through a relu).
    return Init(math.sqrt(3.0 * gain / fan_in))


BIAS_INIT = Init(0.02)
LN_WEIGHT_INIT = Init(0.1, 1.0)
LN_BIAS_INIT = Init(0.1)
# Unit variance, like activations after an embedding's LayerNorm.
ACTIVATION_INIT = Init(math.sqrt(3.0))

#===----------------------------------------------------------------------===#
# MLIR in the dlc dialect
#===----------------------------------------------------------------------===#


def ttype(shape, elem):
    return "tensor<" + "".join("%dx" % d for d in shape) + elem + ">"


def fmt_float(v):
    if v == float("inf"):
        return "0x7F800000"
    return "%.9e" % v


class V:
    """An SSA value: its name, shape and element type."""

    def __init__(self, name, shape, elem):
        self.name = name
        self.shape = list(shape)
        self.elem = elem

    @property
    def type(self):
        return ttype(self.shape, self.elem)


class Graph:
    """Builds func.func @main in the dlc dialect and collects its inputs."""

    def __init__(self, dtype, weights, seed, family):
        self.dtype = dtype            # storage type of activations and weights
        self.weights = weights        # "inputs" or "constants"
        self.seed = seed
        self.family = family          # key prefix of shared weights
        self.lines = []
        self.count = 0
        self.args = []                # V of each function argument
        self.inputs = []              # manifest entries, argument order first
        self.tensors = {}             # input name -> (key, Init, shape)
        self._values = {}             # input name -> values, once made
        self.resources = []           # (key, hex) of dense_resource blobs
        self.flops = 0

    # Values ------------------------------------------------------------------

    def _new(self, text, shape, elem):
        v = V("%%%d" % self.count, shape, elem)
        self.count += 1
        self.lines.append("    %s = %s" % (v.name, text))
        return v

    def _add_input(self, name, shape, init, role, key):
        self.inputs.append(dict(name=name, file=name + ".npy", dtype=self.dtype,
                                shape=list(shape), role=role,
                                arg=role == "activation" or self.weights == "inputs"))
        self.tensors[name] = (key, init, list(shape))

    def activation(self, name, shape, key):
        v = V("%%arg%d" % len(self.args), shape, self.dtype)
        self.args.append((v, name))
        self._add_input(name, shape, ACTIVATION_INIT, "activation", key)
        return v

    def param(self, name, shape, init):
        """A weight: an argument, or a dense_resource constant."""
        key = "%s/%s" % (self.family, name)
        self._add_input(name, shape, init, "param", key)
        if self.weights == "inputs":
            v = V("%%arg%d" % len(self.args), shape, self.dtype)
            self.args.append((v, name))
            return v
        values = self.values(name)
        raw = values.tobytes()
        rkey = "w_" + "".join(c if c.isalnum() else "_" for c in name)
        # A blob is its alignment (little-endian u32) followed by the bytes.
        self.resources.append((rkey, "0x10000000" + raw.hex().upper()))
        return self._new("dlc.constant dense_resource<%s> : %s"
                         % (rkey, ttype(shape, self.dtype)), shape, self.dtype)

    def values(self, name):
        """The input's values: float32, or uint16 bf16 bits (computed once:
        constants and .npy files both need them)."""
        if name not in self._values:
            key, init, shape = self.tensors[name]
            v = init.make(key, self.seed, shape)
            self._values[name] = to_bf16_bits(v) if self.dtype == "bf16" else v
        return self._values[name]

    def splat(self, value, rank, elem="f32"):
        shape = [1] * rank
        return self._new("dlc.constant dense<%s> : %s"
                         % (fmt_float(value), ttype(shape, elem)), shape, elem)

    def iota(self, n, shape):
        """The integers 0..n-1 as an i32 tensor of `shape` (n elements)."""
        flat = self._new("dlc.constant dense<[%s]> : %s"
                         % (", ".join(str(i) for i in range(n)), ttype([n], "i32")),
                         [n], "i32")
        return self.reshape(flat, shape)

    # Operations ---------------------------------------------------------------

    def unary(self, op, x):
        return self._new("dlc.%s %s : %s" % (op, x.name, x.type), x.shape, x.elem)

    def binary(self, op, a, b):
        assert len(a.shape) == len(b.shape), (op, a.shape, b.shape)
        assert a.elem == b.elem, (op, a.elem, b.elem)
        shape = []
        for x, y in zip(a.shape, b.shape):
            assert x == y or x == 1 or y == 1, (op, a.shape, b.shape)
            shape.append(max(x, y))
        return self._new("dlc.%s %s, %s : (%s, %s) -> %s"
                         % (op, a.name, b.name, a.type, b.type, ttype(shape, a.elem)),
                         shape, a.elem)

    def add(self, a, b):
        return self.binary("add", a, b)

    def sub(self, a, b):
        return self.binary("sub", a, b)

    def mul(self, a, b):
        return self.binary("mul", a, b)

    def scale(self, x, c):
        return self.mul(x, self.splat(c, len(x.shape), x.elem))

    def shift(self, x, c):
        return self.add(x, self.splat(c, len(x.shape), x.elem))

    def reduce(self, kind, x, axis):
        """Over `axis`, an int or a list of axes, keeping them as size 1."""
        axes = [axis] if isinstance(axis, int) else list(axis)
        shape = [1 if i in axes else d for i, d in enumerate(x.shape)]
        return self._new("dlc.reduce %s %s {axes = array<i64: %s>} : (%s) -> %s"
                         % (kind, x.name, ", ".join(map(str, axes)), x.type,
                            ttype(shape, x.elem)), shape, x.elem)

    def matmul(self, a, b, transpose_b=False):
        *batch, m, k = a.shape
        if transpose_b:
            *bb, n, k2 = b.shape
        else:
            *bb, k2, n = b.shape
        assert k == k2 and len(bb) == len(batch), (a.shape, b.shape, transpose_b)
        shape = batch + [m, n]
        self.flops += 2 * int(np.prod(shape, dtype=np.int64)) * k
        attrs = " {transpose_b}" if transpose_b else ""
        return self._new("dlc.matmul %s, %s%s : (%s, %s) -> %s"
                         % (a.name, b.name, attrs, a.type, b.type,
                            ttype(shape, a.elem)), shape, a.elem)

    def conv2d(self, x, prefix, out_channels, kernel, stride=1, pad=0, gain=2.0):
        """A convolution with bias (an inference BatchNorm folded in) on
        NCHW x; weights [OC, C, K, K] as PyTorch's Conv2d."""
        n, c, h, w = x.shape
        wshape = [out_channels, c, kernel, kernel]
        weight = self.param(prefix + ".weight", wshape, conv_init(c * kernel * kernel, gain))
        bias = self.param(prefix + ".bias", [out_channels], BIAS_INIT)
        oh = (h + 2 * pad - kernel) // stride + 1
        ow = (w + 2 * pad - kernel) // stride + 1
        shape = [n, out_channels, oh, ow]
        self.flops += 2 * n * out_channels * oh * ow * c * kernel * kernel
        y = self._new("dlc.conv2d %s, %s {strides = array<i64: %d, %d>, pads = array<i64: "
                      "%d, %d, %d, %d>, dilations = array<i64: 1, 1>, groups = 1 : i64} : "
                      "(%s, %s) -> %s" % (x.name, weight.name, stride, stride, pad, pad,
                                          pad, pad, x.type, weight.type,
                                          ttype(shape, x.elem)), shape, x.elem)
        return self.add(y, self.reshape(bias, [1, out_channels, 1, 1]))

    def max_pool(self, x, kernel, stride, pad):
        n, c, h, w = x.shape
        shape = [n, c, (h + 2 * pad - kernel) // stride + 1, (w + 2 * pad - kernel) // stride + 1]
        return self._new("dlc.pool2d max %s {kernel = array<i64: %d, %d>, strides = "
                         "array<i64: %d, %d>, pads = array<i64: %d, %d, %d, %d>} : (%s) -> %s"
                         % (x.name, kernel, kernel, stride, stride, pad, pad, pad, pad,
                            x.type, ttype(shape, x.elem)), shape, x.elem)

    def relu(self, x):
        return self.binary("max", x, self.splat(0.0, len(x.shape), x.elem))

    def reshape(self, x, shape):
        assert int(np.prod(shape)) == int(np.prod(x.shape)), (x.shape, shape)
        return self._new("dlc.reshape %s : %s -> %s"
                         % (x.name, x.type, ttype(shape, x.elem)), shape, x.elem)

    def transpose(self, x, perm):
        shape = [x.shape[p] for p in perm]
        return self._new("dlc.transpose %s {perm = array<i64: %s>} : (%s) -> %s"
                         % (x.name, ", ".join(map(str, perm)), x.type,
                            ttype(shape, x.elem)), shape, x.elem)

    def slice(self, x, start, shape):
        return self._new("dlc.slice %s {start = array<i64: %s>} : (%s) -> %s"
                         % (x.name, ", ".join(map(str, start)), x.type,
                            ttype(shape, x.elem)), shape, x.elem)

    def cast(self, x, elem):
        if x.elem == elem:
            return x
        return self._new("dlc.cast %s : %s -> %s"
                         % (x.name, x.type, ttype(x.shape, elem)), x.shape, elem)

    def cmp(self, pred, a, b):
        shape = [max(x, y) for x, y in zip(a.shape, b.shape)]
        return self._new("dlc.cmp %s, %s, %s : (%s, %s) -> %s"
                         % (pred, a.name, b.name, a.type, b.type,
                            ttype(shape, "i1")), shape, "i1")

    def select(self, c, a, b):
        shape = [max(x, y, z) for x, y, z in zip(c.shape, a.shape, b.shape)]
        return self._new("dlc.select %s, %s, %s : (%s, %s, %s) -> %s"
                         % (c.name, a.name, b.name, c.type, a.type, b.type,
                            ttype(shape, a.elem)), shape, a.elem)

    # Layers -------------------------------------------------------------------

    def f32(self, x):
        return self.cast(x, "f32")

    def store(self, x):
        """Back to the storage type after an f32 computation."""
        return self.cast(x, self.dtype)

    def linear(self, x, prefix, out_features, conv1d=False):
        """x [N, in] times a PyTorch Linear weight [out, in] (or a GPT-2
        Conv1D weight [in, out]) plus bias [out]."""
        in_features = x.shape[1]
        wshape = [in_features, out_features] if conv1d else [out_features, in_features]
        w = self.param(prefix + ".weight", wshape, linear_init(in_features))
        b = self.param(prefix + ".bias", [out_features], BIAS_INIT)
        y = self.matmul(x, w, transpose_b=not conv1d)
        return self.add(y, self.reshape(b, [1, out_features]))

    def layernorm(self, x, prefix, eps):
        """Over the last axis of x [N, D], in f32."""
        n, d = x.shape
        gamma = self.param(prefix + ".weight", [d], LN_WEIGHT_INIT)
        beta = self.param(prefix + ".bias", [d], LN_BIAS_INIT)
        xf = self.f32(x)
        mean = self.scale(self.reduce("sum", xf, 1), 1.0 / d)
        xc = self.sub(xf, mean)
        var = self.scale(self.reduce("sum", self.mul(xc, xc), 1), 1.0 / d)
        rstd = self.unary("rsqrt", self.shift(var, eps))
        y = self.mul(self.mul(xc, rstd), self.f32(self.reshape(gamma, [1, d])))
        return self.store(self.add(y, self.f32(self.reshape(beta, [1, d]))))

    def gelu_erf(self, x):
        """0.5 x (1 + erf(x / sqrt 2)), in f32."""
        xf = self.f32(x)
        t = self.unary("erf", self.scale(xf, 1.0 / math.sqrt(2.0)))
        return self.store(self.mul(self.scale(xf, 0.5), self.shift(t, 1.0)))

    def gelu_tanh(self, x):
        """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in f32."""
        xf = self.f32(x)
        cube = self.mul(self.mul(xf, xf), xf)
        inner = self.scale(self.add(xf, self.scale(cube, 0.044715)),
                           math.sqrt(2.0 / math.pi))
        t = self.unary("tanh", inner)
        return self.store(self.mul(self.scale(xf, 0.5), self.shift(t, 1.0)))

    def softmax(self, x, scale=None, mask=None):
        """Over the last axis, in f32; `mask` (i1, broadcast) keeps where
        true and puts MASK_VALUE elsewhere, after the scaling."""
        xf = self.f32(x)
        if scale is not None:
            xf = self.scale(xf, scale)
        if mask is not None:
            xf = self.select(mask, xf, self.splat(MASK_VALUE, len(xf.shape)))
        axis = len(x.shape) - 1
        e = self.unary("exp", self.sub(xf, self.reduce("max", xf, axis)))
        s = self.reduce("sum", e, axis)
        return self.store(self.mul(e, self.unary("reciprocal", s)))

    def attention(self, q, k, v, batch, seq, hidden, heads, causal):
        """Scaled dot-product attention of q, k, v [batch * seq, hidden]
        split into `heads` heads; the result has q's shape."""
        dh = hidden // heads

        def split(t):
            t4 = self.reshape(t, [batch, seq, heads, dh])
            return self.reshape(self.transpose(t4, [0, 2, 1, 3]),
                                [batch * heads, seq, dh])

        scores = self.matmul(split(q), split(k), transpose_b=True)
        mask = None
        if causal:
            rows = self.iota(seq, [1, seq, 1])
            cols = self.iota(seq, [1, 1, seq])
            mask = self.cmp("ge", rows, cols)
        probs = self.softmax(scores, 1.0 / math.sqrt(dh), mask)
        ctx = self.matmul(probs, split(v))
        ctx4 = self.transpose(self.reshape(ctx, [batch, heads, seq, dh]), [0, 2, 1, 3])
        return self.reshape(ctx4, [batch * seq, hidden])

    # Output -------------------------------------------------------------------

    def render(self, results, comment):
        args = ", ".join('%s: %s {onnx.name = "%s"}' % (v.name, v.type, name)
                         for v, name in self.args)
        rtypes = ", ".join(r.type for r in results)
        sig = "func.func @main(%s) -> %s {" % (
            args, rtypes if len(results) == 1 else "(" + rtypes + ")")
        text = ["// " + line for line in comment.splitlines()]
        text.append("// Generated by bench/models/gen_models.py; do not edit.")
        text.append("module {")
        text.append("  " + sig)
        text.extend(self.lines)
        text.append("    return %s : %s" % (", ".join(r.name for r in results), rtypes))
        text.append("  }")
        text.append("}")
        if self.resources:
            text.append("")
            text.append("{-#")
            text.append("  dialect_resources: {")
            text.append("    builtin: {")
            text.append(",\n".join('      %s: "%s"' % (k, h) for k, h in self.resources))
            text.append("    }")
            text.append("  }")
            text.append("#-}")
        return "\n".join(text) + "\n"


#===----------------------------------------------------------------------===#
# The models
#===----------------------------------------------------------------------===#


def build_mlp(g, cfg):
    b, w, layers = cfg["batch"], cfg["width"], cfg["layers"]
    h = g.activation("x", [b, w], "mlp/x")
    for i in range(layers):
        h = g.linear(h, "layers.%d" % i, w)
        if i + 1 < layers:
            h = g.relu(h)
    return h, "MLP: %d x Linear(%d, %d), ReLU between, batch %d." % (layers, w, w, b)


def build_bert(g, cfg):
    b, s, d, heads, ffn = cfg["batch"], cfg["seq"], cfg["hidden"], cfg["heads"], cfg["ffn"]
    x = g.activation("x", [b, s, d], "bert_b%d_s%d/x" % (b, s))
    x2 = g.reshape(x, [b * s, d])
    q = g.linear(x2, "attention.self.query", d)
    k = g.linear(x2, "attention.self.key", d)
    v = g.linear(x2, "attention.self.value", d)
    ctx = g.attention(q, k, v, b, s, d, heads, causal=False)
    attn = g.linear(ctx, "attention.output.dense", d)
    h = g.layernorm(g.add(attn, x2), "attention.output.LayerNorm", BERT_EPS)
    inter = g.gelu_erf(g.linear(h, "intermediate.dense", ffn))
    out = g.linear(inter, "output.dense", d)
    y = g.layernorm(g.add(out, h), "output.LayerNorm", BERT_EPS)
    return g.reshape(y, [b, s, d]), (
        "BERT-base encoder layer (post-LN, erf GELU): batch %d, seq %d, hidden %d,\n"
        "%d heads, FFN %d. Parameter names as in Hugging Face's BertLayer." % (b, s, d, heads, ffn))


def build_gpt2(g, cfg):
    b, s, d, heads, ffn = cfg["batch"], cfg["seq"], cfg["hidden"], cfg["heads"], cfg["ffn"]
    x = g.activation("x", [b, s, d], "gpt2_b%d_s%d/x" % (b, s))
    x2 = g.reshape(x, [b * s, d])
    a = g.layernorm(x2, "ln_1", GPT2_EPS)
    qkv = g.linear(a, "attn.c_attn", 3 * d, conv1d=True)
    q = g.slice(qkv, [0, 0], [b * s, d])
    k = g.slice(qkv, [0, d], [b * s, d])
    v = g.slice(qkv, [0, 2 * d], [b * s, d])
    ctx = g.attention(q, k, v, b, s, d, heads, causal=True)
    x2 = g.add(x2, g.linear(ctx, "attn.c_proj", d, conv1d=True))
    m = g.layernorm(x2, "ln_2", GPT2_EPS)
    f = g.gelu_tanh(g.linear(m, "mlp.c_fc", ffn, conv1d=True))
    y = g.add(x2, g.linear(f, "mlp.c_proj", d, conv1d=True))
    return g.reshape(y, [b, s, d]), (
        "GPT-2-small decoder block (pre-LN, causal attention, tanh GELU): batch %d,\n"
        "seq %d, hidden %d, %d heads, FFN %d. Parameter names as in Hugging Face's\n"
        "GPT2Block (Conv1D weights are [in, out])." % (b, s, d, heads, ffn))


def build_vit(g, cfg):
    b, s, d, heads, ffn = cfg["batch"], cfg["seq"], cfg["hidden"], cfg["heads"], cfg["ffn"]
    x = g.activation("x", [b, s, d], "vit_b%d_s%d/x" % (b, s))
    x2 = g.reshape(x, [b * s, d])
    a = g.layernorm(x2, "ln_1", VIT_EPS)
    qkv = g.linear(a, "self_attention.in_proj", 3 * d)
    q = g.slice(qkv, [0, 0], [b * s, d])
    k = g.slice(qkv, [0, d], [b * s, d])
    v = g.slice(qkv, [0, 2 * d], [b * s, d])
    ctx = g.attention(q, k, v, b, s, d, heads, causal=False)
    x2 = g.add(x2, g.linear(ctx, "self_attention.out_proj", d))
    m = g.layernorm(x2, "ln_2", VIT_EPS)
    f = g.gelu_erf(g.linear(m, "mlp.0", ffn))
    y = g.add(x2, g.linear(f, "mlp.3", d))
    return g.reshape(y, [b, s, d]), (
        "ViT-B/16 encoder layer (pre-LN, erf GELU, no mask): batch %d, seq %d,\n"
        "hidden %d, %d heads, MLP %d, as torchvision's EncoderBlock (in_proj of\n"
        "nn.MultiheadAttention as one Linear)." % (b, s, d, heads, ffn))


def build_resnet50(g, cfg):
    n, image, width, classes = cfg["batch"], cfg["image"], cfg["width"], cfg["classes"]
    x = g.activation("x", [n, 3, image, image], "resnet50_b%d/x" % n)
    h = g.relu(g.conv2d(x, "conv1", width, 7, stride=2, pad=3))
    h = g.max_pool(h, 3, 2, 1)
    channels = width
    for stage, blocks in enumerate(cfg["blocks"]):
        planes = width << stage
        for b in range(blocks):
            prefix = "layer%d.%d" % (stage + 1, b)
            stride = 2 if stage > 0 and b == 0 else 1
            identity = h
            t = g.relu(g.conv2d(h, prefix + ".conv1", planes, 1))
            t = g.relu(g.conv2d(t, prefix + ".conv2", planes, 3, stride=stride, pad=1))
            # The branch's last convolution at half He's variance, so that
            # the residual sum grows slowly (torchvision zero-initializes
            # this BatchNorm's scale as an option).
            t = g.conv2d(t, prefix + ".conv3", planes * 4, 1, gain=0.5)
            if stride != 1 or channels != planes * 4:
                identity = g.conv2d(h, prefix + ".downsample.0", planes * 4, 1,
                                    stride=stride, gain=1.0)
            h = g.relu(g.add(t, identity))
            channels = planes * 4
    _, c, hh, ww = h.shape
    pooled = g.scale(g.reduce("sum", h, [2, 3]), 1.0 / (hh * ww))
    logits = g.linear(g.reshape(pooled, [n, c]), "fc", classes)
    return logits, (
        "ResNet-50 (torchvision's layout, v1.5: stride in the 3x3 convolutions) for\n"
        "inference, each BatchNorm folded into its convolution's weights and bias (as\n"
        "an ONNX export in eval mode has them): batch %d, %dx%d images, stem width\n"
        "%d, blocks %s, %d classes. NCHW in and out; dlc chooses the layout." % (
            n, image, image, width, cfg["blocks"], classes))


def build_layernorm(g, cfg):
    r, c = cfg["rows"], cfg["cols"]
    x = g.activation("x", [r, c], "micro/x")
    return g.layernorm(x, "ln", MICRO_EPS), "LayerNorm over the last axis of [%d, %d]." % (r, c)


def build_softmax(g, cfg):
    r, c = cfg["rows"], cfg["cols"]
    x = g.activation("x", [r, c], "micro/x")
    return g.softmax(x), "Softmax over the last axis of [%d, %d]." % (r, c)


def build_bias_gelu(g, cfg):
    r, c = cfg["rows"], cfg["cols"]
    x = g.activation("x", [r, c], "micro/x")
    bias = g.param("bias", [c], BIAS_INIT)
    y = g.gelu_erf(g.add(x, g.reshape(bias, [1, c])))
    return y, "Bias add and erf GELU on [%d, %d]." % (r, c)


def build_add_layernorm(g, cfg):
    r, c = cfg["rows"], cfg["cols"]
    x = g.activation("x", [r, c], "micro/x")
    res = g.activation("residual", [r, c], "micro/residual")
    y = g.layernorm(g.add(x, res), "ln", MICRO_EPS)
    return y, "Residual add and LayerNorm over the last axis of [%d, %d]." % (r, c)


def build_attention(g, cfg):
    b, h, s, dh, causal = (cfg["batch"], cfg["heads"], cfg["seq"], cfg["head_dim"],
                           cfg["causal"])
    q = g.activation("q", [b * h, s, dh], "attention_d%d/q" % dh)
    k = g.activation("k", [b * h, s, dh], "attention_d%d/k" % dh)
    v = g.activation("v", [b * h, s, dh], "attention_d%d/v" % dh)
    scores = g.matmul(q, k, transpose_b=True)
    mask = None
    if causal:
        mask = g.cmp("ge", g.iota(s, [1, s, 1]), g.iota(s, [1, 1, s]))
        # The masked half is not computed: FLOPs as FlashAttention counts them.
        g.flops -= 2 * b * h * (s * (s - 1) // 2) * dh * 2
    probs = g.softmax(scores, 1.0 / math.sqrt(dh), mask)
    out = g.matmul(probs, v)
    return out, ("Scaled dot-product attention%s: q, k, v [%d, %d, %d] (batch %d x %d\n"
                 "heads, seq %d, head dim %d), the softmax in f32." % (
                     " (causal)" if causal else "", b * h, s, dh, b, h, s, dh))


MICRO = {
    "layernorm": build_layernorm,
    "softmax": build_softmax,
    "bias_gelu": build_bias_gelu,
    "add_layernorm": build_add_layernorm,
}


def model_specs(size):
    """(name without dtype, family, builder, config) of every model."""
    cfg = SIZES[size]
    specs = [("mlp", "mlp", build_mlp, dict(cfg["mlp"]))]
    for family, builder in (("bert", build_bert), ("gpt2", build_gpt2),
                            ("vit", build_vit)):
        c = cfg[family]
        for b, s in c["shapes"]:
            conf = dict(hidden=c["hidden"], heads=c["heads"], ffn=c["ffn"], batch=b, seq=s)
            specs.append(("%s_b%d_s%d" % (family, b, s), family, builder, conf))
    specs.append(("resnet50_b%d" % cfg["resnet50"]["batch"], "resnet50", build_resnet50,
                  dict(cfg["resnet50"])))
    for name, builder in MICRO.items():
        specs.append((name, "micro/" + name, builder, dict(cfg["micro"])))
    for c in cfg["attention"]:
        name = "attention_%ss%d_d%d" % ("causal_" if c["causal"] else "", c["seq"],
                                        c["head_dim"])
        specs.append((name, "attention", build_attention, dict(c)))
    return specs


def all_model_names(size):
    return ["%s_%s" % (name, dt) for name, _, _, _ in model_specs(size) for dt in DTYPES]


def build_model(name, size, seed=DEFAULT_SEED, weights="inputs"):
    """The Graph, output and description of model `name` ("bert_b8_s128_bf16")."""
    for base, family, builder, cfg in model_specs(size):
        for dt in DTYPES:
            if "%s_%s" % (base, dt) == name:
                # Weights are shared by all shapes of a family: keyed by the
                # family (and the dtype only through rounding).
                g = Graph(dt, weights, seed, family.split("/")[0])
                out, comment = builder(g, cfg)
                return g, out, comment, base, family.split("/")[0], cfg
    raise KeyError("unknown model '%s' (--list shows the models)" % name)


def npy_dtype(dtype):
    return np.dtype("V2") if dtype == "bf16" else np.dtype(np.float32)


def save_npy(path, values, dtype):
    arr = values.view(npy_dtype(dtype)) if dtype == "bf16" else values
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        np.save(f, arr)
    os.replace(tmp, path)


def load_npy_f32(path):
    """A .npy file written here as float32 (bf16 widened exactly)."""
    a = np.load(path)
    if a.dtype == np.dtype("V2"):
        return bf16_bits_to_f32(a.view(np.uint16))
    return a.astype(np.float32)


def write_model(name, out_dir, size, seed, weights, mlir=True, npy=True,
                reuse=True, log=None):
    """Writes OUT/<name>/ and returns its manifest."""
    g, out, comment, base, family, cfg = build_model(name, size, seed, weights)
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    min_bytes = 0
    for t in g.inputs:
        min_bytes += int(np.prod(t["shape"], dtype=np.int64)) * (2 if g.dtype == "bf16" else 4)
    out_bytes = int(np.prod(out.shape, dtype=np.int64)) * (2 if g.dtype == "bf16" else 4)
    manifest = dict(
        name=name, base=base, family=family, dtype=g.dtype, size=size, seed=seed,
        weights=weights, config=cfg, mlir="model.mlir",
        inputs=g.inputs,
        outputs=[dict(dtype=out.elem, shape=out.shape)],
        flops=g.flops,
        # Every input read once and the output written once: the least
        # traffic any implementation has.
        min_bytes=min_bytes + out_bytes,
        description=comment)
    if mlir:
        path = os.path.join(d, "model.mlir")
        with open(path + ".tmp", "w") as f:
            f.write(g.render([out], comment))
        os.replace(path + ".tmp", path)
    if npy:
        for t in g.inputs:
            path = os.path.join(d, t["file"])
            if reuse and _npy_matches(path, t):
                continue
            if log:
                log("  %s/%s %s %s" % (name, t["file"], t["dtype"], t["shape"]))
            save_npy(path, g.values(t["name"]), t["dtype"])
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return manifest


def _npy_matches(path, t):
    """Whether `path` already holds a tensor of t's dtype and shape (values
    are a function of name and seed, and the manifest records the seed)."""
    if not os.path.exists(path):
        return False
    try:
        a = np.load(path, mmap_mode="r")
    except Exception:  # a damaged file is rewritten
        return False
    return list(a.shape) == t["shape"] and a.dtype == npy_dtype(t["dtype"])


def select_models(size, only):
    names = all_model_names(size)
    if not only:
        return names
    patterns = [p for part in only for p in part.split(",") if p]
    chosen = [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    unmatched = [p for p in patterns if not any(fnmatch.fnmatchcase(n, p) for n in names)]
    if unmatched:
        raise SystemExit("gen_models.py: no model matches %s (--list shows the models)"
                         % ", ".join(unmatched))
    return chosen


def main(argv=None):
    doc = __doc__.splitlines()
    p = argparse.ArgumentParser(description=doc[0])
    p.add_argument("--out", help="output directory")
    p.add_argument("--size", choices=sorted(SIZES), default="bench")
    p.add_argument("--only", action="append", default=[],
                   help="models to write, by name or shell pattern (comma-separated, repeatable)")
    p.add_argument("--weights", choices=["inputs", "constants"], default="inputs")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--no-npy", action="store_true", help="write no .npy files")
    p.add_argument("--no-mlir", action="store_true", help="write no MLIR")
    p.add_argument("--list", action="store_true", help="print the model names and exit")
    args = p.parse_args(argv)
    names = select_models(args.size, args.only)
    if args.list:
        print("\n".join(names))
        return 0
    if not args.out:
        p.error("--out is required")
    os.makedirs(args.out, exist_ok=True)
    manifests = []
    for name in names:
        m = write_model(name, args.out, args.size, args.seed, args.weights,
                        mlir=not args.no_mlir, npy=not args.no_npy,
                        log=lambda s: print(s, file=sys.stderr))
        manifests.append(m)
        print("%s: %d inputs, %.3g GFLOP" % (name, len(m["inputs"]), m["flops"] / 1e9))
    index = dict(size=args.size, seed=args.seed, weights=args.weights,
                 models=[m["name"] for m in manifests])
    with open(os.path.join(args.out, "models.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
