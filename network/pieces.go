package network

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// RWalk is the noise range over which activation regions are walked: pieces
// of k(x, ·) beyond ±RWalk are continued affinely. P(|R| > 16) ≈ 1.3e-57;
// the error this makes is bounded in Expectation.Bound.
const RWalk = 16

// MaxPieces bounds the number of linear pieces of k(x, ·) on [−RWalk, RWalk]
// that Pieces and Expect will walk for one x.
const MaxPieces = 1 << 20

// Piece is a maximal interval (A, B) of the noise r on which the network's
// last piecewise-linear layer is affine in r. For a piecewise-linear network
// that is the output: k(x, r) = Alpha + Beta·r on (A, B).
type Piece struct {
	A, B        float64
	Alpha, Beta float64
}

// prefixLen is the number of leading layers whose activation is identity or
// ReLU: on each activation region of those layers their output is affine
// in r. The rest, if any, starts with a sigmoid, tanh or softmax layer.
func (m *Network) prefixLen() int {
	if l := slices.IndexFunc(m.Layers, func(ly Layer) bool { return ly.Act != Identity && ly.Act != ReLU }); l >= 0 {
		return l
	}
	return len(m.Layers)
}

// walker walks the activation regions of the piecewise-linear prefix of a
// network along r for a fixed x. On a region the ReLU pattern is fixed, so
// every pre-activation is affine in r, z_j(r) = z_j(r0) + z'_j·(r − r0), and
// the region ends at the first r > r0 where one changes sign.
//
// The walk computes in float64, so it also carries, per unit, bounds ev and
// ed such that on the region |walk_j(r) − exact_j(r)| ≤ ev_j + ed_j·(r − r0)
// (the forward error bound of §Precision with u = 2⁻⁵³ and exact inputs):
// a ReLU unit whose computed z is within its bound of 0 has a sign the walk
// cannot know; it takes the side of its slope (so the crossing is not lost
// at r0 itself) and is charged as flipped, |z| + bound.
type walker struct {
	m      *Network
	np     int
	v, d   [][]float64 // per prefix layer: output value and r-derivative at r0
	z, dz  [][]float64 // per prefix layer: pre-activation value and derivative
	ev, ed [][]float64 // per prefix layer: bounds on the output's value and slope errors
	in, di []float64   // the network input and its r-derivative
	e0     []float64   // the inputs' errors: none
}

func newWalker(m *Network) *walker {
	n := len(m.Inputs)
	w := &walker{m: m, np: m.prefixLen(), in: make([]float64, n), di: make([]float64, n), e0: make([]float64, n)}
	for _, ly := range m.Layers[:w.np] {
		n := len(ly.W)
		w.v, w.d = append(w.v, make([]float64, n)), append(w.d, make([]float64, n))
		w.z, w.dz = append(w.z, make([]float64, n)), append(w.dz, make([]float64, n))
		w.ev, w.ed = append(w.ev, make([]float64, n)), append(w.ed, make([]float64, n))
	}
	return w
}

