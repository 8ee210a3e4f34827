//go:build !amd64 || purego

package stdnormal

const millsVector = false

func mills4(dst, src *float64, n int) int { panic("stdnormal: no vector kernel") }
