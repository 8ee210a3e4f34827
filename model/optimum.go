package model

import (
	"bytes"
	"encoding/json"

	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
)

// Optimum is the reference optimum at a distortion: what every kind
// computes (D, the losses, the class), and what one kind adds in Detail.
// Its JSON is one flat object, the common fields then the detail's.
type Optimum struct {
	D float64 `json:"D"` // the distortion it is taken at
	loss.Losses
	Class Class `json:"class"`
	// Detail is *GaussDetail, *BinaryDetail or *FiniteDetail (nil for
	// none); Gauss, Binary and Finite return it typed.
	Detail any `json:"-"`
	// Witness proves the optimum (Options.Witness; nil otherwise, and for
	// the Gaussian model).
	Witness *Witness `json:"-"`
}

// Witness is what proves an optimum to a checker that trusts nothing of
// mmds (docs/check.md, "Optima"): on the binary model Proposition 2's
// witness and the global optimum's beside it, on a finite model the
// global optimum's.
type Witness struct {
	Prop2  *mip.Prop2Witness  `json:"prop2,omitempty"`
	Global *mip.GlobalWitness `json:"global,omitempty"`
}

// GaussDetail is what Proposition 1 adds on the Gaussian model.
type GaussDetail struct {
	// DEff is D' = min(D, Var[X | Y]); SNR the optimal a²/b² (nil when
	// infinite).
	DEff float64  `json:"D_eff"`
	SNR  *float64 `json:"snr,omitempty"`
	// Best and UpperBound bracket the optimum over all privatizers: the
	// best achievable mechanism known (of family BestFamily) and a proven
	// upper bound.
	Best       loss.Losses `json:"best_achievable"`
	BestFamily string      `json:"best_family,omitempty"`
	UpperBound float64     `json:"upper_bound"`
	// Estimate is the optimum search's numerical estimate of the grid
	// problem, min(estimate, UpperBound) (Options.GaussOptimum; nil when it
	// did not run): a number to compare with, never a bound.
	Estimate *float64 `json:"numerical_estimate,omitempty"`
}

// BinaryDetail is what Proposition 2 adds on the binary model.
type BinaryDetail struct {
	// Global is the optimum over all privatizers (any output alphabet, the
	// global LP of the binary model as a finite one), which Proposition
	// 2's binary-output optimum can only trail.
	Global loss.Losses `json:"global"`
	// S0, S1 are the optimal privatizer, Gamma is γ*, Status the solver's.
	S0     float64 `json:"s0"`
	S1     float64 `json:"s1"`
	Gamma  float64 `json:"gamma"`
	Status string  `json:"status,omitempty"`
}

// FiniteDetail is what the global LP adds on a finite model.
type FiniteDetail struct {
	// UpperBound is the proven upper bound of the optimum when the solver
	// computed one (column generation), else nil.
	UpperBound *float64 `json:"upper_bound,omitempty"`
	// Mechanism is an optimal one, rows X, columns F.
	Mechanism mip.Mechanism `json:"mechanism,omitempty"`
	Status    string        `json:"status,omitempty"`
}

// Gauss returns the Gaussian detail, nil for another kind.
func (o *Optimum) Gauss() *GaussDetail { d, _ := o.Detail.(*GaussDetail); return d }

// Binary returns the binary detail, nil for another kind.
func (o *Optimum) Binary() *BinaryDetail { d, _ := o.Detail.(*BinaryDetail); return d }

// Finite returns the finite detail, nil for another kind.
func (o *Optimum) Finite() *FiniteDetail { d, _ := o.Detail.(*FiniteDetail); return d }

// optimumCommon is Optimum's JSON without the detail (no methods: no
// recursion into MarshalJSON).
type optimumCommon struct {
	D float64 `json:"D"`
	loss.Losses
	Class Class `json:"class"`
}

// MarshalJSON writes the common fields and the detail's as one object.
func (o Optimum) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(optimumCommon{D: o.D, Losses: o.Losses, Class: o.Class})
	if err != nil || o.Detail == nil {
		return b, err
	}
	d, err := json.Marshal(o.Detail)
	if err != nil {
		return nil, err
	}
	if d = bytes.TrimSpace(d); len(d) <= 2 { // {}
		return b, nil
	}
	return append(append(b[:len(b)-1], ','), d[1:]...), nil
}

// UnmarshalJSON reads an Optimum as MarshalJSON writes it; the detail's
// type follows the class.
func (o *Optimum) UnmarshalJSON(b []byte) error {
	var c optimumCommon
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	*o = Optimum{D: c.D, Losses: c.Losses, Class: c.Class}
	switch c.Class {
	case LinearGaussian:
		o.Detail = new(GaussDetail)
	case BinaryOutput:
		o.Detail = new(BinaryDetail)
	default:
		o.Detail = new(FiniteDetail)
	}
	return json.Unmarshal(b, o.Detail)
}
