#!/usr/bin/env python3
"""PyTorch reference for one epoch of Algorithm 1 (the side-by-side for
learn's BenchmarkEpochGauss / BenchmarkEpochBinary).

Same work as learn.Trainer.Epoch with the paper preset: 50 iterations, each
a privatizer step, a reconstructor step and one step per adversary, every
step on its own minibatch of M = 200 rows; every network 2 -> 50 ReLU -> 1,
float64, one thread.

  gauss:  identity outputs, MSE, Adam lr 1e-3, rho = 1000, two adversaries;
          the privatizer's gradient flows through the frozen reconstructor
          and the minimum adversary.
  binary: sigmoid outputs, differentiable 0-1 loss, RAdam lr 0.05/0.02/0.01,
          rho = 1, one adversary; the reconstructor receives p in the
          privatizer step, the adversaries a sampled f ~ Bernoulli(p).

Timing only: the data are synthetic draws of the right shape. Prints one
line: "torch <model> ms_per_epoch <median wall> cpu_ms_per_epoch <median
process CPU time>".
Python is only the reference here, never used by the tests.
"""
import argparse
import statistics
import time

import torch
from torch import nn


def mlp(inputs, hidden, sigmoid):
    layers = [nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, 1)]
    if sigmoid:
        layers.append(nn.Sigmoid())
    return nn.Sequential(*layers).double()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=["gauss", "binary"], default="gauss")
    ap.add_argument("--epochs", type=int, default=10, help="timed epochs")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--rows", type=int, default=10000)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--hidden", type=int, default=50)
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(1)
    binary = args.model == "binary"
    n_adv = 1 if binary else 2
    n, m = args.rows, args.batch
    if binary:
        x = (torch.rand(n, 1, dtype=torch.float64) < 0.54).double()
        y = torch.where(torch.rand(n, 1, dtype=torch.float64) < 0.2, 1 - x, x)
        zs = [torch.where(torch.rand(n, 1, dtype=torch.float64) < 0.44, 1 - x, x)]
    else:
        x = 4 + 4 * torch.randn(n, 1, dtype=torch.float64)
        y = x + torch.randn(n, 1, dtype=torch.float64)
        zs = [x + 3 * torch.randn(n, 1, dtype=torch.float64) for _ in range(n_adv)]
    r = torch.randn(n, 1, dtype=torch.float64)
    xr = torch.cat([x, r], 1)

    priv = mlp(2, args.hidden, binary)
    recon = mlp(2, args.hidden, binary)
    advs = [mlp(2, args.hidden, binary) for _ in range(n_adv)]
    if binary:
        opt = lambda net, lr: torch.optim.RAdam(net.parameters(), lr=lr)
        lp, lr_, la, rho, d = 0.05, 0.02, 0.01, 1.0, 0.1
        loss = lambda est, t: (t * (1 - est) + (1 - t) * est).mean()
    else:
        opt = lambda net, lr: torch.optim.Adam(net.parameters(), lr=lr)
        lp, lr_, la, rho, d = 1e-3, 1e-3, 1e-3, 1000.0, 2.0
        loss = lambda est, t: ((est - t) ** 2).mean()
    o_priv, o_recon = opt(priv, lp), opt(recon, lr_)
    o_advs = [opt(a, la) for a in advs]
    perms = [torch.randperm(n) for _ in range(2 + n_adv)]
    pos = [0] * (2 + n_adv)

    def batch(role):
        if pos[role] + m > n:
            perms[role], pos[role] = torch.randperm(n), 0
        idx = perms[role][pos[role]:pos[role] + m]
        pos[role] += m
        return idx

    def private(i):
        # The frozen privatizer's release for the reconstructor and adversary steps.
        with torch.no_grad():
            p = priv(xr[i])
        return torch.bernoulli(p) if binary else p

    def epoch():
        for _ in range(n // m):
            # Privatizer step (Algorithm 1, lines 6-15).
            i = batch(0)
            p = priv(xr[i])
            l_recon = loss(recon(torch.cat([p, y[i]], 1)), x[i])
            f = torch.bernoulli(p).detach() if binary else p
            l_adv = torch.stack([loss(a(torch.cat([f, z[i]], 1)), x[i]) for a, z in zip(advs, zs)]).min()
            l_priv = -l_adv + rho / 2 * (torch.relu(l_recon - d) + torch.relu(d - l_recon))
            o_priv.zero_grad()
            l_priv.backward()
            o_priv.step()
            # Reconstructor step (lines 16-21).
            i = batch(1)
            f = private(i)
            l = loss(recon(torch.cat([f, y[i]], 1)), x[i])
            o_recon.zero_grad()
            l.backward()
            o_recon.step()
            # Adversary steps (lines 23-30).
            for k, (a, z, o) in enumerate(zip(advs, zs, o_advs)):
                i = batch(2 + k)
                f = private(i)
                l = loss(a(torch.cat([f, z[i]], 1)), x[i])
                o.zero_grad()
                l.backward()
                o.step()

    for _ in range(args.warmup):
        epoch()
    times, cpu = [], []
    for _ in range(args.epochs):
        t0, c0 = time.perf_counter(), time.process_time()
        epoch()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    print(f"torch {args.model} ms_per_epoch {1000 * statistics.median(times):.3f} "
          f"cpu_ms_per_epoch {1000 * statistics.median(cpu):.3f}")


if __name__ == "__main__":
    main()
