package verify

import (
	"context"
	"sync"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/model"
)

// A FINDING says that a learned privatizer beats every mechanism mmds
// knows — a claim about the open optimum of the Gaussian model, worth
// reporting. It is made only for a point that passes at the threshold
// asked, against the best mechanism mmds knows at D_ref = max(D, D̂) (the
// reference is non-decreasing in D, so the point beats it at D and at its
// own distortion): the closed-form families, the committed mechanisms and
// the kernel search at D_ref (model.KnownMechanisms), with a margin that
// covers both numbers' errors: the certified loss must exceed the
// reference by more than the reference's error bound, the certificate's
// stated error and the absolute floor a.

// BestKnown is the reference a FINDING is weighed against.
type BestKnown struct {
	D      float64 `json:"D"`       // D_ref = max(D, D̂)
	MinAdv float64 `json:"min_adv"` // the best known mechanism's minimum adversarial loss
	Error  float64 `json:"error"`   // its error bound (absolute)
	Source string  `json:"source"`
	// Margin is what the certified minimum adversarial loss must exceed
	// MinAdv by: Error + the certificate's stated error + a.
	Margin float64 `json:"margin"`
	// Searched is true once the kernel search at D joined the reference.
	Searched bool `json:"kernel_search"`
}

// knownRefs caches the reference per threshold and search within one
// verify or certify run: a threshold's kernel search runs once, however
// many points share it.
type knownRefs struct {
	mu sync.Mutex
	m  map[knownKey]*knownEntry
}

type knownKey struct {
	d      float64
	search bool
}

type knownEntry struct {
	once sync.Once
	k    gauss.Known
	err  error
}

func newKnownRefs() *knownRefs { return &knownRefs{m: map[knownKey]*knownEntry{}} }

// get is km.BestKnown(ctx, d, search), computed once per (d, search).
func (r *knownRefs) get(ctx context.Context, km model.KnownMechanisms, d float64, search bool) (gauss.Known, error) {
	r.mu.Lock()
	e := r.m[knownKey{d, search}]
	if e == nil {
		e = &knownEntry{}
		r.m[knownKey{d, search}] = e
	}
	r.mu.Unlock()
	e.once.Do(func() { e.k, e.err = km.BestKnown(ctx, d, search) })
	return e.k, e.err
}

// findingCandidate weighs a passing point's certified losses against the
// reference without the kernel search; a point that beats it by the
// margin gets its BestKnown, for confirmFindings.
func findingCandidate(ctx context.Context, m model.Model, c model.Analysis, abs float64, refs *knownRefs, p *Point) error {
	km, ok := m.(model.KnownMechanisms)
	if !ok || !p.Pass || p.Certified == nil {
		return nil
	}
	b, err := weighKnown(ctx, km, c, abs, refs, p.D, false)
	if err != nil {
		return err
	}
	if p.Certified.MinAdv > b.MinAdv+b.Margin {
		p.BestKnown = &b
	}
	return nil
}

// weighKnown is the reference of a point of threshold d with certificate
// c, with or without the kernel search.
func weighKnown(ctx context.Context, km model.KnownMechanisms, c model.Analysis, abs float64, refs *knownRefs, d float64, search bool) (BestKnown, error) {
	dRef := max(d, c.Losses.Recon, 0)
	k, err := refs.get(ctx, km, dRef, search)
	if err != nil {
		return BestKnown{}, err
	}
	margin := k.Err + c.Change*c.Losses.MinAdv + abs
	return BestKnown{D: dRef, MinAdv: k.MinAdv, Error: k.Err, Source: k.Source, Margin: margin, Searched: search}, nil
}

// MaxKernelSearches bounds the kernel searches of one verify or certify
// run (seconds each): the candidates of the first MaxKernelSearches
// distinct D_ref, in point order, are weighed; a later one is no FINDING
// (its BestKnown says the search did not run).
const MaxKernelSearches = 16

// confirmFindings runs the kernel search for the candidates of pts (in
// parallel, once per D_ref, for at most MaxKernelSearches of them) and
// marks those that still beat the reference by the margin: BeatsBest, and
// the verdict says so. certs[i] is point i's certificate.
func confirmFindings(ctx context.Context, m model.Model, certs []model.Analysis, abs float64, refs *knownRefs, pts []Point, workers int) error {
	km, ok := m.(model.KnownMechanisms)
	if !ok {
		return nil
	}
	var idx []int
	searched := map[float64]bool{}
	for i := range pts {
		b := pts[i].BestKnown
		if b == nil {
			continue
		}
		if !searched[b.D] && len(searched) == MaxKernelSearches {
			continue
		}
		searched[b.D] = true
		idx = append(idx, i)
	}
	return eachPoint(ctx, len(idx), workers, nil, func(j int) error {
		p := &pts[idx[j]]
		b, err := weighKnown(ctx, km, certs[idx[j]], abs, refs, p.D, true)
		if err != nil {
			return err
		}
		p.BestKnown = &b
		if p.Certified.MinAdv > b.MinAdv+b.Margin {
			p.BeatsBest = true
			p.Verdict += "; beats the best known mechanism"
		}
		return nil
	})
}
