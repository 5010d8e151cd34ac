#!/usr/bin/python3
"""Exports the PyTorch models the `models` tests run on dlc's sim device.

Each model is built with a fixed seed and random weights, put in eval mode
and exported with torch.onnx.export (opset 13, static shapes, constant
folding) to OUT_DIR/<name>.onnx, together with
  OUT_DIR/<name>.in<i>.npy    the i-th input (in the ONNX graph's order)
  OUT_DIR/<name>.out<i>.npy   PyTorch's CPU output i for those inputs
  OUT_DIR/<name>.json         names, files and shapes of both (the driver's index)
Nothing here is committed: the tests generate the files at test time.

usage: export_models.py OUT_DIR [MODEL ...]   (default: every model; --list)
Needs Debian's torch/torchvision/onnx, i.e. /usr/bin/python3.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OPSET = 13


def randomize_batchnorm(model, gen):
    """Gives every BatchNorm non-trivial statistics and affine parameters:
    torchvision's default init (mean 0, var 1, weight 1, bias 0) would make
    eval-mode BatchNorm an identity and test nothing of its folding."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(c, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(c, generator=gen) + 0.5)
                m.weight.copy_(torch.rand(c, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(c, generator=gen) * 0.1)


def image_input(batch, gen):
    return torch.randn(batch, 3, 224, 224, generator=gen)


def make_torchvision(ctor, size, batch=1, input_name="image"):
    """A torchvision classifier with random weights (and BatchNorm
    statistics) on `batch` size x size images."""
    def build(gen):
        model = ctor(weights=None)
        randomize_batchnorm(model, gen)
        return (model, (torch.randn(batch, 3, size, size, generator=gen),),
                [input_name], ["logits"])
    return build


def make_resnet18(batch):
    return make_torchvision(torchvision.models.resnet18, 224, batch, "input")


def make_mobilenet_v2(batch):
    return make_torchvision(torchvision.models.mobilenet_v2, 224, batch, "input")


def make_resnet50(batch):
    return make_torchvision(torchvision.models.resnet50, 224, batch, "input")


def make_encoder_layer(gen):
    layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                                       dropout=0.0, batch_first=True)
    x = torch.randn(2, 64, 256, generator=gen)
    return layer, (x,), ["x"], ["y"]


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, n_head, seq_len):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        # True above the diagonal: the future positions a token may not see.
        mask = torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool), diagonal=1)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        hd = c // self.n_head
        q = q.reshape(b, t, self.n_head, hd).transpose(1, 2)
        k = k.reshape(b, t, self.n_head, hd).transpose(1, 2)
        v = v.reshape(b, t, self.n_head, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        att = att.masked_fill(self.mask[:t, :t], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        return self.proj(y)


class GptBlock(nn.Module):
    def __init__(self, d_model, n_head, seq_len):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_head, seq_len)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.gelu = nn.GELU()
        self.fc_out = nn.Linear(4 * d_model, d_model)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc_out(self.gelu(self.fc(self.ln2(x))))


class TinyGpt(nn.Module):
    """Token + learned position embedding, one causal decoder block, final
    LayerNorm and the language-model head (GPT-2 layout)."""

    def __init__(self, vocab=512, d_model=256, n_head=4, seq_len=64, layers=1):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(seq_len, d_model)
        self.blocks = nn.Sequential(
            *[GptBlock(d_model, n_head, seq_len) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, ids):
        t = ids.shape[1]
        pos = torch.arange(t, dtype=torch.long, device=ids.device)
        x = self.tok(ids) + self.pos(pos)
        return self.head(self.ln_f(self.blocks(x)))


def make_gpt_block(gen):
    model = TinyGpt()
    with torch.no_grad():  # LayerNorms with non-trivial affine parameters
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.copy_(torch.rand(m.normalized_shape, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(m.normalized_shape, generator=gen) * 0.1)
    ids = torch.randint(0, 512, (2, 64), generator=gen, dtype=torch.long)
    return model, (ids,), ["ids"], ["logits"]


def make_gpt4(gen):
    """A 4-layer GPT (d_model 512, 8 heads, 128 tokens, batch 1)."""
    model = TinyGpt(vocab=8192, d_model=512, n_head=8, seq_len=128, layers=4)
    ids = torch.randint(0, 8192, (1, 128), generator=gen, dtype=torch.long)
    return model, (ids,), ["ids"], ["logits"]


def make_vit_b16(gen):
    """torchvision's ViT-B/16 at 224x224, batch 1."""
    model = torchvision.models.vit_b_16(weights=None)
    return model, (image_input(1, gen),), ["image"], ["logits"]


def make_swin_b2(gen):
    """torchvision's Swin Transformer, shrunk (embed 32, depths 2 and 2,
    heads 2 and 4, windows of 4 x 4) at 32 x 32, batch 2: shifted-window
    attention, whose mask varies by window, over two images."""
    from torchvision.models.swin_transformer import SwinTransformer
    model = SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2],
                            num_heads=[2, 4], window_size=[4, 4], num_classes=10)
    return model, (torch.randn(2, 3, 32, 32, generator=gen),), ["image"], ["logits"]


def make_shufflenet_b1(gen):
    """torchvision's ShuffleNetV2 x0.5 at 64 x 64: channel shuffles
    (reshape, transpose, reshape) and channel splits."""
    model = torchvision.models.shufflenet_v2_x0_5(weights=None)
    randomize_batchnorm(model, gen)
    return model, (torch.randn(1, 3, 64, 64, generator=gen),), ["image"], ["logits"]


class CausalDecoder(nn.Module):
    """nn.TransformerDecoder (sequence first) with a causal target mask."""

    def __init__(self, t):
        super().__init__()
        layer = nn.TransformerDecoderLayer(64, 4, 128, dropout=0.0)
        self.decoder = nn.TransformerDecoder(layer, 2)
        # nn.Transformer.generate_square_subsequent_mask's -inf above the
        # diagonal, as a buffer (opset 13 has no Trilu).
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, tgt, memory):
        return self.decoder(tgt, memory, tgt_mask=self.mask)


