"""mmds: certify privatizers against the exact optima of minimax data
sanitization, from Python.

A thin, typed layer over the mmds command line: the Go program is the
engine, this package runs it with ``--format json`` and reads the result.

    >>> import mmds
    >>> r = mmds.certify(net, "examples/binary-paper.json", 0.15)   # net: a torch.nn.Module k(x, r)
    >>> r.verdict, r.certified.min_adv_loss, r.gap

``certify`` takes a torch.nn.Module, an ONNX/JSON/CSV path, a channel as
nested lists or an array; ``optimum`` the optimum table of a model; ``run``
any mmds command. Bad input raises InputError with mmds's one-line message.
torch is imported only when a module is certified. docs/python.md.
"""
from ._api import certify, optimum, run, version
from ._binary import binary_path
from ._errors import InputError, MmdsError
from ._results import (Certificate, Interval, LossIntervals, Losses, Optimum, OptimumPoint, OptimumTable,
                       Tolerances)

__version__ = "0.1.0"

for _t in (Certificate, Interval, Losses, LossIntervals, Optimum, OptimumPoint, OptimumTable, Tolerances):
    _t.__module__ = __name__  # mmds.Certificate, not mmds._results.Certificate
del _t

__all__ = [
    "certify", "optimum", "run", "version", "binary_path",
    "MmdsError", "InputError",
    "Certificate", "Interval", "Losses", "LossIntervals", "Optimum", "OptimumPoint", "OptimumTable", "Tolerances",
]
