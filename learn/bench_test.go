package learn

import (
	"syscall"
	"testing"

	"github.com/mmds-project/mmds/model/kind"
)

// benchTrainer returns a trainer with the paper's setup: 12,000 rows split
// 10,000/2,000, M = 200, 50 hidden units, two adversaries (Gaussian) or one
// (binary).
func benchTrainer(b testing.TB, model kind.Kind) *Trainer {
	ds, dmax, d := paperGauss(12000, 1), 5.76, 2.0
	if model == kind.Binary {
		ds, dmax, d = paperBinary(12000, 1), 0.2, 0.1
	}
	c, err := Preset(PresetPaper, model)
	if err != nil {
		b.Fatal(err)
	}
	c.D, c.DMax = []float64{d}, dmax
	tr := mustTrainer(b, mustData(b, ds, c), c, d, 1)
	tr.Epoch() // warm up: leave the initial state
	return tr
}

// BenchmarkMinibatchGauss is one iteration of Algorithm 1's loop body on the
// Gaussian model: privatizer, reconstructor and two adversary updates.
func BenchmarkMinibatchGauss(b *testing.B) {
	tr := benchTrainer(b, kind.Gauss)
	b.ReportAllocs()
	for b.Loop() {
		tr.Iteration()
	}
}

// BenchmarkEpochGauss is one epoch (50 minibatch iterations) on the Gaussian
// model, without the test-split evaluation. Besides wall time it reports the
// process's CPU time per epoch (cpu-ns/op), which a shared host inflates
// less; scripts/bench-epoch.sh compares both with PyTorch.
func BenchmarkEpochGauss(b *testing.B) {
	tr := benchTrainer(b, kind.Gauss)
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		tr.Epoch()
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkEpochBinary is one epoch on the binary model (one adversary).
func BenchmarkEpochBinary(b *testing.B) {
	tr := benchTrainer(b, kind.Binary)
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		tr.Epoch()
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// cpuTime returns the process's user + system CPU time in nanoseconds.
func cpuTime() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

// BenchmarkEvaluateGauss is the per-epoch evaluation on the 2,000 test rows.
func BenchmarkEvaluateGauss(b *testing.B) {
	tr := benchTrainer(b, kind.Gauss)
	b.ReportAllocs()
	for b.Loop() {
		tr.Evaluate()
		tr.hist.Recon = tr.hist.Recon[:0] // keep the history's capacity
		for i := range tr.hist.Adv {
			tr.hist.Adv[i] = tr.hist.Adv[i][:0]
		}
	}
}
