// Package bench is mmds's solver benchmark: an instance library of
// sanitization MIPs and LPs with certified optima, several solvers run on
// the same instances, an independent check of every answer, and the
// field's aggregates (docs/bench.md).
//
// Instances. Proposition 2's MIP for random binary models (paper, Section
// III-B), the fixed-alphabet MIP of random finite models in each
// formulation (big-M with M = max L or derived M, symmetry breaking on or
// off, convex hull), and the global LP over every privatizer. Each is a
// minimization of −γ. Its optimal value is certified without the MIP: for
// the binary model by enumerating the vertices of the arrangement of the
// losses' breakpoint lines in (s0, s1) (BinaryOptimum); for a finite model
// by a bracket from the global LP, a mechanism whose losses are recomputed
// exactly (lower) and a weak-duality bound repaired to feasibility (upper),
// accepted when it is narrower than CertTol (CertifyGlobal).
//
// Solving. Every solver solves every instance with several seeds: its
// random seed, or for a solver without one (GLPK, SYMPHONY, lp_solve) the
// file with rows and columns permuted by the seed (WriteMPSPermuted).
//
// Checking. A solver's answer x is re-checked against the instance as its
// MPS file writes it, in exact rational arithmetic (CheckExact): a row l ≤
// a·x ≤ u within tol·max{1, |side|, P} (P the sum of the positive terms),
// a bound within tol·max{1, |bound|, |x_j|}, integrality within an absolute
// tolerance, objectives within tol·max{1, |value|, Σ positive c_j x_j}, as
// MIPLIB's solution checker applies them. Beyond MIPLIB's tolerances (1e-4)
// an answer is "wrong"; within them but beyond mmds's (1e-6, integrality
// 1e-5) a claimed optimum is "imprecise"; within both "optimal".
//
// Aggregates. Per instance and solver the median and range over the seeds
// of the counted times (a time-out at the limit, a failure — error, wrong,
// a false infeasible — at FailurePenalty times the limit), solved only
// when every seed solved it; the shifted geometric mean of the medians,
// exp(mean ln(t + s)) − s with shift s (default 10 s); the virtual best
// solver; wins per solver; Dolan and Moré's performance profile ρ_s(τ) =
// |{p : t_ps ≤ τ · min_s' t_ps'}| / |P| over the instances every solver
// was given.
package bench

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mmds-project/mmds/mip"
)

// Variant is one formulation of the fixed-alphabet MIP.
type Variant struct {
	Name string
	Opts mip.FixedOptions // Outputs is set per instance
}

// Variants are the formulations compared: M = max L (1 for the 0-1 loss)
// vs derived M, symmetry breaking on and off, and the convex hull that mmds
// uses by default.
func Variants() []Variant {
	return []Variant{
		{"M=1", mip.FixedOptions{NaiveBigM: true, NoSymmetryBreaking: true}},
		{"M=1+sym", mip.FixedOptions{NaiveBigM: true}},
		{"derivedM", mip.FixedOptions{NoSymmetryBreaking: true}},
		{"derivedM+sym", mip.FixedOptions{}},
		{"hull+sym", mip.FixedOptions{Hull: true}},
	}
}

// VariantsNamed returns the formulations of Variants() with these names, in
// the order given; it panics on an unknown name (a programming error).
func VariantsNamed(names ...string) []Variant {
	var out []Variant
	for _, name := range names {
		i := slices.IndexFunc(Variants(), func(v Variant) bool { return v.Name == name })
		if i < 0 {
			panic("bench: no formulation named " + name)
		}
		out = append(out, Variants()[i])
	}
	return out
}

// GlobalName labels the global LP.
const GlobalName = "global LP"

// Spec is the seeded family of the default `mmds bench` run: random
// finite models with n = |Y| = |Z| = m (the fixed MIP has m = n outputs),
// K adversaries and D = fraction · D_max.
type Spec struct {
	NMin, NMax int       // n ranges over [NMin, NMax]
	Ks         []int     // numbers of adversaries
	Fractions  []float64 // D = fraction · D_max
	Models     int       // random models per (n, K)
	Seed       uint64
	MaxSubsets int64     // ray-enumeration budget of the global LP
	Variants   []Variant // default Variants()
}

// FamilyModel returns model i of the family for (n, K): its own PCG
// stream, so any model can be regenerated alone.
func FamilyModel(seed uint64, n, k, i int) (mip.Finite, error) {
	return mip.RandomFinite(rand.New(rand.NewPCG(seed, uint64(n)<<32|uint64(k)<<16|uint64(i))), n, k)
}

// Validate reports the first field out of range, naming the command
// line's flags.
func (s Spec) Validate() error {
	if s.NMin < 2 || s.NMax < s.NMin || s.NMax > 8 {
		return inputf("--n %d:%d: want NMIN:NMAX with 2 ≤ NMIN ≤ NMAX ≤ 8", s.NMin, s.NMax)
	}
	if len(s.Ks) == 0 {
		return inputf("--k: give at least one number of adversaries")
	}
	for _, k := range s.Ks {
		if k < 1 || k > 8 {
			return inputf("--k %d: must be in [1, 8]", k)
		}
	}
	if len(s.Fractions) == 0 {
		return inputf("--fractions: give at least one fraction of D_max")
	}
	for _, x := range s.Fractions {
		if math.IsNaN(x) || x < 0 || x > 1 {
			return inputf("--fractions %v: each must be in [0, 1]", x)
		}
	}
	switch {
	case s.Models < 1 || s.Models > 1000:
		return inputf("--instances %d: must be in [1, 1000]", s.Models)
	case s.MaxSubsets < 1:
		return inputf("--max-subsets %d: must be ≥ 1", s.MaxSubsets)
	}
	return nil
}

// Describe is the title of a report on s's family and the source its JSON
// document records.
func (s Spec) Describe() (title string, source map[string]any) {
	source = map[string]any{"family": map[string]any{"n_min": s.NMin, "n_max": s.NMax, "k": s.Ks, "fractions": s.Fractions,
		"instances": s.Models, "seed": s.Seed, "max_subsets": s.MaxSubsets, "outputs": "m = n"}}
	title, _ = sourceTitle(source)
	return title, source
}

// Build generates and certifies the family's instances in a fixed order.
func (s Spec) Build(ctx context.Context) ([]Instance, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Variants == nil {
		s.Variants = Variants()
	}
	var out []Instance
	for n := s.NMin; n <= s.NMax; n++ {
		for _, k := range s.Ks {
			for i := range s.Models {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				m, err := FamilyModel(s.Seed, n, k, i)
				if err != nil {
					return nil, err
				}
				fam := Family{Model: m, Index: i, Tier: "family", Outputs: n, Variants: s.Variants, MaxSubsets: s.MaxSubsets}
				ins, err := fam.Instances(ctx, s.Fractions)
				if err != nil {
					return nil, err
				}
				out = append(out, ins...)
			}
		}
	}
	return out, nil
}
