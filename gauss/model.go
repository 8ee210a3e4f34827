package gauss

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Model is a validated jointly Gaussian model: named variables with means and
// a PSD covariance, the private variable X, the reconstructor's side
// variables Y (a list, so Y = (Z1, Z2) is expressible) and K ≥ 1 adversaries
// with side variables Z_i. The conditional variances are computed once in New.
// A Model is immutable and safe for concurrent use.
type Model struct {
	names      []string
	index      map[string]int
	mean       []float64
	cov        *mat.SymDense
	private    int
	recon      []int
	advs       [][]int
	coalitions [][]int
	minEig     float64   // smallest eigenvalue of the correlation matrix
	vRecon     float64   // V_Y = Var[X|Y]
	vAdv       []float64 // V_i = Var[X|Z_i]
	vCoal      []float64 // Var[X|S] for each coalition S
	config     Config    // the validated description, as given (deep copy)
	// env and known compute the Envelope and the Committed mechanisms on
	// first use (sync.OnceValue).
	env   func() *Envelope
	known func() []Known
}

// MaxAdversaries bounds K (and the coalitions reported), as the binary and
// finite models bound theirs (mip.MaxAdversaries): a list pasted many times
// over cannot ask for hours of work on one threshold.
const MaxAdversaries = 64

// New validates c and builds the model. Every error wraps ErrConfig and names
// the offending entry, its value and the valid range.
func New(c Config) (*Model, error) {
	idx, err := checkNames(c.Names)
	if err != nil {
		return nil, err
	}
	m := &Model{names: append([]string(nil), c.Names...), index: idx}
	if m.mean, err = checkMean(c.Mean, c.Names); err != nil {
		return nil, err
	}
	if m.cov, err = buildCov(c); err != nil {
		return nil, err
	}
	if m.minEig, err = checkPSD(m.cov); err != nil {
		return nil, err
	}
	if err := m.resolveRoles(c); err != nil {
		return nil, err
	}
	m.computeVariances()
	m.config = c.clone()
	m.env = sync.OnceValue(m.buildEnvelope)
	m.known = sync.OnceValue(m.loadCommitted)
	return m, nil
}

// Config returns the description the model was built from, as given (a
// copy): encoded as JSON it is a config file that ParseConfig and New turn
// back into the same model.
func (m *Model) Config() Config { return m.config.clone() }

// Paper returns the model of the paper's Section V-A (the embedded default).
func Paper() *Model {
	m, err := New(PaperConfig())
	if err != nil {
		panic("gauss: embedded paper.json is invalid: " + err.Error()) // a build defect, caught by tests
	}
	return m
}

func (m *Model) resolveRoles(c Config) error {
	p, ok := m.index[c.Private]
	if !ok {
		return configErr("private = %q: unknown variable (known: %v)", c.Private, m.names)
	}
	m.private = p
	if c.Reconstructor == nil {
		return configErr(`"reconstructor" is missing: list its side variables, e.g. ["Y"] ([] for none)`)
	}
	var err error
	if m.recon, err = m.resolveSide("reconstructor", c.Reconstructor); err != nil {
		return err
	}
	if len(c.Adversaries) == 0 {
		return configErr(`"adversaries" is missing or empty: list K ≥ 1 adversaries, e.g. [["Z1"],["Z2"]]`)
	}
	if len(c.Adversaries) > MaxAdversaries {
		return configErr(`"adversaries" has %d entries: at most %d`, len(c.Adversaries), MaxAdversaries)
	}
	if len(c.Coalitions) > MaxAdversaries {
		return configErr(`"coalitions" has %d entries: at most %d`, len(c.Coalitions), MaxAdversaries)
	}
	for i, a := range c.Adversaries {
		s, err := m.resolveSide(fmt.Sprintf("adversaries[%d]", i), a)
		if err != nil {
			return err
		}
		m.advs = append(m.advs, s)
	}
	for i, a := range c.Coalitions {
		s, err := m.resolveSide(fmt.Sprintf("coalitions[%d]", i), a)
		if err != nil {
			return err
		}
		m.coalitions = append(m.coalitions, s)
	}
	return nil
}

// computeVariances computes V_Y, V_i and the coalitions' variances. An
// adversary whose V_i differs from V_Y by no more than the two rounding
// bounds (schurErr) gets V_i = V_Y exactly, so Q_i = 0: float64 cannot tell
// the two apart (side information equal to the reconstructor's, listed in
// another order or duplicated, computes Q_i ≈ ±1e-16), and Q_i = 0 is the
// case where Proposition 1 is exact (UpperBound).
func (m *Model) computeVariances() {
	y := regress(m.cov, m.private, m.recon)
	m.vRecon = y.v
	m.vAdv = make([]float64, len(m.advs))
	for i, s := range m.advs {
		a := regress(m.cov, m.private, s)
		m.vAdv[i] = a.v
		if math.Abs(a.v-y.v) <= a.err+y.err {
			m.vAdv[i] = y.v
		}
	}
	m.vCoal = make([]float64, len(m.coalitions))
	for i, s := range m.coalitions {
		m.vCoal[i] = regress(m.cov, m.private, s).v
	}
}

// Names returns the variable names in config order.
func (m *Model) Names() []string { return append([]string(nil), m.names...) }

// Mean returns the mean vector.
func (m *Model) Mean() []float64 { return append([]float64(nil), m.mean...) }

// Private returns the name of the private variable X.
func (m *Model) Private() string { return m.names[m.private] }

// PrivateIndex returns the index of X among Names.
func (m *Model) PrivateIndex() int { return m.private }

// Reconstructor returns the names of the reconstructor's side variables.
func (m *Model) Reconstructor() []string { return pick(m.names, m.recon) }

// K returns the number of adversaries.
func (m *Model) K() int { return len(m.advs) }

// Adversary returns the names of adversary i's side variables (i in [0, K)).
func (m *Model) Adversary(i int) []string { return pick(m.names, m.advs[i]) }

// Coalitions returns the names of the configured coalitions.
func (m *Model) Coalitions() [][]string {
	out := make([][]string, len(m.coalitions))
	for i, s := range m.coalitions {
		out[i] = pick(m.names, s)
	}
	return out
}

// VarX returns σ_X² = Var[X].
func (m *Model) VarX() float64 { return m.cov.At(m.private, m.private) }

// VarRecon returns V_Y = Var[X|Y], the paper's D_max (Section V-A).
func (m *Model) VarRecon() float64 { return m.vRecon }

// VarAdv returns V_i = Var[X|Z_i] for each adversary: the losses at which
// the adversaries saturate for D ≥ V_Y (Section V-A).
func (m *Model) VarAdv() []float64 { return append([]float64(nil), m.vAdv...) }

// VarCoalitions returns Var[X|S] for each configured coalition S.
func (m *Model) VarCoalitions() []float64 { return append([]float64(nil), m.vCoal...) }

// MinEigenvalue returns the smallest eigenvalue of the correlation matrix
// (> 0: positive definite; ≈ 0: singular but valid).
func (m *Model) MinEigenvalue() float64 { return m.minEig }

// pick returns all[j] for each j in idx.
func pick[T any](all []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = all[j]
	}
	return out
}
