package bayes

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/network"
)

// Tests of the certificate's defences against the red-team attacks of
// redteam_test.go, one per principle: the genie and the garbling on
// discrete values, collapsed faces, panels at every cut, and the
// conservation check.

// testObserverLoss is observerLoss from the first quadratures of an
// unknown loss, within the whole cap.
func (s *gaussSetup) testObserverLoss(v float64) (LossBound, error) {
	q, err := s.firstQuad(v, 0)
	if err != nil {
		return LossBound{}, err
	}
	return s.observerLoss(v, q, s.q.MaxWork)
}

// testSetup is CertifyGauss's shared setup for privatizer k on model m,
// for calling observerLoss (testObserverLoss) whatever the stated error.
func testSetup(t *testing.T, m *gauss.Model, k Privatizer) *gaussSetup {
	t.Helper()
	q := GaussQuad{}.withDefaults()
	mu, vx := m.Mean()[m.PrivateIndex()], m.VarX()
	sx := math.Sqrt(vx)
	a := q.BoxSD * sx
	box := network.Box{X0: mu - a, X1: mu + a, R0: -q.RMax, R1: q.RMax}
	faces, err := k.Faces(box, q.MaxFaces)
	if err != nil {
		t.Fatal(err)
	}
	s := &gaussSetup{q: q, mu: mu, vx: vx, sx: sx, a: a, box: box}
	if err := s.addFaces(faces); err != nil {
		t.Fatal(err)
	}
	return s
}

// stairCells are the x-cells of stairLayers' flat parts (F reveals X on the
// ramps).
func stairCells() [][2]float64 {
	const eps = 1e-3
	cells := [][2]float64{{math.Inf(-1), -12}}
	for i := range 64 {
		t := -12 + 0.5*float64(i)
		cells = append(cells, [2]float64{t + eps, t + 0.5})
	}
	return append(cells, [2]float64{20 + eps, math.Inf(1)})
}

// The genie keeps bitwise-distinct atom values apart (a lower bound), the
// garbling merges near-equal ones (an upper bound): on the near-equal
// stair (levels 5e-7 apart at 1e6) the interval is wide and holds the true
// loss for every observer; on a stair with well-separated levels nothing
// is merged and the interval is narrow around it.
func TestGaussGenieAndGarblingOnAtoms(t *testing.T) {
	m := gauss.Paper()
	mu, vx := m.Mean()[m.PrivateIndex()], m.VarX()
	vs := append([]float64{m.VarRecon()}, m.VarAdv()...)
	for _, tc := range []struct {
		off, delta float64
		merged     bool
	}{{1e6, 5e-7, true}, {0, 0.5, false}} {
		s := testSetup(t, m, layersPrivatizer(stairLayers(tc.off, tc.delta)))
		for i, v := range vs {
			b, err := s.testObserverLoss(v)
			if err != nil {
				t.Fatal(err)
			}
			truth := cellLoss(mu, vx, v, stairCells())
			t.Logf("levels %g apart: loss %d in [%.6g, %.6g] (merge %.3g), true %.6g", tc.delta, i, b.Lo, b.Hi, b.Merge, truth)
			if b.Lo > truth*(1+1e-3) || b.Hi < truth*(1-1e-3) {
				t.Errorf("levels %g apart, loss %d: [%.6g, %.6g] excludes the true %.6g", tc.delta, i, b.Lo, b.Hi, truth)
			}
			if tc.merged && !(b.Merge > 100*truth) {
				t.Errorf("levels %g apart, loss %d: merge %.3g, want the garbling's prior-variance loss", tc.delta, i, b.Merge)
			}
			if !tc.merged && (b.Merge != 0 || b.Hi-b.Lo > 5e-3*truth) {
				t.Errorf("levels %g apart, loss %d: merge %.3g, width %.3g: want a narrow interval", tc.delta, i, b.Merge, b.Hi-b.Lo)
			}
		}
	}
}

// A collapsed face (F = 4 + cr·R on x > 4, cr at rounding level) is never
// dropped: the genie counts it as revealed (adversaries' lower ends at or
// below their true losses), the garbling as an atom (the reconstructor's
// upper end at or above its true loss 1.685); CertifyGauss refuses. With
// cr = 0 the face is an atom, and the same interval is narrow.
func TestGaussCollapsedFaceKept(t *testing.T) {
	m := gauss.Paper()
	mu, vx := m.Mean()[m.PrivateIndex()], m.VarX()
	vs := append([]float64{m.VarRecon()}, m.VarAdv()...)
	for _, cr := range []float64{1e-300, 1e-17, 1e-13, 0} {
		k := layersPrivatizer(collapseLayers(cr))
		s := testSetup(t, m, k)
		if len(s.disc) != 1 {
			t.Errorf("cr %g: %d discrete faces, want the face x > 4", cr, len(s.disc))
		}
		for i, v := range vs {
			b, err := s.testObserverLoss(v)
			if err != nil {
				t.Fatal(err)
			}
			truth := cellLoss(mu, vx, v, [][2]float64{{4, math.Inf(1)}})
			if b.Lo > truth*(1+1e-3) || b.Hi < truth*(1-1e-3) {
				t.Errorf("cr %g, loss %d: [%.6g, %.6g] excludes the true %.6g", cr, i, b.Lo, b.Hi, truth)
			}
		}
		// cr = 0 is an honest atom (F = min(X, 4)): certified.
		if _, err := CertifyGauss(m, k, GaussQuad{}); (cr == 0) != (err == nil) || (cr != 0 && !errors.Is(err, ErrCannotCertify)) {
			t.Errorf("cr %g: error %v", cr, err)
		}
	}
	// F = 1e-20·X reveals X: the genie's lower ends must be 0.
	c, err := CertifyGauss(m, linear(1e-20, 0, 0), GaussQuad{})
	if err == nil {
		for i, b := range c.Bounds {
			if b.Lo > 1e-9 {
				t.Errorf("F = 1e-20·X, loss %d: lower end %g, true 0", i, b.Lo)
			}
		}
	} else if !errors.Is(err, ErrCannotCertify) {
		t.Fatal(err)
	}
}

