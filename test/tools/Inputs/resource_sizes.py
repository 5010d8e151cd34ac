"""Writes dense_resource constants of every dlc element type whose blob has
the right size, one byte less or more, or none at all (resource-sizes.test).

  resource_sizes.py OUTDIR   writes OUTDIR/<type>_<bytes>.mlir, and the case
                             names to OUTDIR/good (right sizes, then
                             i1_kernel: an i1 resource added to an input
                             in a kernel) and OUTDIR/bad

Each model returns the constant tensor<4xTYPE> = [1, -2, 3.5, 0] (as the
type holds it); i1 is stored one byte per element, and its bytes 2, 0, 255
and 1 read as true, false, true, true.
"""
import os
import struct
import sys

VALUES = [1.0, -2.0, 3.5, 0.0]


def bf16(v):
    return struct.pack("<f", v)[2:]


TYPES = {
    "f32": (4, b"".join(struct.pack("<f", v) for v in VALUES)),
    "f16": (2, b"".join(struct.pack("<e", v) for v in VALUES)),
    "bf16": (2, b"".join(bf16(v) for v in VALUES)),
    "i32": (4, b"".join(struct.pack("<i", int(v)) for v in VALUES)),
    "i64": (8, b"".join(struct.pack("<q", int(v)) for v in VALUES)),
    "i1": (1, bytes([2, 0, 255, 1])),
}

MODEL = """func.func @main() -> tensor<4x{t}> {{
  %c = dlc.constant dense_resource<blob> : tensor<4x{t}>
  return %c : tensor<4x{t}>
}}
{{-#
  dialect_resources: {{
    builtin: {{
      blob: "0x{align:02x}000000{data}"
    }}
  }}
#-}}
"""


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    good, bad = [], []
    for t, (size, data) in TYPES.items():
        # The right size, one byte short, one byte over, and empty.
        for blob in (data, data[:-1], data + b"\x00", b""):
            name = "%s_%d" % (t, len(blob))
            with open(os.path.join(out, name + ".mlir"), "w") as f:
                f.write(MODEL.format(t=t, align=size, data=blob.hex()))
            (good if blob == data else bad).append(name)
    # An i1 resource inside a fused kernel, against random inputs.
    with open(os.path.join(out, "i1_kernel.mlir"), "w") as f:
        f.write(MODEL.format(t="i1", align=1, data="0200ff01").replace(
            "func.func @main() -> tensor<4xi1> {",
            "func.func @main(%x: tensor<4xi1>) -> tensor<4xi1> {").replace(
            "return %c : tensor<4xi1>",
            "%a = dlc.add %x, %c : (tensor<4xi1>, tensor<4xi1>) -> "
            "tensor<4xi1>\n  return %a : tensor<4xi1>"))
    good.append("i1_kernel")
    with open(os.path.join(out, "good"), "w") as f:
        f.write(" ".join(good))
    with open(os.path.join(out, "bad"), "w") as f:
        f.write(" ".join(bad))


if __name__ == "__main__":
    main()
