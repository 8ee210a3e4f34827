package model

import (
	"context"
	"fmt"

	"github.com/mmds-project/mmds/bayes"
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
// kind accepts a file.
func Detect(b []byte) (Model, error) {
	var errs []error
	for _, k := range Kinds() {
		m, err := Parse(k, b)
		if err == nil {
			return m, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("%w: not a gauss, binary or finite model file (gauss: %v; binary: %v; finite: %v)", ErrConfig, errs[0], errs[1], errs[2])
}

// checkRounding refuses a network whose forward error bound on P(F = 1 | x)
// exceeds the tolerance; the bound itself is already in r.Bound.
func checkRounding(r *privatizer.NetworkLosses, o Options) error {
	if r.Rounding > o.roundingTol() {
		return fmt.Errorf("%w: the runtime's P(F = 1 | x) is within %.3g of the certified one (forward error bound of the network's precision), above the tolerance %.3g", network.ErrPrecision, r.Rounding, o.roundingTol())
	}
	return nil
}
