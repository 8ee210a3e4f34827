//go:build amd64 && !amd64.v3

package learn

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"
)

// TestFiniteAlg1Golden pins every bit of tiny Algorithm 1 runs on finite
// models with 0-1 losses (the histories, last networks and snapshots of
// two trials per threshold, and the sweep's points), per estimator loss,
// with one and two adversaries: a change to the trainer's losses or speed
// must leave a 0-1 model's results as they were, and the vector kernels
// and the portable build (-tags purego) give the same digests (denseNet's
// canonical order). The digests hold for GOAMD64 v1 and v2 (v3 lets the
// compiler fuse multiply-adds, changing the last bits; docs/learn.md,
// "Performance").
func TestFiniteAlg1Golden(t *testing.T) {
	for _, c := range []struct {
		name string
		est  EstLoss
		sel  SelectLosses
		m    int
		adv2 bool // a second adversary
		want string
	}{
		{"log loss, hard selection", EstLossLog, SelectHard, 4, false, "672b05a4c0020f3dc07124af8e98f600860ba637e18a0831205fbced4a6e42a3"},
		{"soft 0-1 loss", EstLossSoft, SelectTraining, 3, false, "3b7bd8fa0735e19cf6ba55f46c06b78f24f4f45407907aabab308e2e194fa427"},
		{"log loss, two adversaries", EstLossLog, SelectHard, 3, true, "955e66c05db34f5f41fb4db64c1883b2df36744ca20ec2e77cfd0a1d05cc0249"},
		{"soft 0-1 loss, two adversaries", EstLossSoft, SelectTraining, 4, true, "feb858dc073c1303fd0ac9d7076158c378cc197bd7d56f6fa1594872bcf613cb"},
	} {
		ds, cfg := tinyFiniteAlg1(t, c.m)
		if c.adv2 {
			// The second adversary sees Y one row late: any symbols do.
			y := ds.Y[0]
			ds.Z = append(ds.Z, [][]float64{append(append([]float64(nil), y[1:]...), y[0])})
		}
		cfg.EstLoss, cfg.Protocol.Select, cfg.Workers = c.est, c.sel, 1
		h := sha256.New()
		enc := json.NewEncoder(h)
		rc, err := cfg.resolve(len(ds.X))
		if err != nil {
			t.Fatal(err)
		}
		data, err := NewData(ds, rc.TrainSize, rc.TestSize, rc.Seed)
		if err != nil {
			t.Fatal(err)
		}
		for di, d := range rc.D {
			for k := range 2 {
				tr, err := newTrial(data, &rc, d, TrialSeed(rc.Seed, di, k))
				if err != nil {
					t.Fatal(err)
				}
				if err := tr.Run(nil); err != nil {
					t.Fatal(err)
				}
				if err := enc.Encode([]any{tr.History(), tr.Final().Networks, tr.Snapshots()}); err != nil {
					t.Fatal(err)
				}
			}
		}
		res, err := Sweep(context.Background(), ds, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i := range res.Points {
			for k := range res.Points[i].Trials {
				res.Points[i].Trials[k].Seconds = 0
			}
		}
		if err := enc.Encode(res.Points); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", h.Sum(nil)); got != c.want {
			t.Errorf("%s: sha256 %s, want %s", c.name, got, c.want)
		}
	}
}
