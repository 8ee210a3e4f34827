package main

import (
	"bytes"
	"encoding/csv"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
)

// Privatizer files (docs/certify.md, "Formats"), read by the rules mmds
// reads them by: the extension .onnx is a network, .csv a channel;
// otherwise a JSON object with the key "channel" is a channel, one with
// "layers" a network, one with "kernel" a cell kernel (Gaussian models
// only).

// privatizer is a privatizer file as the checker reads it: a channel or a
// network.
type privatizer struct {
	channel [][]float64
	net     *network
}

func readPrivatizer(name string, b []byte) privatizer {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".onnx":
		return privatizer{net: parseONNX(name, b)}
	case ".csv":
		return privatizer{channel: parseChannelCSV(name, b)}
	}
	root := asObject(name, parseJSON(b))
	switch {
	case root.has("channel"):
		p := matrix(name+": channel", root.get("channel"))
		root.done()
		return privatizer{channel: checkChannel(name, p)}
	case root.has("layers"):
		return privatizer{net: parseNetworkJSON(name, root)}
	case root.has("kernel"):
		notCovered("%s is a cell kernel, a privatizer of the Gaussian model", printable(name))
	}
	reject("%s is neither a channel, a network nor a kernel", printable(name))
	return privatizer{}
}

// parseChannelCSV reads one row per value of X, comma-separated, no
// header; lines starting with '#' are comments.
func parseChannelCSV(name string, b []byte) [][]float64 {
	r := csv.NewReader(bytes.NewReader(b))
	r.Comment = '#'
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1
	var p [][]float64
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		rejectIf(err != nil || len(p) >= 4096, "%s: malformed CSV or more than 4096 rows", printable(name))
		row := make([]float64, len(rec))
		for f, s := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			rejectIf(err != nil, "%s: %s is not a number", printable(name), quote(s))
			row[f] = v
		}
		p = append(p, row)
	}
	return checkChannel(name, p)
}

// checkChannel applies mmds's rules: 1 to 4096 rows of one common length
// from 1 to 4096, entries finite and ≥ 0, each row summing (in float64) to
// 1 within 1e-6.
func checkChannel(name string, p [][]float64) [][]float64 {
	rejectIf(len(p) == 0 || len(p) > 4096 || len(p[0]) == 0 || len(p[0]) > 4096, "%s: want 1 to 4096 rows of 1 to 4096 entries", printable(name))
	for x, row := range p {
		rejectIf(len(row) != len(p[0]), "%s: row %d has %d entries, row 0 has %d", printable(name), x, len(row), len(p[0]))
		var s float64
		for _, v := range row {
			rejectIf(!(v >= 0) || math.IsInf(v, 0), "%s: row %d has %v: want a probability ≥ 0", printable(name), x, v)
			s += v
		}
		rejectIf(math.Abs(s-1) > 1e-6, "%s: row %d sums to %v: want 1 within 1e-6", printable(name), x, s)
	}
	return p
}
