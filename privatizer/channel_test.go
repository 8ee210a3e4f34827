package privatizer

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/mip"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b)) }

// bruteRisk is an observer's Bayes risk by enumerating every deterministic
// decision rule δ(f, v) → a and keeping the best: independent of the
// per-cell minimum of mip.Finite.Risk.
func bruteRisk(prior []float64, o mip.Observer, p [][]float64) float64 {
	n, nf, nv := len(prior), len(p[0]), len(o.Channel[0])
	loss := func(x, a int) float64 {
		if o.Loss != nil {
			return o.Loss[x][a]
		}
		if x == a {
			return 0
		}
		return 1
	}
	na := n
	if o.Loss != nil {
		na = len(o.Loss[0])
	}
	cells := nf * nv
	rule := make([]int, cells)
	best := math.Inf(1)
	for {
		var r float64
		for x := range n {
			for f := range nf {
				for v := range nv {
					r += prior[x] * p[x][f] * o.Channel[x][v] * loss(x, rule[f*nv+v])
				}
			}
		}
		best = min(best, r)
		i := 0
		for ; i < cells; i++ {
			rule[i]++
			if rule[i] < na {
				break
			}
			rule[i] = 0
		}
		if i == cells {
			return best
		}
	}
}

func bruteLosses(m mip.Finite, p [][]float64) (float64, []float64) {
	var adv []float64
	for _, a := range m.Adv {
		adv = append(adv, bruteRisk(m.Prior, a, p))
	}
	return bruteRisk(m.Prior, m.Recon, p), adv
}

func randomRows(rng *rand.Rand, n, m int) [][]float64 {
	p := make([][]float64, n)
	for x := range p {
		p[x] = make([]float64, m)
		var s float64
		for f := range p[x] {
			if rng.IntN(4) > 0 { // some exact zeros
				p[x][f] = rng.Float64()
			}
			s += p[x][f]
		}
		if s == 0 {
			p[x][0], s = 1, 1
		}
		for f := range p[x] {
			p[x][f] /= s
		}
	}
	return p
}

func TestChannelBinaryBruteForce(t *testing.T) {
	models := []mip.Binary{mip.PaperBinary(), {P: 0.3, QY: 0.1, QZ: []float64{0.25, 0.4}}, {P: 0.5, QY: 0, QZ: []float64{0.5}}}
	chans := []*Channel{}
	for _, f := range []string{"channel-binary.json", "channel-binary.csv", "channel-pass.json", "channel-fail.json"} {
		c, err := ReadChannel(context.Background(), filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		chans = append(chans, c)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		chans = append(chans, &Channel{Name: "random", P: randomRows(rng, 2, 1+rng.IntN(4))})
	}
	for _, m := range models {
		for _, c := range chans {
			got, err := c.BinaryLosses(m)
			if err != nil {
				t.Fatal(err)
			}
			rec, adv := bruteLosses(m.Finite(), c.P)
			if !near(got.Recon, rec, 1e-12) {
				t.Errorf("%s on %+v: recon %v, brute force %v", c.Name, m, got.Recon, rec)
			}
			for i := range adv {
				if !near(got.Adv[i], adv[i], 1e-12) {
					t.Errorf("%s on %+v: adv %d %v, brute force %v", c.Name, m, i, got.Adv[i], adv[i])
				}
			}
			if err := got.Validate(); err != nil {
				t.Error(err)
			}
		}
	}
}

func TestChannelTwoOutputsIsAppendixB(t *testing.T) {
	m := mip.PaperBinary()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		s := mip.Privatizer{S0: rng.Float64(), S1: rng.Float64()}
		c := &Channel{Name: "t", P: s.Mechanism()}
		got, err := c.BinaryLosses(m)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got.Recon, m.ReconLoss(s), 1e-12) || !near(got.MinAdv, m.AdvLosses(s)[0], 1e-12) {
			t.Errorf("%+v: %+v, MAPLoss %v %v", s, got, m.ReconLoss(s), m.AdvLosses(s))
		}
	}
}

