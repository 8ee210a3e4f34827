"""Tests of the installed mmds package (make test-python: a fresh virtual
environment with Debian's torch visible, the wheel installed, run from
outside the source tree).

Numbers are checked against independent computations: the binary model's
MAP losses by Appendix B's brute-force sum over (f, v), the released
channel of a network by numerical integration of its float32 forward pass
over r ~ N(0, 1).
"""
import json
import math
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

import mmds

REPO = Path(os.environ.get("MMDS_REPO") or Path(__file__).resolve().parents[2])
BINARY_MODEL = str(REPO / "examples" / "binary-paper.json")
BINARY_DICT = {"p": 0.54, "q_y": 0.2, "q_z": [0.44]}  # the same model (Section V-B)
P, QY, QZ = 0.54, 0.2, 0.44
D = 0.15


def map_loss(s0, s1, q):
    """Appendix B: the MAP error of an observer of X ~ Bernoulli(P) through
    BSC(q), given the release with s0 = P(F=0|X=0), s1 = P(F=1|X=1)."""
    prior = (1 - P, P)
    chan = ((s0, 1 - s0), (1 - s1, s1))
    side = ((1 - q, q), (q, 1 - q))
    return sum(min(prior[0] * chan[0][f] * side[0][v], prior[1] * chan[1][f] * side[1][v])
               for f in (0, 1) for v in (0, 1))


def losses(p0, p1):
    """(recon, adv) of the release P(F=1 | X=x) = p_x on the paper's binary model."""
    return map_loss(1 - p0, p1, QY), map_loss(1 - p0, p1, QZ)


def torch_or_fail():
    try:
        import torch
    except ImportError as e:  # make test-python installs it: a missing torch is a failure
        raise AssertionError(f"Debian's python3-torch is not visible in this environment ({e}): "
                             "run scripts/install-python-deps.sh as root") from e
    return torch


def linear_net(slope, bias):
    """k(x, r) = slope·x + bias: the release P(F=1|x) = bias + slope·x, r unused."""
    torch = torch_or_fail()
    net = torch.nn.Sequential(torch.nn.Linear(2, 1))
    with torch.no_grad():
        net[0].weight.copy_(torch.tensor([[slope, 0.0]]))
        net[0].bias.copy_(torch.tensor([bias]))
    return net


# Proposition 2's optimum at D = 0.15 (s0 = 1, s1 = 0.46296…) passes; the
# symmetric channel with the same distortion budget (s0 = s1 = 0.85) fails
# (scripts/make-certify-fixtures.py writes the same two as net-pass/net-fail).
S1_PASS = 0.4629629629629599
S_FAIL = 0.85


class Installed(unittest.TestCase):
    def test_tested_package_is_the_installed_one(self):
        here = Path(mmds.__file__).resolve()
        self.assertNotIn(REPO / "python", here.parents, f"mmds imported from the source tree: {here}")
        self.assertNotIn("MMDS_BINARY", os.environ, "the tests run the binary the wheel carries")
        self.assertEqual(Path(mmds.binary_path()).resolve(), here.parent / "bin" / "mmds")
        self.assertTrue(os.stat(mmds.binary_path()).st_mode & stat.S_IXUSR)

    def test_python_m_mmds_runs_the_cli(self):
        p = subprocess.run([sys.executable, "-m", "mmds", "--version"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("mmds "), p.stdout)
        self.assertEqual(p.stdout.strip(), mmds.version())
        p = subprocess.run([sys.executable, "-m", "mmds", "optimum", "--model", "nope.json"], capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stdout, p.stderr), (2, "", "mmds: --model nope.json does not exist\n"))
        script = Path(sys.executable).parent / "mmds"  # the wheel's console script
        p = subprocess.run([str(script), "--version"], capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stdout.strip()), (0, mmds.version()))

    def test_torch_is_imported_only_for_a_module(self):
        code = textwrap.dedent(f"""
            import sys, mmds
            mmds.optimum({BINARY_MODEL!r}, 0.1)
            mmds.certify([[1.0, 0.0], [0.5, 0.5]], {BINARY_MODEL!r}, 0.15)
            mmds.certify({str(REPO / "examples/certify/net-pass.onnx")!r}, {BINARY_DICT!r}, 0.15)
            try:
                mmds.certify("nope.onnx", {BINARY_MODEL!r}, 0.15)
            except mmds.InputError:
                pass
            print(sorted(m for m in sys.modules if m == "torch" or m.startswith("torch.")))
        """)
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tempfile.gettempdir())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "[]")


