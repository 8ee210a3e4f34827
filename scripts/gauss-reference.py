#!/usr/bin/env python3
"""Independent reference for the Gaussian certificate (docs/performance.md).

Computes the Bayes losses E[Var(X | F, side)] of a ReLU network privatizer
F = k(X, R), R ~ N(0, 1), on a Gaussian model file, for the reconstructor and
every adversary, with numpy (and torch's erfc where torch is installed:
numpy has none), sharing no code with mmds:

  * faces: the box [mu - 8 sd_X, mu + 8 sd_X] x [-8, 8] is cut by every
    ReLU unit's zero line, layer by layer (polygon splitting), so that k is
    affine, c0 + cx x + cr r, on each face;
  * given the observer's M = m (X | side ~ N(m, v)), the density of F and
    its first two moments of w = x - m are integrals along the level
    segments {k = f} of the faces, in closed form (normal CDFs and densities
    at the segment's ends);
  * the loss given m is the integral over f of C - B^2/A: Gauss-Legendre with
    --f-nodes nodes on panels between consecutive values of k at the faces'
    vertices (A, B, C are analytic there), at most --f-step wide;
  * the loss is the Gauss-Hermite sum over m with --m-nodes nodes.

Faces where k is constant (atoms) are refused: the reference covers networks
whose release is continuous. Single-threaded by default (the thread counts of
numpy's BLAS and torch are set to 1 before they are imported), so that its
CPU seconds compare with mmds's.

Usage:
  scripts/gauss-reference.py --model M.json --privatizer NET.json [--f-nodes 2]
      [--m-nodes 32] [--f-step 0.05] [--json]
Prints the losses and the CPU seconds of the faces and of the integration.
"""
import argparse
import json
import math
import os
import sys
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np  # noqa: E402

try:
    import torch  # noqa: E402

    torch.set_num_threads(1)

    def erfc(x):
        return torch.special.erfc(torch.from_numpy(x)).numpy()

    ERFC = "torch.special.erfc"
except ImportError:  # pragma: no cover - the slow path
    _erfc = np.frompyfunc(math.erfc, 1, 1)

    def erfc(x):
        return _erfc(x).astype(np.float64)

    ERFC = "math.erfc (vectorized)"

BOX_SD, R_MAX = 8.0, 8.0
SQRT2 = math.sqrt(2.0)


def observers(model):
    """(name, v = Var[X | side], mu_X, sd_M) of the reconstructor and each adversary."""
    names = model["names"]
    idx = {n: i for i, n in enumerate(names)}
    sd = np.sqrt(np.array(model["var"], dtype=float))
    cov = np.array(model["corr"], dtype=float) * np.outer(sd, sd)
    x = idx[model["private"]]
    out = []
    for name, side in [("recon", model["reconstructor"])] + [
        ("adv %d" % (i + 1), s) for i, s in enumerate(model["adversaries"])
    ]:
        s = [idx[n] for n in side]
        c_xs = cov[x, s]
        v = cov[x, x] - c_xs @ np.linalg.solve(cov[np.ix_(s, s)], c_xs)
        out.append((name, float(v), float(model["mean"][x]), math.sqrt(max(cov[x, x] - v, 0.0))))
    return out


def split(poly, aff, val):
    """Split convex polygon poly (n x 2) by the sign of the affine form val
    at its vertices; returns the (part, sign) pairs with vertices."""
    n = len(poly)
    neg, pos = [], []
    for i in range(n):
        j = (i + 1) % n
        vi, vj = val[i], val[j]
        (neg if vi <= 0 else pos).append(poly[i])
        if (vi < 0 < vj) or (vj < 0 < vi):
            t = vi / (vi - vj)
            p = poly[i] + t * (poly[j] - poly[i])
            neg.append(p)
            pos.append(p)
    out = []
    if len(neg) >= 3:
        out.append((np.array(neg), -1))
    if len(pos) >= 3:
        out.append((np.array(pos), 1))
    return out


def faces(net, box):
    """Faces of the network on the box: (vertices, c0, cx, cr)."""
    x0, x1, r0, r1 = box
    # Each polygon carries the affine map of the current layer's outputs in
    # rows [cx, cr, c0].
    polys = [(np.array([[x0, r0], [x1, r0], [x1, r1], [x0, r1]]), np.array([[1.0, 0, 0], [0, 1.0, 0]]))]
    for layer in net["layers"]:
        w = np.array(layer["weight"], dtype=float)
        b = np.array(layer["bias"], dtype=float)
        nxt = []
        for poly, aff in polys:
            pre = w @ aff
            pre[:, 2] += b
            nxt.append((poly, pre))
        if layer["activation"] == "relu":
            for j in range(w.shape[0]):
                cur = []
                for poly, pre in nxt:
                    val = poly @ pre[j, :2] + pre[j, 2]
                    if np.all(val >= 0):
                        cur.append((poly, pre))
                        continue
                    if np.all(val <= 0):
                        pre = pre.copy()
                        pre[j] = 0
                        cur.append((poly, pre))
                        continue
                    for part, sign in split(poly, pre[j], val):
                        q = pre
                        if sign < 0:
                            q = pre.copy()
                            q[j] = 0
                        cur.append((part, q))
                nxt = cur
        elif layer["activation"] != "identity":
            sys.exit("reference: activation %r: only relu and identity" % layer["activation"])
        polys = nxt
    return [(poly, aff[0, 2], aff[0, 0], aff[0, 1]) for poly, aff in polys]


