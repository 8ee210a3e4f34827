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

// Kinds lists the model kinds in the order help texts name them.
func Kinds() []Kind { return []Kind{Gauss, Binary, Finite} }

// ParseKind checks a kind name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", &configError{fmt.Errorf("model kind %q: want gauss, binary or finite", s)}
}

// Parse decodes a model of kind k from its --config JSON.
func Parse(k Kind, b []byte) (Model, error) {
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
		_, err = ParseKind(string(k))
		return nil, err
	}
	if err != nil {
		return nil, &configError{fmt.Errorf("not a valid %s model: %w", k, err)}
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
		return nil, errorf("a finite model needs a --config file (docs/finite.md); there is no default")
	}
	_, err := ParseKind(string(k))
	return nil, err
}

// Load reads a model of kind k from path (once, ReadFile), or returns
// Paper(k) when path is "". Errors name the file.
func Load(ctx context.Context, k Kind, path string) (Model, error) {
	if path == "" {
		return Paper(k)
	}
	b, err := ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	m, err := Parse(k, b)
	if err != nil {
		if other, ok := detectKind(b); ok && other != k {
			return nil, fmt.Errorf("%s: %w (the file looks like a %s model)", path, err, other)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ReadFile reads a model file once: a regular file of at most 64 MiB
// (safefile.Read). Errors wrap ErrConfig (or ctx's error) and name the file.
func ReadFile(ctx context.Context, path string) ([]byte, error) {
	b, err := safefile.Read(ctx, path, maxConfigBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, &configError{err}
	}
	return b, nil
}
