package mip

import (
	"errors"
	"fmt"
)

// ErrUnknownLabel is the error of a text or number that is not a Method,
// Algorithm, Pricing or Proof.
var ErrUnknownLabel = errors.New("unknown label")

// The text of Method, the option of SolveFinite.
var methodNames = [...]string{MethodAuto: "auto", MethodRays: "rays", MethodColGen: "colgen"}

// String is the method's name: "auto", "rays" or "colgen".
func (m Method) String() string { return name(methodNames[:], m, "Method") }

// MarshalText encodes m as its String.
func (m Method) MarshalText() ([]byte, error) { return marshal(methodNames[:], m) }

// UnmarshalText decodes a String; any other text wraps ErrUnknownLabel.
func (m *Method) UnmarshalText(b []byte) error { return unmarshal(methodNames[:], m, "method", b) }

// ParseMethod reads "auto", "rays" or "colgen".
func ParseMethod(s string) (Method, error) {
	var m Method
	return m, m.UnmarshalText([]byte(s))
}

// Algorithm is how a finite optimum was found (FiniteOptimum.Method,
// FiniteSolution.Method).
type Algorithm int

// The algorithms.
const (
	AlgorithmGlobalLP Algorithm = iota // the LP over the extreme rays (exact)
	AlgorithmColGen                    // column generation with a certified bracket
	AlgorithmFixedMIP                  // the MIP over a fixed output alphabet
)

var algorithmNames = [...]string{
	AlgorithmGlobalLP: "global LP",
	AlgorithmColGen:   "column generation",
	AlgorithmFixedMIP: "fixed MIP",
}

// String is the algorithm's name: "global LP", "column generation" or
// "fixed MIP".
func (a Algorithm) String() string { return name(algorithmNames[:], a, "Algorithm") }

// MarshalText encodes a as its String.
func (a Algorithm) MarshalText() ([]byte, error) { return marshal(algorithmNames[:], a) }

// UnmarshalText decodes a String; any other text wraps ErrUnknownLabel.
func (a *Algorithm) UnmarshalText(b []byte) error {
	return unmarshal(algorithmNames[:], a, "algorithm", b)
}

// Pricing is how a column generation iteration priced its columns
// (ColGenIteration.Pricing).
type Pricing int

// The pricings.
const (
	PricingHeuristic Pricing = iota // local search over privatizer columns
	PricingExact                    // branch and bound over the reconstructor's decision rules
)

var pricingNames = [...]string{PricingHeuristic: "heuristic", PricingExact: "exact"}

// String is the pricing's name: "heuristic" or "exact".
func (p Pricing) String() string { return name(pricingNames[:], p, "Pricing") }

// MarshalText encodes p as its String.
func (p Pricing) MarshalText() ([]byte, error) { return marshal(pricingNames[:], p) }

// UnmarshalText decodes a String; any other text wraps ErrUnknownLabel.
func (p *Pricing) UnmarshalText(b []byte) error { return unmarshal(pricingNames[:], p, "pricing", b) }

// Proof is how a Certificate's MaxReducedCost was obtained.
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

var proofNames = [...]string{
	ProofDecisionRules:        "decision rules",
	ProofDecisionRulesStopped: "decision rules (search stopped; largest open bound)",
	ProofRelaxation:           "relaxation",
	ProofSaturation:           "saturation",
}

// String is the proof's name, as certificates print it.
func (p Proof) String() string { return name(proofNames[:], p, "Proof") }

// MarshalText encodes p as its String.
func (p Proof) MarshalText() ([]byte, error) { return marshal(proofNames[:], p) }

// UnmarshalText decodes a String; any other text wraps ErrUnknownLabel.
func (p *Proof) UnmarshalText(b []byte) error { return unmarshal(proofNames[:], p, "proof", b) }

// name is names[v], or Type(v) for a value out of range.
func name[T ~int](names []string, v T, typ string) string {
	if v < 0 || int(v) >= len(names) {
		return fmt.Sprintf("%s(%d)", typ, int(v))
	}
	return names[v]
}

func marshal[T ~int](names []string, v T) ([]byte, error) {
	if v < 0 || int(v) >= len(names) {
		return nil, fmt.Errorf("%w: %d", ErrUnknownLabel, int(v))
	}
	return []byte(names[v]), nil
}

func unmarshal[T ~int](names []string, v *T, what string, b []byte) error {
	for i, n := range names {
		if string(b) == n {
			*v = T(i)
			return nil
		}
	}
	return fmt.Errorf("%w: %s %q", ErrUnknownLabel, what, b)
}
