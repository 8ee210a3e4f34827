#!/usr/bin/python3
"""Writes ordinary float32 PyTorch exports, the way users deploy them, and
what PyTorch itself computes with them (docs/certify.md, "What PyTorch
exports get").

    /usr/bin/python3 scripts/torch-exports.py OUT [--fixtures]

OUT receives, for the paper's binary model (Section V-B), 8 freshly
initialised 2→16→16→1 ReLU/sigmoid networks and 8 lightly trained 2→8→1
ReLU/sigmoid networks, each exported by torch.onnx.export at its defaults at
opsets 13–17 with static and with dynamic batch axes (160 files), and for the
Gaussian paper model the float32 export of a quick-preset-sized 2→50→1 ReLU
network (the committed paper/gauss network of D = 5.76, rounded to float32),
plus manifest.json: per network and x, the mean and the largest |k32 − k64|
over R ~ N(0, 1), k32 PyTorch's float32 forward pass and k64 its float64
one, at the midpoints of 2^20 equal-probability strata of R. With
--fixtures the two networks the Go tests read are also written to
privatizer/testdata (torch32-*.onnx and their .torch.json).

Tests never run Python; the outputs of --fixtures are committed.
"""
import json
import math
import os
import sys

import torch

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "privatizer", "testdata")
STRATA = 1 << 20


class XR(torch.nn.Module):
    """k(x, r) on a [batch, 2] input (x, r): the layout mmds reads."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, xr):
        return self.net(xr)


def fresh(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16), torch.nn.ReLU(),
                               torch.nn.Linear(16, 1), torch.nn.Sigmoid())


def trained(seed):
    """A 2→8→1 network fitted for 300 Adam steps to k(x, r) ≈ p_x + 0.1·tanh(r)."""
    torch.manual_seed(100 + seed)
    net = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1), torch.nn.Sigmoid())
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    for _ in range(300):
        x = torch.randint(0, 2, (256, 1)).float()
        r = torch.randn(256, 1)
        target = 0.2 + 0.5 * x + 0.1 * torch.tanh(r)
        loss = ((net(torch.cat([x, r], 1)) - target) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return net


def gauss_net():
    """The network of paper/gauss at D = 5.76, in float32: 2→50→1 ReLU."""
    with open(os.path.join(HERE, "..", "paper", "gauss", "results.json")) as f:
        res = json.load(f)
    point = max(res["points"], key=lambda p: p["D"])
    layers = point["networks"][0]["layers"]
    mods = []
    for ly in layers:
        w = torch.tensor(ly["weights"], dtype=torch.float64)
        lin = torch.nn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            lin.weight.copy_(w.float())
            lin.bias.copy_(torch.tensor(ly["bias"], dtype=torch.float64).float())
        mods.append(lin)
        if ly.get("activation", "identity") == "relu":
            mods.append(torch.nn.ReLU())
    return torch.nn.Sequential(*mods), point["D"]


def strata_r():
    u = (torch.arange(STRATA, dtype=torch.float64) + 0.5) / STRATA
    return math.sqrt(2) * torch.erfinv(2 * u - 1)


def deviation(net, x, r):
    """Mean and largest |k32 − k64| at (x, r) over the strata."""
    net.eval()
    n64 = XR(net).double()
    n32 = XR(net).float()
    with torch.no_grad():
        xr = torch.stack([torch.full_like(r, float(x)), r], 1)
        k64 = n64.double()(xr).squeeze(1)
        # The runtime's input is r rounded to float32, as mmds assumes.
        k32 = n32.float()(xr.float()).squeeze(1).double()
    d = k32 - k64
    return d.mean().item(), d.abs().max().item()


def export(net, path, opset, dynamic):
    m = XR(net).float().eval()
    kw = {"dynamic_axes": {"xr": {0: "batch"}, "k": {0: "batch"}}} if dynamic else {}
    torch.onnx.export(m, torch.zeros(1, 2), path, input_names=["xr"], output_names=["k"], opset_version=opset, **kw)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: torch-exports.py OUT [--fixtures]")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    r = strata_r()
    manifest = {"strata": STRATA, "torch": torch.__version__, "networks": []}
    nets = [("fresh%d" % s, fresh(s)) for s in range(8)] + [("trained%d" % s, trained(s)) for s in range(8)]
    for name, net in nets:
        entry = {"name": name, "model": "binary", "files": [], "x": []}
        for x in (0, 1):
            mean, sup = deviation(net, x, r)
            entry["x"].append({"x": x, "mean_deviation": mean, "max_deviation": sup})
        for opset in range(13, 18):
            for dynamic in (False, True):
                f = "%s-op%d-%s.onnx" % (name, opset, "dynamic" if dynamic else "static")
                export(net, os.path.join(out, f), opset, dynamic)
                entry["files"].append(f)
        manifest["networks"].append(entry)
    gnet, d = gauss_net()
    f = "gauss-quick-op17.onnx"
    export(gnet, os.path.join(out, f), 17, True)
    manifest["networks"].append({"name": "gauss-quick", "model": "gauss", "D": d, "files": [f]})
    with open(os.path.join(out, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")
    if "--fixtures" in sys.argv:
        for name, net in (nets[0], nets[8]):
            path = os.path.join(FIXTURES, "torch32-%s.onnx" % name)
            export(net, path, 17, True)
            dev = [e for e in manifest["networks"] if e["name"] == name][0]
            with open(os.path.join(FIXTURES, "torch32-%s.torch.json" % name), "w") as fh:
                json.dump({"torch": torch.__version__, "strata": STRATA, "x": dev["x"]}, fh, indent=1)
                fh.write("\n")


if __name__ == "__main__":
    main()
