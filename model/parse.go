package model

import (
	"context"
	"fmt"

	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/mip"
)

// maxConfigBytes bounds a model file.
const maxConfigBytes = 64 << 20

// Parse decodes a model file of any kind, detected: the three --config
// formats have disjoint required fields and unknown fields are errors, so
// at most one kind accepts a file. An error wraps ErrConfig and says why
// each kind refused the file.
func Parse(b []byte) (Model, error) {
	var errs []error
	for _, k := range Kinds() {
		m, err := ParseAs(k, b)
		if err == nil {
			return m, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("%w: not a gauss, binary or finite model file (gauss: %v; binary: %v; finite: %v)", ErrConfig, errs[0], errs[1], errs[2])
}

// ParseAs decodes a model of kind k from its --config JSON: a file that
// must be of that kind (results.json names it).
func ParseAs(k Kind, b []byte) (Model, error) {
	var (
		m   Model
		err error
	)
	switch k {
	case Gauss:
		m, err = parseGauss(b)
	case Binary:
		m, err = parseBinary(b)
	case Finite:
		m, err = parseFinite(b)
	default:
		return nil, fmt.Errorf("%w: %v is not a model kind", ErrConfig, k)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: not a valid %s model: %w", ErrConfig, k, err)
	}
	return m, nil
}

// Paper returns the paper's model of kind k (Section V): the Gaussian model
// of V-A or the binary model of V-B. Finite models have no default.
func Paper(k Kind) (Model, error) {
	switch k {
	case Gauss:
		return NewGauss(gauss.Paper()), nil
	case Binary:
		return NewBinary(mip.PaperBinary()), nil
	case Finite:
		return nil, errorf("a finite model needs a --config file (mip.FiniteConfig JSON); there is no default")
	}
	return nil, fmt.Errorf("%w: %v is not a model kind", ErrConfig, k)
}

// Load reads a model file of any kind (ReadFile, then Parse). Errors wrap
// ErrConfig (or ctx's error) and name the file.
func Load(ctx context.Context, path string) (Model, error) {
	return load(ctx, path, Parse)
}

// LoadAs reads a model file that must be of kind k (ReadFile, then
// ParseAs). Errors wrap ErrConfig (or ctx's error) and name the file.
func LoadAs(ctx context.Context, k Kind, path string) (Model, error) {
	return load(ctx, path, func(b []byte) (Model, error) { return ParseAs(k, b) })
}

func load(ctx context.Context, path string, parse func([]byte) (Model, error)) (Model, error) {
	b, err := ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	m, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", safefile.Path(path), err)
	}
	return m, nil
}

// LoadGauss reads a Gaussian model file (LoadAs), for the commands that
// work on that kind alone.
func LoadGauss(ctx context.Context, path string) (GaussModel, error) {
	return loadKind[GaussModel](ctx, Gauss, path)
}

// LoadBinary reads a binary model file (LoadAs).
func LoadBinary(ctx context.Context, path string) (BinaryModel, error) {
	return loadKind[BinaryModel](ctx, Binary, path)
}

// LoadFinite reads a finite model file (LoadAs).
func LoadFinite(ctx context.Context, path string) (FiniteModel, error) {
	return loadKind[FiniteModel](ctx, Finite, path)
}

func loadKind[T Model](ctx context.Context, k Kind, path string) (T, error) {
	var zero T
	m, err := LoadAs(ctx, k, path)
	if err != nil {
		return zero, err
	}
	return m.(T), nil // ParseAs(k) returns k's type
}

// ReadFile reads a model file once: a regular file of at most 64 MiB
// (safefile.Read). Errors wrap ErrConfig (or ctx's error) and name the file.
func ReadFile(ctx context.Context, path string) ([]byte, error) {
	b, err := safefile.Read(ctx, path, maxConfigBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return b, nil
}
