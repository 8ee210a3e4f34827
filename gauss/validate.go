package gauss

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// psdTol is the relative tolerance of the PSD test: the smallest eigenvalue
// must be ≥ −psdTol·max(1, λ_max). Eigenvalues of an exactly singular matrix
// come out of float64 arithmetic near −1e-16·λ_max; a real violation (a
// correlation matrix that no random vector can have) is far larger.
const psdTol = 1e-10

// symTol is the relative tolerance for symmetry of cov and corr.
const symTol = 1e-12

// checkNames validates names and returns the name → index map.
func checkNames(names []string) (map[string]int, error) {
	if len(names) == 0 {
		return nil, configErr(`"names" is missing or empty: list the variables, e.g. ["X","Y","Z1","Z2"]`)
	}
	if len(names) > MaxVars {
		return nil, configErr(`"names" has %d entries; at most %d are allowed`, len(names), MaxVars)
	}
	idx := make(map[string]int, len(names))
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			return nil, configErr("names[%d] is empty: every variable needs a name", i)
		}
		if j, dup := idx[n]; dup {
			return nil, configErr("names[%d] = %q duplicates names[%d]: names must be unique", i, n, j)
		}
		idx[n] = i
	}
	return idx, nil
}

// checkMean validates the optional mean vector (default zeros).
func checkMean(mean []float64, names []string) ([]float64, error) {
	if mean == nil {
		return make([]float64, len(names)), nil
	}
	if len(mean) != len(names) {
		return nil, configErr(`"mean" has %d entries but "names" has %d: sizes must match`, len(mean), len(names))
	}
	for i, m := range mean {
		if !finite(m) {
			return nil, configErr("mean[%d] (%s) = %g: must be a finite number", i, names[i], m)
		}
	}
	return append([]float64(nil), mean...), nil
}

// buildCov returns the covariance from either cov or var+corr, after the
// entry-wise checks (sizes, finite, positive variances, |ρ| ≤ 1, symmetry).
func buildCov(c Config) (*mat.SymDense, error) {
	hasCov := c.Cov != nil
	hasVC := c.Var != nil || c.Corr != nil
	switch {
	case hasCov && hasVC:
		return nil, configErr(`give either "cov" or "var" with "corr", not both`)
	case hasCov:
		return covFromCov(c.Cov, c.Names)
	case c.Var == nil || c.Corr == nil:
		return nil, configErr(`second moments missing: give "cov", or both "var" and "corr"`)
	}
	return covFromVarCorr(c.Var, c.Corr, c.Names)
}

func checkSquare(field string, m [][]float64, names []string) error {
	if len(m) != len(names) {
		return configErr("%q has %d rows but \"names\" has %d: it must be %d×%d", field, len(m), len(names), len(names), len(names))
	}
	for i, row := range m {
		if len(row) != len(names) {
			return configErr("%s[%d] (%s) has %d entries: it must have %d", field, i, names[i], len(row), len(names))
		}
	}
	return nil
}

func checkVariance(field string, i int, name string, v float64) error {
	if !finite(v) || v <= 0 {
		return configErr("%s (%s) = %g: a variance must be finite and > 0", field, name, v)
	}
	return nil
}

func covFromVarCorr(vars []float64, corr [][]float64, names []string) (*mat.SymDense, error) {
	n := len(names)
	if len(vars) != n {
		return nil, configErr(`"var" has %d entries but "names" has %d: sizes must match`, len(vars), n)
	}
	for i, v := range vars {
		if err := checkVariance(fmt.Sprintf("var[%d]", i), i, names[i], v); err != nil {
			return nil, err
		}
	}
	if err := checkSquare("corr", corr, names); err != nil {
		return nil, err
	}
	cov := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		if corr[i][i] != 1 {
			return nil, configErr("corr[%d][%d] (%s,%s) = %g: a diagonal correlation must be 1", i, i, names[i], names[i], corr[i][i])
		}
		for j := 0; j < i; j++ {
			r, rt := corr[i][j], corr[j][i]
			for _, e := range [][2]int{{j, i}, {i, j}} { // upper triangle first: the order people read
				if v := corr[e[0]][e[1]]; !finite(v) || math.Abs(v) > 1 {
					return nil, configErr("corr[%d][%d] (%s,%s) = %g: a correlation must be in [-1, 1]", e[0], e[1], names[e[0]], names[e[1]], v)
				}
			}
			if math.Abs(r-rt) > symTol {
				return nil, configErr("corr is not symmetric: corr[%d][%d] (%s,%s) = %g but corr[%d][%d] = %g", i, j, names[i], names[j], r, j, i, rt)
			}
			cov.SetSym(i, j, r*math.Sqrt(vars[i])*math.Sqrt(vars[j]))
		}
		cov.SetSym(i, i, vars[i])
	}
	return cov, nil
}