// eval computes the prefix at r and its derivative in r on the region that
// starts at r: a ReLU unit is active when z > 0, or z = 0 and z' > 0 (the
// right limit), so the derivative is that of the region to the right.
func (w *walker) eval(x, r float64) {
	w.m.inputs(x, r, w.in)
	w.m.noiseColumn(w.di)
	a, da, ea, eda := w.in, w.di, w.e0, w.e0
	for l, ly := range w.m.Layers[:w.np] {
		z, dz, v, d, ev, ed := w.z[l], w.dz[l], w.v[l], w.d[l], w.ev[l], w.ed[l]
		g := gamma(len(a)+1, u64)
		for j, row := range ly.W {
			s, ds := ly.B[j], 0.0
			mag, prop, dmag, dprop := math.Abs(ly.B[j]), 0.0, 0.0, 0.0
			for i, wt := range row {
				s += wt * a[i]
				ds += wt * da[i]
				aw := math.Abs(wt)
				mag += aw * (math.Abs(a[i]) + ea[i])
				prop += aw * ea[i]
				dmag += aw * (math.Abs(da[i]) + eda[i])
				dprop += aw * eda[i]
			}
			// The bounds are computed in float64 too: 1 + 2⁻⁴⁰ covers that.
			es := (g*mag + prop) * (1 + 0x1p-40)
			eds := (g*dmag + dprop) * (1 + 0x1p-40)
			if ly.Act == ReLU {
				// The region ends at the rounded crossing r0 − z/z' (or
				// the next float): the pattern may be off by that much.
				es += 4 * u64 * (math.Abs(s) + math.Abs(ds)*RWalk)
				if math.Abs(s) <= es {
					// Sign unknown (at a breakpoint the unit that
					// switches is here): taken as 0, its side is that of
					// z', so it is never found crossing again at r0 itself
					// (r0 − z/z' would round to r0); the exact z is
					// within |s| + es of 0 and either side is within that.
					es += math.Abs(s)
					s = 0
				}
			}
			z[j], dz[j], ev[j], ed[j] = s, ds, es, eds
			if ly.Act == ReLU && !(s > 0 || s == 0 && ds > 0) {
				v[j], d[j] = 0, 0
				if s+es+max(ds+eds, 0)*(RWalk-r) <= 0 {
					// Surely off up to RWalk: its output is exactly 0.
					ev[j], ed[j] = 0, 0
				}
			} else {
				v[j], d[j] = s, ds
			}
		}
		a, da, ea, eda = v, d, ev, ed
	}
}

// out returns the prefix output and its derivative at the last eval.
func (w *walker) out() (v, d []float64) {
	if w.np == 0 {
		return w.in, w.di
	}
	return w.v[w.np-1], w.d[w.np-1]
}

// outErr returns the bounds ev, ed of the prefix output at the last eval:
// on the region, |walk(r) − k_prefix(r)| ≤ ev + ed·(r − r0) per unit.
func (w *walker) outErr() (ev, ed []float64) {
	if w.np == 0 {
		return w.e0, w.e0
	}
	return w.ev[w.np-1], w.ed[w.np-1]
}

// next returns the first r > r0 at which a ReLU unit of the prefix changes
// sign on the region that starts at r0, or +Inf.
func (w *walker) next(r0 float64) float64 {
	t := math.Inf(1)
	for l, ly := range w.m.Layers[:w.np] {
		if ly.Act != ReLU {
			continue
		}
		for j, z := range w.z[l] {
			dz := w.dz[l][j]
			active := z > 0 || z == 0 && dz > 0
			if active && dz < 0 || !active && dz > 0 {
				c := r0 - z/dz
				if c <= r0 { // a crossing closer than r0's ulp
					c = math.Nextafter(r0, math.Inf(1))
				}
				t = min(t, c)
			}
		}
	}
	return t
}

// walk calls fn for every activation region (a, b) of the prefix that meets
// [−RWalk, RWalk], clipped to it, with the prefix output v + d·(r − a) on it.
// fn must not keep v or d. It returns ctx's error when ctx is done.
func (w *walker) walk(ctx context.Context, x float64, fn func(a, b float64, v, d []float64) error) error {
	r := float64(-RWalk)
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if n == MaxPieces {
			return fmt.Errorf("%w: network %s: k(%g, ·) has more than %d linear pieces on [−%d, %d]", ErrTooComplex, w.m.Name, x, MaxPieces, RWalk, RWalk)
		}
		w.eval(x, r)
		t := min(w.next(r), RWalk)
		v, d := w.out()
		if err := fn(r, t, v, d); err != nil {
			return err
		}
		if t >= RWalk {
			return nil
		}
		r = t
	}
}

