#!/usr/bin/python3
"""Writes the PyTorch export fixtures of package privatizer (privatizer/testdata):
what torch.onnx.export writes, at its defaults, for networks built with
nn.BatchNorm1d (eval mode), LeakyReLU, ReLU6, Hardtanh, torch.clamp, Flatten,
squeeze/view and Dropout, and a few exports mmds must refuse.

Run once, with Debian's PyTorch and ONNX (scripts/install-torch.sh):

    /usr/bin/python3 scripts/make-export-fixtures.py

The outputs are committed; tests never run Python. For each accepted network
NAME.onnx, NAME.torch.json records what PyTorch computes at a grid of points
(x, r): "k", the module's float32 forward pass (float64 for a float64 export),
and "k64", the same module in float64, for the Go tests to hold mmds's
reading of the file (its float64 function and the forward error bound
EvalBound) against.
"""
import json
import os

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "privatizer", "testdata")


class Net(torch.nn.Module):
    """An nn.Sequential over the concatenated (x, r), and an optional tail
    applied to its output (torch.clamp, squeeze, view, ...)."""

    def __init__(self, body, tail=None):
        super().__init__()
        self.body = body
        self.tail = tail

    def forward(self, xr):
        y = self.body(xr)
        return self.tail(y) if self.tail else y


def f32(v):
    """v rounded to float32: what the ONNX file stores for a float attribute
    (LeakyRelu's alpha, BatchNormalization's epsilon). The modules use these
    values, so that their float64 forward pass is the file's function."""
    return float(np.float32(v))


def batchnorm(n, gen):
    """An nn.BatchNorm1d(n) as after training: running statistics and affine
    parameters away from their initial values."""
    bn = torch.nn.BatchNorm1d(n, eps=f32(1e-5))
    with torch.no_grad():
        bn.running_mean.copy_(0.5 * torch.randn(n, generator=gen))
        bn.running_var.copy_(0.25 + 2 * torch.rand(n, generator=gen))
        bn.weight.copy_(1 + 0.3 * torch.randn(n, generator=gen))
        bn.bias.copy_(0.2 * torch.randn(n, generator=gen))
    return bn


def export(name, net, opset, dynamic, xs, double=False):
    """Writes NAME.onnx (torch.onnx.export at its defaults, one input xr of
    shape [batch, 2] holding (x, r)) and NAME.torch.json."""
    net.eval()
    if double:
        net.double()
    dtype = torch.float64 if double else torch.float32
    path = os.path.join(OUT, name + ".onnx")
    kw = {"dynamic_axes": {"xr": {0: "batch"}, "k": {0: "batch"}}} if dynamic else {}
    torch.onnx.export(net, torch.zeros(1, 2, dtype=dtype), path, input_names=["xr"], output_names=["k"],
                      opset_version=opset, **kw)
    onnx.checker.check_model(onnx.load(path))
    rs = [-6.0, -3.5] + [-3 + 0.25 * i for i in range(25)] + [4.5, 7.0]
    points = []
    with torch.no_grad():
        for x in xs:
            for r in rs:
                xr = torch.tensor([[x, r]], dtype=dtype)
                points.append({"x": x, "r": float(xr[0, 1]), "k": float(net(xr).reshape(-1)[0])})
        net.double()
        for p in points:
            p["k64"] = float(net(torch.tensor([[p["x"], p["r"]]], dtype=torch.float64)).reshape(-1)[0])
    head = json.dumps({"torch": torch.__version__, "opset": opset, "dynamic": dynamic,
                       "precision": "float64" if double else "float32"})
    with open(os.path.join(OUT, name + ".torch.json"), "w") as f:
        f.write(head[:-1] + ', "points": [\n' + ",\n".join(json.dumps(p, allow_nan=False) for p in points) + "\n]}\n")
    print(f"{name}.onnx: opset {opset}, {'dynamic' if dynamic else 'static'} batch, "
          f"{os.path.getsize(path)} bytes, ops {[n.op_type for n in onnx.load(path).graph.node]}")


def refuse(name, net, opset, dynamic=False, training=False):
    """Writes NAME.onnx, an export that mmds must refuse."""
    path = os.path.join(OUT, name + ".onnx")
    kw = {"dynamic_axes": {"xr": {0: "batch"}, "k": {0: "batch"}}} if dynamic else {}
    if training:
        net.train()
        kw["training"] = torch.onnx.TrainingMode.TRAINING
        kw["do_constant_folding"] = False
    else:
        net.eval()
    torch.onnx.export(net, torch.zeros(2, 2), path, input_names=["xr"], output_names=["k"], opset_version=opset, **kw)
    print(f"{name}.onnx: opset {opset}, ops {[n.op_type for n in onnx.load(path).graph.node]}")


def dropout_eval(src, name):
    """NAME.onnx: SRC.onnx with a Dropout node in inference mode (ratio 0.3,
    training_mode false) and an Unsqueeze + Flatten before the output: what
    graphs written by other tools contain (torch.onnx.export of an eval-mode
    module removes Dropout)."""
    m = onnx.load(os.path.join(OUT, src + ".onnx"))
    g = m.graph
    out = g.output[0].name
    last = [n for n in g.node if out in n.output][0]
    last.output[0] = "pre_dropout"
    g.initializer.extend([numpy_helper.from_array(torch.tensor(0.3).numpy(), "ratio"),
                          helper.make_tensor("training_mode", TensorProto.BOOL, [], [False]),
                          helper.make_tensor("axes", TensorProto.INT64, [1], [1])])
    g.node.extend([helper.make_node("Dropout", ["pre_dropout", "ratio", "training_mode"], ["dropped"], name="/drop/Dropout"),
                   helper.make_node("Unsqueeze", ["dropped", "axes"], ["unsq"], name="/unsq/Unsqueeze"),
                   helper.make_node("Flatten", ["unsq"], [out], name="/flat/Flatten", axis=1)])
    g.output[0].type.tensor_type.shape.dim.add().dim_value = 1  # [batch] → [batch, 1]
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(OUT, name + ".onnx"))
    print(f"{name}.onnx: {src}.onnx with Dropout (inference), Unsqueeze and Flatten: the same function "
          f"({src}.torch.json)")


