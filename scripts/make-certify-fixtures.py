#!/usr/bin/python3
"""Writes the privatizer fixtures of package privatizer (privatizer/testdata).

Run once, with Debian's PyTorch and ONNX (scripts/install-torch.sh):

    /usr/bin/python3 scripts/make-certify-fixtures.py

The outputs are committed; tests never run Python. Each network is written
twice, in the JSON layout of docs/certify.md and as ONNX (torch.onnx.export,
or onnx.helper for the MatMul+Add and Gemm-attribute variants), from the same
float32 weights, so the two files describe the same function exactly.
"""
import json
import os

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "privatizer", "testdata")

# The paper's binary model (Section V-B): p = 0.54, q_Y = 0.2, q_Z = 0.44.
P, QY, QZ = 0.54, 0.2, 0.44


def layout(model, inputs=("x", "r")):
    """The JSON layout of an nn.Sequential of Linear layers and activations."""
    layers = []
    acts = {torch.nn.ReLU: "relu", torch.nn.Sigmoid: "sigmoid", torch.nn.Tanh: "tanh"}
    for m in model:
        if isinstance(m, torch.nn.Linear):
            layers.append({"weight": m.weight.detach().double().tolist(),
                           "bias": m.bias.detach().double().tolist(),
                           "activation": "identity"})
        else:
            layers[-1]["activation"] = acts[type(m)]
    return {"inputs": list(inputs), "noise": "normal(0,1)", "layers": layers}


def write_json(name, obj):
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(obj, f, indent=1, allow_nan=False)
        f.write("\n")


def export(name, model, inputs=("x", "r")):
    """Writes NAME.json and NAME.onnx (torch.onnx.export, Gemm nodes)."""
    model.eval()
    write_json(name + ".json", layout(model, inputs))
    path = os.path.join(OUT, name + ".onnx")
    torch.onnx.export(model, torch.zeros(1, 2), path, input_names=["xr"], output_names=["k"],
                      dynamic_axes={"xr": {0: "batch"}, "k": {0: "batch"}}, opset_version=13)
    if tuple(inputs) != ("x", "r"):
        m = onnx.load(path)
        helper.set_model_props(m, {"mmds.inputs": ",".join(inputs)})
        onnx.save(m, path)
    onnx.checker.check_model(onnx.load(path))


def linear(w, b):
    lin = torch.nn.Linear(len(w[0]), len(w))
    with torch.no_grad():
        lin.weight.copy_(torch.tensor(w, dtype=torch.float32))
        lin.bias.copy_(torch.tensor(b, dtype=torch.float32))
    return lin


def clamp01():
    """clip(t, 0, 1) = relu(t) − relu(t − 1): two exact PL layers."""
    return [linear([[1.0], [1.0]], [0.0, -1.0]), torch.nn.ReLU(), linear([[1.0, -1.0]], [0.0])]


def map_loss(s0, s1, q):
    """Appendix B: the MAP error of an observer with a BSC(q), brute force."""
    prior = [1 - P, P]
    chan = [[s0, 1 - s0], [1 - s1, s1]]
    side = [[1 - q, q], [q, 1 - q]]
    return sum(np.minimum(prior[0] * chan[0][f] * side[0][v], prior[1] * chan[1][f] * side[1][v])
               for f in (0, 1) for v in (0, 1))


