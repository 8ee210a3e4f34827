package mip

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	colgenScale   = flag.String("colgen.scale", "", "run TestColGenScale on n,K[,seconds] (e.g. 6,2,60) and print per-instance figures")
	colgenSquared = flag.Bool("colgen.squared", false, "TestColGenScale with the squared-label loss for the reconstructor")
	colgenGap     = flag.Float64("colgen.gap", 0, "TestColGenScale's relative gap target (0: proven optimal)")
	colgenHiGHS   = flag.String("colgen.highs", "", "TestColGenScale with extra integer HiGHS options name=value,...")
)

// TestColGenScale prints the median time to the proven optimum (or the
// bracket at the time limit) over 10 RandomFinite instances at 30% and 60%
// of D_max; it runs only with -colgen.scale (docs/finite.md, "Targets").
func TestColGenScale(t *testing.T) {
	if *colgenScale == "" {
		t.Skip("the scale run is requested with -colgen.scale n,K")
	}
	var n, k int
	var limit time.Duration = 60 * time.Second
	if _, err := fmtSscan(*colgenScale, &n, &k, &limit); err != nil {
		t.Fatal(err)
	}
	so := DefaultSolver()
	if *colgenHiGHS != "" {
		so.Extra = map[string]any{}
		for _, kv := range strings.Split(*colgenHiGHS, ",") {
			var v int
			name, val, _ := strings.Cut(kv, "=")
			if _, err := fmt.Sscan(val, &v); err != nil {
				t.Fatal(err)
			}
			so.Extra[name] = v
		}
	}
	for _, frac := range []float64{0.3, 0.6} {
		var times []float64
		proven := 0
		for i := range 10 {
			m, _ := RandomFinite(rand.New(rand.NewPCG(uint64(n*100+k), uint64(i))), n, k)
			if *colgenSquared {
				m.Recon.Loss = squaredLabel(n)
			}
			d := m.DMin() + frac*(m.DMax()-m.DMin())
			start := time.Now()
			r, err := m.SolveColGen(context.Background(), d, ColGenOptions{TimeLimit: limit, Solver: so, GapTol: *colgenGap})
			el := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if r.Proven || r.Gap() <= *colgenGap {
				proven++
			}
			times = append(times, el.Seconds())
			t.Logf("n=%d K=%d D=%.2f·Dmax i=%d: %.3fs lower %.9f upper %.9f gap %.3g%% iters %d cols %d leaves %d LPs %d %s",
				n, k, frac, i, el.Seconds(), r.Gamma, r.Upper, 100*r.Gap(), len(r.Iterations), r.Columns, r.Rules, r.LPs, r.Status)
		}
		slices.Sort(times)
		t.Logf("n=%d K=%d D=%.1f·Dmax: proven (or within -colgen.gap) %d/10, median %.3fs, max %.3fs", n, k, frac, proven, (times[4]+times[5])/2, times[9])
	}
}

func fmtSscan(s string, n, k *int, limit *time.Duration) (int, error) {
	var secs float64
	c, err := fmt.Sscanf(s, "%d,%d,%g", n, k, &secs)
	if c == 3 {
		*limit = time.Duration(secs * float64(time.Second))
		return c, nil
	}
	if c == 2 {
		return c, nil
	}
	return c, err
}
