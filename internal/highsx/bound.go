package highsx

import "math"

// DualBound is a bound on a model's optimum proven from row multipliers
// (Problem.DualBound).
type DualBound struct {
	// Value bounds the objective of every feasible point: from above when
	// the model maximizes, from below when it minimizes. It includes an
	// allowance for the rounding of its own computation; +Inf (−Inf when
	// minimizing) when the multipliers prove nothing.
	Value float64
	// Y is the multipliers used: those given, with every one whose sign
	// would need an infinite row bound set to 0.
	Y []float64
}

// DualBound returns the bound that the row multipliers y prove on m's
// optimum by weak (Lagrangian) duality. For a maximization, with
// z = c − Aᵀy, every feasible x has
//
//	cᵀx = Σ_r y_r (Ax)_r + Σ_j z_j x_j ≤ Σ_r y_r·(U_r if y_r > 0, L_r if y_r < 0) + Σ_j z_j·(u_j if z_j > 0, l_j if z_j < 0),
//
// and a minimization is the same with the sides swapped. The bound holds
// for any y whatever its source — an LP solver's duals, taken at face value
// (the reduced costs z are recomputed here, so a dual infeasibility costs
// tightness, never validity); the rounding of the computation is covered
// by Higham's γ_k = k·u/(1 − k·u) applied to the sum of magnitudes. It is
// tight (up to the solver's tolerances) when y is an optimal dual of the
// LP. Integrality is ignored: for a MIP it bounds the LP relaxation, and so
// the MIP.
func (m *Problem) DualBound(y []float64) DualBound {
	if len(y) != m.NumRows() {
		panic("highsx: DualBound needs one multiplier per row")
	}
	sign := 1.0 // the objective as a maximization: sign·c
	if !m.Maximize {
		sign = -1
	}
	// Project: a multiplier that would pair with an infinite side is 0.
	// (In maximization form the multiplier of row r is sign·y_r.)
	yy := make([]float64, len(y))
	var value, mag float64
	for r, v := range y {
		lo, hi := m.rowLower[r], m.rowUpper[r]
		switch s := sign * v; {
		case s > 0 && !math.IsInf(hi, 1):
			yy[r] = v
			value += s * hi
			mag += math.Abs(s * hi)
		case s < 0 && !math.IsInf(lo, -1):
			yy[r] = v
			value += s * lo
			mag += math.Abs(s * lo)
		}
	}
	// z = sign·c − Aᵀ(sign·y), accumulated row by row; zmag bounds the
	// magnitudes that entered each z_j.
	n := m.NumCols()
	z := make([]float64, n)
	zmag := make([]float64, n)
	for j := range n {
		z[j] = sign * m.Cost[j]
		zmag[j] = math.Abs(m.Cost[j])
	}
	ops := make([]int, n) // the operations that produced z_j
	for r, v := range yy {
		if v == 0 {
			continue
		}
		_, _, col, val := m.Row(r)
		for k, j := range col {
			z[j] -= sign * v * val[k]
			zmag[j] += math.Abs(v * val[k])
			ops[j] += 2
		}
	}
	var extra float64 // the rounding of z, bounded term by term
	for j := range n {
		lo, hi, zj := m.Lower[j], m.Upper[j], z[j]
		// |fl(z_j) − z_j| ≤ e (Higham, Section 3.1): the sign of z_j is
		// known only beyond e, and both bounds are needed within it.
		e := gamma(ops[j]+1) * zmag[j]
		var t, b float64 // the term and the largest |x_j| it allows
		switch {
		case zj > e:
			t, b = zj*hi, math.Abs(hi)
		case zj < -e:
			t, b = zj*lo, math.Abs(lo)
		case zj == 0 && e == 0:
			continue
		default:
			t, b = math.Max(zj*lo, zj*hi), math.Max(math.Abs(lo), math.Abs(hi))
			if math.IsInf(b, 0) {
				t = math.Inf(1)
			}
		}
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return DualBound{Value: sign * math.Inf(1), Y: yy}
		}
		value += t
		mag += math.Abs(t)
		extra += e * b
	}
	value += sign * m.Offset
	mag += math.Abs(m.Offset)
	// The sum of n + rows + 1 products.
	allowance := 2 * (extra + gamma(n+len(y)+2)*mag)
	return DualBound{Value: sign * (value + allowance), Y: yy}
}

// gamma is Higham's γ_k = k·u/(1 − k·u) with u = 2⁻⁵³, the relative error
// bound of k floating-point operations in sequence.
func gamma(k int) float64 {
	const u = 0x1p-53
	ku := float64(k) * u
	return ku / (1 - ku)
}
