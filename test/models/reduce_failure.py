#!/usr/bin/python3
"""Finds the first ONNX node of a model that `dlc compile` (or `dlc run
--device=sim --check`) fails on, and writes it as a one-node model.

  reduce_failure.py --dlc build/bin/dlc model.onnx OUT_DIR [--run]

Shape inference gives every intermediate value a type; prefixes of the
graph (nodes[:i], the last node's outputs as the graph outputs) are tried
by binary search for the shortest failing one. Then the failing node alone
(its non-constant inputs as graph inputs, initializers kept) is written to
OUT_DIR/node.onnx together with the prefix OUT_DIR/prefix.onnx, and dlc's
error for both is printed. A debugging aid for test/models, not a test.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import helper, shape_inference


def dlc_fails(dlc, model, run, workdir):
    path = os.path.join(workdir, "try.onnx")
    onnx.save(model, path)
    if run:
        cmd = [dlc, "run", path, "--device=sim", "--check", "--quiet"]
    else:
        cmd = [dlc, "compile", path, "--no-cubin", "-o", os.path.join(workdir, "try.dlcpkg")]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    return r.returncode != 0, r.stdout


def value_infos(model):
    inferred = shape_inference.infer_shapes(model)
    infos = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + \
            list(inferred.graph.output):
        infos[vi.name] = vi
    return infos


def used_initializers(graph, nodes):
    names = {i for n in nodes for i in n.input}
    return [t for t in graph.initializer if t.name in names]


def prefix_model(model, infos, count):
    g = model.graph
    nodes = list(g.node[:count])
    outputs = [infos[o] for o in nodes[-1].output if o in infos]
    graph_inputs = [i for i in g.input if any(i.name in n.input for n in nodes)]
    graph = helper.make_graph(nodes, g.name + f"_prefix{count}", graph_inputs,
                              outputs, used_initializers(g, nodes))
    m = helper.make_model(graph, opset_imports=model.opset_import)
    m.ir_version = model.ir_version
    return m


def node_model(model, infos, index):
    g = model.graph
    node = g.node[index]
    inits = {t.name for t in g.initializer}
    constants = {o for n in g.node if n.op_type == "Constant" for o in n.output}
    const_nodes = [n for n in g.node if n.op_type == "Constant"
                   and any(o in node.input for o in n.output)]
    inputs = [infos[i] for i in node.input
              if i and i not in inits and i not in constants and i in infos]
    outputs = [infos[o] for o in node.output if o in infos]
    graph = helper.make_graph(const_nodes + [node], f"{node.op_type}_{index}", inputs,
                              outputs, used_initializers(g, [node]))
    m = helper.make_model(graph, opset_imports=model.opset_import)
    m.ir_version = model.ir_version
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("out_dir")
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--run", action="store_true",
                    help="fail on `dlc run --device=sim --check` (against dlc's "
                         "reference interpreter), not only on `dlc compile`")
    a = ap.parse_args()
    model = onnx.load(a.model)
    infos = value_infos(model)
    os.makedirs(a.out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        failed, out = dlc_fails(a.dlc, model, a.run, tmp)
        if not failed:
            print("the whole model passes")
            return 0
        lo, hi = 1, len(model.graph.node)  # prefix hi fails
        while lo < hi:
            mid = (lo + hi) // 2
            if dlc_fails(a.dlc, prefix_model(model, infos, mid), a.run, tmp)[0]:
                hi = mid
            else:
                lo = mid + 1
        prefix = prefix_model(model, infos, hi)
        onnx.save(prefix, os.path.join(a.out_dir, "prefix.onnx"))
        node = model.graph.node[hi - 1]
        attrs = {x.name: helper.get_attribute_value(x) for x in node.attribute
                 if x.type != onnx.AttributeProto.TENSOR}
        print(f"first failing prefix: {hi} nodes; last node #{hi - 1}: "
              f"{node.op_type} {node.name} attrs={attrs}")
        for i in node.input:
            if i in infos:
                t = infos[i].type.tensor_type
                dims = [d.dim_value for d in t.shape.dim]
                print(f"  input {i}: {onnx.TensorProto.DataType.Name(t.elem_type)} {dims}")
        _, out = dlc_fails(a.dlc, prefix, a.run, tmp)
        print("prefix error:\n  " + out.strip()[-3000:].replace("\n", "\n  "))
        single = node_model(model, infos, hi - 1)
        onnx.save(single, os.path.join(a.out_dir, "node.onnx"))
        failed, out = dlc_fails(a.dlc, single, a.run, tmp)
        print(f"node alone: {'fails' if failed else 'passes'}")
        if failed:
            print("  " + out.strip()[-3000:].replace("\n", "\n  "))
    return 1


if __name__ == "__main__":
    sys.exit(main())