def make_decoder_b2(gen):
    """Two decoder layers, batch 2: causal self-attention and
    cross-attention to a memory that both layers project (one product
    after horizontal fusion, each layer's keys and values sliced out)."""
    return (CausalDecoder(12), (torch.randn(12, 2, 64, generator=gen),
                              torch.randn(20, 2, 64, generator=gen)),
            ["tgt", "memory"], ["y"])


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return {"out": ...}."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def make_deeplabv3_b1(gen):
    """torchvision's DeepLabV3 with a MobileNetV3-Large backbone at 64 x 64:
    dilated depthwise convolutions, atrous spatial pyramid pooling (a
    global pool broadcast back), bilinear upsampling to the input size."""
    model = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, aux_loss=False)
    randomize_batchnorm(model, gen)
    return (SegmentationOut(model), (torch.randn(1, 3, 64, 64, generator=gen),),
            ["image"], ["out"])


class UNetBlock(nn.Module):
    """A diffusion-style U-Net stage: GroupNorm and SiLU, a strided
    convolution down, ConvTranspose2d and bilinear upsampling back, a skip
    concat, InstanceNorm, leaky relu, PixelShuffle."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.g1 = nn.GroupNorm(4, 16)
        self.c2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.g2 = nn.GroupNorm(8, 32)
        self.up = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.c3 = nn.Conv2d(32, 16, 3, padding=1)
        self.norm = nn.InstanceNorm2d(16, affine=True)
        self.c4 = nn.Conv2d(16, 12, 3, padding=1)
        self.shuffle = nn.PixelShuffle(2)

    def forward(self, x):
        a = F.silu(self.g1(self.c1(x)))
        b = F.silu(self.g2(self.c2(a)))
        up = self.up(b)
        resized = F.interpolate(b, scale_factor=2, mode="bilinear", align_corners=False)
        h = torch.cat([up, a], 1)
        h = F.leaky_relu(self.norm(self.c3(h)), 0.2) + resized[:, :16]
        return self.shuffle(self.c4(h))


class Conv1dNet(nn.Module):
    """1-D convolutions (an audio or sensor front end): BatchNorm1d, a
    dilated grouped convolution, average pooling, a softmax head."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(8, 32, 5, padding=2)
        self.bn = nn.BatchNorm1d(32)
        self.c2 = nn.Conv1d(32, 32, 3, dilation=2, padding=2, groups=4)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        h = F.gelu(self.bn(self.c1(x)))
        h = F.relu(self.c2(h)) + h
        h = F.avg_pool1d(h, 2)
        return self.fc(h.mean(-1)).softmax(-1)


def make_conv1d_b2(gen):
    model = Conv1dNet()
    with torch.no_grad():
        model.bn.running_mean.copy_(torch.randn(32, generator=gen) * 0.1)
        model.bn.running_var.copy_(torch.rand(32, generator=gen) + 0.5)
    return model, (torch.randn(2, 8, 40, generator=gen),), ["x"], ["y"]


