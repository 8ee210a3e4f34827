package learn

import "math"

// The element-wise passes of bayesRisk.risk over the cells (v, l) of one
// side value, label-innermost (m labels a row). Each runs the vector kernel
// where it is in use (bayesrisk_amd64.s: four labels at a time, every
// operation an IEEE add, multiply or divide of one cell rounded as the
// scalar loop rounds it, no fused multiply-add) on the leading labels, and
// its scalar twin on the rest; the scalar twins alone in the portable build
// (-tags purego). The explicit float64 conversions keep a compiler from
// fusing a multiply and an add.

// accRows adds, for each row r < rows and label l < m,
//
//	out[r*m+l] += Σ_{j<terms} k[r*kr+j*kj] · q[j*m+l],
//
// in j order, one rounded product and one rounded sum per term.
func accRows(out, k, q []float64, rows, terms, m, kr, kj int) {
	if rows == 0 || terms == 0 || m == 0 {
		return
	}
	_, _, _ = out[rows*m-1], k[(rows-1)*kr+(terms-1)*kj], q[terms*m-1]
	accRowsScalar(out, k, q, rows, terms, m, kr, kj, accRowsKernel(out, k, q, rows, terms, m, kr, kj))
}

func accRowsScalar(out, k, q []float64, rows, terms, m, kr, kj, l0 int) {
	if l0 == m {
		return
	}
	for r := range rows {
		o := out[r*m : r*m+m]
		for j := range terms {
			kv, qj := k[r*kr+j*kj], q[j*m:j*m+m]
			for l := l0; l < m; l++ {
				o[l] += float64(kv * qj[l])
			}
		}
	}
}

// minRows writes each cell's least unnormalized risk best[l] = min_a
// c[a*m+l] and its estimate ab[l], the lowest index on ties (+Inf and 0
// when no risk is below +Inf).
func minRows(best []float64, ab []int, c []float64, na, m int) {
	if m == 0 {
		return
	}
	_, _ = best[m-1], ab[m-1]
	if na > 0 {
		_ = c[na*m-1]
	}
	minRowsScalar(best, ab, c, na, m, minRowsKernel(best, ab, c, na, m))
}

func minRowsScalar(best []float64, ab []int, c []float64, na, m, l0 int) {
	for l := l0; l < m; l++ {
		best[l], ab[l] = math.Inf(1), 0
		for a := range na {
			if s := c[a*m+l]; s < best[l] {
				best[l], ab[l] = s, a
			}
		}
	}
}

// softWeights writes the exponents of the soft minimum of each cell's
// posterior risks c[a*m+l]/cm[l] (a < na), shifted by the least,
//
//	w[a*m+l] = −(c[a*m+l]/cm[l] − best[l]/cm[l]) / τ,
//
// and 0 in the cells of mass cm[l] ≤ 0.
func softWeights(w, c, cm, best []float64, na, m int, tau float64) {
	if na == 0 || m == 0 {
		return
	}
	_, _, _, _ = w[na*m-1], c[na*m-1], cm[m-1], best[m-1]
	softWeightsScalar(w, c, cm, best, na, m, tau, softWeightsKernel(w, c, cm, best, na, m, tau))
}

func softWeightsScalar(w, c, cm, best []float64, na, m int, tau float64, l0 int) {
	for l := l0; l < m; l++ {
		if cm[l] <= 0 {
			for a := range na {
				w[a*m+l] = 0
			}
			continue
		}
		rmin := best[l] / cm[l]
		for a := range na {
			w[a*m+l] = -(c[a*m+l]/cm[l] - rmin) / tau
		}
	}
}

// normalize divides each cell's weights by their sum z[l] and writes the
// weighted posterior risk wr[l] = Σ_a (w[a*m+l]·c[a*m+l]) / cm[l], in a order.
func normalize(w, c, cm, z, wr []float64, na, m int) {
	if na == 0 || m == 0 {
		return
	}
	_, _, _, _, _ = w[na*m-1], c[na*m-1], cm[m-1], z[m-1], wr[m-1]
	normalizeScalar(w, c, cm, z, wr, na, m, normalizeKernel(w, c, cm, z, wr, na, m))
}

func normalizeScalar(w, c, cm, z, wr []float64, na, m, l0 int) {
	for l := l0; l < m; l++ {
		var s float64
		for a := range na {
			w[a*m+l] /= z[l]
			s += float64(w[a*m+l]*c[a*m+l]) / cm[l]
		}
		wr[l] = s
	}
}