class CertifyModule(unittest.TestCase):
    def check_binary_losses(self, r, p0, p1):
        """The certified losses are Appendix B's at p_x, and the interval of
        each holds it."""
        recon, adv = losses(p0, p1)
        self.assertIsNotNone(r.certified, r.reason)
        self.assertAlmostEqual(r.certified.recon_loss, recon, delta=1e-6)
        self.assertAlmostEqual(r.certified.min_adv_loss, adv, delta=1e-6)
        iv = r.certified_interval
        self.assertIsNotNone(iv, "a certified point states its interval")
        self.assertIn(recon, iv.recon_loss)
        self.assertIn(adv, iv.adv_loss[0])
        self.assertIn(adv, iv.min_adv_loss)
        self.assertIn(r.certified.recon_loss, iv.recon_loss)
        self.assertIn(r.certified.min_adv_loss, iv.min_adv_loss)

    def released(self, net):
        """P(F=1 | x) of a net whose output does not depend on r, as torch
        computes it in the net's own precision."""
        torch = torch_or_fail()
        with torch.no_grad():
            dt = next(net.parameters()).dtype
            return [float(net(torch.tensor([[x, 0.0]], dtype=dt))[0, 0]) for x in (0, 1)]

    def test_float32_module_passes(self):
        net = linear_net(S1_PASS, 0.0)
        r = mmds.certify(net, BINARY_MODEL, D)
        self.assertEqual((r.verdict, r.reason, r.exit_code), ("pass", "pass", 0))
        self.assertTrue(r.passed)
        self.assertEqual(r.model, "binary")
        self.assertTrue(r.privatizer.startswith("<Sequential as ONNX, float32"), r.privatizer)
        self.check_binary_losses(r, *self.released(net))
        self.assertGreater(r.rounding, 0)  # float32: the runtime's rounding is part of the stated error
        self.assertLessEqual(r.rounding, r.change)
        self.assertAlmostEqual(r.optimum_at_D.min_adv_loss, 0.29, delta=1e-12)
        self.assertAlmostEqual(r.gap, r.optimum.min_adv_loss - r.certified.min_adv_loss, delta=1e-15)
        self.assertLessEqual(r.gap, r.adv_tolerance)
        self.assertIn(r.certified.recon_loss, r.distortion_band)

    def test_float32_module_fails(self):
        net = linear_net(2 * S_FAIL - 1, 1 - S_FAIL)
        r = mmds.certify(net, BINARY_MODEL, D)
        self.assertEqual((r.verdict, r.exit_code), ("fail", 1))
        self.assertTrue(r.reason.startswith("fail: gap"), r.reason)
        self.check_binary_losses(r, *self.released(net))
        self.assertGreater(r.gap, r.adv_tolerance)

    def test_float64_on_request(self):
        torch = torch_or_fail()
        net = linear_net(S1_PASS, 0.0)
        r = mmds.certify(net, BINARY_DICT, D, dtype=torch.float64)
        self.assertEqual(r.verdict, "pass")
        self.assertIn("float64", r.privatizer)
        self.assertEqual(next(net.parameters()).dtype, torch.float32, "the user's module is left in float32")
        # The float64 export of the float32 weights: p_1 is the float32 weight exactly.
        self.check_binary_losses(r, 0.0, float(net[0].weight[0, 0]))

    def test_training_flags_restored(self):
        torch = torch_or_fail()
        net = torch.nn.Sequential(linear_net(S1_PASS, 0.0), torch.nn.Dropout(0.5))
        net.train()
        net[1].eval()  # a mixed state: each flag comes back as it was
        r = mmds.certify(net, BINARY_MODEL, D)
        self.assertEqual(r.verdict, "pass", "exported in eval mode: the dropout is not part of the release")
        self.assertEqual([m.training for m in net.modules()], [True, True, True, False])
        net.eval()
        mmds.certify(net, BINARY_MODEL, D)
        self.assertFalse(any(m.training for m in net.modules()))

    def test_calling_conventions(self):
        torch = torch_or_fail()

        class TwoArgs(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.net = linear_net(S1_PASS, 0.0)

            def forward(self, x, r):
                return self.net(torch.cat([x, r], dim=1))

        class RFirst(torch.nn.Module):  # one input [batch, 2] holding (r, x)
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(2, 1)
                with torch.no_grad():
                    self.lin.weight.copy_(torch.tensor([[0.0, S1_PASS]]))
                    self.lin.bias.zero_()

            def forward(self, t):
                return self.lin(t)

        base = mmds.certify(linear_net(S1_PASS, 0.0), BINARY_MODEL, D)
        for module, inputs, how in [(TwoArgs(), None, "'x,r'"), (RFirst(), "rx", "'rx'")]:
            r = mmds.certify(module, BINARY_MODEL, D, inputs=inputs)
            self.assertIn(f"inputs {how}", r.privatizer)
            self.assertEqual(r.verdict, "pass")
            self.assertEqual(r.certified, base.certified)
        # Read in the wrong order, RFirst's output is S1_PASS·r: not a probability.
        with self.assertRaises(mmds.InputError) as e:
            mmds.certify(RFirst(), BINARY_MODEL, D, inputs="xr")
        self.assertIn("must lie in [0, 1]", str(e.exception))

    def test_one_hot_categorical_on_a_finite_model(self):
        torch = torch_or_fail()
        torch.manual_seed(3)

        class Categorical(torch.nn.Module):  # as privatizer/testdata/categorical-finite.*
            def __init__(self):
                super().__init__()
                self.net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4),
                                               torch.nn.Softmax(dim=1))

            def forward(self, x, r):
                return self.net(torch.cat([x, r], dim=1))

        r = mmds.certify(Categorical(), str(REPO / "examples/finite-ternary.json"), 0.1, one_hot=3,
                         dtype=torch.float64)
        self.assertIn(r.verdict, ("pass", "fail"))
        self.assertEqual(r.model, "finite")
        self.assertEqual(len(r.certified.adv_loss), 2)

    def test_float32_relu_net_gets_a_verdict(self):
        """A float32 ReLU network with a clamped output (the shape of
        docs/certify.md's nets) gets a verdict, and each certified interval
        holds the loss of the float32 function, found here by integrating
        its forward pass over r. This one keeps D̂ = 0.164 within the band
        but leaks: gap 0.08 (its float64 export: fail: gap 0.08 > 0.0322)."""
        torch = torch_or_fail()
        torch.manual_seed(3)
        clamp = [torch.nn.Linear(1, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1)]  # clip(t + 1/2, 0, 1)
        with torch.no_grad():
            clamp[0].weight.copy_(torch.tensor([[1.0], [1.0]]))
            clamp[0].bias.copy_(torch.tensor([0.5, -0.5]))
            clamp[2].weight.copy_(torch.tensor([[1.0, -1.0]]))
            clamp[2].bias.zero_()
        net = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1), *clamp)
        with torch.no_grad():
            net[0].weight[:, 0] *= 4  # a release that depends on x
        r = mmds.certify(net, BINARY_MODEL, D)
        self.assertEqual(r.verdict, "fail", r.reason)
        self.assertTrue(r.reason.startswith("fail: gap"), r.reason)
        p = [self.integrate(net, x) for x in (0, 1)]
        recon, adv = losses(*p)
        iv = r.certified_interval
        slack = 1e-9  # the integration's own error: grids of 4e5 and 2e6 points agree within 1e-10
        self.assertTrue(iv.recon_loss.lo - slack <= recon <= iv.recon_loss.hi + slack, (recon, iv.recon_loss))
        self.assertTrue(iv.min_adv_loss.lo - slack <= adv <= iv.min_adv_loss.hi + slack, (adv, iv.min_adv_loss))

    @staticmethod
    def integrate(net, x, n=400_001, span=9.0):
        """E_R[k(x, R)] of the float32 forward pass: Simpson's rule over
        [−span, span] (the mass beyond is below 1e-18)."""
        torch = torch_or_fail()
        r = torch.linspace(-span, span, n, dtype=torch.float64)
        with torch.no_grad():
            k = net(torch.stack([torch.full_like(r, float(x)), r], dim=1).float())[:, 0].double()
        w = torch.ones(n, dtype=torch.float64)
        w[1:-1:2], w[2:-1:2] = 4, 2
        phi = torch.exp(-r * r / 2) / math.sqrt(2 * math.pi)
        return float((w * k * phi).sum() * (r[1] - r[0]) / 3)


