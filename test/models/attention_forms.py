#!/usr/bin/python3
"""Attention as PyTorch users write it, exported to ONNX and compiled by dlc:
each form must become one flash-attention kernel (causal where the mask is
causal, with the mask as an input where it is one), with no kernel left over
the score matrix, and match the reference interpreter on sim.

Forms: nanoGPT (masked_fill(~tril(ones(t, t, bool)), -inf), the scale from
k.size(-1)); GPT-2 (torch.where on a registered tril buffer with the dtype's
lowest value); masked_fill(buffer == 0, -inf); BERT's additive mask input;
timm's packed split (reshape to [B, T, 3, H, D], permute, unbind);
torch.einsum products; torch.nn.MultiheadAttention (batch_first), whose
export computes sequence-first inside: its transposes at the model's input and output may
stay (they move data between the caller's layout and the model's); Hugging
Face Llama's eager attention (rotary embedding on q and k, grouped-query
attention with repeat_kv, an additive causal mask of the dtype's lowest
value).

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
KV = 2  # the Llama form's key/value heads (grouped-query attention)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n_rep):
    """Hugging Face Llama's repeat_kv: (b, kv, t, d) -> (b, kv * n_rep, t, d)."""
    b, kv, t, d = x.shape
    return x[:, :, None, :, :].expand(b, kv, n_rep, t, d).reshape(b, kv * n_rep, t, d)


class LlamaAttention(nn.Module):
    """Hugging Face Llama's eager attention: q/k/v projections without bias,
    rotary position embedding on q and k, grouped-query attention (the
    key/value heads repeated), an additive causal mask of the dtype's lowest
    value, softmax in f32."""

    def __init__(self):
        super().__init__()
        hd = E // H
        self.q_proj = nn.Linear(E, E, bias=False)
        self.k_proj = nn.Linear(E, KV * hd, bias=False)
        self.v_proj = nn.Linear(E, KV * hd, bias=False)
        self.o_proj = nn.Linear(E, E, bias=False)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        freqs = torch.outer(torch.arange(T).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos()[None, None], persistent=False)
        self.register_buffer("sin", emb.sin()[None, None], persistent=False)
        mask = torch.full((T, T), torch.finfo(torch.float32).min).triu(1)
        self.register_buffer("mask", mask[None, None], persistent=False)

    def forward(self, x):
        b, t, c = x.shape
        hd = c // H
        q = self.q_proj(x).view(b, t, H, hd).transpose(1, 2)
        k = self.k_proj(x).view(b, t, KV, hd).transpose(1, 2)
        v = self.v_proj(x).view(b, t, KV, hd).transpose(1, 2)
        q = q * self.cos + rotate_half(q) * self.sin
        k = k * self.cos + rotate_half(k) * self.sin
        k = repeat_kv(k, H // KV)
        v = repeat_kv(v, H // KV)
        att = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(hd)
        att = att + self.mask[:, :, :t, :t]
        att = torch.softmax(att, dim=-1, dtype=torch.float32).to(q.dtype)
        y = torch.matmul(att, v).transpose(1, 2).contiguous().reshape(b, t, c)
        return self.o_proj(y)


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
        if self.form == "timm":
            # timm's and torchvision's Swin: one permute of the packed heads.
            qkv = self.qkv(x).reshape(b, t, 3, H, c // H).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.unbind(0)
            att = ((q * (c // H) ** -0.5) @ k.transpose(-2, -1)).softmax(dim=-1)
            return self.proj((att @ v).transpose(1, 2).reshape(b, t, c))
        if self.form == "einsum":
            q, k, v = (z.view(b, t, H, c // H) for z in self.qkv(x).split(c, dim=2))
            att = torch.einsum("bihd,bjhd->bhij", q, k) / math.sqrt(c // H)
            y = torch.einsum("bhij,bjhd->bihd", att.softmax(-1), v)
            return self.proj(y.reshape(b, t, c))
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
             ("bert_additive", False), ("mha", False), ("llama", True),
             ("timm", False), ("einsum", False)]
    for form, causal in forms:
        model = (LlamaAttention() if form == "llama" else Block(form)).eval()
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
        # Ops a kernel besides attention may have: MultiheadAttention's
        # transposes at the model's input and output; Llama's rotary
        # embedding of q and k (no repeat of k and v, no transpose).
        allowed = {"mha": {"transpose", "reshape"},
                   "llama": {"slice", "reshape", "mul", "neg", "concat", "add"}}
        kernels = [k for k in kernels
                   if set(re.split(r"[:,] *", k.replace("matmul epilogue", "")))
                   - {""} - allowed.get(form, set())]
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
