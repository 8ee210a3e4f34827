package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/floats/scalar"
)

// ErrNotRecomputed reports a library instance whose optimal value or bound
// mmds does not recompute: the library is not one mmds regenerates, it
// generates no such instance, the instance's file is not the one it
// generates, or the value listed is not the one it computes. A solver is
// never judged against such a value.
var ErrNotRecomputed = errors.New("bench: optimum not recomputed")

// generatorName is what WriteLibrary writes as a manifest's generator.
const generatorName = "mmds bench library"

// regeneratedVersions are the library versions whose MPS texts the current
// generator writes byte for byte (see LibraryVersion).
var regeneratedVersions = []string{"1", "2", "3", LibraryVersion}

// Regenerator recomputes the instances of a library from what its manifest
// says generated them — generator, version, seed and open sizes — so that
// the optimal value and bound a solver is judged against are mmds's own
// computation, not the manifest's word: the library is reproducible bit for
// bit from them (LibraryVersion). Each model is regenerated and certified
// once, at the thresholds asked for.
type Regenerator struct {
	man   Manifest
	spec  LibrarySpec
	built map[string]Instance // by name
	done  map[string]bool     // families × fractions built
}

// NewRegenerator returns the regenerator of man's library.
func NewRegenerator(man Manifest) *Regenerator {
	spec := DefaultLibrary(man.Seed)
	spec.OpenN = man.OpenN
	return &Regenerator{man: man, spec: spec, built: map[string]Instance{}, done: map[string]bool{}}
}

// Recompute returns in, an instance LoadInstance read from entry e of the
// library, with its optimum, bound, certificate and description replaced by
// those of the same instance regenerated and certified by mmds (the file's
// bytes and model are kept). It is an error wrapping ErrNotRecomputed, in
// one line naming the instance and what is missing, when the library is not
// one mmds regenerates, when its version and seed generate no instance of
// e's name and parameters, when the file's MPS text differs from the one
// generated, or when manifest.json lists an optimal value or bound (beyond
// listedTol relative) that mmds does not recompute.
func (r *Regenerator) Recompute(ctx context.Context, in Instance, e ManifestEntry) (Instance, error) {
	from := fmt.Sprintf("library version %s seed %d", r.man.Version, r.man.Seed)
	if len(r.man.OpenN) > 0 {
		from += fmt.Sprintf(" open sizes %v", r.man.OpenN)
	}
	fail := func(format string, args ...any) (Instance, error) {
		return Instance{}, fmt.Errorf("%w: instance %q: %s", ErrNotRecomputed, e.Name, fmt.Sprintf(format, args...))
	}
	if r.man.Generator != generatorName || !slices.Contains(regeneratedVersions, r.man.Version) {
		return fail("its optimal value and bound cannot be recomputed: manifest.json's generator %s, version %s, is not one this mmds regenerates (%s, versions %v)",
			strconv.Quote(r.man.Generator), strconv.Quote(r.man.Version), generatorName, regeneratedVersions)
	}
	for _, n := range r.man.OpenN {
		if n < MinOpenN || n > MaxOpenN {
			return fail("manifest.json's open size %d is not one mmds bench library writes (each in [%d, %d]), so its optimum cannot be recomputed", n, MinOpenN, MaxOpenN)
		}
	}
	f, ok := r.family(e)
	if !ok {
		return fail("%s generates no %s instance with n = %d, K = %d, model %d at fraction %v in formulation %q, so its optimum cannot be recomputed",
			from, e.Source, e.N, e.K, e.ModelIndex, e.Fraction, e.Variant)
	}
	key := fmt.Sprintf("%d/%d/%d/%d/%v", f.source, f.n, f.k, f.i, e.Fraction)
	if !r.done[key] {
		ins, err := r.spec.instances(ctx, f, []float64{e.Fraction})
		if err != nil {
			if ctx.Err() != nil {
				return Instance{}, err
			}
			return fail("regenerating it from %s: %v", from, err)
		}
		for _, g := range ins {
			r.built[g.Name] = g
		}
		r.done[key] = true
	}
	g, ok := r.built[e.Name]
	if !ok {
		return fail("%s generates no instance of that name for its parameters, so its optimum cannot be recomputed", from)
	}
	mps, err := g.MPSBytes()
	if err != nil {
		return Instance{}, err
	}
	if sum := sha256.Sum256(mps); hex.EncodeToString(sum[:]) != e.SHA256 {
		return fail("its MPS text is not the one %s generates, so its optimum cannot be recomputed", from)
	}
	for _, v := range []struct {
		what       string
		listed     *float64
		recomputed float64
	}{{"optimal value", e.OptimalValue, g.Optimal}, {"best bound", e.BestBound, g.Bound}} {
		switch {
		case v.listed == nil:
			// Not claimed: mmds's own value (if any) is used.
		case math.IsNaN(v.recomputed):
			return fail("%s %s in manifest.json, but mmds computes none from %s (%s)", v.what, fmtValue(*v.listed), from, uncertified(g))
		case !scalar.EqualWithinRel(*v.listed, v.recomputed, listedTol):
			return fail("%s %s in manifest.json, %s recomputed by mmds from %s (they must agree within %g relative)",
				v.what, fmtValue(*v.listed), fmtValue(v.recomputed), from, listedTol)
		}
	}
	out := g
	out.Problem, out.Exact, out.mps = in.Problem, in.Exact, in.mps
	return out, nil
}

func fmtValue(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// family finds the family of r's library that writes e: its source, size
// and model, with e's fraction among its thresholds and e's formulation
// among its variants.
func (r *Regenerator) family(e ManifestEntry) (family, bool) {
	for _, f := range r.spec.families() {
		src := "binary"
		if f.source == 1 {
			src = "finite"
		}
		if src != e.Source || f.n != e.N || f.k != e.K || f.i != e.ModelIndex || !slices.Contains(f.fractions, e.Fraction) {
			continue
		}
		if f.source == 0 && e.Variant == "prop2" || f.source == 1 && e.Variant == GlobalName ||
			slices.ContainsFunc(f.variants, func(v Variant) bool { return v.Name == e.Variant }) {
			return f, true
		}
	}
	return family{}, false
}
