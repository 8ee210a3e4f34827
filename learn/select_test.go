package learn

import (
	"testing"
)

// hist builds a synthetic History from per-epoch L_recon and per-adversary
// losses.
func hist(recon []float64, adv ...[]float64) *History {
	h := &History{Recon: recon}
	for _, a := range adv {
		h.Adv = append(h.Adv, a)
	}
	return h
}

// flat is a history whose every epoch has L_recon = recon and adversarial
// losses adv.
func flat(epochs int, recon float64, adv ...float64) *History {
	r := make(Floats, epochs)
	as := make([]Floats, len(adv))
	for e := range r {
		r[e] = recon
	}
	for i, a := range adv {
		as[i] = make(Floats, epochs)
		for e := range as[i] {
			as[i][e] = a
		}
	}
	return &History{Recon: r, Adv: as}
}

func TestPickEpoch(t *testing.T) {
	// D = 1, τ = 0.25: eligible iff L_recon ∈ [0.75, 1] (both ends included).
	//            epoch: 0     1     2     3    4     5     6     7     8     9
	recon := Floats{0.8, 0.9, 1.01, 0.75, 0.5, 1.0, 0.9, 0.95, 0.74, 0.85}
	a1 := Floats{10, 11, 99, 4, 99, 7, 3, 9, 99, 5}
	a2 := Floats{10, 11, 99, 6, 99, 9, 5, 1, 99, 5}
	// Eligible epochs: 0, 1, 3, 5, 6, 7, 9; the last K = 5 are 3, 5, 6, 7, 9
	// with mean adversarial losses 5, 8, 4, 5, 5. Sorted (stable, epoch order
	// for ties): 6 (4), 3 (5), 7 (5), 9 (5), 5 (8): the median is epoch 7.
	p, ok := PickEpoch(hist(recon, a1, a2), 2, 1, 0.25, 5)
	if !ok || p.Epoch != 7 || p.Trial != 2 || p.Recon != 0.95 || p.Adv[0] != 9 || p.Adv[1] != 1 {
		t.Errorf("K=5: got %+v, %v; want epoch 7 (recon 0.95, adv [9 1])", p, ok)
	}
	// K = 4 keeps 5, 6, 7, 9 (means 8, 4, 5, 5): sorted 6, 7, 9, 5; the lower
	// median of four is the 2nd: epoch 7.
	if p, _ := PickEpoch(hist(recon, a1, a2), 0, 1, 0.25, 4); p.Epoch != 7 {
		t.Errorf("K=4: epoch %d, want 7", p.Epoch)
	}
	// K = 2 keeps 7, 9 (means 5, 5): ties keep epoch order, lower median 7.
	if p, _ := PickEpoch(hist(recon, a1, a2), 0, 1, 0.25, 2); p.Epoch != 7 {
		t.Errorf("K=2: epoch %d, want 7", p.Epoch)
	}
	// Fewer eligible epochs than K: D = 0.5, τ = 0.25 only admits epoch 4.
	if p, ok := PickEpoch(hist(recon, a1, a2), 0, 0.5, 0.25, 5); !ok || p.Epoch != 4 {
		t.Errorf("one eligible epoch: got %+v, %v", p, ok)
	}
	// No eligible epoch.
	if _, ok := PickEpoch(hist(recon, a1, a2), 0, 3, 0.25, 5); ok {
		t.Error("no eligible epoch, but PickEpoch found one")
	}
}

func TestBeats(t *testing.T) {
	prev := &Point{Adv: []float64{5, 7}}
	for _, tc := range []struct {
		adv  []float64
		want bool
	}{
		{[]float64{6, 8}, true},
		{[]float64{5, 8}, false}, // equal is not higher: strict
		{[]float64{6, 6}, false},
		{[]float64{4, 9}, false},
	} {
		if got := Beats(&Point{Adv: tc.adv}, prev); got != tc.want {
			t.Errorf("Beats(%v, %v) = %v", tc.adv, prev.Adv, got)
		}
	}
	if !Beats(&Point{Adv: []float64{0, 0}}, nil) {
		t.Error("nil prev must accept")
	}
}

