package bayes

import (
	"testing"

	"github.com/mmds-project/mmds/gauss"
)

// BenchmarkCertifyGauss certifies the trained privatizers of the paper
// sweep's ends (verify/testdata): D = 0.005 is the costly one, its x step
// following bins of width σ_n/16 at the steepest slope.
func BenchmarkCertifyGauss(b *testing.B) {
	m := gauss.Paper()
	for _, c := range []struct{ name, file string }{{"D=0.005", "gauss_privatizer_d0.005.json"}, {"D=5.76", "gauss_privatizer_d5.76.json"}} {
		b.Run(c.name, func(b *testing.B) {
			_, k := loadPrivatizer(b, c.file)
			for b.Loop() {
				if _, err := CertifyGauss(m, k, GaussQuad{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
