"""Exporting a torch.nn.Module privatizer k(x, r) to ONNX for mmds certify.

Imported only when a module is certified: the rest of the package never
imports torch.

The calling convention (``inputs``):

- ``"x,r"``: ``module(x, r)``, x of shape [batch, 1] (or one-hot [batch, n]
  with ``one_hot=n``) and r of shape [batch, 1]; the module joins them itself
  with ``torch.cat`` (docs/certify.md, ONNX: two inputs named x and r);
- ``"xr"``: ``module(t)`` with t of shape [batch, 2] holding the columns
  (x, r) — or [batch, n + 1] holding (one-hot x, r);
- ``"rx"``: the same with r first.

Without ``inputs``, a forward that takes two arguments is ``"x,r"`` and one
that takes one is ``"xr"``. The module is exported as the user runs it: in
eval mode (every submodule's training flag is put back afterwards), in the
dtype of its parameters (float32 for a module as PyTorch makes it) or in
``dtype`` (torch.float32 or torch.float64: a converted copy is exported,
the module is left as it is).
"""
from __future__ import annotations

import copy
import inspect
from typing import Any, Optional

import torch

from ._errors import InputError

CONVENTIONS = ("x,r", "xr", "rx")


def is_module(obj: Any) -> bool:
    return isinstance(obj, torch.nn.Module)


def _convention(module: torch.nn.Module, inputs: Optional[str]) -> str:
    name = type(module).__name__
    if inputs is not None:
        if inputs not in CONVENTIONS:
            raise InputError(f"mmds: privatizer {name}: inputs={inputs!r}: want one of {', '.join(map(repr, CONVENTIONS))}")
        return inputs
    try:
        params = list(inspect.signature(module.forward).parameters.values())
    except (TypeError, ValueError):
        params = []
    n = sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)
    if n == 2:
        return "x,r"
    if n == 1:
        return "xr"
    raise InputError(f"mmds: privatizer {name}: forward takes {n} required arguments: "
                     "say how it takes x and r with inputs='x,r' (module(x, r)), 'xr' or 'rx' (module(t), t = [x, r] or [r, x])")


class _Joined(torch.nn.Module):
    """forward(x, r) = module(cat([x, r])) (or [r, x]): two graph inputs
    named x and r, joined by one Concat, as mmds reads them."""

    def __init__(self, module: torch.nn.Module, r_first: bool):
        super().__init__()
        self.module = module
        self.r_first = r_first

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        return self.module(torch.cat([r, x] if self.r_first else [x, r], dim=1))


def _own_dtype(module: torch.nn.Module) -> torch.dtype:
    for t in list(module.parameters()) + list(module.buffers()):
        if t.is_floating_point():
            return t.dtype
    return torch.float32


def _device(module: torch.nn.Module) -> torch.device:
    for t in list(module.parameters()) + list(module.buffers()):
        return t.device
    return torch.device("cpu")


def export(module: torch.nn.Module, path: str, *, dtype: Optional[torch.dtype] = None,
           inputs: Optional[str] = None, one_hot: Optional[int] = None) -> str:
    """Writes module to path as ONNX (graph inputs x and r, output k) and
    returns a description of what was exported, for messages."""
    name = type(module).__name__
    conv = _convention(module, inputs)
    if one_hot is not None and (isinstance(one_hot, bool) or not isinstance(one_hot, int) or not 2 <= one_hot <= 4096):
        raise InputError(f"mmds: privatizer {name}: one_hot={one_hot!r}: want the number of values of X, an integer in [2, 4096]")
    own = _own_dtype(module)
    want = own if dtype is None else dtype
    if want not in (torch.float32, torch.float64):
        raise InputError(f"mmds: privatizer {name}: dtype {want}: want torch.float32 (as PyTorch runs a module by default) or torch.float64")
    flags = [(m, m.training) for m in module.modules()]
    try:
        net = module if want == own else copy.deepcopy(module).to(want)
        net.eval()
        wrapped = net if conv == "x,r" else _Joined(net, r_first=conv == "rx")
        dev = _device(module)
        x = torch.zeros(1, one_hot or 1, dtype=want, device=dev)
        r = torch.zeros(1, 1, dtype=want, device=dev)
        with torch.no_grad():
            torch.onnx.export(wrapped, (x, r), path, input_names=["x", "r"], output_names=["k"],
                              dynamic_axes={"x": {0: "batch"}, "r": {0: "batch"}, "k": {0: "batch"}},
                              training=torch.onnx.TrainingMode.EVAL)
    except InputError:
        raise
    except Exception as e:  # torch's tracer and exporter raise many types
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise InputError(f"mmds: privatizer {name}: torch.onnx.export with inputs {conv!r}"
                         f"{'' if one_hot is None else f', one-hot x of {one_hot} values'} failed: {first}") from e
    finally:
        for m, t in flags:
            m.training = t
    return f"<{name} as ONNX, {str(want).removeprefix('torch.')}, inputs {conv!r}>"
