package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
)

// MaxSeeds is the most solves per instance and solver a benchmark runs.
const MaxSeeds = 100

// MaxDocBytes bounds a report's JSON document ReadReport reads: a full
// collection run (every instance, 6 solvers, 100 seeds) is under 100 MB.
const MaxDocBytes = 256 << 20

// OpenReport reads the report's JSON document in the file at path
// (safefile's rules: a regular file, at most MaxDocBytes), named FILE in
// its errors, which are ErrInput but for ctx's.
func OpenReport(ctx context.Context, path string) (*Report, string, error) {
	b, err := safefile.ReadNamed(ctx, path, "FILE "+safefile.Path(path), MaxDocBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", err
		}
		return nil, "", inputError{err}
	}
	r, title, err := ReadReport(bytes.NewReader(b))
	if err != nil {
		return nil, "", fmt.Errorf("FILE %s: %w", safefile.Path(path), err)
	}
	return r, title, nil
}

// ReadReport reads a report back from its JSON document (Report.Doc, as
// --format json and --json-out write it): the options and solvers it
// records and every run, from which the per-instance results, the
// summaries and the wins are computed again (the document's own copies of
// them are not trusted), and the title its source describes. It refuses
// a document with unknown fields, a run of an unknown status or with a
// time that is not a finite number ≥ 0, or no run at all.
func ReadReport(r io.Reader) (*Report, string, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxDocBytes+1))
	if err != nil {
		return nil, "", err
	}
	if len(b) > MaxDocBytes {
		return nil, "", inputf("more than %d MB: not a bench JSON document", MaxDocBytes>>20)
	}
	var doc Doc
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	dec.UseNumber() // the source's numbers as written (a seed beyond 2⁵³ too)
	if err := dec.Decode(&doc); err != nil {
		return nil, "", inputf("not a JSON document of mmds bench: %s", jsonProblem(err))
	}
	if dec.More() {
		return nil, "", inputf("not a JSON document of mmds bench: more than one JSON value")
	}
	rep, err := doc.report()
	if err != nil {
		return nil, "", err
	}
	title, _ := sourceTitle(doc.Source)
	return rep, title, nil
}

// jsonProblem says what encoding/json found, without its Go type names.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("field %q holds a JSON %s where another kind of value belongs", typ.Field, typ.Value)
	case errors.Is(err, io.EOF):
		return "empty"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// report checks d's options and runs and aggregates the runs.
func (d Doc) report() (*Report, error) {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 0 }
	switch {
	case !finite(d.TimeLimitS) || d.TimeLimitS > 1e6:
		return nil, inputf("time_limit_s %v: want seconds in [0, 1e6]", d.TimeLimitS)
	case d.Seeds < 1 || d.Seeds > MaxSeeds:
		return nil, inputf("seeds %d: want a count in [1, %d]", d.Seeds, MaxSeeds)
	case !finite(d.ShiftS) || d.ShiftS == 0 || d.ShiftS > 1e6:
		return nil, inputf("shift_s %v: want seconds in (0, 1e6]", d.ShiftS)
	case len(d.Runs) == 0:
		return nil, inputf("no runs: nothing to draw")
	case len(d.Solvers) == 0:
		return nil, inputf("no solvers")
	}
	started, err := time.Parse(time.RFC3339, d.StartedAt)
	if err != nil {
		return nil, inputf("started_at %q: want a time such as 2026-11-27T22:55:54Z", d.StartedAt)
	}
	limit := time.Duration(d.TimeLimitS * float64(time.Second))
	rep := &Report{Source: d.Source, Started: started, Interrupted: d.Interrupted, Solvers: d.Solvers, Check: DefaultCheck()}
	rep.TimeLimit, rep.Seeds, rep.Workers, rep.FirstSeed = limit, d.Seeds, d.Workers, d.FirstSeed
	rep.Shift = time.Duration(d.ShiftS * float64(time.Second))
	for i, jr := range d.Runs {
		if !finite(jr.Seconds) {
			return nil, inputf("run %d (%s, %s): seconds %v: want a finite time ≥ 0", i+1, jr.Instance, jr.Solver, jr.Seconds)
		}
		if jr.Instance == "" || jr.Solver == "" || jr.N < 1 || jr.N > 1000 {
			return nil, inputf("run %d: want an instance, a solver and n in [1, 1000]", i+1)
		}
		rep.Runs = append(rep.Runs, jr.run())
	}
	rep.tally(d.ShiftS)
	return rep, nil
}

// run is the Run jr records (NaN where the document has null).
func (jr docRun) run() Run {
	num := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	nodes := int64(-1)
	if jr.Nodes != nil {
		nodes = *jr.Nodes
	}
	return Run{Instance: jr.Instance, Problem: jr.Problem, Source: jr.Source, Variant: jr.Variant, Tier: jr.Tier, N: jr.N, K: jr.K,
		Fraction: jr.Fraction, Solver: jr.Solver, Seed: jr.Seed, Status: jr.Status, SolverStatus: jr.SolverStatus, Seconds: jr.Seconds,
		Objective: num(jr.Objective), Nodes: nodes, Optimal: num(jr.OptimalValue), Bound: num(jr.BestBound),
		MaxViolation: jr.MaxViolation, Violation: jr.Violation, Wrong: jr.Wrong, Imprecise: jr.Imprecise, Err: jr.Error, File: jr.File}
}

// sourceTitle is the title of a report on the instances source describes
// (Spec.Describe's or Selection.Describe's), and for a library what its
// manifest leaves out of the selection ("" for nothing). It reads the
// source as Describe makes it and as a JSON document holds it (its numbers
// json.Numbers, its lists []any).
func sourceTitle(source map[string]any) (title, part string) {
	if lib, ok := source["library"].(map[string]any); ok {
		title = fmt.Sprintf("mmds bench run: library v%s, seed %s, %s set", text(lib["version"]), text(lib["seed"]), text(lib["set"]))
		if t := words(lib["tiers"]); len(t) > 0 {
			title += ", tiers " + strings.Join(t, ", ")
		}
		if m := words(lib["left_out"]); len(m) > 0 {
			n, _ := strconv.Atoi(text(lib["instances"]))
			part = fmt.Sprintf("a part: manifest.json leaves out %d of its %d instances (%s", len(m), len(m)+n, strings.Join(m[:min(3, len(m))], ", "))
			if len(m) > 3 {
				part += ", …"
			}
			part += ")"
			title += " — " + part
		}
		return title, part
	}
	if fam, ok := source["family"].(map[string]any); ok {
		ns := fmt.Sprintf("n from %s to %s", text(fam["n_min"]), text(fam["n_max"]))
		if text(fam["n_min"]) == text(fam["n_max"]) {
			ns = "n = " + text(fam["n_min"])
		}
		return fmt.Sprintf("mmds bench: seed %s, %s, K = %s, D = %s × Dmax", text(fam["seed"]), ns, report.List(words(fam["k"])), report.List(words(fam["fractions"]))), ""
	}
	return "mmds bench", ""
}

// text is a source value as fmt prints it; "?" for a JSON value that is
// neither a number nor a string.
func text(v any) string {
	switch v.(type) {
	case nil, bool, []any, map[string]any:
		return "?"
	}
	return fmt.Sprint(v)
}

// words are the texts of a source list (none for another value).
func words(v any) []string {
	list := reflect.ValueOf(v)
	if list.Kind() != reflect.Slice {
		return nil
	}
	out := make([]string, list.Len())
	for i := range out {
		out[i] = text(list.Index(i).Interface())
	}
	return out
}
