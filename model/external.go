package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
)

// CertifyFile computes the exact Bayes losses of a privatizer trained
// anywhere (package privatizer: a channel P(F | X), or a network k(x, r) from
// the JSON layout or ONNX) on m:
//
//   - a channel on a binary or finite model: exact finite sums;
//   - a network on a binary or finite model: the channel p_x = E_R[k(x, R)]
//     it releases (exact per activation region for ReLU networks, sampled
//     with a proven bound for smooth ones) and that channel's losses;
//     Change is the bound;
//   - a network on the Gaussian model: bayes.CertifyGauss on the faces of
//     the network's linear regions (identity/ReLU activations; others
//     cannot be certified: an error wrapping bayes.ErrCannotCertify).
//
// A network is certified as the function a runtime in its precision
// (network.Float32 or Float64) computes: on binary and finite models the
// rows' error bounds include the forward error bound δ, and on every model a
// δ above
// o.RoundingTol (absolute on binary and finite models, relative to √Var[F]
// on the Gaussian model) is an error wrapping network.ErrPrecision.
//
// A channel on the Gaussian model, or a size that does not fit m, is an
// error wrapping privatizer.ErrInput.
func CertifyFile(ctx context.Context, m Model, f privatizer.File, o Options, tol float64) (Certificate, error) {
	switch mm := m.(type) {
	case BinaryModel:
		if f.Channel != nil {
			l, err := f.Channel.BinaryLosses(mm.M)
			return Certificate{Losses: l}, err
		}
		r, err := privatizer.NetworkBinaryLosses(ctx, f.Network, mm.M, tol)
		if err != nil {
			return Certificate{}, err
		}
		if err := checkRounding(r, o); err != nil {
			return Certificate{}, err
		}
		return Certificate{Losses: r.Losses, Change: r.Bound}, nil
	case FiniteModel:
		if f.Channel != nil {
			l, err := f.Channel.FiniteLosses(mm.M)
			return Certificate{Losses: l}, err
		}
		r, err := privatizer.NetworkFiniteLosses(ctx, f.Network, mm.M, tol)
		if err != nil {
			return Certificate{}, err
		}
		if err := checkRounding(r, o); err != nil {
			return Certificate{}, err
		}
		return Certificate{Losses: r.Losses, Change: r.Bound}, nil
	case GaussModel:
		if f.Channel != nil {
			return Certificate{}, fmt.Errorf("%w: a channel P(F | X) needs a finite X; the Gaussian model certifies networks k(x, r)", privatizer.ErrInput)
		}
		k, err := bayes.FromNetwork(f.Network)
		if err != nil {
			return Certificate{}, err
		}
		return mm.Certify(k, o)
	}
	return Certificate{}, fmt.Errorf("%w: %s models", ErrUnsupported, m.Kind())
}

// Detect parses a model file of any kind: the three --config formats have
// disjoint required fields and unknown fields are errors, so at most one
// kind accepts a file. A file no kind accepts gets the error of the kind
// its keys point to (detectKind), not three parsers' errors at once.
func Detect(b []byte) (Model, error) {
	errs := map[Kind]error{}
	for _, k := range Kinds() {
		m, err := Parse(k, b)
		if err == nil {
			return m, nil
		}
		errs[k] = err
	}
	if k, ok := detectKind(b); ok {
		return nil, errs[k]
	}
	var v map[string]json.RawMessage
	if err := jsonconf.Unmarshal(b, &v); err != nil {
		return nil, &configError{err} // not JSON, or not an object
	}
	return nil, &configError{errors.New(`not a model file: want the fields of a gauss model ("names", "cov" or "var" and "corr", "private", …), a binary one ("p", "q_y", "q_z") or a finite one ("prior", "reconstructor", "adversaries")`)}
}

// detectKind names the kind whose own top-level keys a JSON object uses
// most: gauss's "names", "cov", …, binary's "p", "q_y", "q_z", finite's
// "prior" ("reconstructor" and "adversaries" are common to gauss and
// finite). It reports false for no object or no clear winner.
func detectKind(b []byte) (Kind, bool) {
	var v map[string]json.RawMessage
	if json.Unmarshal(b, &v) != nil {
		return "", false
	}
	own := map[Kind][]string{
		Gauss:  {"names", "mean", "var", "corr", "cov", "private", "coalitions"},
		Binary: {"p", "q_y", "q_z"},
		Finite: {"prior"},
	}
	best, bestN, tie := Kind(""), 0, false
	for _, k := range Kinds() {
		n := 0
		for _, key := range own[k] {
			if _, ok := v[key]; ok {
				n++
			}
		}
		switch {
		case n > bestN:
			best, bestN, tie = k, n, false
		case n == bestN && n > 0:
			tie = true
		}
	}
	return best, bestN > 0 && !tie
}

// checkRounding refuses a network whose forward error bound on P(F = 1 | x)
// exceeds the tolerance; the bound itself is already in r.Bound.
func checkRounding(r *privatizer.NetworkLosses, o Options) error {
	if r.Rounding > o.roundingTol() {
		return fmt.Errorf("%w: the runtime's P(F = 1 | x) is within %.3g of the certified one (forward error bound of the network's precision), above the tolerance %.3g", network.ErrPrecision, r.Rounding, o.roundingTol())
	}
	return nil
}