func TestSelectFirstD(t *testing.T) {
	// The first D has no previous point: every eligible trial is accepted.
	// Trial 1 has no eligible epoch (L_recon above D). Accept = 3 is reached
	// at trial 3; trial 4 is never consumed.
	p := Protocol{K: 5, Tau: 0.1, Accept: 3, MaxAttempts: 10}
	hs := []*History{
		flat(8, 0.95, 2, 4), // mean 3
		flat(8, 1.5, 9, 9),  // ineligible
		flat(8, 0.92, 6, 8), // mean 7
		flat(8, 0.99, 4, 6), // mean 5
		flat(8, 0.99, 1, 1), // not consumed
	}
	s := Select(hs, 1, nil, p)
	if s.Attempted != 4 || s.Accepted != 3 || s.CapHit || len(s.Verdicts) != 4 {
		t.Fatalf("got attempted %d accepted %d capHit %v verdicts %d; want 4, 3, false, 4", s.Attempted, s.Accepted, s.CapHit, len(s.Verdicts))
	}
	if v := s.Verdicts[1]; v.Eligible || v.Accepted || v.Point != nil {
		t.Errorf("trial 1: %+v, want ineligible", v)
	}
	// Means of the accepted: 3 (trial 0), 7 (trial 2), 5 (trial 3): median 5.
	if s.Finalized == nil || s.Finalized.Trial != 3 || s.Finalized.Epoch != 5 {
		t.Errorf("finalized %+v, want trial 3, epoch 5 (lower median of epochs 3–7, all tied)", s.Finalized)
	}
}

func TestSelectAgainstPrevious(t *testing.T) {
	prev := &Point{Adv: []float64{5, 5}}
	p := Protocol{K: 5, Tau: 0.1, Accept: 2, MaxAttempts: 10}
	hs := []*History{
		flat(3, 1, 6, 5),  // adversary 2 only equals prev: rejected
		flat(3, 1, 6, 6),  // accepted, mean 6
		flat(3, 1, 4, 9),  // adversary 1 lower: rejected
		flat(3, 1, 8, 10), // accepted, mean 9
	}
	s := Select(hs, 1, prev, p)
	if s.Attempted != 4 || s.Accepted != 2 || s.CapHit {
		t.Fatalf("attempted %d accepted %d capHit %v", s.Attempted, s.Accepted, s.CapHit)
	}
	want := []bool{false, true, false, true}
	for k, v := range s.Verdicts {
		if !v.Eligible || v.Accepted != want[k] {
			t.Errorf("trial %d: %+v, want eligible, accepted=%v", k, v, want[k])
		}
	}
	// Two accepted (means 6, 9): the lower median is trial 1.
	if s.Finalized == nil || s.Finalized.Trial != 1 {
		t.Errorf("finalized %+v, want trial 1", s.Finalized)
	}
}

func TestSelectCap(t *testing.T) {
	prev := &Point{Adv: []float64{5}}
	p := Protocol{K: 5, Tau: 0.1, Accept: 3, MaxAttempts: 4}
	hs := []*History{
		flat(3, 1, 4), flat(3, 1, 7), flat(3, 2, 9), flat(3, 1, 5), flat(3, 1, 8),
	}
	s := Select(hs, 1, prev, p)
	if s.Attempted != 4 || s.Accepted != 1 || !s.CapHit {
		t.Fatalf("attempted %d accepted %d capHit %v; want 4, 1, true", s.Attempted, s.Accepted, s.CapHit)
	}
	if s.Finalized == nil || s.Finalized.Trial != 1 {
		t.Errorf("finalized %+v, want trial 1, the only accepted", s.Finalized)
	}
	// The cap with nothing accepted finalizes nothing.
	s = Select([]*History{flat(3, 1, 1), flat(3, 9, 9)}, 1, prev, Protocol{K: 1, Tau: 0.1, Accept: 1, MaxAttempts: 2})
	if s.Finalized != nil || !s.CapHit || s.Accepted != 0 || s.Attempted != 2 {
		t.Errorf("got %+v, want capHit, nothing finalized", s)
	}
	// Running out of histories before the cap leaves the protocol unfinished.
	s = Select(hs[:2], 1, prev, p)
	if s.CapHit || s.Attempted != 2 || s.Accepted != 1 {
		t.Errorf("unfinished: %+v", s)
	}
}

func TestSelectorPanicsAfterDone(t *testing.T) {
	s := NewSelector(1, nil, Protocol{K: 1, Tau: 0.1, Accept: 1, MaxAttempts: 1})
	if !s.Offer(flat(1, 1, 1)) {
		t.Fatal("not done after the only attempt")
	}
	defer func() {
		if recover() == nil {
			t.Error("Offer after Done did not panic")
		}
	}()
	s.Offer(flat(1, 1, 1))
}

// Select is the whole protocol of Section V at one threshold D, as a pure
// function of the trials' histories in trial order: it offers them to a
// Selector until it is done (histories beyond that are ignored) and returns
// the Result. Fewer histories than the protocol needs leave it unfinished:
// neither Accept reached nor CapHit.
func Select(hs []*History, d float64, prev *Point, p Protocol) Selection {
	s := NewSelector(d, prev, p)
	for _, h := range hs {
		if s.Offer(h) {
			break
		}
	}
	return s.Result()
}