class CertifyFiles(unittest.TestCase):
    def test_onnx_and_json_paths(self):
        certify = str(REPO / "examples/certify")
        for path, verdict in [(f"{certify}/net-pass.onnx", "pass"), (f"{certify}/net-fail.onnx", "fail"),
                              (str(REPO / "privatizer/testdata/net-pass.json"), "pass"),
                              (Path(certify) / "channel-pass.json", "pass")]:
            r = mmds.certify(path, BINARY_MODEL, D)
            self.assertEqual(r.verdict, verdict, path)
            self.assertEqual(r.privatizer, str(path))
            self.assertIsNotNone(r.certified_interval)

    def test_channel_as_list_array_and_dict(self):
        import numpy as np

        rows = [[1.0, 0.0], [1 - S1_PASS, S1_PASS]]
        want = losses(0.0, S1_PASS)
        for priv in (rows, tuple(rows), np.array(rows), {"channel": np.array(rows)}):
            r = mmds.certify(priv, BINARY_DICT, D)
            self.assertEqual(r.verdict, "pass")
            self.assertAlmostEqual(r.certified.recon_loss, want[0], delta=1e-12)
            self.assertAlmostEqual(r.certified.min_adv_loss, want[1], delta=1e-12)
            self.assertIn(r.privatizer, ("<channel>", "<privatizer dict>"))
            self.assertIsNone(r.rounding)
        fail = mmds.certify([[S_FAIL, 1 - S_FAIL], [1 - S_FAIL, S_FAIL]], BINARY_MODEL, D)
        self.assertEqual(fail.verdict, "fail")

    def test_model_dict_is_the_file(self):
        a = mmds.certify([[1.0, 0.0], [0.5, 0.5]], BINARY_MODEL, 0.2)
        b = mmds.certify([[1.0, 0.0], [0.5, 0.5]], BINARY_DICT, 0.2)
        self.assertEqual(a.model_sha256, b.model_sha256)
        self.assertEqual(a.certified, b.certified)

    def test_gaussian_model(self):
        r = mmds.certify(str(REPO / "privatizer/testdata/linear-gauss.onnx"), str(REPO / "examples/gauss-coalition.json"), 2)
        self.assertEqual((r.model, r.verdict), ("gauss", "pass"))
        self.assertIsNotNone(r.gap_best_achievable)
        self.assertIn(r.certified.min_adv_loss, r.certified_interval.min_adv_loss)


