#!/usr/bin/env python3
"""A BERT-base encoder stack for training-memory figures (docs/memory.md).

L post-LN layers (hidden 768, 12 heads, FFN 3072, erf GELU, eps 1e-12;
attention as products and softmax) and a mean-pooled 2-class head, random
weights (seed 0), exported with torch.onnx.export(do_constant_folding=False,
opset 17) so that every initializer is a parameter to train:

    export_bert_train.py LAYERS SEQ BATCH OUT.onnx

12 layers take about 6 minutes to export on the 2-core machine (340 MB).
"""
import sys, torch
L = int(sys.argv[1]); S = int(sys.argv[2]); B = int(sys.argv[3]); out = sys.argv[4]
d, h, ff = 768, 12, 3072
class Layer(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.qkv = torch.nn.Linear(d, 3 * d); s.proj = torch.nn.Linear(d, d)
        s.fc1 = torch.nn.Linear(d, ff); s.fc2 = torch.nn.Linear(ff, d)
        s.ln1 = torch.nn.LayerNorm(d, eps=1e-12); s.ln2 = torch.nn.LayerNorm(d, eps=1e-12)
    def forward(s, x):
        b, n, _ = x.shape
        q, k, v = s.qkv(x).split(d, dim=-1)
        q = q.reshape(b, n, h, d // h).transpose(1, 2)
        k = k.reshape(b, n, h, d // h).transpose(1, 2)
        v = v.reshape(b, n, h, d // h).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(-2, -1) / (d // h) ** 0.5, dim=-1) @ v
        a = a.transpose(1, 2).reshape(b, n, d)
        x = s.ln1(x + s.proj(a))
        return s.ln2(x + s.fc2(torch.nn.functional.gelu(s.fc1(x))))
class M(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.layers = torch.nn.ModuleList([Layer() for _ in range(L)]); s.head = torch.nn.Linear(d, 2)
    def forward(s, x):
        for l in s.layers: x = l(x)
        return s.head(x.mean(dim=1))
torch.manual_seed(0)
torch.onnx.export(M(), (torch.zeros(B, S, d),), out, do_constant_folding=False, opset_version=17, input_names=["x"], output_names=["out"])
