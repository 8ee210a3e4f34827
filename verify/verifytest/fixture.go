// Package verifytest builds small results directories, in the layout mmds
// train writes (results.json, trials/, model.json), for the tests of verify
// and of the mmds command. The training is tiny (a few epochs of 8-unit
// networks on 1,500 rows), so a directory takes a fraction of a second.
package verifytest

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/mip"
)

// GaussModelJSON is the paper's Gaussian model (Section V-A) in the
// gauss.Config format that model.json holds.
const GaussModelJSON = `{
  "names": ["X", "Y", "Z1", "Z2"],
  "mean": [4, 3, 4.5, 5],
  "var": [16, 0.90, 12.25, 2.25],
  "corr": [
    [1.00, 0.80, 0.11, 0.65],
    [0.80, 1.00, 0.23, 0.59],
    [0.11, 0.23, 1.00, 0.19],
    [0.65, 0.59, 0.19, 1.00]
  ],
  "private": "X",
  "reconstructor": ["Y"],
  "adversaries": [["Z1"], ["Z2"]]
}
`

// BinaryModelJSON is the paper's binary model (Section V-B).
const BinaryModelJSON = `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}
`

// GaussD are the thresholds of the Gaussian fixture: the first is far below
// anything a few epochs reach, so it is not finalized.
var GaussD = []float64{0.0001, 2, 5.76}

// BinaryD are the thresholds of the binary fixture (the first is not
// finalized).
var BinaryD = []float64{0.0025, 0.19, 0.2}

// config returns the tiny training configuration shared by both fixtures.
func config(model learn.Model, d []float64, dmax float64, dir string) learn.Config {
	c, err := learn.Preset(learn.PresetQuick, model)
	if err != nil {
		panic(err)
	}
	c.D, c.DMax, c.Dir, c.Seed = d, dmax, dir, 7
	c.Hidden, c.BatchSize, c.TrainSize, c.TestSize = 8, 100, 1200, 300
	c.Epochs, c.LR = 30, 0.01
	c.Protocol = learn.Protocol{K: 3, Tau: 4, Accept: 1, MaxAttempts: 2}
	if model == learn.Binary {
		c.LR = 0.05
		c.Protocol.Tau = 0.4
	}
	c.Workers = 1
	return c
}

// Gauss trains the Gaussian fixture into dir and writes dir/model.json.
func Gauss(tb testing.TB, dir string) *learn.Results {
	tb.Helper()
	m := gauss.Paper()
	s := m.Sample(rand.New(rand.NewPCG(3, 4)), 1500)
	ds := &learn.Dataset{X: s.Private(), Y: s.Reconstructor()}
	for i := range m.K() {
		ds.Z = append(ds.Z, s.Adversary(i))
	}
	return sweep(tb, ds, config(learn.Gauss, GaussD, m.VarRecon(), dir), GaussModelJSON)
}

// Binary trains the binary fixture into dir and writes dir/model.json.
func Binary(tb testing.TB, dir string) *learn.Results {
	tb.Helper()
	m := mip.PaperBinary()
	s := m.Sample(rand.New(rand.NewPCG(3, 4)), 1500)
	ds := &learn.Dataset{X: s.X, Y: [][]float64{s.Y}}
	for _, z := range s.Z {
		ds.Z = append(ds.Z, [][]float64{z})
	}
	return sweep(tb, ds, config(learn.Binary, BinaryD, m.DMax(), dir), BinaryModelJSON)
}

func sweep(tb testing.TB, ds *learn.Dataset, c learn.Config, model string) *learn.Results {
	tb.Helper()
	res, err := learn.Sweep(context.Background(), ds, c)
	if err != nil {
		tb.Fatalf("verifytest: training the fixture: %v", err)
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "model.json"), []byte(model), 0o644); err != nil {
		tb.Fatalf("verifytest: %v", err)
	}
	return res
}
