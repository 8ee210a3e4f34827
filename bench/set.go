package bench

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mmds-project/mmds/internal/enum"
)

// Set says which part of a library an instance belongs to, as MIPLIB
// splits its collection: the benchmark set, a subset sized so that a full
// run (every solver, 3 seeds, 60 s per solve) fits 30 minutes on 2 cores,
// and the collection, every instance.
type Set int

// The sets. The zero value is no set: a manifest of library version 3 or
// earlier, which recorded none.
const (
	SetBenchmark  Set = iota + 1 // in the benchmark set (and the collection)
	SetCollection                // in the collection only; as a selection, every instance
)

// ErrSet reports text that names no Set.
var ErrSet = errors.New("bench: unknown instance set")

var setText = enum.Text[Set]{Type: "Set", Names: []string{SetBenchmark: "benchmark", SetCollection: "collection"},
	BadValue: enum.IntError[Set](ErrSet),
	BadText: func(text []byte, _ string) error {
		return fmt.Errorf("%w: %q (want %s, %s or %s)", ErrSet, text, SetBenchmark, SetCollection, setAll)
	}}

// setAll is the selection's alias of SetCollection: every instance.
const setAll = "all"

// String is the set's name.
func (s Set) String() string { return setText.String(s) }

// ParseSet is the inverse of String; "all" reads as SetCollection (every
// instance of the collection).
func ParseSet(text string) (Set, error) {
	if text == setAll {
		return SetCollection, nil
	}
	return setText.Parse(text)
}

// MarshalText implements encoding.TextMarshaler.
func (s Set) MarshalText() ([]byte, error) { return setText.Marshal(s) }

// UnmarshalText implements encoding.TextUnmarshaler; "all" reads as
// SetCollection, as in ParseSet.
func (s *Set) UnmarshalText(text []byte) error {
	v, err := ParseSet(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// BenchmarkFile lists the benchmark set's files, one a line, as MIPLIB
// ships benchmark-v2.test.
const BenchmarkFile = "benchmark.test"

// InBenchmark is the benchmark set's rule; it depends on an entry's tier,
// size, model and formulation only, never on its name:
//
//   - every easy and medium instance (each closes in under a second for
//     every solver on every seed: docs/bench.md, "A real run");
//   - of the hard and the open tier, the smallest size n of the tier,
//     model 0, in the convex-hull formulation (hull+sym, the one every
//     solver closed at n = 3 within 60 s) and as the global LP.
//
// So the set holds two hard instances (one MIP, its LP) and two open ones
// (the n = 4 MIP that every solver leaves open, its LP). Each open MIP
// costs every solver its whole limit on every seed; the budget arithmetic
// is in docs/bench.md.
func InBenchmark(e ManifestEntry, smallest map[string]int) bool {
	switch e.Tier {
	case "easy", "medium":
		return true
	case "hard", "open":
		return e.N == smallest[e.Tier] && e.ModelIndex == 0 && (e.Variant == "hull+sym" || e.Variant == GlobalName)
	}
	return false
}

// markSets sets every entry's Set by InBenchmark.
func markSets(es []ManifestEntry) {
	smallest := map[string]int{}
	for _, e := range es {
		if n, ok := smallest[e.Tier]; !ok || e.N < n {
			smallest[e.Tier] = e.N
		}
	}
	for i := range es {
		es[i].Set = SetCollection
		if InBenchmark(es[i], smallest) {
			es[i].Set = SetBenchmark
		}
	}
}

// SelectSet keeps the entries of s, in order: the benchmark set's, or
// every entry for SetCollection. A manifest that records no set (library
// version 3 or earlier: the same instances) is marked by InBenchmark
// first.
func SelectSet(es []ManifestEntry, s Set) ([]ManifestEntry, error) {
	if !setText.Valid(s) {
		return nil, setText.BadValue(s)
	}
	es = slices.Clone(es)
	if !slices.ContainsFunc(es, func(e ManifestEntry) bool { return e.Set != 0 }) {
		markSets(es)
	}
	if s == SetCollection {
		return es, nil
	}
	return slices.DeleteFunc(es, func(e ManifestEntry) bool { return e.Set != SetBenchmark }), nil
}

// benchmarkList is the BenchmarkFile text: the benchmark set's files.
func benchmarkList(es []ManifestEntry) string {
	var b strings.Builder
	for _, e := range es {
		if e.Set == SetBenchmark {
			b.WriteString(e.File + "\n")
		}
	}
	return b.String()
}

// CertMethod is how an instance's optimal value is certified.
type CertMethod int

// The certificates (docs/bench.md, "How the optima are certified"); the
// zero value is none.
const (
	CertEnumeration CertMethod = iota + 1 // binary: the arrangement's vertices, enumerated
	CertGlobalLP                          // finite: the global LP's bracket
	CertColGen                            // finite: column generation's bracket (exact pricing)
)

// ErrCertMethod reports text that names no CertMethod.
var ErrCertMethod = errors.New("bench: unknown certificate method")

var certText = enum.Text[CertMethod]{Type: "CertMethod",
	Names:    []string{CertEnumeration: "enumeration", CertGlobalLP: "global LP", CertColGen: "colgen"},
	BadValue: enum.IntError[CertMethod](ErrCertMethod), BadText: enum.QuotedError(ErrCertMethod)}

// String is the method's name.
func (c CertMethod) String() string { return certText.String(c) }

// MarshalText implements encoding.TextMarshaler.
func (c CertMethod) MarshalText() ([]byte, error) { return certText.Marshal(c) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *CertMethod) UnmarshalText(text []byte) error { return certText.Unmarshal(c, text) }
