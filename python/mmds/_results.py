"""The typed results of mmds certify and mmds optimum, read from their
--format json documents (docs/certify.md, "JSON contract"; docs/cli.md). Field
names are the JSON's; every result keeps the document it was read from in
``raw``."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Literal, Mapping, Optional, Tuple

from ._errors import MmdsError

Verdict = Literal["pass", "fail", "cannot certify"]


class _Missing(MmdsError):
    pass


def _get(d: Mapping[str, Any], key: str, where: str) -> Any:
    if not isinstance(d, Mapping) or key not in d:
        raise _Missing(f"mmds: {where}: no field {key!r} in mmds's JSON (is the binary older than this package?)")
    return d[key]


def _num(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _Missing(f"mmds: {where}: want a number in mmds's JSON, got {v!r}")
    return float(v)


def _opt_num(d: Mapping[str, Any], key: str, where: str) -> Optional[float]:
    v = d.get(key)
    return None if v is None else _num(v, f"{where}.{key}")


@dataclass(frozen=True)
class Interval:
    """A closed interval [lo, hi]."""

    lo: float
    hi: float

    def __contains__(self, x: float) -> bool:
        return self.lo <= x <= self.hi

    @property
    def width(self) -> float:
        return self.hi - self.lo

    @classmethod
    def _read(cls, v: Any, where: str) -> "Interval":
        if not isinstance(v, list) or len(v) != 2:
            raise _Missing(f"mmds: {where}: want [lo, hi] in mmds's JSON, got {v!r}")
        lo, hi = _num(v[0], where), _num(v[1], where)
        if not lo <= hi:
            raise _Missing(f"mmds: {where}: [{lo!r}, {hi!r}] is not an interval")
        return cls(lo, hi)


@dataclass(frozen=True)
class Losses:
    """The Bayes losses of the reconstructor and of each adversary, and the
    smallest adversarial loss (the privacy the release keeps)."""

    recon_loss: float
    adv_loss: Tuple[float, ...]
    min_adv_loss: float

    @classmethod
    def _read(cls, d: Mapping[str, Any], where: str) -> "Losses":
        adv = _get(d, "adv_loss", where)
        if not isinstance(adv, list):
            raise _Missing(f"mmds: {where}.adv_loss: want a list in mmds's JSON")
        return cls(_num(_get(d, "recon_loss", where), where + ".recon_loss"),
                   tuple(_num(a, f"{where}.adv_loss[{i}]") for i, a in enumerate(adv)),
                   _num(_get(d, "min_adv_loss", where), where + ".min_adv_loss"))


@dataclass(frozen=True)
class LossIntervals:
    """Where each certified loss is proven (or stated) to lie: the loss of
    the function the runtime computes, its numerical error carried in."""

    recon_loss: Interval
    adv_loss: Tuple[Interval, ...]
    min_adv_loss: Interval

    @classmethod
    def _read(cls, d: Mapping[str, Any], where: str) -> "LossIntervals":
        adv = _get(d, "adv_loss", where)
        if not isinstance(adv, list):
            raise _Missing(f"mmds: {where}.adv_loss: want a list of [lo, hi] in mmds's JSON")
        return cls(Interval._read(_get(d, "recon_loss", where), where + ".recon_loss"),
                   tuple(Interval._read(a, f"{where}.adv_loss[{i}]") for i, a in enumerate(adv)),
                   Interval._read(_get(d, "min_adv_loss", where), where + ".min_adv_loss"))


@dataclass(frozen=True)
class Optimum:
    """The reference optimum at one threshold D: the losses of the optimal
    privatizer (``mechanism_class`` says which optimum: "binary-output" for
    Proposition 2, …); the kind's own fields are in ``raw``."""

    D: float
    recon_loss: float
    adv_loss: Tuple[float, ...]
    min_adv_loss: float
    mechanism_class: Optional[str]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def _read(cls, d: Mapping[str, Any], where: str) -> "Optimum":
        l = Losses._read(d, where)
        return cls(_num(_get(d, "D", where), where + ".D"), l.recon_loss, l.adv_loss, l.min_adv_loss,
                   d.get("class"), dict(d))