class Optimum(unittest.TestCase):
    def test_binary(self):
        t = mmds.optimum(BINARY_MODEL, D)
        self.assertEqual((t.model, len(t)), ("binary", 1))
        p = t.at(D)
        self.assertAlmostEqual(p.min_adv_loss, 0.29, delta=1e-12)  # Proposition 2: γ*(0.15) = 0.29
        self.assertAlmostEqual(p.min_adv_loss, losses(0.0, S1_PASS)[1], delta=1e-12)
        self.assertEqual(p.status, "Optimal")
        self.assertEqual(mmds.certify([[1.0, 0.0], [0.5, 0.5]], BINARY_MODEL, D).optimum_at_D.min_adv_loss, p.min_adv_loss)

    def test_kinds_sweeps_and_dicts(self):
        t = mmds.optimum(BINARY_DICT, sweep=(0.05, 0.2, 4))
        self.assertEqual(len(t), 4)
        for p, want in zip(t, [0.05, 0.1, 0.15, 0.2]):
            self.assertAlmostEqual(p.D, want, delta=1e-15)
        self.assertAlmostEqual(t.at(0.2).min_adv_loss, 0.44, delta=1e-12)  # saturated: min(P, 1 − P) ⊕ q_Z = 0.44
        f = mmds.optimum(str(REPO / "examples/finite-ternary.json"), 0.1)
        self.assertEqual((f.model, f.points[0].status), ("finite", "optimal"))
        self.assertAlmostEqual(f.points[0].min_adv_loss, 0.2, delta=1e-12)
        self.assertGreaterEqual(f.points[0].upper_bound, f.points[0].min_adv_loss)
        g = mmds.optimum(str(REPO / "examples/gauss-coalition.json"), 2)
        self.assertEqual(g.model, "gauss")
        self.assertLessEqual(g.points[0].min_adv_loss, g.points[0].upper_bound)
        default = mmds.optimum(BINARY_MODEL)
        self.assertEqual(len(default), 30)  # the paper's sweep (Section V-B)
        stopped = mmds.optimum(BINARY_MODEL, sweep=(0.05, 0.2, 4), args=["--max-points", "2"])
        self.assertEqual([p.status for p in stopped][2:], ["not reached", "not reached"])
        self.assertIsNone(stopped.points[3].min_adv_loss)
        self.assertIn("min_adv_loss", str(t))


