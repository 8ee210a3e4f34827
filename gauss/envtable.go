package gauss

import (
	"math"
	"slices"

	"github.com/mmds-project/mmds/loss"
)

// The envelope's candidates evaluated ahead of time. Every Gaussian optimum
// reports the best known mechanism (Envelope), and evaluating the envelope's
// several hundred candidates costs more than a quick network's certificate;
// for the models every run of the paper uses, the losses are committed
// instead (envtable_amd64.go, written by go generate: TestEnvelopeTable
// evaluates them again and requires the same bits, so the table cannot drift
// from the code). The losses depend on the model only through E[X], Var[X],
// V_Y and the V_i (lossFunc, reconLoss, candidates), whose bits are the key.
// The table holds for the builds that compute those bits: amd64 without
// FMA fusion (GOAMD64 v1 and v2); other builds evaluate.

// envelopeTable is one model's candidates' losses.
type envelopeTable struct {
	key    []uint64 // the bits of E[X], Var[X], V_Y, V_1, …, V_K
	losses []uint64 // per candidate (candidates' order): the bits of L_R, L_1, …, L_K
}

// envelopeKey returns the bits the candidates' losses depend on.
func (m *Model) envelopeKey() []uint64 {
	key := []uint64{math.Float64bits(m.mean[m.private]), math.Float64bits(m.VarX()), math.Float64bits(m.vRecon)}
	for _, v := range m.vAdv {
		key = append(key, math.Float64bits(v))
	}
	return key
}

// tabulatedPoints returns cands with their losses from the table, and false
// when the table does not hold the model.
func (m *Model) tabulatedPoints(cands []Mechanism) ([]Achievable, bool) {
	key := m.envelopeKey()
	for _, t := range envelopeTables {
		w := 1 + m.K()
		if !slices.Equal(t.key, key) || len(t.losses) != w*len(cands) {
			continue
		}
		pts := make([]Achievable, len(cands))
		for i, mech := range cands {
			row := t.losses[i*w : (i+1)*w]
			adv := make([]float64, m.K())
			for j := range adv {
				adv[j] = math.Float64frombits(row[1+j])
			}
			pts[i] = Achievable{Losses: loss.New(math.Float64frombits(row[0]), adv), Mechanism: mech}
		}
		return pts, true
	}
	return nil, false
}
