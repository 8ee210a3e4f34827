package plot

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mmds-project/mmds/bench"
	"github.com/mmds-project/mmds/internal/report"
)

// BenchScaling is the scaling plot of a bench report (BenchScalingSpec):
// one series per formulation with one solver, per solver with several
// (the medians then run over every formulation).
func BenchScaling(r *bench.Report, title string) Spec {
	series := func(res bench.Result) string { return res.Solver + " " + res.Variant }
	if bench.Available(r.Solvers) > 1 {
		series = func(res bench.Result) string { return res.Solver }
	}
	var pts []BenchPoint
	for _, res := range r.Results {
		if res.Solved() || res.Status == bench.StatusTimeLimit {
			pts = append(pts, BenchPoint{Series: series(res), N: res.N, Seconds: res.Median, Limited: !res.Solved()})
		}
	}
	times := "median of " + report.Plural(r.Seeds, "seed")
	if r.Seeds == 1 {
		times = "one seed"
	}
	return BenchScalingSpec(fmt.Sprintf("%s, time limit %s, %s", title, seconds(r.TimeLimit), times), pts)
}

// seconds writes a time limit as a reader of a paper does: "60 s", "0.5 s",
// "none" for no limit (Go's "1m0s" is not for titles).
func seconds(d time.Duration) string {
	if d <= 0 {
		return "none"
	}
	return report.Shortest(d.Seconds()) + " s"
}

// BenchProfile is the performance profile of a bench report (ProfileSpec)
// over the solvers or, with one solver, over the formulations of each
// sanitization problem.
func BenchProfile(r *bench.Report, title string) Spec {
	series := func(res bench.Result) string { return res.Solver }
	problem := func(res bench.Result) string { return res.Instance }
	what := "solvers"
	if bench.Available(r.Solvers) < 2 {
		series = func(res bench.Result) string { return res.Variant }
		problem = func(res bench.Result) string { return res.Problem }
		what = "formulations with " + r.Solvers[0].Name
	}
	return ProfileSpec("Performance profile of the "+what+", median times: "+title, bench.Profile(r.Results, series, problem))
}

// BenchPoint is one solve for the scaling plot.
type BenchPoint struct {
	Series  string  // e.g. "HiGHS derivedM+sym"
	N       int     // problem size n = |Y| = |Z| = m
	Seconds float64 // solve time; a solve stopped by a limit counts at the limit
	// Limited marks a solve stopped by the time limit: drawn as a cross at
	// its time, on top of the median line.
	Limited bool
}

// BenchScalingSpec is the scaling plot of mmds bench: the median solve
// time per series against n (a count: integer ticks), on a log scale, and
// a cross at every solve stopped by the time limit.
func BenchScalingSpec(title string, pts []BenchPoint) Spec {
	s := Spec{
		Title: title, XLabel: "n = |Y| = |Z| = m", YLabel: "median solve time (s)",
		XAxis: Axis{Integer: true, FromData: true}, YAxis: Axis{Log: true},
		Width: 7, Height: 4.5,
	}
	for i, c := range medianSeries(pts) {
		c.Color, c.Shape, c.Dashed, c.Markers = i, Shape(i%5), i%2 == 1, true
		s.Curves = append(s.Curves, c)
	}
	limited := Series{Label: "stopped by the time limit", Color: 6, Shape: Cross}
	for _, pt := range pts {
		if pt.Limited {
			limited.X, limited.Y = append(limited.X, float64(pt.N)), append(limited.Y, max(pt.Seconds, 1e-5))
		}
	}
	s.Points = append(s.Points, limited)
	return s
}

// medianSeries returns, per series in the order of first appearance, the
// median solve time (floored at 10 µs for the log axis) at each n, by n.
func medianSeries(pts []BenchPoint) []Series {
	bySeries := map[string]map[int][]float64{}
	var names []string
	for _, pt := range pts {
		if bySeries[pt.Series] == nil {
			bySeries[pt.Series] = map[int][]float64{}
			names = append(names, pt.Series)
		}
		bySeries[pt.Series][pt.N] = append(bySeries[pt.Series][pt.N], max(pt.Seconds, 1e-5))
	}
	out := make([]Series, len(names))
	for i, name := range names {
		out[i].Label = name
		for _, n := range slices.Sorted(maps.Keys(bySeries[name])) {
			out[i].X, out[i].Y = append(out[i].X, float64(n)), append(out[i].Y, bench.Median(bySeries[name][n]))
		}
	}
	return out
}

// WriteBench draws a bench report's performance profile into profile and
// its scaling plot into scaling (each only when named) and returns the
// files written.
func WriteBench(r *bench.Report, title, profile, scaling string) ([]string, error) {
	var wrote []string
	for _, o := range []struct {
		path string
		spec func(*bench.Report, string) Spec
	}{{profile, BenchProfile}, {scaling, BenchScaling}} {
		if o.path == "" {
			continue
		}
		if err := Write(o.spec(r, title), o.path); err != nil {
			return wrote, err
		}
		wrote = append(wrote, o.path)
	}
	return wrote, nil
}
