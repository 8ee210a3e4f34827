package learn

import (
	"context"
	"testing"

	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/model/kind"
)

// benchFiniteTrainer returns a finite Algorithm 1 trainer on the quick
// run's shape: examples/finite-random-n6-k2.json (|X| = 6, two adversaries,
// six side values each), the quick preset (50 hidden units, minibatches
// of 200, 50 a epoch), 12,000 samples, at the sweep's second threshold.
func benchFiniteTrainer(b testing.TB) *finiteTrainer {
	m, err := model.Load(context.Background(), "../examples/finite-random-n6-k2.json")
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := PresetFor(PresetQuick, kind.Finite, MethodAlg1, 0)
	if err != nil {
		b.Fatal(err)
	}
	tr, err := NewTraining(m, cfg, TrainRequest{Preset: PresetQuick, Seed: 1, Samples: DefaultSamples})
	if err != nil {
		b.Fatal(err)
	}
	rc, err := tr.Config.resolve(len(tr.Data.X))
	if err != nil {
		b.Fatal(err)
	}
	data, err := NewData(tr.Data, rc.TrainSize, rc.TestSize, rc.Seed)
	if err != nil {
		b.Fatal(err)
	}
	t, err := newFiniteTrainer(data, &rc, rc.D[1], TrialSeed(rc.Seed, 1, 0))
	if err != nil {
		b.Fatal(err)
	}
	t.cfg.Epochs = 1
	if err := t.Run(nil); err != nil { // warm up: leave the initial state
		b.Fatal(err)
	}
	return t
}

// BenchmarkFiniteAlg1Epoch is one epoch of finite Algorithm 1 on the quick
// run's shape (50 iterations of the privatizer's and three observers'
// steps, then the test split's evaluation), with the process's CPU time
// per epoch (cpu-ns/op).
func BenchmarkFiniteAlg1Epoch(b *testing.B) {
	t := benchFiniteTrainer(b)
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if err := t.Run(nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
