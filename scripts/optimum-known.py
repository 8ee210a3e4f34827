#!/usr/bin/env python3
"""Commit the optimum search's kernels as mechanisms mmds knows.

For each threshold D below, runs `mmds gauss --optimum --d D --format json`
on the paper's model and writes the search's kernel (the kernel part of the
best achievable mechanism, which the search's mechanism is there) to
gauss/known/optimum-paper-D.json in the committed format
{"source", "x": {"mean", "sd"}, "kernel": {"edges", "prob"}} (docs/gauss.md,
"What mmds knows"; x is X's mean and standard deviation on the model).
Usage: scripts/optimum-known.py [path/to/mmds]
"""
import json
import subprocess
import sys

MMDS = sys.argv[1] if len(sys.argv) > 1 else "bin/mmds"
# six of the default sweep's thresholds, from where the search's mechanism
# beats the closed-form families by the most to where the upper bound is near
THRESHOLDS = ["0.6003448275862069", "1.1956896551724137", "1.989482758620689",
              "2.7832758620689653", "3.577068965517241", "4.370862068965517"]


def kernel_of(mech):
    if mech["family"] == "kernel":
        return mech["kernel"]
    for part in mech.get("parts", []):
        if part["family"] == "kernel":
            return part["kernel"]
    return None


for d in THRESHOLDS:
    out = subprocess.run([MMDS, "gauss", "--optimum", "--d", d, "--format", "json", "--quiet"],
                         check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    point = doc["points"][0]
    private = doc["model"]["names"].index(doc["model"]["private"])
    x = {"mean": doc["model"]["mean"][private], "sd": doc["model"]["var_x"] ** 0.5}
    kernel = kernel_of(point["achievable"]["mechanism"])
    if kernel is None:
        sys.exit(f"D = {d}: the search's mechanism is not the best achievable")
    doc = {"source": f"the optimum search on the paper's Gaussian model: mmds gauss --optimum --d {float(d):.6g} "
                     "(the master's posteriors on a grid of step 0.1σ_X as a kernel on cells; "
                     "scripts/optimum-known.py)",
           "x": x, "kernel": {"edges": kernel["edges"], "prob": kernel["prob"]}}
    with open(f"gauss/known/optimum-paper-{float(d):.4g}.json", "w") as f:
        json.dump(doc, f, separators=(",", ":"), ensure_ascii=False)
        f.write("\n")
    print(f"D = {d}: best achievable {point['achievable']['min_adv_loss']}")
