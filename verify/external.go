package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/privatizer"
)

// DefaultExpectTol is the error bound to which the expectations
// E_R[k(x, R)] of a network are computed on binary and finite models
// (model.Options.ExpectTol).
const DefaultExpectTol = privatizer.DefaultTol

// Input is a privatizer trained anywhere, to be certified at threshold D.
type Input struct {
	D      float64
	Path   string // the privatizer file
	File   privatizer.File
	SHA256 string // of the file's bytes: what a certificate binds to
}

// readEntry returns the bytes of e's file, read once: as the user named
// it, else inside the folder of the file that names it (safefile.ReadIn:
// nothing outside that folder is read).
func readEntry(ctx context.Context, e Entry) ([]byte, error) {
	var b []byte
	var err error
	if e.Dir == "" {
		b, err = safefile.ReadNamed(ctx, e.Privatizer, e.Name, privatizer.MaxFileBytes)
	} else {
		b, err = safefile.ReadIn(ctx, e.Dir, e.Rel, e.Name, privatizer.MaxFileBytes)
	}
	switch {
	case err == nil:
		return b, nil
	case ctx.Err() != nil:
		return nil, err
	case errors.Is(err, safefile.ErrOutside):
		return nil, fmt.Errorf("%w: %w: a file named in a list or a certificate must be in its folder (pass it with --privatizer)", privatizer.ErrInput, err)
	}
	return nil, fmt.Errorf("%w: %w", privatizer.ErrInput, err)
}

// parseInput parses and hashes the bytes b of the privatizer file path,
// named name in messages: the hash a certificate binds is that of the
// bytes certified, whatever the file serves to another read.
func parseInput(d float64, path, name string, b []byte) (Input, error) {
	f, err := privatizer.ParseNamed(b, path, name)
	if err != nil {
		return Input{}, err
	}
	return Input{D: d, Path: path, File: f, SHA256: safefile.SHA256(b)}, nil
}

// CertifyExternal certifies privatizers trained elsewhere on m
// (model.Model.CertifyFile), one point per input in order (o.Workers at
// once; the report does not depend on it), under the same
// tolerances and verdict as Certify (τ defaults to half the step of the
// inputs' thresholds, as Section V; o.Model.ExpectTol is the error the
// network expectations are computed to). The report's ModelSHA256 is m's
// hash.
func CertifyExternal(ctx context.Context, m model.Model, in []Input, o Options) (*Report, error) {
	ds := make([]float64, len(in))
	for i, x := range in {
		ds[i] = x.D
	}
	slices.Sort(ds)
	ds = slices.Compact(ds)
	if err := o.resolve(ds, m); err != nil {
		return nil, err
	}
	h, err := model.Hash(m)
	if err != nil {
		return nil, err
	}
	o.known = newKnownRefs()
	rep := &Report{Model: m.Kind(), ModelSHA256: h, Tolerances: o.Tol, Points: make([]Point, len(in)), Witness: newCertWitness(m, o)}
	certs := make([]model.Analysis, len(in))
	err = eachPoint(ctx, len(in), o.Workers, o.Progress, func(i int) (err error) {
		rep.Points[i], err = certifyInput(ctx, m, i, in[i], o, &certs[i])
		return err
	})
	if err == nil {
		err = confirmFindings(ctx, m, certs, o.Tol.Abs*m.LossScale(), o.known, rep.Points, o.Workers)
	}
	if err != nil {
		return nil, err
	}
	rep.count()
	rep.Pass = rep.Pass && len(rep.Points) > 0
	return rep, nil
}

// certifyInput certifies input x as point i, leaving its certificate in
// cert.
func certifyInput(ctx context.Context, m model.Model, i int, x Input, o Options, cert *model.Analysis) (Point, error) {
	c, err := m.CertifyFile(ctx, x.File, o.Model)
	p := Point{DIndex: i, D: x.D, Status: StatusCertified, Finalized: true}
	if uncertifiable(err) {
		// The point names its file; the verdict does not, so that a
		// certificate checked from another folder reproduces it.
		cannotCertify(&p, err, x.File.Name())
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("%s: %w", x.Path, err)
	}
	if err := Judge(ctx, m, c, o, &p); err != nil {
		return p, fmt.Errorf("%s at D = %g: %w", x.Path, x.D, err)
	}
	*cert = c
	return p, nil
}
