// Command datafixtures writes the committed example datasets of mmds train
// data (docs/data.md) into a folder (default examples/data):
//
//	continuous.csv  3,000 rows: X ~ N(0, 1); the reconstructor's y = X + N(0, 0.6²);
//	                adversary 1's z1 = |X| + N(0, 0.3²) (the magnitude of X, a
//	                non-Gaussian twist no linear estimator of X can use); adversary
//	                2's z2 = X + Laplace noise of scale 0.8 (heavy tails)
//	discrete.csv    3,000 rows: X ∈ {0, 1, 2} with prior (0.5, 0.3, 0.2); y, z1, z2
//	                are X through symmetric channels that keep X with probability
//	                0.8, 0.65 and 0.55 and else pick one of the other two values
//	                uniformly
//	bad-nan.csv     3 rows, a NaN in row 2: the example of a refusal
//
// Each file is drawn from its own PCG stream with a fixed seed, so running the
// command again rewrites the same bytes: go run ./scripts/datafixtures.
package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

const rows = 3000

func main() {
	dir := "examples/data"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := write(filepath.Join(dir, "continuous.csv"), continuous); err != nil {
		fmt.Fprintln(os.Stderr, "datafixtures:", err)
		os.Exit(1)
	}
	if err := write(filepath.Join(dir, "discrete.csv"), discrete); err != nil {
		fmt.Fprintln(os.Stderr, "datafixtures:", err)
		os.Exit(1)
	}
	if err := write(filepath.Join(dir, "bad-nan.csv"), badNaN); err != nil {
		fmt.Fprintln(os.Stderr, "datafixtures:", err)
		os.Exit(1)
	}
}

func write(path string, gen func(w *bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	gen(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func continuous(w *bufio.Writer) {
	rng := rand.New(rand.NewPCG(1, 1))
	fmt.Fprintln(w, "x,y,z1,z2")
	for range rows {
		x := rng.NormFloat64()
		y := x + 0.6*rng.NormFloat64()
		z1 := math.Abs(x) + 0.3*rng.NormFloat64()
		u := rng.Float64() - 0.5
		z2 := x - 0.8*math.Copysign(math.Log(1-2*math.Abs(u)), u)
		fmt.Fprintf(w, "%.4f,%.4f,%.4f,%.4f\n", x, y, z1, z2)
	}
}

func discrete(w *bufio.Writer) {
	rng := rand.New(rand.NewPCG(2, 2))
	draw := func(p []float64) int {
		u, c := rng.Float64(), 0.0
		for k, v := range p {
			if c += v; u < c {
				return k
			}
		}
		return len(p) - 1
	}
	through := func(x int, keep float64) int {
		if rng.Float64() < keep {
			return x
		}
		return (x + 1 + rng.IntN(2)) % 3
	}
	fmt.Fprintln(w, "x,y,z1,z2")
	for range rows {
		x := draw([]float64{0.5, 0.3, 0.2})
		fmt.Fprintf(w, "%d,%d,%d,%d\n", x, through(x, 0.8), through(x, 0.65), through(x, 0.55))
	}
}

func badNaN(w *bufio.Writer) {
	fmt.Fprint(w, "x,y,z1,z2\n1,0,1,1\n0,NaN,1,0\n1,1,0,1\n")
}
