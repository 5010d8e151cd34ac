"""The benchmark models of bench/models/gen_models.py as PyTorch modules.

Each module computes what its MLIR computes, with the parameter names of
the manifest (those of Hugging Face's BertLayer and GPT2Block for the two
transformer layers), and loads the same .npy files:

    model, inputs = build(manifest_path, device="cuda", dtype=None)
    y = model(*inputs)

`dtype` None keeps the model's own dtype (f32 or bf16); torch.float32
builds the f32 reference of a bf16 model from the same bf16 values.

Works with PyTorch 1.13 (Debian's, for `run.py --smoke`) and 2.x.
"""

import json
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

BERT_EPS = 1e-12
GPT2_EPS = 1e-5
VIT_EPS = 1e-6
MICRO_EPS = 1e-5
MASK_VALUE = -3.4028234663852886e38  # the lowest f32, as in gen_models.py

# Attention through F.scaled_dot_product_attention (flash or memory-efficient
# kernels, PyTorch 2.x) instead of the explicit products and softmax that
# mirror the MLIR; bench/run.py --sdpa sets it.
USE_SDPA = False


def load_npy(path):
    """A tensor written by gen_models.py (bf16 as raw '<V2' bits)."""
    a = np.load(path)
    if a.dtype == np.dtype("V2"):
        bits = np.ascontiguousarray(a).view(np.int16)
        return torch.from_numpy(bits.copy()).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(a))


def save_output(path, t):
    """Writes a model output as .npy the way dlc does (bf16 as '<V2')."""
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        a = t.view(torch.int16).numpy().view(np.dtype("V2"))
    else:
        a = t.float().numpy()
    np.save(path, a)


def to_numpy_f32(t):
    return t.detach().float().cpu().numpy()


class Linear(nn.Module):
    """torch.nn.Linear without its initialization (the weights are loaded)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features))

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


class Conv1D(nn.Module):
    """GPT-2's Conv1D: x @ weight + bias with weight [in, out]."""

    def __init__(self, nx, nf):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.empty(nf))

    def forward(self, x):
        shape = x.shape[:-1] + (self.weight.shape[1],)
        y = torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight)
        return y.view(shape)


class LayerNorm(nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d))
        self.bias = nn.Parameter(torch.empty(d))
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, self.eps)


def attention(q, k, v, heads, causal):
    """Multi-head scaled dot-product attention on [B, S, D] tensors, the
    softmax in f32 (as the MLIR computes it), written out like Hugging
    Face's eager attention (or through SDPA with USE_SDPA)."""
    b, s, d = q.shape
    dh = d // heads

    def split(t):
        return t.view(b, s, heads, dh).transpose(1, 2)

    if USE_SDPA:
        ctx = F.scaled_dot_product_attention(split(q), split(k), split(v), is_causal=causal)
        return ctx.transpose(1, 2).reshape(b, s, d)
    scores = torch.matmul(split(q), split(k).transpose(-1, -2))
    w = scores.float() * (1.0 / math.sqrt(dh))
    if causal:
        mask = torch.ones(s, s, dtype=torch.bool, device=q.device).tril()
        w = torch.where(mask, w, torch.full((), MASK_VALUE, device=q.device))
    probs = torch.softmax(w, dim=-1).to(v.dtype)
    ctx = torch.matmul(probs, split(v))
    return ctx.transpose(1, 2).reshape(b, s, d)


