//go:build !amd64 || purego

package bayes

const termsVector = false

func faceTerms4(a, b, c, base, p1, p2, m1, m2, e1, e2, z1, z2, d *float64, n int, pref, sd float64) {
	panic("bayes: no vector kernel")
}