@dataclass(frozen=True)
class Tolerances:
    """The verifier's tolerances (docs/verify.md), ``tau`` resolved."""

    band_tau: float
    tau: float
    dist_se: float
    adv_se: float
    quad: float
    abs: float
    test_size: int
    reference: str

    @classmethod
    def _read(cls, d: Mapping[str, Any]) -> "Tolerances":
        w = "tolerances"
        f = lambda k: _num(_get(d, k, w), f"{w}.{k}")  # noqa: E731
        return cls(band_tau=f("band_tau"), tau=f("tau"), dist_se=f("dist_se"), adv_se=f("adv_se"), quad=f("quad"),
                   abs=f("abs"), test_size=int(f("test_size")), reference=str(_get(d, "reference", w)))


def verdict_of(point: Mapping[str, Any], where: str) -> Verdict:
    """"pass", "fail" or "cannot certify": the word mmds's verdict text
    starts with ("fail: gap 0.14 > 0.03", "cannot certify: …")."""
    text = str(_get(point, "verdict", where))
    for v in ("pass", "fail", "cannot certify"):
        if text == v or text.startswith(v + ":"):
            return v  # type: ignore[return-value]  # one of Verdict's values
    raise _Missing(f"mmds: {where}.verdict: {text!r} is not pass, fail or cannot certify")


@dataclass(frozen=True)
class Certificate:
    """mmds certify's verdict on one privatizer at one threshold D.

    ``verdict`` is "pass", "fail" or "cannot certify" and ``reason`` mmds's
    text of it; ``certified`` the exact Bayes losses of the privatizer (its
    recon loss is the certified distortion D̂), ``certified_interval`` where
    each is proven to lie, ``change`` their stated error and ``rounding``
    the part of it the runtime's rounding accounts for (None for none);
    ``optimum`` the optimum at D̂ and ``optimum_at_D`` at D; ``gap`` =
    optimum at D̂ − certified min adversarial loss (the verdict's),
    ``gap_at_D`` the same at D, ``adv_tolerance`` the largest gap that
    passes and ``distortion_band`` where D̂ must lie. A point that cannot be
    certified has no numbers: those fields are None."""

    verdict: Verdict
    reason: str
    D: float
    model: str
    model_sha256: str
    privatizer: str
    privatizer_sha256: str
    certified: Optional[Losses]
    certified_interval: Optional[LossIntervals]
    change: Optional[float]
    rounding: Optional[float]
    optimum: Optional[Optimum]
    optimum_at_D: Optional[Optimum]
    gap: Optional[float]
    gap_at_D: Optional[float]
    adv_tolerance: Optional[float]
    distortion_band: Optional[Interval]
    gap_best_achievable: Optional[float]
    tolerances: Tolerances
    exit_code: int
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def __str__(self) -> str:
        lines = [f"{self.privatizer} on the {self.model} model at D = {self.D:g}: {self.reason}"]
        c, iv = self.certified, self.certified_interval
        if c is None or iv is None or self.optimum is None or self.optimum_at_D is None:
            return lines[0]
        g = lambda x: f"{x:.6g}"  # noqa: E731
        span = lambda i: f"[{i.lo:.10g}, {i.hi:.10g}]"  # noqa: E731
        lines += [
            f"certified recon loss D̂ = {g(c.recon_loss)} in {span(iv.recon_loss)}, min adv loss {g(c.min_adv_loss)} "
            f"in {span(iv.min_adv_loss)}, stated error {self.change:.2g}",
            f"optimum {g(self.optimum.min_adv_loss)} at D̂, {g(self.optimum_at_D.min_adv_loss)} at D; "
            f"gap {self.gap:.3g} (at D {self.gap_at_D:.3g}), passes up to {self.adv_tolerance:.3g}",
        ]
        return "\n".join(lines)

    @classmethod
    def _read(cls, doc: Mapping[str, Any], code: int, names: Mapping[str, str]) -> "Certificate":
        points = _get(doc, "points", "certify")
        if not isinstance(points, list) or len(points) != 1:
            raise _Missing("mmds: certify: want one point in mmds's JSON")
        p = points[0]
        w = "points[0]"
        cert = p.get("certified")
        certified = None if cert is None else Losses._read(cert, w + ".certified")
        interval = None
        if certified is not None:
            # The interval each certified loss lies in: required of every
            # certified point (docs/certify.md, JSON contract).
            interval = LossIntervals._read(_get(p, "certified_interval", w), w + ".certified_interval")
        band = p.get("distortion_band")
        priv = str(_get(p, "privatizer", w))
        return cls(
            verdict=verdict_of(p, w), reason=str(p["verdict"]), D=_num(_get(p, "D", w), w + ".D"),
            model=str(_get(doc, "model", "certify")), model_sha256=str(_get(doc, "model_sha256", "certify")),
            privatizer=names.get(priv, priv), privatizer_sha256=str(_get(p, "privatizer_sha256", w)),
            certified=certified, certified_interval=interval, change=_opt_num(p, "change", w),
            rounding=_opt_num(p, "rounding", w),
            optimum=None if p.get("optimum") is None else Optimum._read(p["optimum"], w + ".optimum"),
            optimum_at_D=None if p.get("optimum_at_D") is None else Optimum._read(p["optimum_at_D"], w + ".optimum_at_D"),
            gap=_opt_num(p, "gap", w), gap_at_D=_opt_num(p, "gap_at_D", w),
            adv_tolerance=_opt_num(p, "adv_tolerance", w),
            distortion_band=None if band is None else Interval._read(band, w + ".distortion_band"),
            gap_best_achievable=_opt_num(p, "gap_best_achievable", w),
            tolerances=Tolerances._read(_get(doc, "tolerances", "certify")), exit_code=code, raw=dict(doc))


