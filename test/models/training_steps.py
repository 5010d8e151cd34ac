#!/usr/bin/env python3
"""Training steps compiled by dlc against PyTorch's, on the sim device.

Each case is a small model written in the dlc dialect, its parameters
constants marked `dlc.param`, with fixed initial weights and data. `dlc
train` builds the step (loss, gradients, optimizer) and runs it STEPS times
on sim; each step's loss (--loss-log) and the final parameters
(--save-weights) must match torch.optim on the same model within 1e-4
(relative, by norm; PyTorch's own f32 and f64 runs of these differ by under
1e-6).

  training_steps.py --dlc build/bin/dlc --work-dir DIR [CASE ...]

Exit code 77 (skipped) without torch.
"""
import os
import subprocess
import sys

try:
    import numpy as np
    import torch
    import training_common
    from training_common import rel
except ImportError:
    sys.exit(77)

STEPS = 3


def mlir_type(shape, dtype="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + dtype + ">"


class Mlp:
    """x -> linear -> relu (or tanh) -> linear, biases as [1, N] rows."""

    def __init__(self, batch, sizes, activation, seed):
        g = np.random.default_rng(seed)
        self.batch, self.sizes, self.activation = batch, sizes, activation
        self.params = {}
        for i in range(len(sizes) - 1):
            bound = 1.0 / np.sqrt(sizes[i])
            self.params[f"fc{i}.weight"] = g.uniform(
                -bound, bound, (sizes[i], sizes[i + 1])).astype(np.float32)
            self.params[f"fc{i}.bias"] = g.uniform(
                -bound, bound, (1, sizes[i + 1])).astype(np.float32)

    def mlir(self):
        lines = []
        for n, v in self.params.items():
            data = np.ascontiguousarray(v, "<f4").tobytes().hex().upper()
            lines.append(f'%{n.replace(".", "_")} = dlc.constant {{dlc.param = "{n}"}} '
                         f'dense<"0x{data}"> : {mlir_type(v.shape)}')
        h = "%x"
        layers = len(self.sizes) - 1
        for i in range(layers):
            n_in, n_out = self.sizes[i], self.sizes[i + 1]
            ty_in, ty_out = mlir_type([self.batch, n_in]), mlir_type([self.batch, n_out])
            w, b = f"%fc{i}_weight", f"%fc{i}_bias"
            lines.append(f"%p{i} = dlc.matmul {h}, {w} : ({ty_in}, {mlir_type([n_in, n_out])}) -> {ty_out}")
            lines.append(f"%s{i} = dlc.add %p{i}, {b} : ({ty_out}, {mlir_type([1, n_out])}) -> {ty_out}")
            h = f"%s{i}"
            if i + 1 < layers:
                if self.activation == "relu":
                    lines.append(f"%z{i} = dlc.constant dense<0.0> : tensor<1x1xf32>")
                    lines.append(f"%a{i} = dlc.max {h}, %z{i} : ({ty_out}, tensor<1x1xf32>) -> {ty_out}")
                else:
                    lines.append(f"%a{i} = dlc.tanh {h} : {ty_out}")
                h = f"%a{i}"
        out = mlir_type([self.batch, self.sizes[-1]])
        x = mlir_type([self.batch, self.sizes[0]])
        return (f"func.func @main(%x: {x}) -> {out} {{\n  " +
                "\n  ".join(lines) + f"\n  return {h} : {out}\n}}\n")

    def torch_module(self):
        layers = []
        for i in range(len(self.sizes) - 1):
            lin = torch.nn.Linear(self.sizes[i], self.sizes[i + 1])
            with torch.no_grad():
                lin.weight.copy_(torch.from_numpy(self.params[f"fc{i}.weight"].T))
                lin.bias.copy_(torch.from_numpy(self.params[f"fc{i}.bias"][0]))
            layers.append(lin)
            if i + 2 < len(self.sizes):
                layers.append(torch.nn.ReLU() if self.activation == "relu" else torch.nn.Tanh())
        return torch.nn.Sequential(*layers)

    def torch_params(self, module):
        """The module's parameters in dlc's layout, by dlc name."""
        out = {}
        linears = [m for m in module if isinstance(m, torch.nn.Linear)]
        for i, lin in enumerate(linears):
            out[f"fc{i}.weight"] = lin.weight.detach().numpy().T
            out[f"fc{i}.bias"] = lin.bias.detach().numpy()[None, :]
        return out


CASES = {
    # name: (model, loss, flags, torch optimizer factory, grad clip)
    "mlp_cross_entropy_adamw": (
        lambda: Mlp(8, [6, 16, 4], "relu", 1), "cross_entropy",
        ["--optimizer=adamw", "--lr=0.01", "--weight-decay=0.01"],
        lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.01), 0),
    "mlp_cross_entropy_sgd_nesterov": (
        lambda: Mlp(8, [6, 16, 4], "relu", 2), "cross_entropy",
        ["--optimizer=sgd", "--lr=0.1", "--momentum=0.9", "--nesterov",
         "--weight-decay=0.001"],
        lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True,
                                  weight_decay=0.001), 0),
    "regressor_mse_sgd_clip": (
        lambda: Mlp(5, [3, 12, 12, 2], "tanh", 3), "mse",
        ["--optimizer=sgd", "--lr=0.05", "--momentum=0.5", "--grad-clip=0.1"],
        lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.5), 0.1),
}


