package learn_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model/kind"
)

// Example runs a tiny sweep on a binary dataset the way the CLI does: draw
// the columns, start from a preset, set the thresholds, and call Sweep (with
// Dir set it would also write results.json and resume).
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 1200
	x, y, z := make([]float64, n), make([]float64, n), make([]float64, n)
	flip := func(v, q float64) float64 {
		if rng.Float64() < q {
			return 1 - v
		}
		return v
	}
	for r := range n {
		if rng.Float64() < 0.54 {
			x[r] = 1
		}
		y[r], z[r] = flip(x[r], 0.2), flip(x[r], 0.44)
	}
	ds := &learn.Dataset{X: x, Y: [][]float64{y}, Z: [][][]float64{{z}}}

	cfg, err := learn.Preset(learn.PresetQuick, kind.Binary)
	if err != nil {
		panic(err)
	}
	cfg.D, cfg.DMax = []float64{0.1, 0.2}, 0.2
	cfg.Epochs, cfg.Seed, cfg.Workers = 3, 1, 2
	res, err := learn.Sweep(context.Background(), ds, cfg)
	if err != nil {
		panic(err)
	}
	// τ defaults to (DMax − D[0]) / (2·len(D)) = 0.1/4.
	fmt.Printf("τ = %g\n", res.Config.Protocol.Tau)
	for _, p := range res.Points {
		fmt.Printf("D = %g: within the attempt cap: %v\n", p.D, p.Attempted <= cfg.Protocol.MaxAttempts)
	}
	// Output:
	// τ = 0.025
	// D = 0.1: within the attempt cap: true
	// D = 0.2: within the attempt cap: true
}
