package verify

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model"
)

// countingKnown is the paper's model whose best known mechanism is a fixed
// loss, counting the kernel searches asked for.
type countingKnown struct {
	model.GaussModel
	searches *atomic.Int64
	minAdv   float64
}

func (c countingKnown) BestKnown(_ context.Context, d float64, search bool) (gauss.Known, error) {
	if search {
		c.searches.Add(1)
	}
	return gauss.Known{Achievable: gauss.Achievable{Losses: loss.New(d, []float64{c.minAdv})}, Err: 1e-9, Source: "fixed"}, nil
}

// TestFindingsBounded: the kernel search runs once per D_ref and for at
// most MaxKernelSearches distinct ones per run, candidates in point order;
// a later candidate is no FINDING, and a point that fails is none whatever
// its losses.
func TestFindingsBounded(t *testing.T) {
	m := countingKnown{GaussModel: model.NewGauss(gauss.Paper()), searches: &atomic.Int64{}, minAdv: 1}
	refs := newKnownRefs()
	n := MaxKernelSearches + 4
	pts := make([]Point, 2*n+1)
	certs := make([]model.Analysis, len(pts))
	for i := range pts {
		d := float64(1 + i/2) // two points per threshold
		certs[i] = model.Analysis{Losses: loss.New(d, []float64{2})}
		l := certs[i].Losses
		pts[i] = Point{D: d, Pass: true, Certified: &l, Verdict: "pass"}
	}
	pts[len(pts)-1].Pass = false
	for i := range pts {
		if err := findingCandidate(context.Background(), m, certs[i], 1e-9, refs, &pts[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := confirmFindings(context.Background(), m, certs, 1e-9, refs, pts, 3); err != nil {
		t.Fatal(err)
	}
	if got := m.searches.Load(); got != MaxKernelSearches {
		t.Errorf("%d kernel searches, want %d (one per threshold, at most %d)", got, MaxKernelSearches, MaxKernelSearches)
	}
	for i, p := range pts {
		want := i < 2*MaxKernelSearches
		if p.BeatsBest != want || (p.BestKnown != nil && p.BestKnown.Searched != want) {
			t.Errorf("point %d (D = %g, pass %v): FINDING %v, best known %+v; want FINDING %v", i, p.D, p.Pass, p.BeatsBest, p.BestKnown, want)
		}
	}
	if pts[len(pts)-1].BestKnown != nil {
		t.Errorf("a failing point is a candidate")
	}
}
