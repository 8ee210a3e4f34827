package verify

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model"
)

// The default tolerances of a verdict. Each is a named constant so that a
// verdict can be traced to a number and its reason; mmds verify overrides
// them with flags.
const (
	// DefaultBandTau is the width, in units of the selection band τ, of the
	// band below D in which a certified distortion counts as "at D". The
	// protocol of Section V accepts any epoch whose test-split L_recon lies
	// in [D − τ, D] as a point at D, so a certificate can ask no more than
	// that band: 1.
	DefaultBandTau = 1.0

	// DefaultDistSE widens that band on both sides by this many standard
	// errors of a test-split loss at D. The protocol placed the point with a
	// test-split estimate (test_size samples), whose standard error is
	// D·√(2/n) for a squared error (Gaussian errors) and √(D(1−D)/n) for a
	// 0-1 error; at 3 standard errors test noise alone puts a point outside
	// its band with probability about 0.3%.
	DefaultDistSE = 3.0

	// DefaultAdvSE is how many standard errors of a test-split loss at the
	// optimum the certified minimum adversarial loss may fall short of the
	// optimum at its own distortion. The protocol ranked trials by
	// test-split estimates with that standard error (≈ 3.2% of the loss for
	// the Gaussian model's 2,000 test rows), so it cannot tell apart
	// privatizers closer than that; demanding more would grade the test
	// noise, not the training. 3 standard errors: a privatizer exactly at
	// the optimum fails with probability about 0.1%.
	DefaultAdvSE = 3.0

	// DefaultQuadTol is the largest change between the last two refinement
	// levels of a certificate (relative for the Gaussian losses, absolute
	// for the binary s0, s1) for it to count as converged: 0.5%, an order
	// of magnitude below the adversarial tolerance and below the ≈ 3%
	// sampling resolution of the losses the protocol selected on, so
	// quadrature error cannot flip a verdict.
	DefaultQuadTol = 5e-3

	// DefaultAbs is the absolute floor of every tolerance, in units of the
	// model's loss scale (Var[X], or 1 for 0-1 losses): 1e-9, far above
	// the rounding of the loss sums (≈ 1e-15) and far below any
	// statistical tolerance, so rounding can never decide a verdict.
	DefaultAbs = 1e-9

	// DefaultTestSize is the number of test rows the statistical
	// tolerances assume: the paper's test split (2,000 of 12,000 rows,
	// Section V). It is the verifier's setting, never read from the
	// directory being certified.
	DefaultTestSize = 2000
)

// Tolerances are the numbers a verdict is judged by (see the Default
// constants for their meaning and sizes). They are the verifier's: nothing
// in them comes from the results directory being certified.
type Tolerances struct {
	BandTau float64 `json:"band_tau"` // band below D, in units of τ
	// Tau is the selection band τ; 0: DefaultTau of the model and the
	// run's thresholds (half the grid step, as Section V, capped).
	Tau      float64 `json:"tau"`
	DistSE   float64 `json:"dist_se"`   // distortion slack, in standard errors at D
	AdvSE    float64 `json:"adv_se"`    // adversarial slack, in standard errors at the optimum
	Quad     float64 `json:"quad"`      // convergence of the certificate's refinement
	Abs      float64 `json:"abs"`       // absolute floor, in units of the model's loss scale
	TestSize int     `json:"test_size"` // n of the standard errors
	// Reference is the optimum the verdict's gap is taken against:
	// ReferencePaper (Proposition 1 or 2, the paper's) or ReferenceBest
	// (the best known Gaussian mechanism; the optimum over all privatizers
	// for the binary model).
	Reference Reference `json:"reference"`
}

// Reference is the optimum a verdict's gap is taken against; its text
// ("paper", "best") is the "reference" of reports and certificates.
type Reference int

// The references a verdict can use.
const (
	ReferencePaper Reference = iota + 1
	ReferenceBest
)

var referenceText = enum.Text[Reference]{Type: "Reference",
	Names:    []string{ReferencePaper: "paper", ReferenceBest: "best"},
	BadValue: enum.IntError[Reference](ErrReference), BadText: wantError(ErrReference)}

// ErrReference is wrapped by the error for text that is not a reference.
var ErrReference = errors.New("verify: unknown reference")

// String is the reference as reports write it.
func (r Reference) String() string { return referenceText.String(r) }

// MarshalText implements encoding.TextMarshaler.
func (r Reference) MarshalText() ([]byte, error) { return referenceText.Marshal(r) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *Reference) UnmarshalText(b []byte) error { return referenceText.Unmarshal(r, b) }

