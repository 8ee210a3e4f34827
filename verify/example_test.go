package verify_test

import (
	"fmt"

	"github.com/mmds-project/mmds/verify"
)

// A verdict: the certified point lies in its distortion band and leaks a
// little more than the optimum, within tolerance.
func ExampleVerdict() {
	pass, verdict := verify.Verdict(verify.Assessment{
		D: 2, Recon: 1.97, MinAdv: 2.25, Optimum: 2.30,
		BandLo: 1.71, BandHi: 2.19, AdvTol: 0.22, Change: 1e-4, QuadTol: verify.DefaultQuadTol,
	})
	fmt.Println(pass, verdict)
	pass, verdict = verify.Verdict(verify.Assessment{
		D: 2, Recon: 1.2, MinAdv: 1.3, Optimum: 1.5,
		BandLo: 1.71, BandHi: 2.19, AdvTol: 0.15, Change: 1e-4, QuadTol: verify.DefaultQuadTol,
	})
	fmt.Println(pass, verdict)
	// Output:
	// true pass
	// false fail: distortion 1.2 outside [1.71, 2.19]; gap 0.2 > 0.15
}
