package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
)

// WitnessFormat names the layout of witnesses: in certificates, and in the
// files mmds binary --witness and mmds finite --witness write
// (docs/check.md).
const WitnessFormat = "mmds-witness/1"

// Precision is how far a number that a certificate or witness file states
// may lie from its exact value, in loss units: Value for the numbers
// computed in float64 from exact formulas (losses of channels, gaps, bands,
// tolerances), Optimum for the width of an optimum's witnessed bracket.
type Precision struct {
	Value   float64 `json:"value"`
	Optimum float64 `json:"optimum"`
}

// ValuePrecision is Precision.Value relative to the loss scale: sums of at
// most a few thousand float64 terms are within 1e-13 of their exact value.
const ValuePrecision = 1e-12

// PrecisionOf is the precision of m's certificates and witnesses.
func PrecisionOf(m Model) Precision {
	s := m.LossScale()
	return Precision{Value: ValuePrecision * s, Optimum: mip.WitnessPrecision * s}
}

// WitnessFile is what mmds binary --witness and mmds finite --witness
// write: the model (its canonical encoding, inline, and that encoding's
// hash) and per threshold the optimum as the command reports it, with its
// witness (docs/check.md, "Witness files").
type WitnessFile struct {
	Format      string             `json:"format"`
	Model       Kind               `json:"model"`
	ModelSHA256 string             `json:"model_sha256"`
	Config      json.RawMessage    `json:"config"`
	LossScale   float64            `json:"loss_scale"`
	Precision   Precision          `json:"precision"`
	Optima      []WitnessedOptimum `json:"optima"`
}

// WitnessedOptimum is one threshold of a WitnessFile: the optimum's
// losses and class as reported, the privatizer the command reported
// (Proposition 2's (s0, s1), or the finite optimum's mechanism), a
// bracket's upper end when the command reported one, the global optimum's
// smallest adversary loss of mmds binary --global, and the witness. A
// threshold below D_min has the class "infeasible" and nothing else.
type WitnessedOptimum struct {
	D float64 `json:"D"`
	*loss.Losses
	Class        string        `json:"class"`
	S            *[2]float64   `json:"s,omitempty"`
	Mechanism    mip.Mechanism `json:"mechanism,omitempty"`
	UpperBound   *float64      `json:"upper_bound,omitempty"`
	GlobalMinAdv *float64      `json:"global_min_adv_loss,omitempty"`
	Witness      *Witness      `json:"witness,omitempty"`
}

// NewWitnessFile is the header of m's witness file.
func NewWitnessFile(m Model) (*WitnessFile, error) {
	b, err := m.Encode()
	if err != nil {
		return nil, err
	}
	h, err := Hash(m)
	if err != nil {
		return nil, err
	}
	return &WitnessFile{Format: WitnessFormat, Model: m.Kind(), ModelSHA256: h, Config: b,
		LossScale: m.LossScale(), Precision: PrecisionOf(m)}, nil
}

// WitnessProp2 witnesses Proposition 2's optimum opt of b as mmds binary
// reports it, and, when global is set, the global optimum beside it (the
// ray LP g's).
func WitnessProp2(ctx context.Context, b mip.Binary, opt mip.Prop2Optimum, global *mip.FiniteOptimum, g *mip.Global, o Options) (WitnessedOptimum, error) {
	w, err := b.WitnessProp2(ctx, opt.D, opt.S, o.solver())
	if err != nil {
		return WitnessedOptimum{}, err
	}
	l := opt.Losses
	wo := WitnessedOptimum{D: opt.D, Losses: &l, Class: BinaryOutput.String(), S: &[2]float64{opt.S.S0, opt.S.S1},
		Witness: &Witness{Prop2: &w}}
	if global != nil {
		gw, err := NewFinite(b.Finite()).witness(ctx, mip.FiniteSolution{Global: g}, *global, o)
		if err != nil {
			return WitnessedOptimum{}, err
		}
		v := global.MinAdv
		wo.GlobalMinAdv, wo.Witness.Global = &v, &gw
	}
	return wo, nil
}

// WitnessFinite witnesses the global optimum p of f, a point of sol, as
// mmds finite reports it; a point without a privatizer below D_min is
// "infeasible", and one without a privatizer otherwise is an error.
func WitnessFinite(ctx context.Context, f mip.Finite, sol mip.FiniteSolution, p mip.FiniteOptimum, o Options) (WitnessedOptimum, error) {
	if p.Alphabet > 0 {
		return WitnessedOptimum{}, fmt.Errorf("a fixed-alphabet optimum (m = %d) has no witness", p.Alphabet)
	}
	if p.Status == mip.StatusInfeasible {
		return WitnessedOptimum{D: p.D, Class: "infeasible"}, nil
	}
	if p.Mechanism == nil {
		return WitnessedOptimum{}, fmt.Errorf("D = %g: %s: no privatizer to witness", p.D, p.StatusText())
	}
	w, err := NewFinite(f).witness(ctx, sol, p, o)
	if err != nil {
		return WitnessedOptimum{}, err
	}
	l := p.Losses
	wo := WitnessedOptimum{D: p.D, Losses: &l, Class: finiteClass(p).String(), Mechanism: p.Mechanism, Witness: &Witness{Global: &w}}
	if wo.Class == AllBracketed.String() {
		u := p.Upper
		wo.UpperBound = &u
	}
	return wo, nil
}

// WriteJSON writes the file indented, each optimum on one line:
// witnesses are long lists of multipliers, for checkers.
func (w *WitnessFile) WriteJSON(out io.Writer) error {
	head := *w
	head.Optima = nil
	b, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		return err
	}
	rows := make([]string, len(w.Optima))
	for i, o := range w.Optima {
		ob, err := json.Marshal(o)
		if err != nil {
			return err
		}
		rows[i] = "\n    " + string(ob)
	}
	_, err = fmt.Fprintf(out, "%s[%s\n  ]\n}\n", bytes.TrimSuffix(b, []byte("null\n}")), strings.Join(rows, ","))
	return err
}
