package bayes

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/mmds-project/mmds/gauss"
)

// BenchmarkCertifyGauss certifies the quick run's privatizers at the ends of
// the paper sweep (testdata), three losses each. cpu-s/op is the process's
// CPU time per certificate (the losses are certified in parallel, so wall
// time understates the work); scripts/bench-gauss-certify.sh sets it beside
// an independent numpy computation of the same losses.
func BenchmarkCertifyGauss(b *testing.B) {
	m := gauss.Paper()
	for _, c := range []struct{ name, file string }{{"D=0.005", "gauss_privatizer_d0.005.json"}, {"D=5.76", "gauss_privatizer_d5.76.json"}} {
		b.Run(c.name, func(b *testing.B) {
			_, k := loadPrivatizer(b, c.file)
			start := processCPU()
			for b.Loop() {
				if _, err := CertifyGauss(context.Background(), m, k, GaussQuad{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((processCPU()-start).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
