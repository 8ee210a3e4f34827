package bayes_test

import (
	"context"
	"fmt"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/network"
)

// A binary privatizer that uses its noise input: k(x, r) = 0.9 when x = 1
// and r > 0, else 0.2. It releases F = 1 with probability E_R[k(x, R)], so
// s0 = 1 − 0.2 = 0.8 and s1 = (0.9 + 0.2)/2 = 0.55, and the certificate gives
// the exact MAP losses of that channel (Appendix B): this one tells the
// reconstructor nothing beyond Y (L_recon = q_Y = 0.2).
func ExampleCertifyBinary() {
	k := bayes.Privatizer{
		K: func(x, r float64) float64 {
			if x == 1 && r > 0 {
				return 0.9
			}
			return 0.2
		},
		Kinks: func(x float64, dst []float64) []float64 { return append(dst, 0) },
	}
	c, err := bayes.CertifyBinary(mip.PaperBinary(), k, bayes.BinaryQuad{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("s0 = %.4f, s1 = %.4f\n", c.S0, c.S1)
	fmt.Printf("L_recon = %.4f, L_adv = %.4f\n", c.Recon, c.Adv[0])
	// Output:
	// s0 = 0.8000, s1 = 0.5500
	// L_recon = 0.2000, L_adv = 0.3350
}

// The certificate of the linear-Gaussian privatizer that Proposition 1 finds
// optimal at D = 2 reproduces its losses.
func ExampleCertifyGauss() {
	m := gauss.Paper()
	opt, _ := m.Optimum(2)
	// k(x, r) = a·x + b·r: one affine layer
	net := &network.Network{Inputs: []string{"x", "r"},
		Layers: []network.Layer{{W: [][]float64{{opt.A, opt.B}}, B: []float64{0}, Act: network.Identity}}}
	k, err := bayes.FromNetwork(net)
	if err != nil {
		panic(err)
	}
	c, err := bayes.CertifyGauss(context.Background(), m, k, bayes.GaussQuad{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("certified: recon %.2f, adversaries %.2f %.2f\n", c.Recon, c.Adv[0], c.Adv[1])
	fmt.Printf("Prop. 1:   recon %.2f, adversaries %.2f %.2f\n", opt.Recon, opt.Adv[0], opt.Adv[1])
	fmt.Printf("linear fit: a = %.4f, b = %.4f, nonlinearity %.3f\n", c.Fit.A, c.Fit.B, c.Fit.Nonlinearity)
	// Output:
	// certified: recon 2.00, adversaries 2.57 2.30
	// Prop. 1:   recon 2.00, adversaries 2.57 2.30
	// linear fit: a = 0.5713, b = 1.0000, nonlinearity 0.000
}
