package loss

import "math"

// Nullable is the JSON form of losses that may be absent: a threshold with no
// privatizer (infeasible, or a time limit before the first one) or a learned
// threshold with no finalized point. It has the three fields of Losses, in
// their order, each null when absent, so that a row keeps its columns.
// Embedded in a struct, its fields are the struct's.
//
// A is the JSON type of adv_loss: []float64 (encoding/json's numbers), or a
// slice type with its own encoding, such as jsonconf.Floats (learn.Floats), whose numbers a
// point's SHA-256 already binds.
type Nullable[A ~[]float64] struct {
	Recon  *float64 `json:"recon_loss"`
	Adv    A        `json:"adv_loss"`
	MinAdv *float64 `json:"min_adv_loss"`
}

// NullableOf returns the JSON form of l: every field null when l is nil,
// and recon_loss or min_adv_loss null where it is NaN or infinite (JSON has
// neither; a threshold with no privatizer carries NaN there). adv_loss shares
// l.Adv, and is null when l.Adv is nil.
func NullableOf[A ~[]float64](l *Losses) Nullable[A] {
	if l == nil {
		return Nullable[A]{}
	}
	return Nullable[A]{Recon: finite(l.Recon), Adv: A(l.Adv), MinAdv: finite(l.MinAdv)}
}

// Losses returns the losses n holds, as decoded (MinAdv is not recomputed:
// Validate checks it), or nil when all three fields are null. A null
// recon_loss or min_adv_loss beside a present field reads as NaN, which
// Validate rejects and NullableOf writes back as null.
func (n Nullable[A]) Losses() *Losses {
	if n.Recon == nil && n.Adv == nil && n.MinAdv == nil {
		return nil
	}
	return &Losses{Recon: orNaN(n.Recon), Adv: []float64(n.Adv), MinAdv: orNaN(n.MinAdv)}
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
