package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// timingColumns of CSV output are wall-clock times: they differ between
// two runs, so they are not compared.
var csvTimingColumns = map[string]bool{"solve_ms": true, "ms": true}

// numbers collects every number in a decoded JSON value, as float64
// parsed from the literal JSON has.
func numbers(v any, into map[uint64]bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err == nil {
			into[math.Float64bits(f)] = true
		}
	case map[string]any:
		for _, e := range x {
			numbers(e, into)
		}
	case []any:
		for _, e := range x {
			numbers(e, into)
		}
	}
}

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("JSON: %v\n%s", err, s)
	}
	return v
}

// TestCSVMatchesJSON runs every command that writes CSV twice, as CSV and
// as JSON, and checks that every number of every CSV row is, bit for bit,
// a number of the JSON point of the same row (no rounding anywhere), and
// that the rows are the JSON points, not-reached ones included.
func TestCSVMatchesJSON(t *testing.T) {
	bm := binaryModelFile(t)
	cases := []struct {
		name string
		args []string
		// extra returns the JSON numbers that belong to row i besides
		// points[i] (Monte Carlo results live beside the points).
		extra func(doc map[string]any, i int) any
	}{
		{"binary", []string{"binary", "--qz", "0.44,0.3", "--sweep", "0:0.2:5", "--max-points", "4"}, nil},
		{"binary, streamed", []string{"binary", "--sweep", "0:0.2:2500", "--max-points", "2400"}, nil},
		{"binary --global", []string{"binary", "--global", "--sweep", "0:0.2:4"}, nil},
		{"finite ray LP", []string{"finite", "--config", "../../examples/finite-ternary.json", "--sweep", "0:0.3:5", "--max-points", "3"}, nil},
		{"finite ray LP, streamed", []string{"finite", "--config", "../../examples/finite-ternary.json", "--sweep", "0:0.3:2500", "--max-points", "2400"}, nil},
		{"finite MIP", []string{"finite", "--config", "../../examples/finite-ternary.json", "--alphabet", "2", "--sweep", "0.05:0.3:3"}, nil},
		{"finite column generation", []string{"finite", "--config", "../../examples/finite-ternary.json", "--method", "colgen", "--d", "0.1"}, nil},
		{"gauss", []string{"gauss", "--sweep", "0:6:9", "--max-points", "8"}, nil},
		{"gauss coalition", []string{"gauss", "--config", "../../examples/gauss-coalition.json", "--sweep", "0:3:7"}, nil},
		{"gauss --monte-carlo", []string{"gauss", "--sweep", "0:5.76:3", "--monte-carlo", "--samples", "600"}, func(doc map[string]any, i int) any {
			return doc["monte_carlo"].(map[string]any)["results"].([]any)[i]
		}},
		{"verify", []string{"verify", passingBinary(t)}, nil},
		{"certify", []string{"certify", "--model", bm, "--privatizer", fixtures + "channel-pass.json", "--d", "0.15"}, nil},
	}
	for _, c := range cases {
		code, csvOut, errs := runCLI(t, append(c.args, "--format", "csv")...)
		if code != 0 {
			t.Fatalf("%s, CSV: exit %d: %s", c.name, code, errs)
		}
		code, jsonOut, errs := runCLI(t, append(c.args, "--format", "json")...)
		if code != 0 {
			t.Fatalf("%s, JSON: exit %d: %s", c.name, code, errs)
		}
		recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
		if err != nil {
			t.Fatalf("%s: CSV: %v", c.name, err)
		}
		doc := decodeJSON(t, jsonOut)
		pts := doc["points"].([]any)
		if len(recs)-1 != len(pts) {
			t.Fatalf("%s: %d CSV rows, %d JSON points", c.name, len(recs)-1, len(pts))
		}
		header := recs[0]
		compared := 0
		for i, rec := range recs[1:] {
			want := map[uint64]bool{}
			numbers(pts[i], want)
			if c.extra != nil {
				numbers(c.extra(doc, i), want)
			}
			for j, cell := range rec {
				f, err := strconv.ParseFloat(cell, 64)
				if err != nil || math.IsInf(f, 0) || csvTimingColumns[header[j]] {
					continue // text, inf (JSON: null with a flag), or a timing
				}
				compared++
				if !want[math.Float64bits(f)] {
					t.Errorf("%s, row %d, %s = %s: not a number of the JSON point %v", c.name, i+1, header[j], cell, pts[i])
				}
			}
		}
		if compared < len(recs)-1 {
			t.Errorf("%s: only %d numbers compared", c.name, compared)
		}
	}
}