def run_case(name, dlc, work):
    make, loss, flags, make_opt, clip = CASES[name]
    model = make()
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "model.mlir")
    with open(src, "w") as f:
        f.write(model.mlir())
    g = np.random.default_rng(100)
    x = g.standard_normal((STEPS, model.batch, model.sizes[0])).astype(np.float32)
    if loss == "cross_entropy":
        y = g.integers(0, model.sizes[-1], (STEPS, model.batch)).astype(np.int64)
    else:
        y = g.standard_normal((STEPS, model.batch, model.sizes[-1])).astype(np.float32)
    # Step s takes rows [s*B, (s+1)*B): batch s.
    rows = STEPS * model.batch
    np.save(os.path.join(d, "x.npy"), x.reshape(rows, -1))
    np.save(os.path.join(d, "y.npy"), y.reshape((rows,) + y.shape[2:]))
    log, weights = os.path.join(d, "loss.csv"), os.path.join(d, "w.npz")
    subprocess.run([dlc, "train", src, f"--loss={loss}", *flags,
                    "--input", os.path.join(d, "x.npy"),
                    "--labels", os.path.join(d, "y.npy"),
                    f"--steps={STEPS}", "--device=sim", "--quiet",
                    "--loss-log", log, "--save-weights", weights], check=True)
    dlc_losses = [float(line.split(",")[1])
                  for line in open(log).read().splitlines()[1:]]
    trained = np.load(weights)
    state = {n: trained[n] for n in trained.files}

    module = model.torch_module()
    opt = make_opt(module.parameters())
    torch_losses = []
    for step in range(STEPS):
        opt.zero_grad()
        logits = module(torch.from_numpy(x[step]))
        if loss == "cross_entropy":
            value = torch.nn.functional.cross_entropy(logits, torch.from_numpy(y[step]))
        else:
            value = torch.nn.functional.mse_loss(logits, torch.from_numpy(y[step]))
        value.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(module.parameters(), clip)
        opt.step()
        torch_losses.append(value.item())

    failures = []
    for step, (a, b) in enumerate(zip(dlc_losses, torch_losses)):
        if abs(a - b) > 1e-4 * max(abs(b), 1e-6):
            failures.append(f"step {step}: loss {a} (PyTorch {b})")
    for n, v in model.torch_params(module).items():
        r = rel(state[n], v)
        if r > 1e-4:
            failures.append(f"{n} after {STEPS} steps: relative error {r:.2e}")
    print(f"{name}: losses {['%.6f' % l for l in dlc_losses]} "
          f"(PyTorch {['%.6f' % l for l in torch_losses]})")
    return failures


if __name__ == "__main__":
    torch.manual_seed(0)
    sys.exit(training_common.main(CASES, run_case))
