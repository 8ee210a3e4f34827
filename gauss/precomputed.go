package gauss

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"slices"

	"github.com/mmds-project/mmds/loss"
)

// Losses evaluated ahead of time. Every Gaussian optimum reports the best
// known mechanism (Envelope: several hundred candidates evaluated), and the
// FINDING gate weighs a privatizer against the committed mechanisms
// (Committed: a KernelLosses each); both cost more than a quick network's
// certificate. For the models every run of the paper uses, the losses are
// committed instead (precomputed_amd64.go, written by go generate:
// TestPrecomputed evaluates them again and requires the same bits, so the
// table cannot drift from the code). The losses depend on the model only
// through E[X], Var[X], V_Y and the V_i (lossFunc, reconLoss, candidates,
// kernelLossFuncOf, kernelCheckFunc), whose bits are the key; a committed
// mechanism's row is also keyed by its file's SHA-256. The table holds for
// the builds that compute those bits: amd64 without FMA fusion (GOAMD64 v1
// and v2); other builds evaluate.
//
//go:generate go test -run ^TestPrecomputed$ -update

// precomputedModel is one model's precomputed losses.
type precomputedModel struct {
	key       []uint64       // the bits of E[X], Var[X], V_Y, V_1, …, V_K
	envelope  []uint64       // per candidate (candidates' order): the bits of L_R, L_1, …, L_K
	committed []committedRow // per committed mechanism evaluated on the model
}

// committedRow is KernelLosses of one committed mechanism: the kernel of
// file (known/file, its SHA-256 sum), as stored or moved with X.
type committedRow struct {
	file   string
	sum    string // hex
	moved  bool
	ok     bool     // false: KernelLosses returned an error
	losses []uint64 // the bits of L_R, L_1, …, L_K
	err    uint64   // the bits of the error bound
}

// errPrecomputedUnresolved stands for the error KernelLosses returned when
// the table was written.
var errPrecomputedUnresolved = errors.New("gauss: the committed mechanism's losses could not be computed on this model")

// precomputedKey returns the bits the tabulated losses depend on.
func (m *Model) precomputedKey() []uint64 {
	key := []uint64{math.Float64bits(m.mean[m.private]), math.Float64bits(m.VarX()), math.Float64bits(m.vRecon)}
	for _, v := range m.vAdv {
		key = append(key, math.Float64bits(v))
	}
	return key
}

// precomputed returns the model's precomputed losses, nil when the table
// does not hold the model.
func (m *Model) precomputed() *precomputedModel {
	key := m.precomputedKey()
	for i := range precomputedModels {
		if slices.Equal(precomputedModels[i].key, key) {
			return &precomputedModels[i]
		}
	}
	return nil
}

// lossesOf returns the losses stored from row bits.
func lossesOf(bits []uint64) loss.Losses {
	adv := make([]float64, len(bits)-1)
	for j := range adv {
		adv[j] = math.Float64frombits(bits[1+j])
	}
	return loss.New(math.Float64frombits(bits[0]), adv)
}

// tabulatedPoints returns cands with their losses from the table, and false
// when the table does not hold them.
func (m *Model) tabulatedPoints(cands []Mechanism) ([]Achievable, bool) {
	p := m.precomputed()
	w := 1 + m.K()
	if p == nil || len(p.envelope) != w*len(cands) {
		return nil, false
	}
	pts := make([]Achievable, len(cands))
	for i, mech := range cands {
		pts[i] = Achievable{Losses: lossesOf(p.envelope[i*w : (i+1)*w]), Mechanism: mech}
	}
	return pts, true
}

// committedLosses returns KernelLosses of the committed kernel c: from the
// table when it holds them.
func (m *Model) committedLosses(c committedKernel) (loss.Losses, float64, error) {
	if p := m.precomputed(); p != nil {
		sum := sha256.Sum256(c.contents)
		for _, r := range p.committed {
			if r.file != c.file || r.sum != hex.EncodeToString(sum[:]) || r.moved != c.moved {
				continue
			}
			if !r.ok {
				return loss.Losses{}, 0, errPrecomputedUnresolved
			}
			return lossesOf(r.losses), math.Float64frombits(r.err), nil
		}
	}
	return m.KernelLosses(c.kernel)
}