func covFromCov(c [][]float64, names []string) (*mat.SymDense, error) {
	n := len(names)
	if err := checkSquare("cov", c, names); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		if err := checkVariance(fmt.Sprintf("cov[%d][%d]", i, i), i, names[i], c[i][i]); err != nil {
			return nil, err
		}
	}
	cov := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		cov.SetSym(i, i, c[i][i])
		for j := 0; j < i; j++ {
			v, vt := c[i][j], c[j][i]
			if !finite(v) {
				return nil, configErr("cov[%d][%d] (%s,%s) = %g: must be a finite number", i, j, names[i], names[j], v)
			}
			if math.Abs(v-vt) > symTol*math.Max(math.Abs(v), math.Abs(vt)) {
				return nil, configErr("cov is not symmetric: cov[%d][%d] (%s,%s) = %g but cov[%d][%d] = %g", i, j, names[i], names[j], v, j, i, vt)
			}
			// Cauchy–Schwarz: the implied correlation must be in [-1, 1].
			if bound := math.Sqrt(c[i][i]) * math.Sqrt(c[j][j]); math.Abs(v) > bound*(1+symTol) {
				return nil, configErr("cov[%d][%d] (%s,%s) = %g implies correlation %g: |cov| must be ≤ sqrt(var·var) = %g", i, j, names[i], names[j], v, v/bound, bound)
			}
			cov.SetSym(i, j, v)
		}
	}
	return cov, nil
}

// checkPSD returns the smallest eigenvalue of the correlation matrix
// D^{-1/2} Σ D^{-1/2} (scale-free, so one tolerance fits every model), or an
// error naming it when Σ is not positive semidefinite within psdTol. A
// correlation matrix has trace n, so λ_max ≥ 1 and psdTol is relative to it.
func checkPSD(cov *mat.SymDense) (float64, error) {
	n := cov.SymmetricDim()
	corr := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			corr.SetSym(i, j, cov.At(i, j)/(math.Sqrt(cov.At(i, i))*math.Sqrt(cov.At(j, j))))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(corr, false) {
		return 0, configErr("the correlation matrix: eigen-decomposition failed")
	}
	lo := eig.Values(nil)[0] // ascending
	if !finite(lo) {
		return 0, configErr("the correlation matrix has non-finite eigenvalues (entries too extreme?)")
	}
	if lo < -psdTol {
		return lo, configErr("the correlation matrix is not positive semidefinite: smallest eigenvalue %.6g, must be ≥ 0 (no jointly Gaussian vector has these moments)", lo)
	}
	return lo, nil
}

// resolveSide maps a list of side-variable names to indices (m's names
// and private variable resolved).
func (m *Model) resolveSide(field string, side []string) ([]int, error) {
	out := make([]int, 0, len(side))
	seen := make(map[string]bool, len(side))
	for i, n := range side {
		j, ok := m.index[n]
		switch {
		case !ok:
			return nil, configErr("%s[%d] = %q: unknown variable (known: %s)", field, i, n, strings.Join(m.names, ", "))
		case j == m.private:
			return nil, configErr("%s[%d] = %q is the private variable: side information must be other variables", field, i, n)
		case seen[n]:
			return nil, configErr("%s[%d] = %q is listed twice", field, i, n)
		}
		seen[n] = true
		out = append(out, j)
	}
	return out, nil
}