func TestChannelFiniteBruteForce(t *testing.T) {
	c, err := ReadChannel(context.Background(), filepath.Join("testdata", "channel-finite.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := mip.Finite{
		Prior: []float64{0.5, 0.3, 0.2},
		Recon: mip.Observer{Channel: [][]float64{{0.8, 0.1, 0.1}, {0.1, 0.8, 0.1}, {0.1, 0.1, 0.8}}},
		Adv: []mip.Observer{
			{Channel: [][]float64{{0.5, 0.5}, {0.4, 0.6}, {0.3, 0.7}}},
			{Channel: [][]float64{{0.6, 0.4}, {0.5, 0.5}, {0.2, 0.8}}, Loss: [][]float64{{0, 1, 2}, {1, 0, 1}, {2, 1, 0}}},
		},
	}
	got, err := c.FiniteLosses(m)
	if err != nil {
		t.Fatal(err)
	}
	rec, adv := bruteLosses(m, c.P)
	if !near(got.Recon, rec, 1e-12) || !near(got.Adv[0], adv[0], 1e-12) || !near(got.Adv[1], adv[1], 1e-12) {
		t.Errorf("got %+v, brute force %v %v", got, rec, adv)
	}
	if err := c.CheckRows(2); err == nil || !strings.Contains(err.Error(), "3 rows") {
		t.Errorf("CheckRows(2) = %v", err)
	}
	if _, err := c.BinaryLosses(mip.PaperBinary()); err == nil || !strings.Contains(err.Error(), "channel-finite.json") {
		t.Errorf("3-row channel on the binary model: %v", err)
	}
}

func TestChannelRowSumTolerance(t *testing.T) {
	// A float32 softmax row: accepted and renormalized.
	ok := &Channel{Name: "f32", P: [][]float64{{0.3000000119, 0.6999999881 + 5e-7}, {1, 0}}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	n := ok.Normalized()
	if s := n[0][0] + n[0][1]; math.Abs(s-1) > 1e-15 {
		t.Errorf("normalized row sums to %v", s)
	}
	bad := &Channel{Name: "off", P: [][]float64{{0.3, 0.7 + 2e-6}, {1, 0}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "row 0 sums to") {
		t.Errorf("row off by 2e-6: %v", err)
	}
}

func TestChannelParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		csv            bool
	}{
		{"empty.json", ``, "empty file", false},
		{"nofield.json", `{}`, `"channel" is missing`, false},
		{"unknown.json", `{"chanel": [[1]]}`, "unknown field", false},
		{"norows.json", `{"channel": []}`, "no rows", false},
		{"ragged.json", `{"channel": [[0.5, 0.5], [1]]}`, "row 1 has 1 entries", false},
		{"neg.json", `{"channel": [[1.5, -0.5], [0, 1]]}`, "entry [0][1] = -0.5", false},
		{"sum.json", `{"channel": [[0.5, 0.4], [0, 1]]}`, "row 0 sums to 0.9", false},
		{"nan.json", `{"channel": [[NaN, 1]]}`, "NaN and Infinity are not JSON", false},
		{"string.json", `{"channel": [["a"]]}`, "cannot use JSON string", false},
		{"trailing.json", `{"channel": [[1]]} x`, "unexpected data", false},
		{"text.csv", "p0,p1\n0.5,0.5\n", `"p0" is not a number`, true},
		{"ragged.csv", "0.5,0.5\n1\n", "row 1 has 1 entries", true},
		{"sum.csv", "0.5,0.6\n", "row 0 sums to", true},
		{"empty.csv", "# nothing\n", "no rows", true},
		{"quote.csv", "\"0.5,0.5\n", "malformed CSV", true},
		{"inf.csv", "Inf,0\n", `"Inf": NaN and infinities are not probabilities`, true},
		{"hex.csv", "0x1p-1,0.5\n", `"0x1p-1" is not a number`, true},
	} {
		var err error
		if tc.csv {
			_, err = ParseChannelCSV(strings.NewReader(tc.in), tc.name)
		} else {
			_, err = ParseChannelJSON(strings.NewReader(tc.in), tc.name)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) || !errors.Is(err, ErrInput) {
			t.Errorf("%s: error %v; want it to name the file, contain %q and wrap ErrInput", tc.name, err, tc.want)
		}
	}
	if _, err := ReadChannel(context.Background(), filepath.Join("testdata", "missing.json")); err == nil || errors.Is(err, ErrInput) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestChannelCSVEqualsJSON(t *testing.T) {
	a, err := ReadChannel(context.Background(), filepath.Join("testdata", "channel-binary.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadChannel(context.Background(), filepath.Join("testdata", "channel-binary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for x := range a.P {
		for f := range a.P[x] {
			if a.P[x][f] != b.P[x][f] {
				t.Errorf("[%d][%d]: JSON %v, CSV %v", x, f, a.P[x][f], b.P[x][f])
			}
		}
	}
}

func FuzzParseChannelJSON(f *testing.F) {
	for _, s := range []string{`{"channel": [[0.5, 0.5], [0, 1]]}`, `{"channel": [[1]]}`, `{"channel": [[-1, 2]]}`, `{}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseChannelJSON(bytes.NewReader(data), "fuzz.json")
		if err == nil {
			if err := c.Validate(); err != nil {
				t.Fatalf("accepted an invalid channel: %v", err)
			}
		} else if !errors.Is(err, ErrInput) {
			t.Fatalf("error does not wrap ErrInput: %v", err)
		}
	})
}

func FuzzParseChannelCSV(f *testing.F) {
	for _, s := range []string{"0.5,0.5\n0,1\n", "# c\n1\n", "1e400,0\n", "\"", "0.5;0.5\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseChannelCSV(bytes.NewReader(data), "fuzz.csv")
		if err == nil {
			if err := c.Validate(); err != nil {
				t.Fatalf("accepted an invalid channel: %v", err)
			}
			if _, err := c.BinaryLosses(mip.PaperBinary()); err != nil && c.Inputs() == 2 {
				t.Fatalf("valid 2-row channel refused by the binary model: %v", err)
			}
		} else if !errors.Is(err, ErrInput) {
			t.Fatalf("error does not wrap ErrInput: %v", err)
		}
	})
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format Format
	}{
		{"channel-binary.json", FormatChannelJSON}, {"channel-binary.csv", FormatChannelCSV},
		{"relu2-gauss.json", FormatNetworkJSON}, {"relu2-gauss.onnx", FormatONNX},
		{"kernel-gauss.json", FormatKernelJSON},
	} {
		f, err := Read(context.Background(), filepath.Join("testdata", tc.name))
		if err != nil {
			t.Fatal(err)
		}
		network, kernel := tc.format.IsNetwork(), tc.format == FormatKernelJSON
		if f.Format != tc.format || (f.Network != nil) != network || (f.Kernel != nil) != kernel || (f.Channel != nil) != (!network && !kernel) {
			t.Errorf("%s: %+v", tc.name, f)
		}
		var back Format
		if b, err := f.Format.MarshalText(); err != nil || back.UnmarshalText(b) != nil || back != tc.format {
			t.Errorf("%s: format %v does not round-trip its text %s (%v)", tc.name, f.Format, b, err)
		}
	}
	var bad Format
	if err := bad.UnmarshalText([]byte("pickle")); !errors.Is(err, ErrFormat) {
		t.Errorf("format pickle: %v", err)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, in, want string }{
		{"neither.json", `{"weights": []}`, "neither a channel"},
		{"array.json", `[[0.5, 0.5]]`, "neither a channel"},
		{"badnet.json", `{"inputs": ["x"], "layers": []}`, `inputs ["x"]`},
		{"badchan.json", `{"channel": [[2, -1]]}`, "entry [0][1] = -1"},
		{"badkernel.json", `{"kernel": {"edges": [0], "prob": [[1], [1]], "reveal": 1}}`, `"reveal" = 1`},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(context.Background(), p)
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: %v; want an ErrInput naming the file and containing %q", tc.name, err, tc.want)
		}
	}
}

// Attack: a row 1e-6 short of 1 was accepted and renormalized with a stated
// error of 0, while the channel deployed from the file may put the missing
// mass on an output that reveals X. Bound covers every such channel.
func TestChannelBoundCoversMissingMass(t *testing.T) {
	const eps = 0.9e-6 // within RowSumTol: accepted
	file := &Channel{Name: "short.json", P: [][]float64{{0.5, 0.5 - eps}, {0.5 - eps, 0.5}}}
	if err := file.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, m := range []mip.Finite{mip.PaperBinary().Finite(),
		{Prior: []float64{0.5, 0.5}, Recon: mip.Observer{Channel: [][]float64{{1}, {1}}, Loss: [][]float64{{0, 3}, {3, 0}}},
			Adv: []mip.Observer{{Channel: [][]float64{{1}, {1}}, Loss: [][]float64{{0, 3}, {3, 0}}}}}} {
		got, err := file.FiniteLosses(m)
		if err != nil {
			t.Fatal(err)
		}
		bound := file.Bound(m)
		// Deployed: the missing mass of row x goes to output 2 + x, which
		// reveals X.
		deployed := &Channel{Name: "deployed", P: [][]float64{{0.5, 0.5 - eps, eps, 0}, {0.5 - eps, 0.5, 0, eps}}}
		real, err := deployed.FiniteLosses(m)
		if err != nil {
			t.Fatal(err)
		}
		hidden := got.MinAdv - real.MinAdv
		if hidden <= 0 || hidden > bound || math.Abs(got.Recon-real.Recon) > bound {
			t.Errorf("hidden leakage %.3g, recon moved %.3g: want 0 < both ≤ the stated error %.3g", hidden, math.Abs(got.Recon-real.Recon), bound)
		}
		t.Logf("hidden leakage %.3g, stated error %.3g", hidden, bound)
	}
	exact := &Channel{Name: "exact.json", P: [][]float64{{0.5, 0.5}, {0.25, 0.75}}}
	if b := exact.Bound(mip.PaperBinary().Finite()); b != 0 {
		t.Errorf("rows that sum to 1 exactly: stated error %g, want 0", b)
	}
}