@dataclass(frozen=True)
class OptimumPoint:
    """One threshold of an optimum table: the optimal losses (None for a
    threshold a bound stopped the sweep before), ``upper_bound`` where the
    kind states one (finite: the certified bracket's top; gauss: the proven
    upper bound of the exact optimum), ``status`` where it has one; the
    kind's own fields are in ``raw``."""

    D: float
    recon_loss: Optional[float]
    adv_loss: Optional[Tuple[float, ...]]
    min_adv_loss: Optional[float]
    upper_bound: Optional[float]
    status: Optional[str]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def _read(cls, d: Mapping[str, Any], where: str) -> "OptimumPoint":
        D = _num(_get(d, "D", where), where + ".D")
        status = d.get("status")
        if d.get("min_adv_loss") is None:
            return cls(D, None, None, None, _opt_num(d, "upper_bound", where), status, dict(d))
        l = Losses._read(d, where)
        return cls(D, l.recon_loss, l.adv_loss, l.min_adv_loss, _opt_num(d, "upper_bound", where), status, dict(d))


def _kind_of(doc: Mapping[str, Any]) -> str:
    m = _get(doc, "model", "optimum")
    if isinstance(m, Mapping):
        if "p" in m:
            return "binary"
        if "names" in m:
            return "gauss"
        if "prior" in m.get("config", {}):
            return "finite"
    raise _Missing("mmds: optimum: the JSON's model is none of binary, finite and gauss")


@dataclass(frozen=True)
class OptimumTable:
    """mmds optimum's table: the model's kind and one OptimumPoint per
    threshold; iterate over it, or ``at(D)``."""

    model: str
    points: Tuple[OptimumPoint, ...]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    def __iter__(self) -> Iterator[OptimumPoint]:
        return iter(self.points)

    def __len__(self) -> int:
        return len(self.points)

    def at(self, D: float) -> OptimumPoint:
        """The point at threshold D (the closest one within 1e-12)."""
        for p in self.points:
            if math.isclose(p.D, D, rel_tol=1e-12, abs_tol=1e-12):
                return p
        raise KeyError(D)

    def __str__(self) -> str:
        rows: List[List[str]] = [["D", "recon_loss", "adv_loss", "min_adv_loss", "status"]]
        f = lambda x: "" if x is None else f"{x:.6g}"  # noqa: E731
        for p in self.points:
            adv = "" if p.adv_loss is None else " ".join(f(a) for a in p.adv_loss)
            rows.append([f(p.D), f(p.recon_loss), adv, f(p.min_adv_loss), p.status or ""])
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        return f"{self.model} model optimum\n" + "\n".join(lines)

    @classmethod
    def _read(cls, doc: Mapping[str, Any]) -> "OptimumTable":
        pts = _get(doc, "points", "optimum")
        if not isinstance(pts, list):
            raise _Missing("mmds: optimum: points: want a list in mmds's JSON")
        return cls(_kind_of(doc), tuple(OptimumPoint._read(p, f"points[{i}]") for i, p in enumerate(pts)), dict(doc))