MODELS = {
    "resnet18_b1": make_resnet18(1),
    "resnet18_b8": make_resnet18(8),
    "mobilenet_v2_b1": make_mobilenet_v2(1),
    "mobilenet_v2_b8": make_mobilenet_v2(8),
    "encoder_layer": make_encoder_layer,
    "gpt_block": make_gpt_block,
    "swin_b2": make_swin_b2,
    "shufflenet_b1": make_shufflenet_b1,
    "decoder_b2": make_decoder_b2,
    # More architectures at small sizes: the ops and fusion shapes of
    # squeeze-and-excitation, hardswish, channel-wise layer norm, concat
    # fire modules, dilated depthwise segmentation heads, GroupNorm U-Nets
    # and 1-D convolutions.
    "squeezenet_b1": make_torchvision(torchvision.models.squeezenet1_1, 64),
    "efficientnet_b0_b1": make_torchvision(torchvision.models.efficientnet_b0, 64),
    "mobilenet_v3_small_b1": make_torchvision(torchvision.models.mobilenet_v3_small, 64),
    "convnext_tiny_b1": make_torchvision(torchvision.models.convnext_tiny, 64),
    "deeplabv3_b1": make_deeplabv3_b1,
    "unet_block_b2": lambda gen: (UNetBlock(), (torch.randn(2, 3, 32, 32, generator=gen),),
                                  ["image"], ["y"]),
    "conv1d_b2": make_conv1d_b2,
    # Not tests: the compile-time benchmark's model (bench/compile_time.sh)
    # and the models of the figures in docs/fusion.md (bench/stats_figures.sh).
    "resnet50_b1": make_resnet50(1),
    "vit_b16_b1": make_vit_b16,
    "gpt4_b1": make_gpt4,
}
FIGURE_MODELS = ["resnet50_b1", "vit_b16_b1", "gpt4_b1"]
TEST_MODELS = [m for m in MODELS if m not in FIGURE_MODELS]


def export(name, out_dir):
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    model, args, input_names, output_names = MODELS[name](gen)
    model.eval()
    # torch 1.13 runs an eval-mode TransformerEncoderLayer through its fused
    # "fast path" (aten::_transformer_encoder_layer_fwd, which has no ONNX
    # export) unless grad is enabled and a parameter requires grad; so grad
    # stays on, for the reference outputs too (the same, unfused arithmetic
    # the ONNX graph does), and the export is checked for non-standard ops.
    with torch.enable_grad():
        outputs = model(*args)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)
    outputs = tuple(o.detach() for o in outputs)
    onnx_path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(model, args, onnx_path, opset_version=OPSET,
                      input_names=input_names, output_names=output_names,
                      do_constant_folding=True, dynamic_axes=None,
                      export_params=True,
                      operator_export_type=torch.onnx.OperatorExportTypes.ONNX)
    graph = onnx.load(onnx_path).graph
    ops = sorted({n.op_type for n in graph.node})
    # Ops outside the default ONNX domain (e.g. a fused ATen op) fail here,
    # not later in the importer.
    for node in graph.node:
        if node.domain not in ("", "ai.onnx"):
            raise SystemExit(f"{name}: exported a non-standard op "
                             f"{node.domain}::{node.op_type}")
    index = {"name": name, "onnx": name + ".onnx", "opset": OPSET, "ops": ops,
             "inputs": [], "outputs": []}
    for i, (n, t) in enumerate(zip(input_names, args)):
        f = f"{name}.in{i}.npy"
        np.save(os.path.join(out_dir, f), t.numpy())
        index["inputs"].append({"name": n, "file": f, "shape": list(t.shape),
                                "dtype": str(t.numpy().dtype)})
    for i, (n, t) in enumerate(zip(output_names, outputs)):
        f = f"{name}.out{i}.npy"
        np.save(os.path.join(out_dir, f), t.numpy())
        index["outputs"].append({"name": n, "file": f, "shape": list(t.shape),
                                 "dtype": str(t.numpy().dtype)})
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump(index, f, indent=1)
    return index


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", nargs="?")
    ap.add_argument("models", nargs="*")
    ap.add_argument("--list", action="store_true", help="print the model names")
    a = ap.parse_args()
    if a.list:
        print("\n".join(TEST_MODELS))
        return 0
    if not a.out_dir:
        ap.error("OUT_DIR is required")
    names = a.models or TEST_MODELS
    for n in names:
        if n not in MODELS:
            ap.error(f"unknown model '{n}' (known: {', '.join(MODELS)})")
    os.makedirs(a.out_dir, exist_ok=True)
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    for n in names:
        index = export(n, a.out_dir)
        print(f"{n}: {index['onnx']} ops={','.join(index['ops'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