// DefaultTolerances returns the Default constants.
func DefaultTolerances() Tolerances {
	return Tolerances{BandTau: DefaultBandTau, DistSE: DefaultDistSE, AdvSE: DefaultAdvSE, Quad: DefaultQuadTol,
		Abs: DefaultAbs, TestSize: DefaultTestSize, Reference: ReferencePaper}
}

// Validate reports a tolerance that is negative or not finite.
func (t Tolerances) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"band_tau", t.BandTau}, {"tau", t.Tau}, {"dist_se", t.DistSE}, {"adv_se", t.AdvSE}, {"quad", t.Quad}, {"abs", t.Abs}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("verify: tolerance %s = %v: must be finite and ≥ 0", f.name, f.v)
		}
	}
	if t.Reference != ReferencePaper && t.Reference != ReferenceBest {
		return fmt.Errorf("verify: reference %v: must be %q or %q", t.Reference, ReferencePaper, ReferenceBest)
	}
	if t.TestSize < 1 || t.TestSize > 1e9 {
		return fmt.Errorf("verify: tolerance test_size = %d: must be in [1, 1e9]", t.TestSize)
	}
	return nil
}

// Assessment is what a verdict depends on.
type Assessment struct {
	D        float64 // the threshold the point was trained for
	Recon    float64 // certified distortion
	MinAdv   float64 // certified minimum adversarial loss
	Optimum  float64 // optimum minimum adversarial loss at the certified distortion
	BandLo   float64 // the certified distortion must lie in [BandLo, BandHi]
	BandHi   float64
	AdvTol   float64 // the largest gap (Optimum − MinAdv) that passes
	Change   float64 // the certificate's refinement change
	QuadTol  float64 // … and its tolerance
	NumFloor float64 // gaps below this are numerical noise, not "above optimum"
}

// Verdict strings.
const (
	VerdictPass         = "pass"
	VerdictAbove        = "pass (above optimum)"
	VerdictNotFinalized = "not finalized"
	VerdictNotTrained   = "not trained"
	// VerdictCannotCertify starts the verdict of a point whose numbers
	// cannot be made sound; the reason follows.
	VerdictCannotCertify = "cannot certify"
)

// Verdict returns whether a point passes and a one-line verdict. A point passes
// when its certified distortion lies in its band and its certified minimum
// adversarial loss is within AdvTol below the optimum at that distortion; a
// loss above the optimum passes and says so (the Gaussian optimum of
// Proposition 1 is optimal only among linear-Gaussian privatizers, so a
// non-linear privatizer may beat it). A certificate whose refinement did not
// converge to QuadTol fails: its numbers are not trusted to the stated
// precision.
func Verdict(a Assessment) (bool, string) {
	var why []string
	if !(a.Recon >= a.BandLo && a.Recon <= a.BandHi) {
		why = append(why, fmt.Sprintf("distortion %.4g outside [%.4g, %.4g]", a.Recon, a.BandLo, a.BandHi))
	}
	gap := a.Optimum - a.MinAdv
	if !(gap <= a.AdvTol) { // a NaN gap or tolerance fails: no number, no pass
		why = append(why, fmt.Sprintf("gap %.4g > %.4g", gap, a.AdvTol))
	}
	if !(a.Change <= a.QuadTol) {
		why = append(why, fmt.Sprintf("not converged (change %.2g > %.2g)", a.Change, a.QuadTol))
	}
	if len(why) > 0 {
		return false, "fail: " + strings.Join(why, "; ")
	}
	if gap < -a.NumFloor {
		return true, VerdictAbove
	}
	return true, VerdictPass
}

// DefaultTau is the band τ a verdict uses when the verifier sets none: half
// the step of the run's grid of thresholds ds (Section V, learn.DefaultTau),
// but never wider than half the step of the coarsest grid mmds trains on
// (the quick preset's points on the model's default sweep). The band is the
// verifier's policy: an author's two-point grid must not widen it until a
// privatizer at D̂ = 0 (F = X) falls inside the band of a larger D.
func DefaultTau(ds []float64, m model.Model) float64 {
	def := m.DefaultSweep()
	tau := learn.DefaultTau(ds, m.DMax(), def)
	coarsest := (def.D1 - def.D0) / float64(2*learn.PresetPoints(learn.PresetQuick))
	if coarsest > 0 && tau > coarsest {
		return coarsest
	}
	return tau
}
