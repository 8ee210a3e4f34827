"""certify, optimum and run: mmds's commands from Python."""
from __future__ import annotations

import json
import math
import numbers
import os
import subprocess
import sys
import tempfile
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

from ._binary import binary_path
from ._errors import InputError, MmdsError
from ._results import Certificate, OptimumTable, _Missing

PathLike = Union[str, "os.PathLike[str]"]

# mmds's exit statuses (docs/cli.md).
EXIT_PASS, EXIT_FAIL, EXIT_INPUT, EXIT_CANNOT_CERTIFY = 0, 1, 2, 3


class _Workdir:
    """A private temporary folder (mode 0700, removed afterwards) for the
    files mmds reads that the caller gave as Python objects; ``names`` maps
    each file's path to what it holds, for messages and results."""

    def __init__(self) -> None:
        self._tmp: Optional[tempfile.TemporaryDirectory] = None
        self.names: Dict[str, str] = {}

    def __enter__(self) -> "_Workdir":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()

    def path(self, name: str, label: str) -> str:
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="mmds-")
        p = os.path.join(self._tmp.name, name)
        self.names[p] = label
        return p

    def write_json(self, name: str, label: str, obj: Any) -> str:
        text = json.dumps(obj, default=_plain)
        bad = _non_finite(json.loads(text))
        if bad is not None:
            where, v = bad
            raise InputError(f"mmds: {label}: {where} is {v}: every number must be finite (NaN and Infinity are not JSON)",
                             EXIT_INPUT)
        p = self.path(name, label)
        with open(p, "x", encoding="utf-8") as f:
            f.write(text)
        return p

    def relabel(self, text: str) -> str:
        for p, label in self.names.items():
            text = text.replace(p, label)
        return text


def _non_finite(v: Any, where: str = "") -> Optional[Tuple[str, float]]:
    """The first NaN or infinity in a JSON value, and where it is
    (``reconstructor.channel[0][1]``)."""
    if isinstance(v, float) and not math.isfinite(v):
        return where or "the value", v
    if isinstance(v, dict):
        for k, x in v.items():
            bad = _non_finite(x, f"{where}.{k}" if where else str(k))
            if bad:
                return bad
    if isinstance(v, list):
        for i, x in enumerate(v):
            bad = _non_finite(x, f"{where}[{i}]")
            if bad:
                return bad
    return None


def _plain(o: Any) -> Any:
    """NumPy and torch scalars and arrays as Python numbers and lists."""
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "item"):
        return o.item()
    raise TypeError(f"{type(o).__name__} is not JSON: give numbers, lists or dicts")


def _threshold(d: Any, what: str = "d") -> str:
    if isinstance(d, bool) or not isinstance(d, numbers.Real):
        raise TypeError(f"{what} = {d!r}: want a number, the distortion threshold D")
    return repr(float(d))  # NaN and inf too: mmds refuses them, naming the flag


def _model_arg(model: Any, wd: _Workdir) -> str:
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    if isinstance(model, Mapping):
        return wd.write_json("model.json", "<model dict>", dict(model))
    raise TypeError(f"model: {type(model).__name__}: want a model file's path or a dict of its JSON fields")


def _torch_module(obj: Any) -> bool:
    torch = sys.modules.get("torch")  # an object can be a module only once torch is imported
    return torch is not None and isinstance(obj, torch.nn.Module)


def _privatizer_arg(priv: Any, wd: _Workdir, dtype: Any, inputs: Optional[str], one_hot: Optional[int]) -> str:
    module = _torch_module(priv)
    if not module and (dtype is not None or inputs is not None or one_hot is not None):
        raise TypeError("dtype, inputs and one_hot apply to a torch.nn.Module privatizer only")
    if module:
        from . import _torch

        path = wd.path("privatizer.onnx", "<module>")
        wd.names[path] = _torch.export(priv, path, dtype=dtype, inputs=inputs, one_hot=one_hot)
        return path
    if isinstance(priv, (str, os.PathLike)):
        return os.fspath(priv)
    if isinstance(priv, Mapping):
        return wd.write_json("privatizer.json", "<privatizer dict>", dict(priv))
    if isinstance(priv, (list, tuple)) or hasattr(priv, "tolist"):
        rows = priv.tolist() if hasattr(priv, "tolist") else priv
        return wd.write_json("channel.json", "<channel>", {"channel": rows})
    raise TypeError(f"privatizer: {type(priv).__name__}: want a torch.nn.Module, a file's path "
                    "(.onnx, .json, .csv), a channel P(F | X) as nested lists or an array, or a dict")


def _message(stderr: str) -> str:
    """mmds's one-line error: the last line of standard error that says
    "mmds: …" (notes and progress lines come before it)."""
    lines = [l for l in stderr.splitlines() if l.strip()]
    for l in reversed(lines):
        if l.startswith("mmds: "):
            return l
    return lines[-1] if lines else "mmds: no message"