def main():
    torch.manual_seed(20261201)
    gen = torch.Generator().manual_seed(20261201)
    binary_x, gauss_x = [0.0, 1.0], [-2.5, -1.0, 0.0, 0.75, 2.0]

    # Binary model, P(F = 1 | x, r): Linear → BatchNorm1d → ReLU → Linear,
    # clamped to [0, 1] and squeezed to [batch] (torch.clamp, squeeze(-1)).
    def bn_clamp():
        return Net(torch.nn.Sequential(torch.nn.Linear(2, 8), batchnorm(8, gen), torch.nn.ReLU(), torch.nn.Linear(8, 1)),
                   lambda y: torch.clamp(y + 0.5, 0, 1).squeeze(-1))
    torch.manual_seed(1)
    export("bn-clamp-binary", bn_clamp(), 13, True, binary_x)
    torch.manual_seed(1)
    export("bn-clamp-binary-f64", bn_clamp(), 13, True, binary_x, double=True)

    # Proposition 2's optimum at D = 0.15 on the paper's binary model (s0 = 0,
    # s1 = 0.537: scripts/make-certify-fixtures.py's grid), k = 1 − 0.463·x,
    # written as Linear → BatchNorm1d → Hardtanh(0, 1): must pass.
    lin = torch.nn.Linear(2, 1)
    bn = torch.nn.BatchNorm1d(1, eps=f32(1e-5))
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[2.0, 0.0]]))
        lin.bias.copy_(torch.tensor([0.5]))
        bn.running_mean.fill_(0.5)
        bn.running_var.fill_(4.0)
        bn.weight.fill_(-0.463 * float(np.sqrt(np.float32(4.0) + np.float32(f32(1e-5)))) / 2)
        bn.bias.fill_(1.0)
    export("bn-pass-binary", Net(torch.nn.Sequential(lin, bn, torch.nn.Hardtanh(0, 1))), 16, True, binary_x)

    # LeakyReLU(0.1), ReLU6 (Relu then Clip(0, 6)), Hardtanh(0, 1) at the
    # output and nn.Flatten; static batch, opset 15.
    torch.manual_seed(2)
    export("leaky-relu6-binary", Net(torch.nn.Sequential(
        torch.nn.Linear(2, 8), torch.nn.LeakyReLU(f32(0.1)), torch.nn.Linear(8, 8), torch.nn.ReLU6(),
        torch.nn.Linear(8, 1), torch.nn.Hardtanh(0, 1), torch.nn.Flatten())), 15, False, binary_x)

    # A tanh layer, a sigmoid output, a clamp to [0, 1] that changes nothing
    # and view(-1); opset 17.
    torch.manual_seed(3)
    export("sigmoid-clamp-binary", Net(torch.nn.Sequential(
        torch.nn.Linear(2, 6), torch.nn.Tanh(), torch.nn.Linear(6, 1), torch.nn.Sigmoid()),
        lambda y: torch.clamp(y, 0, 1).view(-1)), 17, True, binary_x)

    # Gaussian model, F = k(x, r): BatchNorm1d before a LeakyReLU(0.2) and
    # before a ReLU, Dropout (removed by the export in eval mode),
    # reshape(-1); opset 17, dynamic batch.
    def bn_leaky():
        g = torch.Generator().manual_seed(4)
        return Net(torch.nn.Sequential(
            torch.nn.Linear(2, 8), batchnorm(8, g), torch.nn.LeakyReLU(f32(0.2)), torch.nn.Dropout(0.2),
            torch.nn.Linear(8, 8), batchnorm(8, g), torch.nn.ReLU(), torch.nn.Linear(8, 1)),
            lambda y: y.reshape(-1))
    torch.manual_seed(4)
    export("bn-leaky-gauss", bn_leaky(), 17, True, gauss_x)
    torch.manual_seed(4)
    export("bn-leaky-gauss-f64", bn_leaky(), 17, True, gauss_x, double=True)
    dropout_eval("bn-leaky-gauss", "bn-leaky-gauss-dropout")

    # Hardtanh(−1, 1) hidden units and a BatchNorm1d after an activation
    # (folded into an identity layer); static batch, opset 14.
    torch.manual_seed(5)
    export("hardtanh-gauss", Net(torch.nn.Sequential(
        torch.nn.Linear(2, 8), torch.nn.Hardtanh(), batchnorm(8, gen), torch.nn.Linear(8, 1))), 14, False, gauss_x)

    # Refused: an operator outside the supported set (ELU), training mode
    # (BatchNormalization with training_mode = 1, Dropout with
    # training_mode = true), a shape computed at run time (view(size(0), -1)).
    torch.manual_seed(6)
    refuse("elu", torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.ELU(), torch.nn.Linear(4, 1)), 13)
    refuse("bn-train", torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                                           torch.nn.Linear(4, 1)), 15, training=True)
    refuse("view-size", Net(torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1)),
                            lambda y: y.view(y.size(0), -1)), 13, dynamic=True)


if __name__ == "__main__":
    main()
