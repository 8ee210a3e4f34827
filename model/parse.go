package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/safefile"
)

// maxConfigBytes bounds a model file.
const maxConfigBytes = 64 << 20

// Parse decodes a model file of any kind, detected: the three --config
// formats have disjoint required fields and unknown fields are errors, so
// at most one kind accepts a file. A file no kind accepts gets the error of
// the kind its keys point to (detectKind), not three parsers' errors at
// once; the error wraps ErrConfig.
func Parse(b []byte) (Model, error) {
	errs := map[Kind]error{}
	for _, k := range Kinds() {
		m, err := ParseAs(k, b)
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
	return nil, &configError{errors.New("not a model file: want the fields of " + kindFields())}
}

// kindFields names each kind's fields, for a file no kind reads: "a gauss
// model (…), a binary one (…) or a finite one (…)".
func kindFields() string {
	var parts []string
	for i, k := range Kinds() {
		noun := "one"
		if i == 0 {
			noun = "model"
		}
		parts = append(parts, fmt.Sprintf("a %s %s (%s)", k, noun, kindFiles[k].fields))
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// detectKind names the kind whose own top-level keys a JSON object uses
// most: gauss's "names", "cov", …, binary's "p", "q_y", "q_z", finite's
// "prior" ("reconstructor" and "adversaries" are common to gauss and
// finite). It reports false for no object or no clear winner.
func detectKind(b []byte) (Kind, bool) {
	var v map[string]json.RawMessage
	if json.Unmarshal(b, &v) != nil {
		return 0, false
	}
	best, bestN, tie := Kind(0), 0, false
	for _, k := range Kinds() {
		n := 0
		for _, key := range kindFiles[k].own {
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

// ParseAs decodes a model of kind k from its --config JSON: a file that
// must be of that kind (results.json names it).
func ParseAs(k Kind, b []byte) (Model, error) {
	f, ok := kindFiles[k]
	if !ok {
		return nil, fmt.Errorf("%w: %v is not a model kind", ErrConfig, k)
	}
	m, err := f.parse(b)
	if err != nil {
		return nil, &configError{fmt.Errorf("not a valid %s model: %w", k, err)}
	}
	return m, nil
}

// Paper returns the paper's model of kind k (Section V): the Gaussian model
// of V-A or the binary model of V-B. Finite models have no default.
func Paper(k Kind) (Model, error) {
	f, ok := kindFiles[k]
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: %v is not a model kind", ErrConfig, k)
	case f.paper == nil:
		return nil, errorf("a %s model needs a --config file (docs/%s.md); there is no default", k, k)
	}
	return f.paper(), nil
}

// Load reads a model file of any kind (ReadFile, then Parse). Errors wrap
// ErrConfig (or ctx's error) and name the file.
func Load(ctx context.Context, path string) (Model, error) {
	return load(ctx, path, 0, Parse)
}

// LoadIn is Load of the model file name as written in another file (a
// certificate), inside that file's folder dir (safefile.ReadIn: a name
// that leaves dir, through a symbolic link too, is refused).
func LoadIn(ctx context.Context, dir, name string) (Model, error) {
	b, err := safefile.ReadIn(ctx, dir, name, safefile.Excerpt(name), maxConfigBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, &configError{err}
	}
	m, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", safefile.Excerpt(name), err)
	}
	return m, nil
}

// LoadOrPaper reads a model file of kind k (LoadAs), or returns the
// paper's model of that kind (Paper) when path is "".
func LoadOrPaper(ctx context.Context, k Kind, path string) (Model, error) {
	if path == "" {
		return Paper(k)
	}
	return LoadAs(ctx, k, path)
}

// LoadAs reads a model file that must be of kind k (ReadFile, then
// ParseAs). Errors wrap ErrConfig (or ctx's error) and name the file.
func LoadAs(ctx context.Context, k Kind, path string) (Model, error) {
	return load(ctx, path, k, func(b []byte) (Model, error) { return ParseAs(k, b) })
}

// load reads path and parses it; a file of kind k (0: any) whose keys
// point to another kind says so, the likelier mistake than a bad field.
func load(ctx context.Context, path string, k Kind, parse func([]byte) (Model, error)) (Model, error) {
	b, err := ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	m, err := parse(b)
	if err != nil {
		if other, ok := detectKind(b); ok && k != 0 && other != k {
			return nil, fmt.Errorf("%s: %w (the file looks like a %s model)", safefile.Path(path), err, other)
		}
		return nil, fmt.Errorf("%s: %w", safefile.Path(path), err)
	}
	return m, nil
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
		return nil, &configError{err}
	}
	return b, nil
}