// No f panel has a cut of F strictly inside it, and the panels cover the
// range of F wherever a face is.
func TestGaussPanelsEndAtCuts(t *testing.T) {
	m := gauss.Paper()
	k, err := fromMLP(randomNet(3))
	if err != nil {
		t.Fatal(err)
	}
	s := testSetup(t, m, k)
	v := m.VarRecon()
	nodes, _, _ := mNodesTrapezoid(s.mu, math.Sqrt(s.vx-v), mSteps(math.Sqrt(s.vx-v), v), mSpan)
	panels, _, err := s.initialPanels(v, nodes, kCutMax)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range panels {
		i, _ := slices.BinarySearch(s.cuts, math.Nextafter(p.a, math.Inf(1)))
		if i < len(s.cuts) && s.cuts[i] < p.b {
			t.Fatalf("panel [%v, %v] has the cut %v inside", p.a, p.b, s.cuts[i])
		}
	}
	for _, c := range s.cont {
		mid := 0.5 * (c.flo + c.fhi)
		i := slices.IndexFunc(panels, func(p fPanel) bool { return p.a <= mid && mid <= p.b })
		if i < 0 {
			t.Fatalf("no panel covers %v, inside the range [%v, %v] of a face", mid, c.flo, c.fhi)
		}
	}
	t.Logf("%d faces, %d cuts, %d panels", len(s.cont), len(s.cuts), len(panels))
}

// On an honest network the conservation defect is at rounding level; with
// faces removed (mass missing from the f integral, as a panel layout that
// misses part of F's density would) it is large, and the stated interval
// still holds the complete network's loss.
func TestGaussConservationFlagsMissingMass(t *testing.T) {
	m := gauss.Paper()
	k, err := fromMLP(randomNet(2))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{m.VarRecon(), m.VarAdv()[1]} {
		s := testSetup(t, m, k)
		full, err := s.testObserverLoss(v)
		if err != nil {
			t.Fatal(err)
		}
		if full.Conservation > 1e-7*full.Value {
			t.Errorf("v %g: conservation defect %.3g of an honest network, loss %.6g", v, full.Conservation, full.Value)
		}
		// Drop every fourth face.
		var keep []cface
		for i, c := range s.cont {
			if i%4 != 0 {
				keep = append(keep, c)
			}
		}
		s.cont = keep
		s.layCuts()
		broken, err := s.testObserverLoss(v)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("v %g: full %.6g (defect %.2g); faces dropped: [%.6g, %.6g] (defect %.3g)", v, full.Value, full.Conservation, broken.Lo, broken.Hi, broken.Conservation)
		if broken.Lo > full.Value || broken.Hi < full.Value {
			t.Errorf("v %g: with faces dropped [%.6g, %.6g] excludes the network's %.6g", v, broken.Lo, broken.Hi, full.Value)
		}
	}
}

// Combs laid out for every observer's panels, both ways (nodes on the
// sparse or on the dense parts of F's density): F is a strictly
// increasing function of X + R where X has mass, so each true loss is
// v/(1 + v), and every certified interval holds it (or the certificate
// refuses).
func TestGaussCombsEveryObserver(t *testing.T) {
	m := gauss.Paper()
	vs := append([]float64{m.VarRecon()}, m.VarAdv()...)
	for it, tuned := range vs {
		for _, dense := range []bool{false, true} {
			if (it == 0 && !dense) || (it == 2 && dense) {
				continue // the red team's two
			}
			c, err := CertifyGauss(m, layersPrivatizer(combLayersMode(tuned, dense)), GaussQuad{})
			if errors.Is(err, ErrCannotCertify) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range c.Bounds {
				truth := vs[i] / (1 + vs[i])
				if b.Lo > truth+1e-6 || b.Hi < truth-1e-6 {
					t.Errorf("comb for v = %g (dense %v), loss %d: [%.6g, %.6g] excludes the true %.6g", tuned, dense, i, b.Lo, b.Hi, truth)
				}
			}
		}
	}
}
