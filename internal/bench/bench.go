// Package bench runs mmds's solver benchmark (issue #6, item 5): a seeded
// family of finite models (mip.RandomFinite) with n = |Y| = |Z| = m, K
// adversaries and D at fixed fractions of D_max, each solved by every
// formulation of the fixed-alphabet MIP and by the global LP, recording the
// HiGHS status, time, nodes and gap. It can export every model as MPS and
// solve the files with CBC when a cbc binary is available.
package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/mip"
)

// Variant is one formulation of the fixed-alphabet MIP.
type Variant struct {
	Name string
	Opts mip.FixedOptions // Outputs is set to n per instance
}

// Variants are the formulations the issue asks to compare (M = max L, i.e.
// 1 for the 0-1 loss, vs derived M; symmetry breaking on and off), plus the
// convex-hull formulation that mmds uses by default.
func Variants() []Variant {
	return []Variant{
		{"M=1", mip.FixedOptions{NaiveBigM: true, NoSymmetryBreaking: true}},
		{"M=1+sym", mip.FixedOptions{NaiveBigM: true}},
		{"derivedM", mip.FixedOptions{NoSymmetryBreaking: true}},
		{"derivedM+sym", mip.FixedOptions{}},
		{"hull+sym", mip.FixedOptions{Hull: true}},
	}
}

// GlobalName labels the global LP's rows.
const GlobalName = "global LP"

// Spec is a benchmark run.
type Spec struct {
	NMin, NMax int       // n = |Y| = |Z| = m ranges over [NMin, NMax]
	Ks         []int     // numbers of adversaries
	Fractions  []float64 // D = fraction · D_max
	Instances  int       // random models per (n, K)
	Seed       uint64
	TimeLimit  time.Duration // per HiGHS (and CBC) solve
	MaxSubsets int64         // ray-enumeration budget of the global LP
	Variants   []Variant     // default Variants()
	MPSDir     string        // when set, every model is written there as MPS
	CBC        string        // path of a cbc binary; "" to skip
}

// Row is one solve.
type Row struct {
	N, K, Instance int
	Fraction, D    float64
	Solver         string // "HiGHS" or "CBC"
	Variant        string
	Status         string  // solver status, "Optimal" when proven
	Objective      float64 // NaN when none
	Time           time.Duration
	Nodes          int64   // −1 when unknown
	Gap            float64 // relative MIP gap; NaN when unknown
	Rays           int     // global LP: candidate rays
	File           string  // the MPS file, when exported
	Err            string  // a failure other than a limit
}

// Instance returns model i of the family for (n, K): its own PCG stream, so
// any instance can be regenerated alone.
func Instance(seed uint64, n, k, i int) (mip.Finite, error) {
	return mip.RandomFinite(rand.New(rand.NewPCG(seed, uint64(n)<<32|uint64(k)<<16|uint64(i))), n, k)
}

func (s Spec) validate() error {
	switch {
	case s.NMin < 2 || s.NMax < s.NMin || s.NMax > 8:
		return fmt.Errorf("n range %d:%d: need 2 ≤ NMin ≤ NMax ≤ 8", s.NMin, s.NMax)
	case len(s.Ks) == 0:
		return errors.New("K: give at least one number of adversaries")
	case len(s.Fractions) == 0:
		return errors.New("fractions: give at least one fraction of D_max")
	case s.Instances < 1:
		return fmt.Errorf("instances %d: must be ≥ 1", s.Instances)
	}
	for _, k := range s.Ks {
		if k < 1 || k > 8 {
			return fmt.Errorf("K = %d: must be in [1, 8]", k)
		}
	}
	for _, f := range s.Fractions {
		if math.IsNaN(f) || f < 0 || f > 1 {
			return fmt.Errorf("fraction %v: must be in [0, 1]", f)
		}
	}
	return nil
}

