#!/usr/bin/python3
"""Attention as PyTorch users write it, exported to ONNX and compiled by dlc:
each form must become one flash-attention kernel (causal where the mask is
causal, with the mask as an input where it is one), with no kernel left over
the score matrix, and match the reference interpreter on sim.

Forms: nanoGPT (masked_fill(~tril(ones(t, t, bool)), -inf), the scale from
k.size(-1)); GPT-2 (torch.where on a registered tril buffer with the dtype's
lowest value); masked_fill(buffer == 0, -inf); BERT's additive mask input;
torch.nn.MultiheadAttention (batch_first), whose export computes
sequence-first inside: its transposes at the model's input and output may
stay (they move data between the caller's layout and the model's).

usage: attention_forms.py --dlc build/bin/dlc --work-dir DIR
Exit status: 0 all passed, 1 a form failed, 77 torch/onnx missing.
"""
import argparse
import math
import os
import re
import subprocess
import sys

try:
    import torch
    import torch.nn as nn
    import onnx  # noqa: F401 (torch.onnx.export needs it)
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)

T, E, H = 16, 64, 4


class Block(nn.Module):
    def __init__(self, form):
        super().__init__()
        self.form = form
        self.qkv = nn.Linear(E, 3 * E)
        self.proj = nn.Linear(E, E)
        self.register_buffer("bias", torch.tril(torch.ones(T, T)).view(1, 1, T, T))
        self.mha = nn.MultiheadAttention(E, H, batch_first=True)

    def forward(self, x, mask=None):
        if self.form == "mha":
            return self.mha(x, x, x, need_weights=False)[0]
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, H, c // H).transpose(1, 2)
        k = k.view(b, t, H, c // H).transpose(1, 2)
        v = v.view(b, t, H, c // H).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        if self.form == "nanogpt":
            causal = torch.tril(torch.ones(t, t, dtype=torch.bool))
            att = att.masked_fill(~causal, float("-inf"))
        elif self.form == "gpt2_where":
            att = torch.where(self.bias[:, :, :t, :t].bool(), att,
                              torch.tensor(torch.finfo(att.dtype).min))
        elif self.form == "buffer_eq0":
            att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        elif self.form == "bert_additive":
            att = att + mask
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dlc", required=True)
    p.add_argument("--work-dir", required=True)
    args = p.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    torch.manual_seed(0)
    failures = []
    forms = [("nanogpt", True), ("gpt2_where", True), ("buffer_eq0", True),
             ("bert_additive", False), ("mha", False)]
    for form, causal in forms:
        model = Block(form).eval()
        x = torch.randn(2, T, E)
        path = os.path.join(args.work_dir, form + ".onnx")
        if form == "bert_additive":
            mask = (1.0 - (torch.rand(2, 1, 1, T) > 0.2).float()) * -10000.0
            torch.onnx.export(model, (x, mask), path, input_names=["x", "mask"],
                              opset_version=17)
        else:
            torch.onnx.export(model, (x,), path, input_names=["x"], opset_version=17)
        fused = subprocess.run([args.dlc, "compile", path, "--emit=fused"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True).stdout
        attention = re.findall(r"= dlc\.attention [^{]*\{([^}]*)\}", fused)
        # Kernels other than attention; MultiheadAttention's may only move
        # data at the model's input and output.
        kernels = re.findall(r"// kernel k\d+: [^(]*\(([^;]*);", fused)
        if form == "mha":
            kernels = [k for k in kernels
                       if set(re.split(r"[:,] *", k.replace("matmul epilogue", "")))
                       - {"", "transpose", "reshape"}]
        problems = []
        if len(attention) != 1:
            problems.append("%d attention ops" % len(attention))
        elif causal != ("causal" in attention[0]):
            problems.append("attention %s causal" % ("not" if causal else "is"))
        if kernels:
            problems.append("%d kernels besides attention" % len(kernels))
        check = subprocess.run([args.dlc, "run", path, "--device=sim", "--check",
                                "--quiet", "--no-cache"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True)
        if check.returncode != 0 or " ok" not in check.stdout:
            problems.append("check failed: " + check.stdout.strip()[-300:])
        print("%-14s %s" % (form, "ok" if not problems else "FAILED: " + "; ".join(problems)))
        if problems:
            failures.append(form)
    print("%d forms, %d failed" % (len(forms), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