class BadInput(unittest.TestCase):
    def assertOneLine(self, err, *names):
        msg = str(err.exception)
        self.assertTrue(msg.startswith("mmds: "), msg)
        self.assertNotIn("\n", msg)
        self.assertEqual(err.exception.code, 2)
        for n in names:
            self.assertIn(n, msg)

    def test_messages_name_the_input(self):
        with self.assertRaises(mmds.InputError) as e:
            mmds.certify("no-such.onnx", BINARY_MODEL, D)
        self.assertOneLine(e, "no-such.onnx")
        self.assertEqual(e.exception.args_run[:3], ("certify", "--model", BINARY_MODEL))
        with self.assertRaises(mmds.InputError) as e:
            mmds.certify([[1.0, 0.0], [0.5, 0.5], [0.5, 0.5]], BINARY_MODEL, D)
        self.assertOneLine(e, "<channel>", "3 rows")
        with self.assertRaises(mmds.InputError) as e:
            mmds.certify([[1.0, 0.0], [0.5, 0.5]], BINARY_DICT, 0.5)
        self.assertOneLine(e, "0.5", "D_max")
        with self.assertRaises(mmds.InputError) as e:
            mmds.certify([[1.0, 0.0], [0.5, 0.5]], {"p": 0.54, "q_y": 0.2}, D)
        self.assertOneLine(e, "<model dict>", "q_z")
        with self.assertRaises(mmds.InputError) as e:
            mmds.certify([[1.0, float("nan")], [0.5, 0.5]], BINARY_DICT, D)
        self.assertOneLine(e, "<channel>", "channel[0][1]", "nan")
        with self.assertRaises(mmds.InputError) as e:
            mmds.optimum({"p": 0.54, "q_y": float("inf"), "q_z": [0.44]})
        self.assertOneLine(e, "<model dict>", "q_y", "inf")
        with self.assertRaises(mmds.InputError) as e:
            mmds.optimum(BINARY_MODEL, -1)
        self.assertOneLine(e, "--d -1")
        self.assertIsInstance(e.exception, mmds.MmdsError)
        self.assertIsInstance(e.exception, ValueError)
        with self.assertRaises(TypeError):
            mmds.certify(42, BINARY_MODEL, D)
        with self.assertRaises(TypeError):
            mmds.certify([[1.0, 0.0], [0.5, 0.5]], BINARY_MODEL, "0.15")

    def test_unsupported_operator_names_the_node(self):
        torch = torch_or_fail()

        class Sine(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(2, 1)

            def forward(self, t):
                return torch.sigmoid(torch.sin(self.lin(t)))

        net = Sine()
        net.train()
        with self.assertRaises(mmds.InputError) as e:
            mmds.certify(net, BINARY_MODEL, D)
        self.assertOneLine(e, "<Sine as ONNX", "Sin")
        self.assertTrue(net.training)

    def test_module_that_cannot_be_exported(self):
        torch = torch_or_fail()

        class ThreeArgs(torch.nn.Module):
            def forward(self, x, r, z):
                return x

        with self.assertRaises(mmds.InputError) as e:
            mmds.certify(ThreeArgs(), BINARY_MODEL, D)
        self.assertIn("inputs=", str(e.exception))
        with self.assertRaises(mmds.InputError) as e:  # x of width 1 into a Linear(4, …)
            mmds.certify(torch.nn.Sequential(torch.nn.Linear(4, 1)), BINARY_MODEL, D)
        self.assertIn("torch.onnx.export with inputs 'xr' failed", str(e.exception))
        self.assertNotIn("\n", str(e.exception))

    def test_nothing_written(self):
        tmp = tempfile.mkdtemp()
        old = tempfile.tempdir
        tempfile.tempdir = tmp
        try:
            with self.assertRaises(mmds.InputError):
                mmds.certify([[1.0, 0.0], [0.5]], BINARY_DICT, D)
            mmds.certify(linear_net(S1_PASS, 0.0), BINARY_DICT, D)
            self.assertEqual(os.listdir(tmp), [], "the private folder is removed")
        finally:
            tempfile.tempdir = old
            os.rmdir(tmp)


class Protocol(unittest.TestCase):
    """How the package reads mmds's exit statuses, against a stand-in
    binary ($MMDS_BINARY) that prints a given document."""

    def fake(self, code, stdout="", stderr=""):
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: (os.remove(os.path.join(d, "mmds")), os.rmdir(d)))
        path = os.path.join(d, "mmds")
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\ncat <<'EOF'\n{stdout}\nEOF\ncat >&2 <<'EOF'\n{stderr}EOF\nexit {code}\n")
        os.chmod(path, 0o755)
        old = os.environ.get("MMDS_BINARY")
        os.environ["MMDS_BINARY"] = path
        self.addCleanup(lambda: os.environ.pop("MMDS_BINARY") if old is None else os.environ.__setitem__("MMDS_BINARY", old))

    def doc(self, point):
        p = {"D": 0.15, "privatizer": "p.onnx", "privatizer_sha256": "00", "certified": None, "change": None,
             "optimum": None, "optimum_at_D": None, "gap": None, "gap_at_D": None, "distortion_band": None,
             "adv_tolerance": None, "pass": False}
        p.update(point)
        return json.dumps({"model": "binary", "model_sha256": "ab", "points": [p], "tolerances": {
            "band_tau": 1, "tau": 0.003, "dist_se": 3, "adv_se": 3, "quad": 0.005, "abs": 1e-9, "test_size": 2000,
            "reference": "paper"}})

    def test_cannot_certify_is_a_result(self):
        self.fake(3, self.doc({"status": "cannot certify", "verdict": "cannot certify: bound above tolerance"}),
                  "mmds: cannot certify: 1 of 1 points cannot be certified soundly (0 pass)\n")
        r = mmds.certify("p.onnx", "m.json", 0.15)
        self.assertEqual((r.verdict, r.exit_code, r.certified, r.certified_interval), ("cannot certify", 3, None, None))
        self.assertEqual(r.reason, "cannot certify: bound above tolerance")

    def test_certified_point_needs_its_interval(self):
        c = {"recon_loss": 0.15, "adv_loss": [0.29], "min_adv_loss": 0.29}
        self.fake(0, self.doc({"status": "certified", "verdict": "pass", "certified": c, "change": 0}))
        with self.assertRaises(mmds.MmdsError) as e:
            mmds.certify("p.onnx", "m.json", 0.15)
        self.assertIn("certified_interval", str(e.exception))
        self.assertNotIsInstance(e.exception, mmds.InputError)

    def test_failure_without_a_document(self):
        self.fake(1, "", "mmds: HiGHS: solver failed\n")
        with self.assertRaises(mmds.MmdsError) as e:
            mmds.optimum("m.json", 0.1)
        self.assertEqual((str(e.exception), e.exception.code), ("mmds: HiGHS: solver failed", 1))

    def test_binary_override_must_run(self):
        os.environ["MMDS_BINARY"] = "/nonexistent/mmds"
        self.addCleanup(os.environ.pop, "MMDS_BINARY")
        with self.assertRaises(mmds.MmdsError) as e:
            mmds.optimum("m.json", 0.1)
        self.assertIn("MMDS_BINARY", str(e.exception))


if __name__ == "__main__":
    unittest.main()