def _run(args: Sequence[str], wd: _Workdir, timeout: Optional[float]) -> Tuple[int, str, str]:
    cmd = [binary_path(), *args]
    shown = [wd.relabel(a) for a in args]
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise MmdsError(f"mmds: {shown[0]}: stopped after the timeout of {timeout} s", None, shown) from e
    except OSError as e:
        raise MmdsError(f"mmds: cannot run {cmd[0]}: {e}", None, shown) from e
    out, err = p.stdout.decode("utf-8", "replace"), wd.relabel(p.stderr.decode("utf-8", "replace"))
    if p.returncode == EXIT_INPUT:
        raise InputError(_message(err), EXIT_INPUT, shown)
    return p.returncode, out, err


def _json(out: str, code: int, err: str, args: Sequence[str]) -> Dict[str, Any]:
    try:
        doc = json.loads(out)
    except ValueError:
        # No document: mmds failed before any result (a solver error, an
        # interrupt); its message says why.
        raise MmdsError(_message(err) if err.strip() else f"mmds: exit status {code} and no JSON", code, args) from None
    if not isinstance(doc, dict):
        raise MmdsError("mmds: its JSON is not an object", code, args)
    return doc


def certify(privatizer: Any, model: Union[PathLike, Mapping[str, Any]], d: float, *,
            dtype: Any = None, inputs: Optional[str] = None, one_hot: Optional[int] = None,
            args: Sequence[str] = (), timeout: Optional[float] = None) -> Certificate:
    """Certifies privatizer on model at the distortion threshold d
    (mmds certify --format json; docs/certify.md) and returns its
    Certificate: ``.verdict`` is "pass", "fail" or "cannot certify".

    privatizer: a torch.nn.Module k(x, r) (exported to ONNX as the user runs
    it; ``dtype``, ``inputs`` and ``one_hot``: see docs/python.md), the path
    of an ONNX, JSON or CSV privatizer file, a channel P(F | X) as nested
    lists or an array (rows x, columns f), or a dict of a privatizer file's
    JSON. model: a model file's path or a dict of its JSON fields (binary,
    finite or gauss; detected). args: more mmds certify flags (the
    tolerances, ``--tol-expect``).

    Raises InputError (mmds's exit status 2) with mmds's one-line message
    for bad input, before any work; MmdsError when mmds fails otherwise.
    """
    dflag = _threshold(d)
    with _Workdir() as wd:
        m = _model_arg(model, wd)
        p = _privatizer_arg(privatizer, wd, dtype, inputs, one_hot)
        argv = ["certify", "--model", m, "--privatizer", p, "--d", dflag, "--format", "json", "--quiet", *args]
        code, out, err = _run(argv, wd, timeout)
        shown = [wd.relabel(a) for a in argv]
        if code not in (EXIT_PASS, EXIT_FAIL, EXIT_CANNOT_CERTIFY):
            raise MmdsError(_message(err), code, shown)
        doc = _json(out, code, err, shown)
        try:
            return Certificate._read(doc, code, wd.names)
        except _Missing as e:
            raise MmdsError(e.message, code, shown) from None


def optimum(model: Union[PathLike, Mapping[str, Any]], d: Optional[float] = None, *,
            sweep: Optional[Tuple[float, float, int]] = None, args: Sequence[str] = (),
            timeout: Optional[float] = None) -> OptimumTable:
    """The optimum table of model (mmds optimum --format json; docs/cli.md):
    at the threshold d, at ``sweep`` = (D0, D1, N) (N evenly spaced
    thresholds), or, with neither, at the kind's default sweep. model: a
    model file's path or a dict of its JSON fields. args: more mmds optimum
    flags (``--time-limit``, ``--max-points``)."""
    if d is not None and sweep is not None:
        raise TypeError("give d or sweep, not both")
    with _Workdir() as wd:
        argv = ["optimum", "--model", _model_arg(model, wd), "--format", "json", "--quiet"]
        if d is not None:
            argv += ["--d", _threshold(d)]
        if sweep is not None:
            if not (isinstance(sweep, (tuple, list)) and len(sweep) == 3):
                raise TypeError(f"sweep = {sweep!r}: want (D0, D1, N)")
            argv += ["--sweep", f"{_threshold(sweep[0], 'sweep D0')}:{_threshold(sweep[1], 'sweep D1')}:{sweep[2]}"]
        argv += list(args)
        code, out, err = _run(argv, wd, timeout)
        shown = [wd.relabel(a) for a in argv]
        if code != 0:
            raise MmdsError(_message(err), code, shown)
        try:
            return OptimumTable._read(_json(out, code, err, shown))
        except _Missing as e:
            raise MmdsError(e.message, code, shown) from None


def run(*args: str, timeout: Optional[float] = None) -> subprocess.CompletedProcess:
    """Runs mmds ARGS as is and returns the finished process (stdout and
    stderr as text); the exit status is the caller's to read."""
    return subprocess.run([binary_path(), *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout)


def version() -> str:
    """mmds --version of the binary this package runs."""
    return run("--version").stdout.strip()
