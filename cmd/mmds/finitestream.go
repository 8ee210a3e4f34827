package main

import (
	"io"
	"slices"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/mip"
)

// finiteOut writes an mmds finite sweep point by point as it is solved
// (mip.FiniteSolveOptions.Emit), in one format: memory does not grow with
// the sweep. It keeps only what the end of the output needs: the points
// whose notes say that column generation answered for the global LP, and
// every point when a table prints their mechanisms.
type finiteOut struct {
	w      io.Writer
	format report.Format
	m      mip.Finite
	ds     []float64
	sol    mip.FiniteSolution // Method and Global, once Ready
	rows   *report.RowStream
	json   *report.JSONStream
	keep   bool                // keep every point (mechanism tables)
	kept   []mip.FiniteOptimum // the points kept: all, or those with a Fallback
	status int                 // the status column of the grid
}

func newFiniteOut(w io.Writer, format report.Format, m mip.Finite, ds []float64, mechanisms bool) *finiteOut {
	return &finiteOut{w: w, format: format, m: m, ds: ds, keep: format == report.Table && (mechanisms || len(ds) == 1)}
}

// start writes the head, once the method is known.
func (o *finiteOut) start(sol mip.FiniteSolution) error {
	o.sol = sol
	if o.format == report.JSON {
		doc := finiteJSON(o.m, sol, nil)
		head := struct {
			Model  any           `json:"model"`
			Solver solverDoc     `json:"solver"`
			Method mip.Algorithm `json:"method"`
			Global *globalDoc    `json:"global,omitempty"`
		}{doc.Model, doc.Solver, doc.Method, doc.Global}
		var err error
		o.json, err = report.NewJSONStream(o.w, head, "points")
		return err
	}
	g := finiteGrid(o.m, mip.FiniteSolution{}, o.format)
	o.status = slices.Index(g.Header, "status")
	// a streamed table's least widths: D, numbers, outputs, the longest
	// method and status texts, milliseconds
	minw := []int{len(report.Fixed(slices.Max(o.ds), 4))}
	for range 3 + o.m.K() + 1 {
		minw = append(minw, 6)
	}
	minw = append(minw, 3, len("column generation"), len("no solution"), 8)
	var err error
	o.rows, err = report.NewRowStream(o.w, o.format, g, minw)
	return err
}

func (o *finiteOut) point(p mip.FiniteOptimum) error {
	if o.keep || p.Fallback != "" {
		o.kept = append(o.kept, p)
	}
	if o.json != nil {
		return o.json.Item(finitePointOf(p))
	}
	return o.rows.Append(finiteRow(p, o.m.K(), o.format == report.CSV))
}

// close writes the thresholds not reached and the end of the output:
// notes, and a table's mechanisms.
func (o *finiteOut) close(sol mip.FiniteSolution) error {
	rest := o.ds[sol.Solved:]
	if o.json != nil {
		for _, d := range rest {
			if err := o.json.Item(notReachedPoint(d)); err != nil {
				return err
			}
		}
		return o.json.Close(struct {
			StoppedBy mip.Stop `json:"stopped_by,omitempty"`
		}{sol.Stopped})
	}
	nr := notReached{ds: rest, cols: len(finiteHeader(o.m.K(), o.format == report.CSV)), status: o.status}
	if o.format == report.CSV {
		if err := o.rows.Flush(); err != nil {
			return err
		}
		return nr.writeCSV(o.w)
	}
	sol.Points = o.kept
	if err := nr.closeTable(o.rows, finiteNotes(sol)); err != nil {
		return err
	}
	if o.keep {
		return printMechanisms(o.w, o.kept)
	}
	return nil
}

// finitePointOf is one point's JSON.
func finitePointOf(o mip.FiniteOptimum) finitePoint {
	p := finitePoint{
		D: o.D, Gamma: finite(o.Gamma), UpperBound: finite(o.Upper), Nullable: lossNullable(o),
		Outputs: o.Mechanism.Outputs(), Mechanism: o.Mechanism, Method: methodLabel(o),
		Alphabet: o.Alphabet, LowerBound: o.LowerBound, Status: o.StatusText(), MIPGap: o.MIPGap, Nodes: o.Nodes,
		SolveMS: float64(o.SolveTime.Microseconds()) / 1000, Cert: o.Certificate, Fallback: o.Fallback,
	}
	for _, it := range o.Iterations {
		p.Iterations = append(p.Iterations, finiteIterationJ{Iteration: it.Iteration, Lower: it.Lower, Upper: it.Upper,
			Columns: it.Columns, Pricing: it.Pricing, ElapsedMS: float64(it.Elapsed.Microseconds()) / 1000})
	}
	return p
}
