package privatizer_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/privatizer"
)

// torchRecord is what scripts/torch-exports.py recorded of PyTorch's own
// float32 forward pass: per x, the mean over R ~ N(0, 1) of k32 − k64 (2^20
// strata) and the largest |k32 − k64| met.
type torchRecord struct {
	X []struct {
		X    int     `json:"x"`
		Mean float64 `json:"mean_deviation"`
		Max  float64 `json:"max_deviation"`
	} `json:"x"`
}

// The certified interval holds the losses of the function PyTorch runs:
// ordinary float32 exports (torch.onnx.export at its defaults, opset 17,
// dynamic axes) of a fresh 2→16→16→1 and a trained 2→8→1 ReLU/sigmoid
// network. E_R[k32(x, R)] is computed independently of mmds's walk and
// bounds: Gauss–Legendre quadrature of the float64 function on the panels
// between its kinks, plus PyTorch's recorded mean of k32 − k64. The channel
// (1 − p0, p1) it gives has Appendix B losses that must lie in the
// certificate's intervals; the ratio of the rounding bound to the observed
// deviation is logged (docs/certify.md records it).
func TestTorchFloat32WithinInterval(t *testing.T) {
	m := mip.PaperBinary()
	bm := model.NewBinary(m)
	for _, name := range []string{"torch32-fresh0", "torch32-trained0"} {
		n := readNet(t, name+".onnx")
		b, err := os.ReadFile(filepath.Join("testdata", name+".torch.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rec torchRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		r, err := privatizer.NetworkBinaryLosses(t.Context(), n, m, privatizer.DefaultTol)
		if err != nil {
			t.Fatal(err)
		}
		var p32 [2]float64
		for x := range 2 {
			p64 := legendreExpect(func(r float64) float64 { return n.Eval(float64(x), r) }, n.Kinks(float64(x), nil))
			p32[x] = p64 + rec.X[x].Mean
			row := r.Rows[x]
			// The strata's mean is an estimate: 1e-9 for its error.
			if d := math.Abs(p32[x] - row.Mean); d > row.Bound+row.Rounding+1e-9 {
				t.Errorf("%s, x = %d: PyTorch's E_R[k32] = %.12g, certified %.12g ± %.3g (rounding %.3g)", name, x, p32[x], row.Mean, row.Bound, row.Rounding)
			}
			t.Logf("%s, x = %d: rounding bound %.3g; PyTorch's mean deviation %.3g (ratio %.3g), largest %.3g (ratio %.3g)",
				name, x, row.Rounding, rec.X[x].Mean, row.Rounding/math.Abs(rec.X[x].Mean), rec.X[x].Max, row.RoundingSup/rec.X[x].Max)
		}
		s := mip.Privatizer{S0: 1 - p32[0], S1: p32[1]}
		recon, adv := m.ReconLoss(s), m.AdvLosses(s)[0]
		c, err := bm.CertifyFile(t.Context(), privatizer.File{Network: n}, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		in := func(v float64, iv [2]float64) bool { return v >= iv[0]-1e-9 && v <= iv[1]+1e-9 }
		if !in(recon, c.Interval.Recon) || !in(adv, c.Interval.Adv[0]) {
			t.Errorf("%s: PyTorch's losses (%.12g, %.12g) outside the certified intervals %v, %v", name, recon, adv, c.Interval.Recon, c.Interval.Adv[0])
		}
		if w := c.Rounding; !(w > 0 && w <= 1e-5) {
			t.Errorf("%s: the rounding widens the intervals by %.3g, want in (0, 1e-5] of the loss scale", name, w)
		}
	}
}

// legendreExpect is E_R[f(R)], R ~ N(0, 1), by 64-point Gauss–Legendre on
// each panel of [−12, 12] cut at the kinks and at the integers.
func legendreExpect(f func(r float64) float64, kinks []float64) float64 {
	cuts := []float64{-12, 12}
	for i := -11; i <= 11; i++ {
		cuts = append(cuts, float64(i))
	}
	for _, k := range kinks {
		if k > -12 && k < 12 {
			cuts = append(cuts, k)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	g := func(r float64) float64 { return f(r) * math.Exp(-r*r/2) / math.Sqrt(2*math.Pi) }
	var s float64
	for i := 1; i < len(cuts); i++ {
		s += quad.Fixed(g, cuts[i-1], cuts[i], 64, quad.Legendre{}, 0)
	}
	return s
}