class Mlp(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        w = cfg["width"]
        self.layers = nn.ModuleList(Linear(w, w) for _ in range(cfg["layers"]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = F.relu(x)
        return x


class BertSelfAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.query = Linear(d, d)
        self.key = Linear(d, d)
        self.value = Linear(d, d)


class BertSelfOutput(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.dense = Linear(d, d)
        self.LayerNorm = LayerNorm(d, BERT_EPS)


class BertAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.self = BertSelfAttention(d)
        self.output = BertSelfOutput(d)


class BertIntermediate(nn.Module):
    def __init__(self, d, ffn):
        super().__init__()
        self.dense = Linear(d, ffn)


class BertOutput(nn.Module):
    def __init__(self, ffn, d):
        super().__init__()
        self.dense = Linear(ffn, d)
        self.LayerNorm = LayerNorm(d, BERT_EPS)


class BertLayer(nn.Module):
    """Post-LN encoder layer, erf GELU, no attention mask (all tokens
    valid), no dropout (inference)."""

    def __init__(self, cfg):
        super().__init__()
        d, ffn = cfg["hidden"], cfg["ffn"]
        self.heads = cfg["heads"]
        self.attention = BertAttention(d)
        self.intermediate = BertIntermediate(d, ffn)
        self.output = BertOutput(ffn, d)

    def forward(self, x):
        sa = self.attention.self
        ctx = attention(sa.query(x), sa.key(x), sa.value(x), self.heads, causal=False)
        so = self.attention.output
        h = so.LayerNorm(so.dense(ctx) + x)
        inter = F.gelu(self.intermediate.dense(h))
        return self.output.LayerNorm(self.output.dense(inter) + h)


class Gpt2Attention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_attn = Conv1D(d, 3 * d)
        self.c_proj = Conv1D(d, d)


class Gpt2Mlp(nn.Module):
    def __init__(self, d, ffn):
        super().__init__()
        self.c_fc = Conv1D(d, ffn)
        self.c_proj = Conv1D(ffn, d)


class Gpt2Block(nn.Module):
    """Pre-LN decoder block with causal attention and tanh GELU."""

    def __init__(self, cfg):
        super().__init__()
        d, ffn = cfg["hidden"], cfg["ffn"]
        self.heads = cfg["heads"]
        self.ln_1 = LayerNorm(d, GPT2_EPS)
        self.attn = Gpt2Attention(d)
        self.ln_2 = LayerNorm(d, GPT2_EPS)
        self.mlp = Gpt2Mlp(d, ffn)

    def forward(self, x):
        q, k, v = self.attn.c_attn(self.ln_1(x)).split(x.shape[-1], dim=-1)
        x = x + self.attn.c_proj(attention(q, k, v, self.heads, causal=True))
        m = self.mlp.c_fc(self.ln_2(x))
        return x + self.mlp.c_proj(F.gelu(m, approximate="tanh"))


class VitAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.in_proj = Linear(d, 3 * d)
        self.out_proj = Linear(d, d)


class VitEncoderBlock(nn.Module):
    """torchvision's ViT EncoderBlock (pre-LN, erf GELU, no mask), with
    nn.MultiheadAttention's packed in_proj as one Linear; eval mode."""

    def __init__(self, cfg):
        super().__init__()
        d, ffn = cfg["hidden"], cfg["ffn"]
        self.heads = cfg["heads"]
        self.ln_1 = LayerNorm(d, VIT_EPS)
        self.self_attention = VitAttention(d)
        self.ln_2 = LayerNorm(d, VIT_EPS)
        self.mlp = nn.ModuleDict({"0": Linear(d, ffn), "3": Linear(ffn, d)})

    def forward(self, x):
        sa = self.self_attention
        q, k, v = sa.in_proj(self.ln_1(x)).split(x.shape[-1], dim=-1)
        x = x + sa.out_proj(attention(q, k, v, self.heads, causal=False))
        m = F.gelu(self.mlp["0"](self.ln_2(x)))
        return x + self.mlp["3"](m)


class Bottleneck(nn.Module):
    """torchvision's Bottleneck (v1.5) with each BatchNorm folded into its
    convolution (Conv2d with bias), as gen_models.py writes it."""

    def __init__(self, inplanes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=stride, padding=1)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1)
        self.downsample = None
        if stride != 1 or inplanes != planes * 4:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes * 4, 1, stride=stride))

    def forward(self, x):
        t = F.relu(self.conv1(x))
        t = F.relu(self.conv2(t))
        t = self.conv3(t)
        identity = x if self.downsample is None else self.downsample(x)
        return F.relu(t + identity)


class ResNet50(nn.Module):
    """ResNet-50 for inference with folded BatchNorms. Run channels-last
    (`channels_last`: build() converts the module and its 4-D inputs), as
    PyTorch's own guidance for convolutions on tensor cores has it."""

    channels_last = True

    def __init__(self, cfg):
        super().__init__()
        width = cfg["width"]
        self.conv1 = nn.Conv2d(3, width, 7, stride=2, padding=3)
        inplanes = width
        for stage, blocks in enumerate(cfg["blocks"]):
            planes = width << stage
            layer = []
            for b in range(blocks):
                layer.append(Bottleneck(inplanes, planes, 2 if stage > 0 and b == 0 else 1))
                inplanes = planes * 4
            setattr(self, "layer%d" % (stage + 1), nn.Sequential(*layer))
        self.stages = len(cfg["blocks"])
        self.fc = Linear(inplanes, cfg["classes"])

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 3, 2, 1)
        for stage in range(self.stages):
            x = getattr(self, "layer%d" % (stage + 1))(x)
        return self.fc(torch.flatten(x.mean(dim=(2, 3)), 1))


class LayerNormModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln = LayerNorm(cfg["cols"], MICRO_EPS)

    def forward(self, x):
        return self.ln(x)


class SoftmaxModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x.float(), dim=-1).to(x.dtype)


class BiasGeluModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.bias = nn.Parameter(torch.empty(cfg["cols"]))

    def forward(self, x):
        return F.gelu(x + self.bias)


class AddLayerNormModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln = LayerNorm(cfg["cols"], MICRO_EPS)

    def forward(self, x, residual):
        return self.ln(x + residual)


class AttentionModel(nn.Module):
    """Scaled dot-product attention on q, k, v [batch * heads, seq, head
    dim], the softmax in f32, as gen_models.py writes it (or through SDPA
    with USE_SDPA: FlashAttention-2's kernels on PyTorch 2.x)."""

    def __init__(self, cfg):
        super().__init__()
        self.causal = cfg["causal"]
        self.scale = 1.0 / math.sqrt(cfg["head_dim"])

    def forward(self, q, k, v):
        if USE_SDPA:
            return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        w = torch.matmul(q, k.transpose(-1, -2)).float() * self.scale
        if self.causal:
            s = q.shape[-2]
            mask = torch.ones(s, s, dtype=torch.bool, device=q.device).tril()
            w = torch.where(mask, w, torch.full((), MASK_VALUE, device=q.device))
        probs = torch.softmax(w, dim=-1).to(v.dtype)
        return torch.matmul(probs, v)


MODULES = {
    "mlp": Mlp,
    "bert": BertLayer,
    "gpt2": Gpt2Block,
    "vit": VitEncoderBlock,
    "resnet50": ResNet50,
    "layernorm": LayerNormModel,
    "softmax": SoftmaxModel,
    "bias_gelu": BiasGeluModel,
    "add_layernorm": AddLayerNormModel,
    "attention": AttentionModel,
}


def module_class(manifest):
    key = manifest["family"] if manifest["family"] in MODULES else manifest["base"]
    return MODULES[key]


def torch_dtype(name):
    return {"f32": torch.float32, "bf16": torch.bfloat16}[name]


def build(manifest_path, device="cpu", dtype=None):
    """The module of a manifest with its parameters loaded, in eval mode
    without gradients, and its activation inputs, both on `device` in
    `dtype` (default: the model's)."""
    with open(manifest_path) as f:
        manifest = json.load(f)
    d = os.path.dirname(manifest_path)
    dtype = dtype or torch_dtype(manifest["dtype"])
    model = module_class(manifest)(manifest["config"])
    state = {}
    inputs = []
    for t in manifest["inputs"]:
        value = load_npy(os.path.join(d, t["file"]))
        if t["role"] == "param":
            state[t["name"]] = value
        else:
            inputs.append(value.to(device=device, dtype=dtype))
    model.load_state_dict(state, strict=True)
    model = model.to(device=device, dtype=dtype).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    if getattr(model, "channels_last", False):
        model = model.to(memory_format=torch.channels_last)
        inputs = [t.contiguous(memory_format=torch.channels_last) if t.dim() == 4 else t
                  for t in inputs]
    return model, inputs