def level_segments(xs, rs, kv, nv, f):
    """Ends of the level segments {k = f} of the faces given per pair:
    vertex arrays padded to the same count (nv vertices valid)."""
    p, width = xs.shape
    g = kv - f[:, None]
    j = np.arange(width)
    nxt = (j[None, :] + 1) % nv[:, None]
    gi, gj = g, np.take_along_axis(g, nxt, axis=1)
    valid = j[None, :] < nv[:, None]
    cross = valid & ((gi < 0) != (gj < 0))
    # the first and the last crossing edge
    e0 = np.argmax(cross, axis=1)
    e1 = width - 1 - np.argmax(cross[:, ::-1], axis=1)
    ok = cross.sum(axis=1) >= 2
    rows = np.arange(p)
    ends = []
    for e in (e0, e1):
        n1 = nxt[rows, e]
        ga, gb = gi[rows, e], gi[rows, n1]
        t = ga / np.where(ok, ga - gb, 1.0)
        ends.append((xs[rows, e] + t * (xs[rows, n1] - xs[rows, e]), rs[rows, e] + t * (rs[rows, n1] - rs[rows, e])))
    return ends[0], ends[1], ok


def moments(c0, cx, cr, xa, ra, xb, rb, f, m, v):
    """A, B, C (w-moments about 0) of the pairs at the M nodes m: pairs x nodes."""
    sv = math.sqrt(v)
    d2 = cr * cr + cx * cx * v
    sq = np.sqrt(d2)
    sg = np.where(cr < 0, -1.0, 1.0)
    e = (f - c0)[:, None] - cx[:, None] * m[None, :]
    K = e * e / d2[:, None]
    za = (sg * (cr * xa - cx * v * ra) / (sv * sq))[:, None] - (sg * cr / (sv * sq))[:, None] * m[None, :]
    zb = (sg * (cr * xb - cx * v * rb) / (sv * sq))[:, None] - (sg * cr / (sv * sq))[:, None] * m[None, :]
    z1, z2 = np.minimum(za, zb), np.maximum(za, zb)
    # P(z1 < Z < z2) from the tails Q(|z|), which keep their precision
    q1 = 0.5 * erfc(np.abs(z1) / SQRT2)
    q2 = 0.5 * erfc(np.abs(z2) / SQRT2)
    j0 = np.where(z1 >= 0, q1 - q2, np.where(z2 <= 0, q2 - q1, 1 - q1 - q2))
    p1 = np.exp(-0.5 * z1 * z1) / math.sqrt(2 * math.pi)
    p2 = np.exp(-0.5 * z2 * z2) / math.sqrt(2 * math.pi)
    j1 = p1 - p2
    j2 = j0 + z1 * p1 - z2 * p2
    pref = np.exp(-0.5 * K) / np.sqrt(2 * math.pi * d2)[:, None]
    d = (cx * v / d2)[:, None] * e
    s = (sv * np.abs(cr) / sq)[:, None]
    A = pref * j0
    B = pref * (d * j0 + s * j1)
    C = pref * (d * d * j0 + 2 * d * s * j1 + s * s * j2)
    return A, B, C


