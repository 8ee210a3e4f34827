#!/usr/bin/env python3
# Writes an ONNX file (protocol buffers encoded by hand: no onnx package)
# of a binary-model privatizer that uses the operators mmds folds and
# lowers: Gemm with alpha and beta, Sub, LeakyRelu, Clip, Dropout,
# Squeeze, Unsqueeze, Reshape. Usage: onnxops.py float|double OUT.
# double-inexact: double, and an Add of 0.2 to the last Gemm's C = 0.1,
# bias parts whose float64 sum is not exact. bn-float, bn-double:
# BatchNormalization folded into a Gemm with alpha, before a LeakyRelu,
# before a Clip and after its last stage, and followed by an Add.
import struct, sys, random

def varint(n):
    n &= (1 << 64) - 1
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])

def key(f, w): return varint((f << 3) | w)
def ln(f, b): return key(f, 2) + varint(len(b)) + b
def vi(f, n): return key(f, 0) + varint(n)
def s(f, t): return ln(f, t.encode())

dbl, inexact, bn = "double" in sys.argv[1], sys.argv[1].endswith("inexact"), sys.argv[1].startswith("bn")
def tensor(name, dims, vals, typ=None):
    typ = typ or (11 if dbl else 1)
    b = b"".join(vi(1, d) for d in dims) + vi(2, typ) + s(8, name)
    if typ == 7:
        raw = b"".join(struct.pack("<q", v) for v in vals)
    else:
        raw = b"".join(struct.pack("<d" if typ == 11 else "<f", v) for v in vals)
    return b + ln(9, raw)

def attr_f(name, v): return s(1, name) + key(2, 5) + struct.pack("<f", v) + vi(20, 1)
def attr_i(name, v): return s(1, name) + vi(3, v) + vi(20, 2)
def node(op, ins, outs, attrs=()):
    return b"".join(s(1, i) for i in ins) + b"".join(s(2, o) for o in outs) + s(3, op + "_" + outs[0]) + s(4, op) + b"".join(ln(5, a) for a in attrs)
def value_info(name, dims):
    shape = b"".join(ln(1, (s(2, d) if isinstance(d, str) else vi(1, d))) for d in dims)
    return s(1, name) + ln(2, ln(1, vi(1, 11 if dbl else 1) + ln(2, shape)))

random.seed(7)
g = lambda n: [round(random.gauss(0, 1), 3) for _ in range(n)]
inits = [tensor("W1", [4, 2], g(8)), tensor("C1", [4], g(4)), tensor("c", [4], g(4)),
         tensor("W2", [4, 4], g(16)), tensor("W3", [1, 4], g(4)), tensor("C3", [1], [0.1]),
         tensor("lo", [], [-0.5]), tensor("hi", [], [2.0]),
         tensor("axes", [1], [1], 7), tensor("axes_", [1], [-1], 7), tensor("shape", [1], [-1], 7)]
inits += [tensor("C4", [1], [0.2])] if inexact else []
nodes = [node("Gemm", ["input", "W1", "C1"], ["h1"], [attr_f("alpha", 0.75), attr_f("beta", 2.0), attr_i("transB", 1)]),
         node("Sub", ["h1", "c"], ["h2"]),
         node("LeakyRelu", ["h2"], ["h3"], [attr_f("alpha", 0.1)]),
         node("Dropout", ["h3"], ["h4"]),
         node("Gemm", ["h4", "W2"], ["h5"], [attr_f("alpha", 0.5), attr_i("transB", 1)]),
         node("Clip", ["h5", "lo", "hi"], ["h6"]),
         node("Gemm", ["h6", "W3", "C3"], ["h7"], [attr_i("transB", 1)]),
         node("Add", ["h7", "C4"], ["h7b"]) if inexact else b"",
         node("Sigmoid", ["h7b" if inexact else "h7"], ["h8"]),
         node("Squeeze", ["h8", "axes"], ["h9"]),
         node("Unsqueeze", ["h9", "axes_"], ["h10"]),
         node("Reshape", ["h10", "shape"], ["out"])]
if bn:
    pos = lambda n: [round(random.uniform(0.2, 3), 3) for _ in range(n)]
    for k in "123":
        inits += [tensor("g" + k, [4], pos(4)), tensor("b" + k, [4], g(4)), tensor("m" + k, [4], g(4)), tensor("v" + k, [4], pos(4))]
    bnode = lambda k, i, o: node("BatchNormalization", [i, "g" + k, "b" + k, "m" + k, "v" + k], [o], [attr_f("epsilon", 1e-3)])
    nodes = [node("Gemm", ["input", "W1", "C1"], ["h1"], [attr_f("alpha", 0.75), attr_i("transB", 1)]),
             bnode("1", "h1", "h2"),
             node("LeakyRelu", ["h2"], ["h3"], [attr_f("alpha", 0.1)]),
             node("Gemm", ["h3", "W2"], ["h4"], [attr_i("transB", 1)]),
             bnode("2", "h4", "h5"),
             node("Clip", ["h5", "lo", "hi"], ["h6"]),
             bnode("3", "h6", "h7"),
             node("Add", ["h7", "c"], ["h8"]),
             node("Gemm", ["h8", "W3", "C3"], ["h9"], [attr_i("transB", 1)]),
             node("Sigmoid", ["h9"], ["out"])]
    outs = ["batch", 1]
graph = b"".join(ln(1, n) for n in nodes if n) + s(2, "ops") + b"".join(ln(5, t) for t in inits) \
    + ln(11, value_info("input", ["batch", 2])) + ln(12, value_info("out", outs if bn else ["batch"]))
model = vi(1, 8) + s(2, "checker-fixtures") + ln(7, graph) + ln(8, s(1, "") + vi(2, 13))
open(sys.argv[2], "wb").write(model)
