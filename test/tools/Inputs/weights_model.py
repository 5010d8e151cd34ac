#!/usr/bin/env python3
"""Prints a two-layer MLP with N x N f32 weights held as dense_resource
blobs (deterministic values of magnitude ~1/sqrt(N)), for package-size tests.

  weights_model.py N > model.mlir
"""
import math
import struct
import sys


def blob(n, seed):
    # A linear congruential generator: the same weights on every machine.
    state, scale, out = seed, 1.0 / math.sqrt(n), []
    for _ in range(n * n):
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out.append(((state >> 40) / float(1 << 24) * 2.0 - 1.0) * scale)
    # A resource blob: its alignment (4) then the little-endian elements.
    return "0x04000000" + struct.pack("<%df" % len(out), *out).hex().upper()


def main():
    n = int(sys.argv[1])
    t = "tensor<%dx%dxf32>" % (n, n)
    print("""func.func @main(%%x: tensor<8x%dxf32>) -> tensor<8x%dxf32> {
  %%w1 = "tosa.const"() <{value = dense_resource<w1> : %s}> : () -> %s
  %%w2 = "tosa.const"() <{value = dense_resource<w2> : %s}> : () -> %s
  %%h = dlc.matmul %%x, %%w1 : (tensor<8x%dxf32>, %s) -> tensor<8x%dxf32>
  %%r = tosa.tanh %%h : (tensor<8x%dxf32>) -> tensor<8x%dxf32>
  %%y = dlc.matmul %%r, %%w2 : (tensor<8x%dxf32>, %s) -> tensor<8x%dxf32>
  return %%y : tensor<8x%dxf32>
}
{-#
  dialect_resources: {
    builtin: {
      w1: "%s",
      w2: "%s"
    }
  }
#-}""" % (n, n, t, t, t, t, n, t, n, n, n, n, t, n, n, blob(n, 1), blob(n, 2)))


if __name__ == "__main__":
    main()