// Pieces returns the linear pieces of k(x, ·) for a piecewise-linear network
// (every activation identity or ReLU), in order: the first starts at −Inf,
// the last ends at +Inf, and the breakpoints are exactly where a ReLU unit
// of some layer switches (on a fixed activation pattern the whole network
// is affine in r). Beyond ±RWalk the outermost pieces are continued.
func (m *Network) Pieces(x float64) ([]Piece, error) {
	if m.Categorical() {
		return nil, m.errorf("categorical (a softmax over %d labels): Pieces needs a network of one output", m.Outputs())
	}
	if !m.PiecewiseLinear() {
		return nil, m.errorf("not piecewise linear (a sigmoid or tanh layer): Pieces needs identity and ReLU activations only")
	}
	var ps []Piece
	err := newWalker(m).walk(context.Background(), x, func(a, b float64, v, d []float64) error {
		ps = append(ps, Piece{A: a, B: b, Alpha: v[0] - d[0]*a, Beta: d[0]})
		return nil
	})
	if err != nil {
		return nil, err
	}
	ps[0].A, ps[len(ps)-1].B = math.Inf(-1), math.Inf(1)
	return ps, nil
}

// Kinks appends to dst the breakpoints of the piecewise-linear part of
// k(x, ·): where a ReLU unit before the first sigmoid or tanh layer
// switches in (−RWalk, RWalk). For a piecewise-linear
// network k(x, ·) is affine between them. It has the signature of
// bayes.Privatizer.Kinks; it returns dst unchanged if the walk fails (more
// than MaxPieces pieces). When layer 0 is the only ReLU layer its units
// switch at r = −(b_j + w_xj·x)/w_rj, appended directly: in any order, a
// kink shared by two units twice.
func (m *Network) Kinks(x float64, dst []float64) []float64 {
	if np := m.prefixLen(); np > 0 && m.Layers[0].Act == ReLU && !slices.ContainsFunc(m.Layers[1:np], func(l Layer) bool { return l.Act == ReLU }) && m.XValues() == 0 {
		ix, ir := 0, 1
		if m.Inputs[0] == "r" {
			ix, ir = 1, 0
		}
		l := m.Layers[0]
		for j, row := range l.W {
			if row[ir] != 0 {
				if r := -(l.B[j] + row[ix]*x) / row[ir]; r > -RWalk && r < RWalk {
					dst = append(dst, r)
				}
			}
		}
		return dst
	}
	n := len(dst)
	err := newWalker(m).walk(context.Background(), x, func(a, b float64, v, d []float64) error {
		if a > -RWalk {
			dst = append(dst, a)
		}
		return nil
	})
	if err != nil {
		return dst[:n]
	}
	return dst
}

// String describes the network's shape, e.g. "2→16 relu→16 relu→1 sigmoid".
func (m *Network) String() string {
	s := fmt.Sprint(len(m.Inputs))
	for _, l := range m.Layers {
		s += fmt.Sprintf("→%d %v", len(l.W), l.Act)
	}
	return s
}

// Affine reports whether every activation is the identity, and then returns
// the network collapsed to k(x, r) = a·x + b·r + c: on the Gaussian model
// that is Appendix A's linear-Gaussian privatizer, whose losses have a
// closed form (gauss.Model.LinearLosses). A one-hot x is not affine.
func (m *Network) Affine() (a, b, c float64, ok bool) {
	if m.XValues() > 0 || slices.ContainsFunc(m.Layers, func(l Layer) bool { return l.Act != Identity }) {
		return 0, 0, 0, false
	}
	// Propagate the affine map (coefficients of x and r, constant) of each
	// unit through the layers.
	ax := m.inputs(1, 0, make([]float64, 2))
	ar := m.inputs(0, 1, make([]float64, 2))
	ac := make([]float64, 2)
	for _, l := range m.Layers {
		nx, nr, nc := make([]float64, len(l.W)), make([]float64, len(l.W)), make([]float64, len(l.W))
		for j, row := range l.W {
			nc[j] = l.B[j]
			for i, w := range row {
				nx[j] += w * ax[i]
				nr[j] += w * ar[i]
				nc[j] += w * ac[i]
			}
		}
		ax, ar, ac = nx, nr, nc
	}
	return ax[0], ar[0], ac[0], true
}
