package mip

import (
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/enum"
)

// ErrUnknownLabel is the error of a text or number that is not a Method,
// Algorithm, Pricing or Proof.
var ErrUnknownLabel = errors.New("mip: unknown label")

// labelText is the text of a label enum of type typ; its errors wrap
// ErrUnknownLabel and name what.
func labelText[T ~int](typ, what string, names []string) enum.Text[T] {
	return enum.Text[T]{Type: typ, Names: names, BadValue: enum.IntError[T](ErrUnknownLabel),
		BadText: func(b []byte, _ string) error { return fmt.Errorf("%w: %s %q", ErrUnknownLabel, what, b) }}
}

// The text of Method, the option of SolveFinite.
var methodText = labelText[Method]("Method", "method", []string{MethodAuto: "auto", MethodRays: "rays", MethodColGen: "colgen"})

// String is the method's name: "auto", "rays" or "colgen".
func (m Method) String() string { return methodText.String(m) }

// MarshalText encodes m as its String.
func (m Method) MarshalText() ([]byte, error) { return methodText.Marshal(m) }

// UnmarshalText decodes a String; any other text wraps ErrUnknownLabel.
func (m *Method) UnmarshalText(b []byte) error { return methodText.Unmarshal(m, b) }

// Algorithm is how a finite optimum was found (FiniteOptimum.Method,
// FiniteSolution.Method).
type Algorithm int

// The algorithms.
const (
	AlgorithmGlobalLP Algorithm = iota // the LP over the extreme rays (exact)
	AlgorithmColGen                    // column generation with a certified bracket
	AlgorithmFixedMIP                  // the MIP over a fixed output alphabet
)

var algorithmText = labelText[Algorithm]("Algorithm", "algorithm", []string{
	AlgorithmGlobalLP: "global LP",
	AlgorithmColGen:   "column generation",
	AlgorithmFixedMIP: "fixed MIP",
})

// String is the algorithm's name: "global LP", "column generation" or
// "fixed MIP".
func (a Algorithm) String() string { return algorithmText.String(a) }

// MarshalText encodes a as its String.
func (a Algorithm) MarshalText() ([]byte, error) { return algorithmText.Marshal(a) }

// UnmarshalText decodes a String; any other text wraps ErrUnknownLabel.
func (a *Algorithm) UnmarshalText(b []byte) error { return algorithmText.Unmarshal(a, b) }

// Pricing is how a column generation iteration priced its columns
// (ColGenIteration.Pricing).
type Pricing int

// The pricings.
const (
	PricingHeuristic Pricing = iota // local search over privatizer columns
	PricingExact                    // branch and bound over the reconstructor's decision rules
)

var pricingText = labelText[Pricing]("Pricing", "pricing", []string{PricingHeuristic: "heuristic", PricingExact: "exact"})

// String is the pricing's name: "heuristic" or "exact".
func (p Pricing) String() string { return pricingText.String(p) }

// MarshalText encodes p as its String.
func (p Pricing) MarshalText() ([]byte, error) { return pricingText.Marshal(p) }

// UnmarshalText decodes a String; any other text wraps ErrUnknownLabel.
func (p *Pricing) UnmarshalText(b []byte) error { return pricingText.Unmarshal(p, b) }

// Proof is how a DualBound's MaxReducedCost was obtained.
type Proof int

// The proofs, strongest first.
const (
	// ProofDecisionRules: branch and bound over the reconstructor's
	// decision rules, one LP per leaf (exact up to HiGHS's tolerances).
	ProofDecisionRules Proof = iota
	// ProofDecisionRulesStopped: the same search stopped by its limit; the
	// largest open bound stands in for the maximum.
	ProofDecisionRulesStopped
	// ProofRelaxation: ρ_R ≥ 0 dropped (weaker, always available).
	ProofRelaxation
	// ProofSaturation: the adversaries' side-information-only risks.
	ProofSaturation
)

var proofText = labelText[Proof]("Proof", "proof", []string{
	ProofDecisionRules:        "decision rules",
	ProofDecisionRulesStopped: "decision rules (search stopped; largest open bound)",
	ProofRelaxation:           "relaxation",
	ProofSaturation:           "saturation",
})

// String is the proof's name, as certificates print it.
func (p Proof) String() string { return proofText.String(p) }

// MarshalText encodes p as its String.
func (p Proof) MarshalText() ([]byte, error) { return proofText.Marshal(p) }

// UnmarshalText decodes a String; any other text wraps ErrUnknownLabel.
func (p *Proof) UnmarshalText(b []byte) error { return proofText.Unmarshal(p, b) }