// Run solves every instance of s in a fixed order and calls progress (if
// non-nil) after each solve. A solve stopped by the time limit is a row
// with that status, not an error.
func Run(ctx context.Context, s Spec, progress func(Row)) ([]Row, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	if s.Variants == nil {
		s.Variants = Variants()
	}
	so := mip.DefaultSolver()
	so.TimeLimit = s.TimeLimit
	var rows []Row
	emit := func(r Row) {
		rows = append(rows, r)
		if progress != nil {
			progress(r)
		}
	}
	for n := s.NMin; n <= s.NMax; n++ {
		for _, k := range s.Ks {
			for i := 0; i < s.Instances; i++ {
				m, err := Instance(s.Seed, n, k, i)
				if err != nil {
					return rows, err
				}
				g, gerr := m.PrepareGlobal(mip.GlobalOptions{MaxSubsets: s.MaxSubsets})
				if gerr != nil && !errors.Is(gerr, mip.ErrTooLarge) {
					return rows, gerr
				}
				for _, frac := range s.Fractions {
					base := Row{N: n, K: k, Instance: i, Fraction: frac, D: frac * m.DMax(), Solver: "HiGHS"}
					for _, v := range s.Variants {
						if err := ctx.Err(); err != nil {
							return rows, err
						}
						fo := v.Opts
						fo.Outputs = n
						r := base
						r.Variant = v.Name
						r.fill(m.SolveFixed(base.D, fo, so))
						if s.MPSDir != "" {
							r.File = filepath.Join(s.MPSDir, fileName(base, v.Name))
							if err := report.WriteFileAtomic(r.File, func(tmp string) error { return m.WriteFixedModel(base.D, fo, tmp) }); err != nil {
								return rows, err
							}
						}
						emit(r)
					}
					r := base
					r.Variant = GlobalName
					if gerr != nil {
						r.Status, r.Objective, r.Nodes, r.Gap = "too large", math.NaN(), -1, math.NaN()
						r.Err = gerr.Error()
						r.Time = 0
					} else {
						r.Rays = len(g.Rays())
						start := time.Now()
						o, err := g.Solve(base.D, so)
						r.fill(o, err)
						r.Time = g.EnumTime + time.Since(start) // enumeration included
						if s.MPSDir != "" {
							r.File = filepath.Join(s.MPSDir, fileName(base, "global"))
							if err := report.WriteFileAtomic(r.File, func(tmp string) error { return g.WriteLP(base.D, tmp) }); err != nil {
								return rows, err
							}
						}
					}
					emit(r)
				}
			}
		}
	}
	if s.CBC != "" && s.MPSDir != "" {
		for _, r := range slicesClone(rows) {
			if r.File == "" {
				continue
			}
			if err := ctx.Err(); err != nil {
				return rows, err
			}
			c := r
			c.Solver, c.File = "CBC", r.File
			res, err := RunCBC(ctx, s.CBC, r.File, s.TimeLimit)
			c.Status, c.Objective, c.Time, c.Nodes, c.Gap, c.Err = res.Status, res.Objective, res.Time, res.Nodes, math.NaN(), ""
			if err != nil {
				c.Err = err.Error()
			}
			emit(c)
		}
	}
	return rows, nil
}

func slicesClone(rs []Row) []Row { return append([]Row(nil), rs...) }

// fill records a HiGHS result; a limit is a status, other errors are kept.
func (r *Row) fill(o mip.FiniteOptimum, err error) {
	r.Status, r.Time = o.Status, o.SolveTime
	r.Objective, r.Nodes, r.Gap = o.Gamma, o.Nodes, o.MIPGap
	if err != nil {
		r.Objective, r.Nodes, r.Gap = math.NaN(), -1, math.NaN()
		if r.Status == "" || r.Status == "Warning" {
			r.Status = "limit"
		}
		if !errors.Is(err, highsx.ErrNotOptimal) {
			r.Status, r.Err = "error", err.Error()
		}
	}
}

func fileName(r Row, variant string) string {
	name := fmt.Sprintf("n%d-k%d-i%d-d%.2f-%s.mps", r.N, r.K, r.Instance, r.Fraction, variant)
	out := []byte(name)
	for i, c := range out {
		if c == '+' || c == '=' {
			out[i] = '_'
		}
	}
	return string(out)
}
