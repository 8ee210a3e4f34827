package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/internal/safefile"
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
	built map[string]Instance   // by name
	done  map[string][]Instance // families × fractions built
	// smallest is each tier's smallest n, which InBenchmark needs.
	smallest map[string]int
}

// NewRegenerator returns the regenerator of man's library.
func NewRegenerator(man Manifest) *Regenerator {
	spec := DefaultLibrary(man.Seed)
	spec.OpenN = man.OpenN
	r := &Regenerator{man: man, spec: spec, built: map[string]Instance{}, done: map[string][]Instance{}, smallest: map[string]int{}}
	for _, f := range spec.families() {
		if n, ok := r.smallest[f.tier]; !ok || f.n < n {
			r.smallest[f.tier] = f.n
		}
	}
	return r
}

// from names the library a regenerator regenerates, for messages.
func (r *Regenerator) from() string {
	from := fmt.Sprintf("library version %s seed %d", r.man.Version, r.man.Seed)
	if len(r.man.OpenN) > 0 {
		from += fmt.Sprintf(" open sizes %v", r.man.OpenN)
	}
	return from
}

// build regenerates and certifies f's instances at fraction frac, once.
func (r *Regenerator) build(ctx context.Context, f family, frac float64) ([]Instance, error) {
	key := fmt.Sprintf("%d/%d/%d/%d/%v", f.source, f.n, f.k, f.i, frac)
	if ins, ok := r.done[key]; ok {
		return ins, nil
	}
	ins, err := r.spec.instances(ctx, f, []float64{frac})
	if err != nil {
		return nil, err
	}
	for _, g := range ins {
		r.built[g.Name] = g
	}
	r.done[key] = ins
	return ins, nil
}

// setOf is the set mmds's library puts its instance g in (InBenchmark).
func (r *Regenerator) setOf(g Instance) Set {
	if InBenchmark(ManifestEntry{Tier: g.Tier, N: g.N, ModelIndex: g.Model, Variant: g.Variant}, r.smallest) {
		return SetBenchmark
	}
	return SetCollection
}

// Missing returns the instances of a selection — those of set in tiers
// (every tier when empty) — that mmds's library of the manifest's version
// and seed has but judged lacks, in the library's order: a manifest.json
// that leaves instances out (or moves them to another tier or set, which
// Recompute refuses) would have solvers judged on a part of the selection
// under its name, so a report says what it left out. It regenerates the
// families of those tiers (as Recompute does, once); nothing for a library
// mmds does not regenerate (Recompute refuses its instances).
func (r *Regenerator) Missing(ctx context.Context, judged []ManifestEntry, tiers []string, set Set) ([]string, error) {
	if r.man.Generator != generatorName || !slices.Contains(regeneratedVersions, r.man.Version) {
		return nil, nil
	}
	have := map[string]bool{}
	for _, e := range judged {
		have[e.Name] = true
	}
	var out []string
	for _, f := range r.spec.families() {
		if len(tiers) > 0 && !slices.Contains(tiers, f.tier) {
			continue
		}
		for _, frac := range f.fractions {
			ins, err := r.build(ctx, f, frac)
			if err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				return nil, fmt.Errorf("%w: regenerating %s: %v", ErrNotRecomputed, r.from(), err)
			}
			for _, g := range ins {
				if (set == SetCollection || r.setOf(g) == set) && !have[g.Name] {
					out = append(out, g.Name)
				}
			}
		}
	}
	return out, nil
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
	from := r.from()
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
	if _, err := r.build(ctx, f, e.Fraction); err != nil {
		if ctx.Err() != nil {
			return Instance{}, err
		}
		return fail("regenerating it from %s: %v", from, err)
	}
	g, ok := r.built[e.Name]
	if !ok {
		return fail("%s generates no instance of that name for its parameters, so its optimum cannot be recomputed", from)
	}
	mps, err := g.MPSBytes()
	if err != nil {
		return Instance{}, err
	}
	if safefile.SHA256(mps) != e.SHA256 {
		return fail("its MPS text is not the one %s generates, so its optimum cannot be recomputed", from)
	}
	// The tier and set select what a run judges: they are mmds's too.
	if e.Tier != g.Tier || e.Set != 0 && e.Set != r.setOf(g) {
		return fail("manifest.json puts it in tier %s, %s set; %s puts it in tier %s, %s set", safefile.Excerpt(e.Tier), e.Set, from, g.Tier, r.setOf(g))
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
			return fail("%s %s in manifest.json, but mmds computes none from %s (%s)", v.what, shortest(*v.listed), from, uncertified(g))
		case !scalar.EqualWithinRel(*v.listed, v.recomputed, listedTol):
			return fail("%s %s in manifest.json, %s recomputed by mmds from %s (they must agree within %g relative)",
				v.what, shortest(*v.listed), shortest(v.recomputed), from, listedTol)
		}
	}
	out := g
	out.Problem, out.Exact, out.mps = in.Problem, in.Exact, in.mps
	return out, nil
}

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
