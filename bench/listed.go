package bench

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/internal/safefile"
)

// ErrListed reports a library whose files disagree on an instance's
// optimal value: manifest.json against mmds.solu or metadata.csv.
var ErrListed = errors.New("bench: the library's files disagree")

// listedTol is the relative disagreement tolerated between two listings
// of one optimal value. WriteLibrary writes each in Go's shortest
// round-trip form, so an honest library's listings are equal.
const listedTol = 1e-9

// maxListingBytes bounds mmds.solu and metadata.csv.
const maxListingBytes = 64 << 20

// listing is an instance's optimal value in one of the library's files;
// ok is false where the file lists it as not certified.
type listing struct {
	value float64
	ok    bool
}

// checkListed holds e's optimal value (the manifest's) against the
// library's other listings of it, mmds.solu's =opt= line and
// metadata.csv's optimal_value, where the instance is listed there (a
// library without those files, or without the instance, is not checked):
// a solver judged against the manifest is judged against the value a
// reader of MIPLIB's files sees. A disagreement beyond listedTol relative,
// or an optimum one file certifies and the other does not, is an error
// wrapping ErrListed that names the instance and both values.
func checkListed(dir string, e ManifestEntry) error {
	want := listing{value: math.NaN()}
	if e.OptimalValue != nil {
		want = listing{*e.OptimalValue, true}
	}
	for _, f := range []struct {
		name string
		read func([]byte, string) ([]listing, error)
	}{{SoluFile, soluListings}, {MetadataFile, metadataListings}} {
		path := filepath.Join(dir, f.name)
		b, err := safefile.ReadIn(context.Background(), dir, f.name, safefile.Path(path), maxListingBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		ls, err := f.read(b, e.Name)
		if err != nil {
			return fmt.Errorf("%s: %w", safefile.Path(path), err)
		}
		for _, l := range ls {
			if l.ok != want.ok || l.ok && !scalar.EqualWithinRel(l.value, want.value, listedTol) {
				return fmt.Errorf("%w: instance %q: optimal value %s in %s, %s in manifest.json (they must agree within %g relative)",
					ErrListed, e.Name, l, f.name, want, listedTol)
			}
		}
	}
	return nil
}

// String is the value, or "none (not certified)".
func (l listing) String() string {
	if !l.ok {
		return "none (not certified)"
	}
	return shortest(l.value)
}

// soluListings are the .solu lines of instance name: =opt= with its value,
// any other kind as not certified.
func soluListings(b []byte, name string) ([]listing, error) {
	es, err := ReadSolu(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	var out []listing
	for _, s := range es {
		if s.Name == name {
			out = append(out, listing{s.Value, s.Kind == SoluOpt})
		}
	}
	return out, nil
}

// metadataListings are the metadata.csv rows of instance name (Metadata's
// columns, found by the header): optimal_value, empty when not certified.
func metadataListings(b []byte, name string) ([]listing, error) {
	r := csv.NewReader(bytes.NewReader(b))
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	iName, iOpt := -1, -1
	for i, h := range head {
		switch h {
		case "name":
			iName = i
		case "optimal_value":
			iOpt = i
		}
	}
	if iName < 0 || iOpt < 0 {
		return nil, errors.New(`header: no "name" or "optimal_value" column`)
	}
	var out []listing
	for {
		row, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if row[iName] != name {
			continue
		}
		if row[iOpt] == "" {
			out = append(out, listing{math.NaN(), false})
			continue
		}
		v, err := strconv.ParseFloat(row[iOpt], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("instance %q: optimal_value %s: not a finite number", name, safefile.Excerpt(row[iOpt]))
		}
		out = append(out, listing{v, true})
	}
}
