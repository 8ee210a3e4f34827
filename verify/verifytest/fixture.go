// Package verifytest builds small results directories, in the layout mmds
// train writes (results.json, trials/, model.json), for the tests of verify
// and of the mmds command. The training is tiny (a few epochs of 8-unit
// networks on 1,500 rows), so a directory takes a fraction of a second.
package verifytest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/rundir"
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

// fixture is what the fixtures of one model kind differ in: the paper's
// model of the kind, its D_max, its adversaries, and the learning rate and
// selection band of its tiny training.
type fixture struct {
	js      string
	dmax    float64
	k       int
	lr, tau float64
}

// fixtureOf returns the fixture of kind k (Gaussian or binary).
func fixtureOf(k model.Kind) fixture {
	f, ok := map[model.Kind]fixture{
		model.Gauss:  {js: GaussModelJSON, dmax: gauss.Paper().VarRecon(), k: 2, lr: 0.01, tau: 4},
		model.Binary: {js: BinaryModelJSON, dmax: mip.PaperBinary().DMax(), k: 1, lr: 0.05, tau: 0.4},
	}[k]
	if !ok {
		panic(fmt.Sprintf("verifytest: no fixture of the %v model", k))
	}
	return f
}

// config returns the tiny training configuration shared by both fixtures.
func config(kind model.Kind, d []float64, dmax float64, dir string) learn.Config {
	c, err := learn.Preset(learn.PresetQuick, kind)
	if err != nil {
		panic(err)
	}
	paper, _ := learn.Preset(learn.PresetPaper, kind)
	// Section V-B's schedule, gradient and losses: the fixture predates the
	// quick preset's departures.
	c.LRGamma, c.Rho, c.PrivGrad, c.EstLoss = paper.LRGamma, paper.Rho, paper.PrivGrad, paper.EstLoss
	c.D, c.DMax, c.Dir, c.Seed = d, dmax, dir, 7
	c.Hidden, c.BatchSize, c.TrainSize, c.TestSize = 8, 100, 1200, 300
	f := fixtureOf(kind)
	c.Epochs, c.LR = 30, f.lr
	c.Protocol = learn.Protocol{K: 3, Tau: f.tau, Accept: 1, MaxAttempts: 2}
	c.Workers = 1
	return c
}

// Gauss trains the Gaussian fixture into dir and writes dir/model.json.
func Gauss(tb testing.TB, dir string) *learn.Results {
	tb.Helper()
	return train(tb, model.Gauss, GaussD, dir, GaussModelJSON)
}

// Binary trains the binary fixture into dir and writes dir/model.json.
func Binary(tb testing.TB, dir string) *learn.Results {
	tb.Helper()
	return train(tb, model.Binary, BinaryD, dir, BinaryModelJSON)
}

func train(tb testing.TB, kind model.Kind, d []float64, dir, js string) *learn.Results {
	tb.Helper()
	m, err := model.ParseAs(kind, []byte(js))
	if err != nil {
		tb.Fatalf("verifytest: %v", err)
	}
	x, y, z := m.Sample(rand.New(rand.NewPCG(3, 4)), 1500)
	ds := &learn.Dataset{X: x, Y: y, Z: z}
	c := config(kind, d, m.DMax(), dir)
	c.ModelSHA256 = ModelHash(tb, kind)
	if err := rundir.Dir(dir).WriteModel([]byte(js)); err != nil {
		tb.Fatalf("verifytest: %v", err)
	}
	res, err := learn.Sweep(context.Background(), ds, c)
	if err != nil {
		tb.Fatalf("verifytest: training the fixture: %v", err)
	}
	return res
}

// ModelHash returns the hash of the fixtures' model of the kind.
func ModelHash(tb testing.TB, kind model.Kind) string {
	tb.Helper()
	m, err := model.ParseAs(kind, []byte(fixtureOf(kind).js))
	if err != nil {
		tb.Fatalf("verifytest: %v", err)
	}
	h, err := model.Hash(m)
	if err != nil {
		tb.Fatalf("verifytest: %v", err)
	}
	return h
}

// WriteResults seals res (so that its binding matches what it now says)
// and writes it to dir/results.json: what training would have written.
// Tests use it to build directories that are consistent but wrong in one
// way; a plain write of an edited res is a tampered directory.
func WriteResults(tb testing.TB, dir string, res *learn.Results) {
	tb.Helper()
	if err := res.Seal(); err != nil {
		tb.Fatalf("verifytest: %v", err)
	}
	b, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		tb.Fatalf("verifytest: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.ResultsFile), b, 0o644); err != nil {
		tb.Fatalf("verifytest: %v", err)
	}
}

// zeroNet is an estimator network with the given role, inputs and output
// activation whose weights are all 0 (verify never runs the estimators).
func zeroNet(role string, inputs []string, act network.Activation) network.Network {
	row := make([]float64, len(inputs))
	return network.Network{Role: role, Inputs: inputs, Layers: []network.Layer{
		{Act: network.ReLU, W: [][]float64{row}, B: []float64{0}},
		{Act: act, W: [][]float64{{0}}, B: []float64{0}},
	}}
}

// Point is one threshold of a synthetic results directory: the privatizer
// network and the learned losses results.json reports for it (nil Priv: the
// threshold was not finalized).
type Point struct {
	D     float64
	Priv  *network.Network
	Recon float64
	Adv   []float64
}

// Synthetic writes a results directory with hand-built networks: the given
// privatizers, zero estimators, test_size 2,000 and selection band tau.
// model is "gauss" (the paper's Gaussian model, GaussModelJSON) or "binary"
// (BinaryModelJSON).
func Synthetic(tb testing.TB, dir string, kind model.Kind, tau float64, pts []Point) *learn.Results {
	tb.Helper()
	res := &learn.Results{Model: kind}
	c := &res.Config
	c.Model, c.TestSize, c.TrainSize, c.Epochs, c.Hidden, c.Protocol.Tau = kind, 2000, 10000, 1, 4, tau
	c.ModelSHA256 = ModelHash(tb, kind)
	f := fixtureOf(kind)
	js, k, act := f.js, f.k, network.Identity
	c.DMax = f.dmax
	if kind.BinaryRelease() {
		act = network.Sigmoid
	}
	for i, p := range pts {
		c.D = append(c.D, p.D)
		dr := learn.DResult{DIndex: i, D: p.D, Trial: -1, Epoch: -1, NetworksEpoch: -1}
		if p.Priv != nil {
			l := loss.New(p.Recon, p.Adv)
			dr.Finalized, dr.Losses = true, &l
			dr.Trial, dr.Epoch, dr.NetworksEpoch, dr.Attempted, dr.Accepted = 0, 0, 0, 1, 1
			dr.Networks = []network.Network{*p.Priv, zeroNet("reconstructor", []string{"f", "y"}, act)}
			for j := range k {
				dr.Networks = append(dr.Networks, zeroNet(fmt.Sprintf("adversary_%d", j+1), []string{"f", fmt.Sprintf("z%d", j+1)}, act))
			}
			if kind.BinaryRelease() {
				hard := p.Recon
				dr.ReconHard, dr.AdvHard = &hard, learn.Floats(p.Adv)
			}
		}
		res.Points = append(res.Points, dr)
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.ModelFile), []byte(js), 0o644); err != nil {
		tb.Fatalf("verifytest: %v", err)
	}
	WriteResults(tb, dir, res)
	return res
}
