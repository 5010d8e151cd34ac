#!/usr/bin/env python3
"""Generates the example models in examples/*.mlir (MLIR 19 TOSA).

Weights come from a fixed linear congruential generator, so running this
script again reproduces the files byte for byte. Only the standard library is
used. Every weight constant carries a name location (loc("wq")) by which
test/reference/ReferenceTest.cpp finds it to recompute the model directly.

    python3 examples/gen_examples.py            # writes next to this script
    python3 examples/gen_examples.py --out DIR
"""

import argparse
import math
import os


class Lcg:
    """Numerical Recipes LCG; uniform values in [-1, 1)."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def uniform(self):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return (self.state >> 8) / float(1 << 23) - 1.0


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def ttype(shape, elem="f32"):
    return "tensor<" + "".join("%dx" % d for d in shape) + elem + ">"


def fmt_weight(v):
    s = "%.3f" % v
    return "0.000" if s == "-0.000" else s


def fmt_scalar(v):
    return "%.8e" % v


def dense(shape, values, fmt, multiline=True):
    """A dense literal, with one innermost row per line if `multiline`."""
    if not shape:
        return fmt(values[0])
    if len(shape) == 1:
        return "[" + ", ".join(fmt(v) for v in values) + "]"
    step = numel(shape[1:])
    parts = [dense(shape[1:], values[i * step:(i + 1) * step], fmt, multiline)
             for i in range(shape[0])]
    sep = ",\n      " if len(shape) == 2 and multiline else ", "
    return "[" + sep.join(parts) + "]"


class Func:
    """Builds one func.func @main in TOSA, tracking the shape of each value."""

    def __init__(self, inputs, seed):
        self.lines = []
        self.shapes = {}
        self.count = 0
        self.rng = Lcg(seed)
        self.args = []
        for i, shape in enumerate(inputs):
            name = "%%arg%d" % i
            self.shapes[name] = list(shape)
            self.args.append(name)

    def _new(self, shape):
        name = "%%%d" % self.count
        self.count += 1
        self.shapes[name] = list(shape)
        return name

    def emit(self, text, shape):
        name = self._new(shape)
        self.lines.append("    %s = %s" % (name, text))
        return name

    # Constants ---------------------------------------------------------------

    def weight(self, name, shape, scale=0.1, offset=0.0):
        """offset + scale * uniform, printed with three decimals."""
        values = [offset + scale * self.rng.uniform() for _ in range(numel(shape))]
        body = dense(shape, values, fmt_weight)
        return self.emit('"tosa.const"() <{value = dense<%s> : %s}> : () -> %s loc("%s")'
                         % (body, ttype(shape), ttype(shape), name), shape)

    def scalar(self, value, rank):
        shape = [1] * rank
        return self.emit('"tosa.const"() <{value = dense<%s> : %s}> : () -> %s'
                         % (fmt_scalar(value), ttype(shape), ttype(shape)), shape)

    def ints(self, values, shape):
        body = dense(shape, values, str, multiline=False)
        return self.emit('"tosa.const"() <{value = dense<%s> : %s}> : () -> %s'
                         % (body, ttype(shape, "i32"), ttype(shape, "i32")), shape)

    # Operations --------------------------------------------------------------

    def sig(self, operands, shape):
        ins = ", ".join(ttype(self.shapes[o]) for o in operands)
        if len(operands) == 1:
            return "(%s) -> %s" % (ins, ttype(shape))
        return "(%s) -> %s" % (ins, ttype(shape))

    def unary(self, op, x):
        shape = self.shapes[x]
        return self.emit("tosa.%s %s : %s" % (op, x, self.sig([x], shape)), shape)

    def binary(self, op, a, b):
        sa, sb = self.shapes[a], self.shapes[b]
        assert len(sa) == len(sb), (op, sa, sb)
        shape = []
        for x, y in zip(sa, sb):
            assert x == y or x == 1 or y == 1, (op, sa, sb)
            shape.append(max(x, y))
        attrs = " {shift = 0 : i8}" if op == "mul" else ""
        return self.emit("tosa.%s %s, %s%s : %s"
                         % (op, a, b, attrs, self.sig([a, b], shape)), shape)

    def reduce(self, op, x, axis):
        shape = list(self.shapes[x])
        shape[axis] = 1
        return self.emit("tosa.%s %s {axis = %d : i32} : %s"
                         % (op, x, axis, self.sig([x], shape)), shape)

    def reshape(self, x, shape):
        assert numel(shape) == numel(self.shapes[x])
        return self.emit("tosa.reshape %s {new_shape = array<i64: %s>} : %s"
                         % (x, ", ".join(map(str, shape)), self.sig([x], shape)),
                         shape)

    def transpose(self, x, perm):
        perms = self.ints(perm, [len(perm)])
        shape = [self.shapes[x][p] for p in perm]
        return self.emit("tosa.transpose %s, %s : (%s, %s) -> %s"
                         % (x, perms, ttype(self.shapes[x]),
                            ttype([len(perm)], "i32"), ttype(shape)), shape)

    def fully_connected(self, x, w, b):
        n, k = self.shapes[x]
        oc, k2 = self.shapes[w]
        assert k == k2 and self.shapes[b] == [oc]
        shape = [n, oc]
        return self.emit("tosa.fully_connected %s, %s, %s : %s"
                         % (x, w, b, self.sig([x, w, b], shape)), shape)

    def matmul(self, a, b):
        (n, h, c), (n2, c2, w) = self.shapes[a], self.shapes[b]
        assert c == c2 and n == n2
        shape = [n, h, w]
        return self.emit("tosa.matmul %s, %s : %s"
                         % (a, b, self.sig([a, b], shape)), shape)

    def relu(self, x):
        shape = self.shapes[x]
        return self.emit("tosa.clamp %s {max_fp = 3.40282347E+38 : f32, "
                         "max_int = 2147483647 : i64, min_fp = 0.000000e+00 : f32, "
                         "min_int = 0 : i64} : %s" % (x, self.sig([x], shape)),
                         shape)

    def slice(self, x, start, size):
        return self.emit("tosa.slice %s {size = array<i64: %s>, start = array<i64: %s>} : %s"
                         % (x, ", ".join(map(str, size)), ", ".join(map(str, start)),
                            self.sig([x], size)), size)

    def pad(self, x, pairs, value):
        padding = self.ints([v for p in pairs for v in p], [len(pairs), 2])
        pad_const = self.emit('"tosa.const"() <{value = dense<%s> : tensor<f32>}> : () -> tensor<f32>'
                              % fmt_scalar(value), [])
        shape = [d + lo + hi for d, (lo, hi) in zip(self.shapes[x], pairs)]
        return self.emit("tosa.pad %s, %s, %s : (%s, %s, tensor<f32>) -> %s"
                         % (x, padding, pad_const, ttype(self.shapes[x]),
                            ttype([len(pairs), 2], "i32"), ttype(shape)), shape)

    def tile(self, x, multiples):
        shape = [d * m for d, m in zip(self.shapes[x], multiples)]
        return self.emit("tosa.tile %s {multiples = array<i64: %s>} : %s"
                         % (x, ", ".join(map(str, multiples)), self.sig([x], shape)),
                         shape)

    def concat(self, xs, axis):
        shape = list(self.shapes[xs[0]])
        shape[axis] = sum(self.shapes[x][axis] for x in xs)
        return self.emit("tosa.concat %s {axis = %d : i32} : %s"
                         % (", ".join(xs), axis, self.sig(xs, shape)), shape)

    # Composite layers --------------------------------------------------------

    def softmax(self, x, axis):
        mx = self.reduce("reduce_max", x, axis)
        e = self.unary("exp", self.binary("sub", x, mx))
        s = self.reduce("reduce_sum", e, axis)
        return self.binary("mul", e, self.unary("reciprocal", s))

    def layernorm(self, x, prefix, eps=1e-5):
        """Over the last axis, with gamma = 1 + 0.1u and beta = 0.1u."""
        shape = self.shapes[x]
        rank, n = len(shape), shape[-1]
        inv_n = self.scalar(1.0 / n, rank)
        mean = self.binary("mul", self.reduce("reduce_sum", x, rank - 1), inv_n)
        xc = self.binary("sub", x, mean)
        var = self.binary("mul",
                          self.reduce("reduce_sum", self.binary("mul", xc, xc), rank - 1),
                          inv_n)
        rs = self.unary("rsqrt", self.binary("add", var, self.scalar(eps, rank)))
        norm = self.binary("mul", xc, rs)
        gamma = self.weight(prefix + ".gamma", [1] * (rank - 1) + [n], 0.1, 1.0)
        beta = self.weight(prefix + ".beta", [1] * (rank - 1) + [n], 0.1)
        return self.binary("add", self.binary("mul", norm, gamma), beta)

    def gelu(self, x):
        """0.5 * x * (1 + erf(x / sqrt(2)))."""
        rank = len(self.shapes[x])
        t = self.unary("erf", self.binary("mul", x, self.scalar(1 / math.sqrt(2), rank)))
        one_plus = self.binary("add", t, self.scalar(1.0, rank))
        return self.binary("mul", self.binary("mul", x, self.scalar(0.5, rank)), one_plus)

    def linear(self, x, prefix, out_features):
        in_features = self.shapes[x][1]
        w = self.weight(prefix + ".weight", [out_features, in_features])
        b = self.weight(prefix + ".bias", [out_features])
        return self.fully_connected(x, w, b)

    def attention(self, x2, batch, seq, d_model, heads, prefix):
        """Multi-head self-attention on x2 = [batch * seq, d_model]."""
        dh = d_model // heads

        def split_heads(t, perm):
            t4 = self.reshape(t, [batch, seq, heads, dh])
            tt = self.transpose(t4, perm)
            return self.reshape(tt, [batch * heads] + self.shapes[tt][2:])

        q = split_heads(self.linear(x2, prefix + ".q", d_model), [0, 2, 1, 3])
        # K^T per head: [batch, heads, dh, seq].
        kt = split_heads(self.linear(x2, prefix + ".k", d_model), [0, 2, 3, 1])
        v = split_heads(self.linear(x2, prefix + ".v", d_model), [0, 2, 1, 3])
        scores = self.binary("mul", self.matmul(q, kt), self.scalar(1 / math.sqrt(dh), 3))
        probs = self.softmax(scores, 2)
        ctx = self.matmul(probs, v)
        ctx4 = self.reshape(ctx, [batch, heads, seq, dh])
        ctxt = self.transpose(ctx4, [0, 2, 1, 3])
        ctx2 = self.reshape(ctxt, [batch * seq, d_model])
        return self.linear(ctx2, prefix + ".out", d_model)

    def render(self, results, comment):
        args = ", ".join("%s: %s" % (a, ttype(self.shapes[a])) for a in self.args)
        rtypes = ", ".join(ttype(self.shapes[r]) for r in results)
        head = "// %s\n// Generated by examples/gen_examples.py; do not edit.\n" % comment
        sig = "func.func @main(%s) -> %s {" % (
            args, rtypes if len(results) == 1 else "(" + rtypes + ")")
        ret = "    return %s : %s" % (", ".join(results), rtypes)
        return head + "module {\n  " + sig + "\n" + "\n".join(self.lines) + \
            "\n" + ret + "\n  }\n}\n"


def mlp():
    f = Func([[8, 64]], seed=101)
    h = f.relu(f.linear("%arg0", "fc1", 128))
    # The second layer goes through tosa.matmul on [1, 8, 128] x [1, 128, 10].
    h3 = f.reshape(h, [1, 8, 128])
    w2 = f.weight("fc2.weight", [1, 128, 10])
    b2 = f.weight("fc2.bias", [1, 1, 10])
    logits = f.reshape(f.binary("add", f.matmul(h3, w2), b2), [8, 10])
    return f.render([f.softmax(logits, 1)],
                    "MLP: [8, 64] -> 128 (ReLU) -> 10, softmax.")


def layernorm_gelu():
    f = Func([[4, 32, 128]], seed=202)
    return f.render([f.gelu(f.layernorm("%arg0", "ln"))],
                    "LayerNorm over the last axis of [4, 32, 128], then GELU (erf form).")


def attention():
    f = Func([[2, 16, 64]], seed=303)
    x2 = f.reshape("%arg0", [32, 64])
    out = f.reshape(f.attention(x2, 2, 16, 64, 4, "attn"), [2, 16, 64])
    return f.render([out], "Multi-head self-attention: batch 2, seq 16, d_model 64, 4 heads.")


def encoder_layer():
    f = Func([[2, 16, 64]], seed=404)
    x2 = f.reshape("%arg0", [32, 64])
    h = f.layernorm(f.binary("add", x2, f.attention(x2, 2, 16, 64, 4, "attn")), "ln1")
    ffn = f.linear(f.gelu(f.linear(h, "ffn1", 128)), "ffn2", 64)
    out = f.layernorm(f.binary("add", h, ffn), "ln2")
    return f.render([f.reshape(out, [2, 16, 64])],
                    "Post-LN transformer encoder layer: d_model 64, 4 heads, FFN 128 (GELU), "
                    "batch 2, seq 16.")


def reshape_transpose():
    f = Func([[2, 3, 4, 5], [4, 6]], seed=505)
    x, y = "%arg0", "%arg1"
    a = f.transpose(x, [0, 2, 1, 3])                    # [2, 4, 3, 5]
    b = f.reshape(a, [8, 15])
    c = f.slice(b, [1, 2], [6, 10])                     # [6, 10]
    d = f.unary("tanh", f.binary("mul", c, f.weight("scale", [1, 10], 0.5, 1.0)))
    e = f.pad(d, [[1, 1], [0, 2]], 0.25)                # [8, 12]
    g = f.tile(e, [1, 2])                               # [8, 24]
    yt = f.tile(f.transpose(y, [1, 0]), [1, 4])         # [6, 16]
    h = f.transpose(g, [1, 0])                          # [24, 8]
    hc = f.concat([h, f.slice(yt, [0, 0], [6, 8]), h], 0)  # [54, 8]
    i = f.reshape(hc, [6, 9, 8])
    j = f.unary("sigmoid", f.binary("add", i, f.weight("bias", [1, 9, 1], 0.5)))
    k = f.transpose(j, [2, 0, 1])                       # [8, 6, 9]
    m = f.reduce("reduce_sum", k, 2)                    # [8, 6, 1]
    n = f.binary("sub", f.reshape(m, [8, 6]), f.reduce("reduce_max", f.reshape(k, [8, 54]), 1))
    return f.render([k, n], "Chains of reshape, transpose, slice, concat, pad and tile "
                            "with elementwise operations between them.")


MODELS = {
    "mlp": mlp,
    "layernorm_gelu": layernorm_gelu,
    "attention": attention,
    "encoder_layer": encoder_layer,
    "reshape_transpose": reshape_transpose,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    for name, build in MODELS.items():
        path = os.path.join(args.out, name + ".mlir")
        text = build()
        with open(path, "w") as f:
            f.write(text)
        print("%s: %d bytes" % (path, len(text)))


if __name__ == "__main__":
    main()
