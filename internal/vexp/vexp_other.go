//go:build !amd64 || purego

package vexp

const vector = false

func exp4(dst, src *float64, n int) int { panic("vexp: no vector kernel") }

func sigm4(dst, src *float64, n int) int { panic("vexp: no vector kernel") }