def prop2_grid(d, n=2001):
    """γ*(D) of Proposition 2 by brute force over an n×n grid of (s0, s1)."""
    s = np.linspace(0, 1, n)
    s0, s1 = np.meshgrid(s, s, indexing="ij")
    rec, adv = map_loss(s0, s1, QY), map_loss(s0, s1, QZ)
    adv = np.where(rec <= d, adv, -1)
    i = np.unravel_index(np.argmax(adv), adv.shape)
    return float(s0[i]), float(s1[i]), float(rec[i]), float(adv[i])


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(20261122)

    # A linear-Gaussian privatizer F = a·x + b·r + c (Appendix A's class).
    export("linear-gauss", torch.nn.Sequential(linear([[0.8, 1.3]], [0.25])))

    # A clamped linear binary privatizer k = clip(0.3 + 0.4x + 0.5r, 0, 1).
    export("clamp-binary", torch.nn.Sequential(linear([[0.4, 0.5]], [0.3]), *clamp01()))

    # Two hidden ReLU layers (random weights), then a clamp to [0, 1]: a
    # deep piecewise-linear binary privatizer; inputs in the order (r, x).
    relu2 = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8),
                                torch.nn.ReLU(), torch.nn.Linear(8, 1), *clamp01())
    export("relu2-binary", relu2, inputs=("r", "x"))

    # The same two hidden layers with an identity output: a Gaussian-model
    # privatizer F = k(X, R).
    gauss = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8),
                                torch.nn.ReLU(), torch.nn.Linear(8, 1))
    export("relu2-gauss", gauss)

    # A smooth network: tanh hidden layer, sigmoid output.
    tanh = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1),
                               torch.nn.Sigmoid())
    export("tanh-binary", tanh)

    # A ReLU layer and a sigmoid output (the shape of mmds train's binary
    # privatizer).
    rs = torch.nn.Sequential(torch.nn.Linear(2, 6), torch.nn.ReLU(), torch.nn.Linear(6, 1),
                             torch.nn.Sigmoid())
    export("relu-sigmoid-binary", rs)

    # relu2-gauss again, by hand, as MatMul + Add nodes (what torch emits for
    # inputs of rank > 2) and as Gemm with transB = 0, alpha and beta.
    ws = [(l.weight.detach().numpy().astype(np.float32), l.bias.detach().numpy().astype(np.float32))
          for l in gauss if isinstance(l, torch.nn.Linear)]
    nodes, inits, cur = [], [], "xr"
    for i, (w, b) in enumerate(ws):
        inits += [numpy_helper.from_array(w.T.copy(), f"W{i}"), numpy_helper.from_array(b, f"b{i}")]
        nodes += [helper.make_node("MatMul", [cur, f"W{i}"], [f"m{i}"]),
                  helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"])]
        cur = f"a{i}"
        if i < len(ws) - 1:
            nodes.append(helper.make_node("Relu", [cur], [f"h{i}"]))
            cur = f"h{i}"
    nodes.append(helper.make_node("Identity", [cur], ["k"]))
    save_graph("relu2-gauss-matmul.onnx", nodes, inits, len(ws[-1][1]))

    nodes, inits, cur = [], [], "xr"
    for i, (w, b) in enumerate(ws):
        # alpha·A·B + beta·C with B = Wᵀ/alpha stored untransposed, C = b/beta.
        alpha, beta = np.float32(0.5), np.float32(2.0)
        inits += [numpy_helper.from_array((w.T / alpha).astype(np.float32), f"B{i}"),
                  numpy_helper.from_array((b / beta).astype(np.float32), f"C{i}")]
        nodes.append(helper.make_node("Gemm", [cur, f"B{i}", f"C{i}"], [f"g{i}"], alpha=float(alpha),
                                      beta=float(beta), transB=0))
        cur = f"g{i}"
        if i < len(ws) - 1:
            nodes.append(helper.make_node("Relu", [cur], [f"h{i}"]))
            cur = f"h{i}"
    nodes.append(helper.make_node("Flatten", [cur], ["k"], axis=1))
    save_graph("relu2-gauss-gemm.onnx", nodes, inits, 1)

    # A forward pass that takes x and r separately and concatenates them
    # (r first): two ONNX inputs named x and r joined by a Concat.
    class TwoInputs(torch.nn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x, r):
            return self.net(torch.cat([r, x], dim=1))

    two = TwoInputs(torch.nn.Sequential(torch.nn.Linear(2, 5), torch.nn.ReLU(), torch.nn.Linear(5, 1)))
    two.eval()
    write_json("two-inputs.json", layout(two.net, ("r", "x")))
    path = os.path.join(OUT, "two-inputs.onnx")
    torch.onnx.export(two, (torch.zeros(1, 1), torch.zeros(1, 1)), path, input_names=["x", "r"],
                      output_names=["k"], opset_version=13)
    onnx.checker.check_model(onnx.load(path))

    # relu2-gauss with weights stored out × in and a Transpose node before
    # each MatMul (as some exporters write nn.Linear).
    nodes, inits, cur = [], [], "xr"
    for i, (w, b) in enumerate(ws):
        inits += [numpy_helper.from_array(w, f"W{i}"), numpy_helper.from_array(b, f"b{i}")]
        nodes += [helper.make_node("Transpose", [f"W{i}"], [f"Wt{i}"], perm=[1, 0]),
                  helper.make_node("MatMul", [cur, f"Wt{i}"], [f"m{i}"]),
                  helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}" if i < len(ws) - 1 else "k"])]
        cur = f"a{i}"
        if i < len(ws) - 1:
            nodes.append(helper.make_node("Relu", [cur], [f"h{i}"]))
            cur = f"h{i}"
    save_graph("relu2-gauss-transpose.onnx", nodes, inits, 1)

    # An operator outside the supported set.
    export_onnx_only("leaky.onnx", torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.LeakyReLU(0.1),
                                                       torch.nn.Linear(4, 1)))

    # Channels on the binary model: any output alphabet.
    write_json("channel-binary.json", {"channel": [[0.7, 0.2, 0.1], [0.05, 0.15, 0.8]]})
    with open(os.path.join(OUT, "channel-binary.csv"), "w") as f:
        f.write("# P(F=f | X=x): rows x = 0, 1; columns f = 0, 1, 2\n0.7, 0.2, 0.1\n0.05, 0.15, 0.8\n")
    write_json("channel-finite.json", {"channel": [[0.6, 0.3, 0.1, 0.0], [0.1, 0.5, 0.2, 0.2],
                                                   [0.0, 0.1, 0.3, 0.6]]})

    # One privatizer that must pass and one that must fail, at D = 0.15 on
    # the paper's binary model: the Proposition 2 optimum found by a
    # 2001 × 2001 grid over (s0, s1) (within the grid step of γ*), and the
    # symmetric channel s0 = s1 with the same distortion budget.
    s0, s1, rec, adv = prop2_grid(0.15)
    write_json("channel-pass.json", {"channel": [[s0, 1 - s0], [1 - s1, s1]]})
    export("net-pass", torch.nn.Sequential(linear([[s1 - (1 - s0), 0.0]], [1 - s0])))
    sym = min(s for s in np.linspace(0.5, 1, 5001) if map_loss(s, s, QY) <= 0.15)
    write_json("channel-fail.json", {"channel": [[sym, 1 - sym], [1 - sym, sym]]})
    export("net-fail", torch.nn.Sequential(linear([[2 * sym - 1, 0.0]], [1 - sym])))
    print(f"pass: s0={s0} s1={s1} recon={rec} adv={adv}")
    print(f"fail: s={sym} recon={map_loss(sym, sym, QY)} adv={map_loss(sym, sym, QZ)}")
    categorical()


