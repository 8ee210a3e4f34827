package gauss

import (
	"encoding/json"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/loss"
)

// pointJSON is the wire form of a Prop1Optimum. JSON has no +Inf, so an
// infinite SNR (D' = 0, F = X) is written as "snr": null with
// "snr_infinite": true.
type pointJSON struct {
	D           float64  `json:"D"`
	DEff        float64  `json:"D_eff"`
	SNR         *float64 `json:"snr"`
	SNRInfinite bool     `json:"snr_infinite"`
	A           float64  `json:"a"`
	B           float64  `json:"b"`
	loss.Losses          // recon_loss, adv_loss, min_adv_loss
	MinAdvIndex int      `json:"min_adv_index"`
	// Set only for a Bracket: the best known mechanism and the upper bound.
	Achievable *Achievable `json:"achievable,omitempty"`
	UpperBound *float64    `json:"upper_bound,omitempty"`
	// Set only for a Bracket the optimum search ran at.
	Optimum *OptimumEstimate `json:"optimum,omitempty"`
}

// MarshalJSON writes the point with snake_case fields; see pointJSON for +Inf.
func (p Prop1Optimum) MarshalJSON() ([]byte, error) { return json.Marshal(p.wire()) }

// MarshalJSON writes Proposition 1's point with "achievable",
// "upper_bound" and, where the optimum search ran, "optimum" added.
func (b Bracket) MarshalJSON() ([]byte, error) {
	w := b.Prop1Optimum.wire()
	w.Achievable, w.UpperBound, w.Optimum = &b.Achievable, &b.UpperBound, b.Optimum
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (b *Bracket) UnmarshalJSON(data []byte) error {
	var w pointJSON
	if err := jsonconf.Unmarshal(data, &w); err != nil {
		return err
	}
	if err := b.Prop1Optimum.UnmarshalJSON(data); err != nil {
		return err
	}
	if w.Achievable != nil {
		b.Achievable = *w.Achievable
	}
	if w.UpperBound != nil {
		b.UpperBound = *w.UpperBound
	}
	b.Optimum = w.Optimum
	return nil
}

func (p Prop1Optimum) wire() pointJSON {
	w := pointJSON{D: p.D, DEff: p.DEff, A: p.A, B: p.B, Losses: p.Losses, MinAdvIndex: p.MinAdvIndex}
	if math.IsInf(p.SNR, 1) {
		w.SNRInfinite = true
	} else {
		snr := p.SNR
		w.SNR = &snr
	}
	return w
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *Prop1Optimum) UnmarshalJSON(b []byte) error {
	var w pointJSON
	if err := jsonconf.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = Prop1Optimum{D: w.D, DEff: w.DEff, A: w.A, B: w.B, Losses: w.Losses, MinAdvIndex: w.MinAdvIndex}
	switch {
	case w.SNRInfinite:
		p.SNR = math.Inf(1)
	case w.SNR != nil:
		p.SNR = *w.SNR
	}
	return nil
}

// Coalition is a side-information set with Var[X | S].
type Coalition struct {
	Side      []string `json:"side"`
	VarXGiven float64  `json:"var_x_given"`
}

// Summary describes a model and its conditional variances for reports.
type Summary struct {
	Names          []string    `json:"names"`
	Mean           []float64   `json:"mean"`
	Cov            [][]float64 `json:"cov"`
	Private        string      `json:"private"`
	Reconstructor  []string    `json:"reconstructor"`
	Adversaries    [][]string  `json:"adversaries"`
	VarX           float64     `json:"var_x"`
	VarXGivenRecon float64     `json:"var_x_given_recon"`
	VarXGivenAdv   []float64   `json:"var_x_given_adv"`
	// Q holds Q_i = 1/V_i − 1/V_Y; null where it is infinite (V_i = 0 or V_Y = 0).
	Q          []*float64  `json:"q"`
	Coalitions []Coalition `json:"coalitions"`
	MinEig     float64     `json:"min_corr_eigenvalue"`
}

// Summary returns the model's description and conditional variances.
func (m *Model) Summary() Summary {
	s := Summary{Names: m.Names(), Mean: m.Mean(), Private: m.Private(),
		Reconstructor: m.Reconstructor(), Adversaries: make([][]string, m.K()),
		VarX: m.VarX(), VarXGivenRecon: m.vRecon, VarXGivenAdv: m.VarAdv(),
		Coalitions: []Coalition{}, MinEig: m.minEig}
	for i := range m.names {
		s.Cov = append(s.Cov, mat.Row(nil, i, m.cov))
	}
	for i := range s.Adversaries {
		s.Adversaries[i] = m.Adversary(i)
	}
	for _, q := range m.Q() {
		if !math.IsInf(q, 0) {
			s.Q = append(s.Q, &q)
		} else {
			s.Q = append(s.Q, nil)
		}
	}
	for i, c := range m.Coalitions() {
		s.Coalitions = append(s.Coalitions, Coalition{Side: c, VarXGiven: m.vCoal[i]})
	}
	return s
}