def losses(model, net, f_nodes, m_nodes, f_step, chunk=4096):
    t0 = time.process_time()
    obs = observers(model)
    name, v, mu, _ = obs[0]
    x = model["names"].index(model["private"])
    sx = math.sqrt(model["var"][x])
    box = (mu - BOX_SD * sx, mu + BOX_SD * sx, -R_MAX, R_MAX)
    fs = faces(net, box)
    if any(cx == 0 and cr == 0 for _, _, cx, cr in fs):
        sys.exit("reference: the network has a face where k is constant (an atom of F): not covered")
    t_faces = time.process_time() - t0

    width = max(len(p) for p, _, _, _ in fs)
    nf = len(fs)
    xs = np.zeros((nf, width))
    rs = np.zeros((nf, width))
    nv = np.array([len(p) for p, _, _, _ in fs])
    for i, (p, _, _, _) in enumerate(fs):
        xs[i, : len(p)] = p[:, 0]
        rs[i, : len(p)] = p[:, 1]
        xs[i, len(p):] = p[-1, 0]
        rs[i, len(p):] = p[-1, 1]
    c0 = np.array([c for _, c, _, _ in fs])
    cx = np.array([c for _, _, c, _ in fs])
    cr = np.array([c for _, _, _, c in fs])
    kv = c0[:, None] + cx[:, None] * xs + cr[:, None] * rs
    flo = np.array([kv[i, : nv[i]].min() for i in range(nf)])
    fhi = np.array([kv[i, : nv[i]].max() for i in range(nf)])

    # f nodes: Gauss-Legendre on panels between the cuts, at most f_step wide
    cuts = np.unique(np.concatenate([kv[i, : nv[i]] for i in range(nf)]))
    cuts = cuts[np.concatenate([[True], np.diff(cuts) > 1e-13 * (1 + np.abs(cuts[1:]))])]
    gl_u, gl_w = np.polynomial.legendre.leggauss(f_nodes)
    fa, fb = cuts[:-1], cuts[1:]
    pieces = np.maximum(1, np.ceil((fb - fa) / f_step)).astype(int)
    pa = np.repeat(fa, pieces) + (np.arange(pieces.sum()) - np.repeat(np.cumsum(pieces) - pieces, pieces)) * np.repeat((fb - fa) / pieces, pieces)
    ph = np.repeat((fb - fa) / pieces, pieces)
    fnode = (pa[:, None] + 0.5 * ph[:, None] * (1 + gl_u[None, :])).ravel()
    fw = (0.5 * ph[:, None] * gl_w[None, :]).ravel()
    # pairs (f node, face) with f inside the face's range: f nodes are sorted
    i0 = np.searchsorted(fnode, flo, side="right")
    i1 = np.searchsorted(fnode, fhi, side="left")
    cnt = np.maximum(i1 - i0, 0)
    face_of = np.repeat(np.arange(nf), cnt)
    f_of = np.repeat(i0, cnt) + (np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt))
    order = np.argsort(f_of, kind="stable")
    face_of, f_of = face_of[order], f_of[order]

    he_u, he_w = np.polynomial.hermite_e.hermegauss(m_nodes)
    he_w = he_w / math.sqrt(2 * math.pi)
    out = {}
    for name, v, mu, sm in obs:
        m = mu + sm * he_u
        A = np.zeros((len(fnode), m_nodes))
        B = np.zeros_like(A)
        C = np.zeros_like(A)
        for s in range(0, len(f_of), chunk):
            fi, ki = f_of[s : s + chunk], face_of[s : s + chunk]
            (xa, ra), (xb, rb), ok = level_segments(xs[ki], rs[ki], kv[ki], nv[ki], fnode[fi])
            a, b, c = moments(c0[ki], cx[ki], cr[ki], xa, ra, xb, rb, fnode[fi], m, v)
            a[~ok] = 0
            b[~ok] = 0
            c[~ok] = 0
            # the pairs are sorted by f node: sum each node's run
            starts = np.flatnonzero(np.concatenate([[True], fi[1:] != fi[:-1]]))
            A[fi[starts]] += np.add.reduceat(a, starts, axis=0)
            B[fi[starts]] += np.add.reduceat(b, starts, axis=0)
            C[fi[starts]] += np.add.reduceat(c, starts, axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            g = np.where(A > 0, C - B * B / np.where(A > 0, A, 1), 0.0)
        h = fw @ np.maximum(g, 0)
        out[name] = float(he_w @ h)
    t_int = time.process_time() - t0 - t_faces
    return out, {"faces": nf, "f_nodes": len(fnode), "m_nodes": m_nodes, "cpu_faces_s": t_faces, "cpu_integration_s": t_int, "erfc": ERFC}


def normalize(net):
    """The network's layers as {"weight", "bias", "activation"}: mmds export's
    layout, or the results files' ({"in", "out", "weights", "bias", ...})."""
    layers = []
    for layer in net["layers"]:
        w = layer.get("weight", layer.get("weights"))
        layers.append({"weight": w, "bias": layer["bias"], "activation": layer["activation"]})
    if net.get("inputs", ["x", "r"]) != ["x", "r"]:
        sys.exit("reference: inputs %r: want [x, r]" % net.get("inputs"))
    return {"layers": layers}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--privatizer", required=True)
    ap.add_argument("--f-nodes", type=int, default=2)
    ap.add_argument("--m-nodes", type=int, default=32)
    ap.add_argument("--f-step", type=float, default=0.05)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with open(a.model) as fh:
        model = json.load(fh)
    if "config" in model:
        model = model["config"]
    with open(a.privatizer) as fh:
        net = normalize(json.load(fh))
    res, info = losses(model, net, a.f_nodes, a.m_nodes, a.f_step)
    if a.json:
        print(json.dumps({"losses": res, **info}))
        return
    for k, val in res.items():
        print("%-6s %.10g" % (k, val))
    print("faces %d, f nodes %d, M nodes %d; CPU: faces %.2f s, integration %.2f s (erfc: %s)"
          % (info["faces"], info["f_nodes"], info["m_nodes"], info["cpu_faces_s"], info["cpu_integration_s"], info["erfc"]))


if __name__ == "__main__":
    main()