class Categorical(torch.nn.Module):
    """A categorical privatizer on a finite X of 3 values: forward(x, r) with
    x one-hot [batch, 3] and r [batch, 1], concatenated, a ReLU layer, and a
    softmax over 4 labels: P(F = f | x, r)."""

    def __init__(self, gen):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4),
                                       torch.nn.Softmax(dim=1))
        with torch.no_grad():
            for m in self.net:
                if isinstance(m, torch.nn.Linear):
                    m.weight.copy_(2 * torch.randn(m.weight.shape, generator=gen))
                    m.bias.copy_(torch.randn(m.bias.shape, generator=gen))

    def forward(self, x, r):
        return self.net(torch.cat([x, r], dim=1))


def categorical():
    """categorical-finite.{json,onnx}: Categorical exported by torch.onnx.export
    (two inputs x and r) and in the JSON layout; categorical-finite.torch.json:
    what PyTorch's float32 forward pass releases at 60 points (x, r), and each
    row E_R[softmax] by Monte Carlo (4,000,000 draws per x, with its standard
    error), for the Go tests to hold mmds's reading of the files against."""
    gen = torch.Generator().manual_seed(20261125)
    model = Categorical(gen).eval()
    layers = []
    for m in model.net:
        if isinstance(m, torch.nn.Linear):
            layers.append({"weight": m.weight.detach().double().tolist(),
                           "bias": m.bias.detach().double().tolist(), "activation": "identity"})
        elif isinstance(m, torch.nn.ReLU):
            layers[-1]["activation"] = "relu"
        else:
            layers[-1]["activation"] = "softmax"
    write_json("categorical-finite.json", {"inputs": ["x=0", "x=1", "x=2", "r"], "noise": "normal(0,1)",
                                           "layers": layers})
    path = os.path.join(OUT, "categorical-finite.onnx")
    torch.onnx.export(model, (torch.zeros(1, 3), torch.zeros(1, 1)), path, input_names=["x", "r"],
                      output_names=["k"], dynamic_axes={"x": {0: "batch"}, "r": {0: "batch"}, "k": {0: "batch"}},
                      opset_version=13)
    onnx.checker.check_model(onnx.load(path))
    eye = torch.eye(3)
    points = []
    with torch.no_grad():
        for x in range(3):
            for r in torch.linspace(-4, 4, 20, dtype=torch.float32):
                p = model(eye[x:x + 1], r.reshape(1, 1))[0]
                points.append({"x": x, "r": float(r), "p": [float(v) for v in p]})
        rows = []
        for x in range(3):
            n = 4_000_000
            r = torch.randn(n, 1, generator=gen, dtype=torch.float64)
            p = model.double()(eye[x:x + 1].double().expand(n, 3), r)
            model.float()
            rows.append({"x": x, "mean": p.mean(0).tolist(), "se": (p.std(0) / n ** 0.5).tolist()})
    write_json("categorical-finite.torch.json", {"torch": torch.__version__, "points": points, "rows": rows})


def save_graph(name, nodes, inits, out_width):
    g = helper.make_graph(nodes, name.removesuffix(".onnx"),
                          [helper.make_tensor_value_info("xr", TensorProto.FLOAT, ["batch", 2])],
                          [helper.make_tensor_value_info("k", TensorProto.FLOAT, ["batch", out_width])],
                          initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="make-certify-fixtures")
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(OUT, name))


def export_onnx_only(name, model):
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 2), os.path.join(OUT, name), input_names=["xr"],
                      output_names=["k"], opset_version=13)


if __name__ == "__main__":
    main()
