#!/usr/bin/env python3
"""Writes MLIR models nested N levels deep (ir/Limits.h), for tests.

  deep.py callsite N      a call-site location chain N deep, written nested:
                          loc(callsite("f0" at callsite("f1" at ...)))
  deep.py callee N        the same nested on the callee side:
                          loc(callsite(callsite(... at "a.py":1:1) at ...))
  deep.py alias N         the chain through location aliases, one a line:
                          #loc5 = loc(callsite("f5" at #loc4)); no bracket
                          nests more than 3 deep
  deep.py array N         an array attribute N deep: [[[...]]]
  deep.py regions N       N nested builtin.module ops
  deep.py tuple N         a tuple type N deep through type aliases
"""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
out = sys.stdout
BODY = "  %y = dlc.exp %x : tensor<4xf32> loc({loc})\n  return %y : tensor<4xf32>\n"
HEAD = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
if kind == "callsite":
    loc = "".join('callsite("f%d" at ' % i for i in range(n)) + '"a.py":1:1' + ")" * n
    out.write(HEAD + BODY.format(loc=loc) + "}\n")
elif kind == "callee":
    loc = "callsite(" * n + '"f"' + "".join(' at "a.py":%d:1)' % (i + 1) for i in range(n))
    out.write(HEAD + BODY.format(loc=loc) + "}\n")
elif kind == "alias":
    out.write('#loc0 = loc("a.py":1:1)\n')
    for i in range(1, n + 1):
        out.write('#loc%d = loc(callsite("f%d" at #loc%d))\n' % (i, i, i - 1))
    out.write(HEAD + BODY.format(loc="#loc%d" % n) + "}\n")
elif kind == "array":
    out.write("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {a = "
              + "[" * n + "]" * n + "} {\n  return %x : tensor<4xf32>\n}\n")
elif kind == "regions":
    out.write("module {\n" * n + HEAD + "  return %x : tensor<4xf32>\n}\n" + "}\n" * n)
elif kind == "tuple":
    out.write("!t0 = tuple<f32>\n")
    for i in range(1, n + 1):
        out.write("!t%d = tuple<!t%d>\n" % (i, i - 1))
    out.write("func.func @main(%%x: tensor<4xf32>, %%t: !t%d) -> tensor<4xf32> {\n"
              "  return %%x : tensor<4xf32>\n}\n" % n)
else:
    raise SystemExit(__doc__)
