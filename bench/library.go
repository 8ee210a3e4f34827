package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/mip"
)

// LibraryVersion names the instance generator. A library is reproducible
// bit for bit from (LibraryVersion, seed, the open sizes added): any change
// to what the generator writes must bump it. Version 2 added the open tier
// (every file of version 1 unchanged); version 3 writes the same models
// gzipped (NAME.mps.gz: the MPS text of version 2 byte for byte inside),
// with mmds.solu and metadata.csv. Version 4 marks the benchmark set
// (InBenchmark: a set column, benchmark.test) and how each optimum is
// certified (certified_by), and certifies open sizes beyond the global
// LP's reach by column generation; every MPS file of version 3 is
// unchanged.
const LibraryVersion = "4"

// CertTol is the widest bracket [lower, upper] on an optimum that counts
// as a certified optimal value.
const CertTol = 1e-9

// Instance is one benchmark problem. Model is always a minimization (MPS
// has no portable maximize): mmds's models maximize γ, so the instance
// minimizes −γ and its optimal value is −γ*.
type Instance struct {
	Name    string
	Source  string // "binary" (Proposition 2) or "finite"
	Variant string // formulation: "prop2", a Variants() name, or GlobalName
	N, K    int    // |X| and the number of adversaries
	// Outputs is the fixed output alphabet m of a finite MIP (0 otherwise).
	Outputs  int
	Model    int // index of the random model within its (source, n, K) group
	Fraction float64
	D        float64
	Tier     string // "easy", "medium", "hard" or "open": the size class, by construction
	Problem  *highsx.Problem
	// Optimal is the certified optimal value of Problem (NaN when none):
	// how it was certified is in Certificate.
	Optimal float64
	// Bound is the best known lower bound on Problem's optimal value (a
	// minimization), NaN when none.
	Bound       float64
	Certificate string
	CertifiedBy CertMethod // how Optimal is certified; 0 when it is not
	why         string     // why the optimum is not certified, when it is not
	// Exact is Problem as its MPS file writes it, in rational arithmetic,
	// for the check; nil until read (ExactModel).
	Exact *ExactModel
	mps   []byte // the file's bytes, for an instance read from a library
}

// ExactModel returns in.Exact, or reads it from in's MPS bytes.
func (in Instance) ExactModel() (*ExactModel, error) {
	if in.Exact != nil {
		return in.Exact, nil
	}
	data, err := in.MPSBytes()
	if err != nil {
		return nil, err
	}
	mps, err := ReadMPS(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	return mps.Exact, nil
}

// ProblemKey names the sanitization problem an instance formulates: the
// instances of one key share their optimal γ* up to the output alphabet.
func (in Instance) ProblemKey() string {
	return fmt.Sprintf("%s-n%d-k%d-i%d-d%.2f", in.Source, in.N, in.K, in.Model, in.Fraction)
}

// LibrarySpec is the content of a library.
type LibrarySpec struct {
	Seed uint64
	// Binary Proposition 2 instances: BinaryModels random models per K in
	// BinaryKs, at each of Fractions.
	BinaryKs     []int
	BinaryModels int
	// Finite: per size, FiniteModels random models (mip.RandomFinite) at
	// each of Fractions, in every formulation of Variants with m = n + K + 1
	// outputs (enough for the global optimum, so the global LP certifies
	// the MIPs), and the global LP.
	Finite       []Size
	FiniteModels int
	Fractions    []float64
	Variants     []Variant
	// MaxSubsets is the ray-enumeration budget; beyond it a model has no
	// global LP and its MIPs no certified value.
	MaxSubsets int64
	// OpenN lists open-tier sizes added after Finite (OpenSize(n) each),
	// recorded in the manifest.
	OpenN []int
	// ColGenLimit bounds each column generation run that certifies a model
	// whose global LP does not fit MaxSubsets (0: none).
	ColGenLimit time.Duration
	// Progress, when set, is called by WriteLibrary with the number of
	// instance files written and their total.
	Progress func(written, total int) `json:"-"`
}

// Size is a finite model's size, its tier and, when set, its own
// fractions of D_max, number of models and formulations.
type Size struct {
	N, K      int
	Tier      string
	Fractions []float64 // nil: the spec's Fractions
	Models    int       // 0: the spec's FiniteModels
	Variants  []Variant // nil: the spec's Variants
}

// ErrUncertified reports an open-tier instance added by OpenN whose
// optimum neither the global LP nor column generation certified: the open
// tier is for instances whose optimum is known.
var ErrUncertified = errors.New("bench: no certified optimum")

// OpenSize is an open-tier size of n = |X| outputs beyond the default
// library's: K = 1, D = D_max/4, models 0 and 1, the derivedM and hull+sym
// formulations, and the global LP that certifies them when its ray
// enumeration fits MaxSubsets; beyond it (n ≥ 6) column generation
// certifies them and there is no global LP instance.
func OpenSize(n int) Size {
	return Size{N: n, K: 1, Tier: "open", Fractions: []float64{0.25}, Models: 2, Variants: VariantsNamed("derivedM", "hull+sym")}
}

// The sizes n that OpenN may add: n = 4 is in the default library, and
// n = 8 is the largest column generation certifies within minutes.
const (
	MinOpenN = 5
	MaxOpenN = 8
)

// DefaultLibrary is the library of version LibraryVersion.
func DefaultLibrary(seed uint64) LibrarySpec {
	return LibrarySpec{
		Seed:         seed,
		BinaryKs:     []int{1, 2, 3},
		BinaryModels: 2,
		// Tiers from the solvers' times on this generator (docs/bench.md):
		// the n = 3, K = 1 MIPs at D = D_max/4 are mostly not closed in 10 s,
		// but every solver closes some formulation in 60 s; at n = 4 they are
		// open at 60 s. The open tier keeps to the two formulations that
		// closed n = 3 fastest (HiGHS on derivedM, GLPK and CBC on
		// hull+sym), on two models: each of its MIPs costs every solver its
		// whole time limit, and the library with every solver at 10 s must
		// stay within 10 minutes on 2 cores.
		Finite: []Size{
			{N: 2, K: 1, Tier: "easy"}, {N: 2, K: 2, Tier: "medium"}, {N: 3, K: 2, Tier: "medium"},
			{N: 3, K: 1, Tier: "hard", Fractions: []float64{0.25}},
			{N: 4, K: 1, Tier: "open", Fractions: []float64{0.25}, Models: 2, Variants: VariantsNamed("derivedM", "hull+sym")},
		},
		FiniteModels: 1,
		Fractions:    []float64{0.25, 0.5, 0.75},
		Variants:     Variants(),
	}
}

// randomBinary draws a binary model: p ~ U(0.3, 0.7), every crossover
// probability ~ U(0.05, 0.45), so every observer is informative and noisy.
func randomBinary(rng *rand.Rand, k int) mip.Binary {
	m := mip.Binary{P: 0.3 + 0.4*rng.Float64(), QY: 0.05 + 0.4*rng.Float64()}
	for range k {
		m.QZ = append(m.QZ, 0.05+0.4*rng.Float64())
	}
	return m
}

// stream is the PCG stream of one random model, so that any model can be
// regenerated alone: source 0 binary, 1 finite.
func stream(source, n, k, i int) uint64 {
	return uint64(source)<<48 | uint64(n)<<32 | uint64(k)<<16 | uint64(i)
}

// family is one random model of a library and the thresholds and
// formulations it is written at: source 0 is a binary model (Proposition 2),
// 1 a finite one (Family).
type family struct {
	source, n, k, i int
	tier            string
	fractions       []float64
	variants        []Variant // finite only
	added           bool      // an open size of OpenN: its optima must be certified
}

// families lists s's models in the order Build writes them.
func (s LibrarySpec) families() []family {
	var out []family
	for _, k := range s.BinaryKs {
		for i := range s.BinaryModels {
			out = append(out, family{source: 0, n: 2, k: k, i: i, tier: "easy", fractions: s.Fractions})
		}
	}
	sizes := slices.Clone(s.Finite)
	for _, n := range s.OpenN {
		sizes = append(sizes, OpenSize(n))
	}
	for j, sz := range sizes {
		f := family{source: 1, n: sz.N, k: sz.K, tier: sz.Tier, fractions: s.Fractions, variants: s.Variants, added: j >= len(s.Finite)}
		if sz.Fractions != nil {
			f.fractions = sz.Fractions
		}
		if sz.Variants != nil {
			f.variants = sz.Variants
		}
		models := s.FiniteModels
		if sz.Models > 0 {
			models = sz.Models
		}
		for i := range models {
			f.i = i
			out = append(out, f)
		}
	}
	return out
}

// instances generates and certifies f's instances at the given fractions
// (a subset of f.fractions), in Build's order.
func (s LibrarySpec) instances(ctx context.Context, f family, fractions []float64) ([]Instance, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(s.Seed, stream(f.source, f.n, f.k, f.i)))
	if f.source == 0 {
		m := randomBinary(rng, f.k)
		var out []Instance
		for _, frac := range fractions {
			in, err := binaryInstance(m, f.k, f.i, frac)
			if err != nil {
				return nil, err
			}
			out = append(out, in)
		}
		return out, nil
	}
	m, err := mip.RandomFinite(rng, f.n, f.k)
	if err != nil {
		return nil, err
	}
	fam := Family{Model: m, Index: f.i, Tier: f.tier, Outputs: m.GlobalOutputs(),
		Variants: f.variants, MaxSubsets: s.MaxSubsets,
		ColGen: true, ColGenLimit: s.ColGenLimit}
	ins, err := fam.Instances(ctx, fractions)
	if err != nil {
		return nil, err
	}
	for _, in := range ins {
		if f.added && math.IsNaN(in.Optimal) {
			return nil, fmt.Errorf("%w for %s: neither the global LP nor column generation certifies it (%s)", ErrUncertified, in.Name, uncertified(in))
		}
	}
	return ins, nil
}

// Build generates and certifies the library's instances in a fixed
// order. It checks ctx between models.
func (s LibrarySpec) Build(ctx context.Context) ([]Instance, error) {
	if len(s.Fractions) == 0 {
		return nil, errors.New("library: no fractions of D_max")
	}
	for _, f := range s.Fractions {
		if math.IsNaN(f) || f < 0 || f > 1 {
			return nil, fmt.Errorf("library: fraction %v: must be in [0, 1]", f)
		}
	}
	var out []Instance
	for _, f := range s.families() {
		ins, err := s.instances(ctx, f, f.fractions)
		if err != nil {
			return nil, err
		}
		out = append(out, ins...)
	}
	return out, nil
}

// uncertified says why in (not certified) is not.
func uncertified(in Instance) string {
	if in.why != "" {
		return in.why
	}
	return fmt.Sprintf("its bracket is wider than %g (global LP) or %g (column generation), or its mechanism has more than %d outputs", CertTol, ColGenTol, in.Outputs)
}

func binaryInstance(m mip.Binary, k, i int, frac float64) (Instance, error) {
	d := frac * m.DMax()
	mod, err := m.Prop2Model(d)
	if err != nil {
		return Instance{}, err
	}
	g, _, _, err := BinaryOptimum(m, d)
	if err != nil {
		return Instance{}, err
	}
	in := Instance{Source: "binary", Variant: "prop2", N: 2, K: k, Model: i, Fraction: frac, D: d, Tier: "easy",
		Problem: Minimize(mod), Optimal: -g, Bound: -g, CertifiedBy: CertEnumeration,
		Certificate: "enumeration: the best feasible vertex of the arrangement of the losses' breakpoint lines in (s0, s1)"}
	in.Name = fmt.Sprintf("bin-k%d-i%d-d%.2f", k, i, frac)
	return in, nil
}

// Family is one finite model formulated every way, at D = fraction ·
// D_max: the fixed-alphabet MIP with Outputs outputs in each of Variants,
// and the global LP.
type Family struct {
	Model      mip.Finite
	Index      int
	Tier       string
	Outputs    int
	Variants   []Variant
	MaxSubsets int64
	// ColGen certifies by column generation (CertifyColGen, within
	// ColGenLimit; 0: none) where the global LP's ray enumeration exceeds
	// MaxSubsets. Such a model has no global LP instance.
	ColGen      bool
	ColGenLimit time.Duration
}

// certify brackets the optimum at d: by the global LP when g is not nil,
// else by column generation when f.ColGen.
func (f Family) certify(ctx context.Context, g *mip.Global, d float64) (Bracket, error) {
	switch {
	case g != nil:
		return CertifyGlobal(g, d)
	case f.ColGen:
		c, err := CertifyColGen(ctx, f.Model, d, f.ColGenLimit)
		if errors.Is(err, mip.ErrInterrupted) {
			return Bracket{}, err
		}
		if err != nil {
			return Bracket{Why: err.Error()}, nil
		}
		return c, nil
	}
	return Bracket{Why: "the global LP's ray enumeration exceeds the budget"}, nil
}

// Instances formulates f at each fraction. The global LP (or column
// generation, see ColGen) certifies each instance when its bracket closes
// to its tolerance: the LP's own value, and a MIP's value when the
// certifying mechanism has at most Outputs outputs (padded with empty
// outputs it is then feasible for the MIP, while no m-output privatizer
// beats the global optimum). Otherwise the MIPs carry the upper bound
// only.
func (f Family) Instances(ctx context.Context, fractions []float64) ([]Instance, error) {
	m := f.Model
	n, k := m.N(), m.K()
	g, gerr := m.PrepareGlobal(mip.GlobalOptions{MaxSubsets: f.MaxSubsets})
	if gerr != nil && !errors.Is(gerr, mip.ErrTooLarge) {
		return nil, gerr
	}
	if gerr != nil {
		g = nil // too large: no global LP
	}
	var out []Instance
	for _, frac := range fractions {
		d := frac * m.DMax()
		base := Instance{Source: "finite", N: n, K: k, Model: f.Index, Fraction: frac, D: d, Tier: f.Tier,
			Optimal: math.NaN(), Bound: math.NaN()}
		cert, err := f.certify(ctx, g, d)
		if err != nil {
			return nil, err
		}
		base.why = cert.Why
		prefix := fmt.Sprintf("fin-n%d-k%d-i%d-d%.2f", n, k, f.Index, frac)
		for _, v := range f.Variants {
			in, err := f.fixedInstance(base, prefix, v, cert)
			if err != nil {
				return nil, err
			}
			out = append(out, in)
		}
		if gerr != nil {
			continue
		}
		mod, err := g.LPModel(d)
		if err != nil {
			return nil, err
		}
		in := base
		in.Name, in.Variant, in.Problem, in.Bound = prefix+"-global", GlobalName, Minimize(mod), -cert.Upper
		in.Certificate = fmt.Sprintf("global LP: primal mechanism with exactly recomputed losses and a repaired dual bound (%s); bracket %.1e", cert.Size, cert.Upper-cert.Lower)
		if cert.Certified() {
			in.Optimal, in.CertifiedBy = -cert.Lower, cert.Method
		}
		out = append(out, in)
	}
	return out, nil
}

// fixedInstance is f's MIP in formulation v at base's threshold, with what
// cert knows of its optimum.
func (f Family) fixedInstance(base Instance, prefix string, v Variant, cert Bracket) (Instance, error) {
	fo := v.Opts
	fo.Outputs = f.Outputs
	mod, err := f.Model.FixedModel(base.D, fo)
	if err != nil {
		return Instance{}, err
	}
	in := base
	in.Name, in.Variant, in.Outputs, in.Problem = prefix+"-"+fileSafe(v.Name), v.Name, f.Outputs, Minimize(mod)
	var name, bound string
	switch cert.Method {
	case CertGlobalLP:
		name, bound = "global LP", "dual"
	case CertColGen:
		name, bound = "column generation", "Lagrangian"
	default:
		return in, nil
	}
	in.Bound = -cert.Upper
	in.Certificate = fmt.Sprintf("%s upper bound (%s, %s)", name, bound, cert.Size)
	if cert.Certified() && cert.Mechanism.Outputs() <= f.Outputs {
		in.Optimal, in.CertifiedBy = -cert.Lower, cert.Method
		in.Certificate = fmt.Sprintf("%s: a %d-output mechanism with exactly recomputed losses meets the %s bound (%s) within %.0e",
			name, cert.Mechanism.Outputs(), bound, cert.Size, cert.tol())
	}
	return in, nil
}

// fileSafe is s with every character but ASCII letters, digits, '-' and
// '.' replaced by '_' (a formulation's name, as instance names use it).
func fileSafe(s string) string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' {
			return c
		}
		return '_'
	}, s)
}

// Manifest is a library's index, DIR/manifest.json.
type Manifest struct {
	Generator string          `json:"generator"`
	Version   string          `json:"version"`
	Seed      uint64          `json:"seed"`
	OpenN     []int           `json:"open_n,omitempty"` // open-tier sizes added to the default library (OpenSize)
	Note      string          `json:"note"`
	Instances []ManifestEntry `json:"instances"`
}

// Certified counts the instances with a certified optimal value.
func (m Manifest) Certified() int {
	n := 0
	for _, e := range m.Instances {
		if e.OptimalValue != nil {
			n++
		}
	}
	return n
}

// ManifestEntry describes one instance file.
type ManifestEntry struct {
	Name         string   `json:"name"`
	File         string   `json:"file"`
	Sense        string   `json:"sense"`
	OptimalValue *float64 `json:"optimal_value"`
	BestBound    *float64 `json:"best_bound"`
	Certificate  string   `json:"certificate"`
	// CertifiedBy is how optimal_value is certified (none without one).
	CertifiedBy CertMethod `json:"certified_by,omitempty"`
	Source      string     `json:"source"`
	Variant     string     `json:"variant"`
	Tier        string     `json:"tier"`
	// Set is the benchmark set or the collection only (InBenchmark); none
	// in a manifest of library version 3 or earlier.
	Set        Set     `json:"set,omitempty"`
	Size       string  `json:"size"`
	N          int     `json:"n"`
	K          int     `json:"k"`
	Outputs    int     `json:"outputs,omitempty"`
	ModelIndex int     `json:"model_index"`
	Fraction   float64 `json:"fraction"`
	D          float64 `json:"D"`
	Rows       int     `json:"rows"`
	Columns    int     `json:"columns"`
	Integers   int     `json:"integers"`
	Nonzeros   int     `json:"nonzeros"`
	SHA256     string  `json:"sha256"` // of the MPS text (decompressed, for a .mps.gz file)
}

// Entry returns in's manifest entry for file (relative to the library).
func (in Instance) Entry(file string, mps []byte) ManifestEntry {
	e := ManifestEntry{Name: in.Name, File: file, Sense: "min", Certificate: in.Certificate, CertifiedBy: in.CertifiedBy, Source: in.Source,
		Variant: in.Variant, Tier: in.Tier, N: in.N, K: in.K, Outputs: in.Outputs, ModelIndex: in.Model,
		Fraction: in.Fraction, D: in.D}
	e.Size = fmt.Sprintf("n=%d K=%d", in.N, in.K)
	if in.Outputs > 0 {
		e.Size += fmt.Sprintf(" m=%d", in.Outputs)
	}
	e.OptimalValue, e.BestBound = optFloat(in.Optimal), optFloat(in.Bound)
	p := in.Problem
	e.Rows, e.Columns = p.NumRows(), p.NumCols()
	for i := range e.Rows {
		_, _, col, _ := p.Row(i)
		e.Nonzeros += len(col)
	}
	for j := range e.Columns {
		if isInteger(p, j) {
			e.Integers++
		}
	}
	e.SHA256 = safefile.SHA256(mps)
	return e
}

// MPSBytes is in's MPS file: the library file's bytes for an instance
// read from one, else WriteMPS's.
func (in Instance) MPSBytes() ([]byte, error) {
	if in.mps != nil {
		return in.mps, nil
	}
	var b bytes.Buffer
	if err := WriteMPS(&b, in.Name, in.Problem); err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	return b.Bytes(), nil
}

// Library files besides the instances, all written atomically after them.
const (
	SoluFile     = "mmds.solu"
	MetadataFile = "metadata.csv"
)

// WriteLibrary writes every instance of s to dir (created if needed) as
// NAME.mps.gz, then the certified values as mmds.solu (MIPLIB's format),
// the benchmark set's files as benchmark.test, the per-instance metadata as
// metadata.csv, and the manifest as
// manifest.json and manifest.csv. Every file is written atomically; the
// manifests come last, so a library with a manifest is complete. dir is
// marked as a bench library (report.BenchLibrary); a folder of another
// kind, or a non-empty one without a marker that is not an older library,
// or one that cannot be written, is refused before any instance is built.
func WriteLibrary(ctx context.Context, dir string, s LibrarySpec) (Manifest, error) {
	// The folder is made first, so that a path that cannot be written is
	// refused before the models are drawn and certified.
	if err := report.PrepareFolder(dir, report.BenchLibrary); err != nil {
		return Manifest{}, err
	}
	ins, err := s.Build(ctx)
	if err != nil {
		return Manifest{}, err
	}
	man := Manifest{Generator: "mmds bench library", Version: LibraryVersion, Seed: s.Seed, OpenN: s.OpenN,
		Note: "every instance minimizes −γ (mmds maximizes γ): optimal_value = −γ*; best_bound is a lower bound on the optimal value; sha256 is of the decompressed MPS text"}
	for _, in := range ins {
		if err := ctx.Err(); err != nil {
			return Manifest{}, err
		}
		data, err := in.MPSBytes()
		if err != nil {
			return Manifest{}, err
		}
		file := in.Name + ".mps.gz"
		if err := report.WriteAtomic(filepath.Join(dir, file), func(w io.Writer) error { return writeGzip(w, data) }); err != nil {
			return Manifest{}, err
		}
		man.Instances = append(man.Instances, in.Entry(file, data))
		if s.Progress != nil {
			s.Progress(len(man.Instances), len(ins))
		}
	}
	markSets(man.Instances)
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{SoluFile, func(w io.Writer) error { return WriteSolu(w, man.SoluEntries()) }},
		{BenchmarkFile, func(w io.Writer) error { _, err := io.WriteString(w, benchmarkList(man.Instances)); return err }},
		{MetadataFile, func(w io.Writer) error { return man.Metadata().RenderCSV(w) }},
		{"manifest.csv", func(w io.Writer) error { return man.Grid().RenderCSV(w) }},
		{"manifest.json", func(w io.Writer) error { return report.WriteJSON(w, man) }},
	} {
		if err := report.WriteAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return Manifest{}, err
		}
	}
	return man, nil
}

// writeGzip writes data gzipped at the best compression, with no name and
// no time in the header, so the bytes depend on data alone (for a given
// compress/gzip).
func writeGzip(w io.Writer, data []byte) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}

// Metadata is the per-instance table a solver developer needs to place an
// instance (DIR/metadata.csv): its size, tier, model, threshold and how
// its optimum is known.
func (m Manifest) Metadata() *report.Grid {
	g := &report.Grid{Header: []string{"name", "file", "rows", "columns", "integers", "nonzeros", "tier", "set", "model", "formulation",
		"D", "optimal_value", "certified_by"}}
	for _, e := range m.Instances {
		model := fmt.Sprintf("%s n=%d K=%d #%d", e.Source, e.N, e.K, e.ModelIndex)
		opt, by := "", "not certified (best_bound only)"
		if e.BestBound == nil {
			by = "not certified, no bound"
		}
		if e.OptimalValue != nil {
			opt, by = shortest(*e.OptimalValue), e.CertifiedBy.String()
		}
		g.Rows = append(g.Rows, []string{e.Name, e.File, strconv.Itoa(e.Rows), strconv.Itoa(e.Columns), strconv.Itoa(e.Integers),
			strconv.Itoa(e.Nonzeros), e.Tier, e.Set.String(), model, e.Variant, shortest(e.D), opt, by})
	}
	return g
}

// Grid is the manifest as a table (the CSV form).
func (m Manifest) Grid() *report.Grid {
	g := &report.Grid{Header: []string{"name", "file", "sense", "optimal_value", "best_bound", "source", "variant", "tier", "set", "size",
		"n", "k", "outputs", "fraction", "D", "rows", "columns", "integers", "nonzeros", "sha256", "certified_by", "certificate"}}
	opt := func(p *float64) string {
		if p == nil {
			return ""
		}
		return shortest(*p)
	}
	for _, e := range m.Instances {
		by := ""
		if e.CertifiedBy != 0 {
			by = e.CertifiedBy.String()
		}
		g.Rows = append(g.Rows, []string{e.Name, e.File, e.Sense, opt(e.OptimalValue), opt(e.BestBound), e.Source, e.Variant, e.Tier, e.Set.String(), e.Size,
			strconv.Itoa(e.N), strconv.Itoa(e.K), strconv.Itoa(e.Outputs), shortest(e.Fraction), shortest(e.D),
			strconv.Itoa(e.Rows), strconv.Itoa(e.Columns), strconv.Itoa(e.Integers), strconv.Itoa(e.Nonzeros), e.SHA256, by, e.Certificate})
	}
	return g
}

// ReadManifest reads DIR/manifest.json once (a regular file, safefile) and
// decodes it strictly (jsonconf). A folder marked as another kind than a
// bench library is refused; one without a marker (written by an older mmds)
// is read.
func ReadManifest(dir string) (Manifest, error) {
	if k, err := report.ReadKind(dir); err != nil || (k != "" && k != report.BenchLibrary) {
		if err == nil {
			err = fmt.Errorf("%w: it is a %s folder, not a bench library", report.ErrKind, k)
		}
		return Manifest{}, err
	}
	// A library's files are read beneath its folder (safefile.ReadIn): one
	// that links out of it is refused, and nothing of its target is quoted.
	data, err := safefile.ReadIn(context.Background(), dir, "manifest.json", safefile.Path(filepath.Join(dir, "manifest.json")), jsonconf.MaxBytes)
	if err != nil {
		return Manifest{}, err
	}
	var m Manifest
	if err := jsonconf.Unmarshal(data, &m); err != nil {
		return Manifest{}, fmt.Errorf("%s: %w", filepath.Join(dir, "manifest.json"), err)
	}
	if len(m.Instances) == 0 {
		return Manifest{}, fmt.Errorf("%s: no instances", filepath.Join(dir, "manifest.json"))
	}
	return m, nil
}

// maxInstanceBytes bounds an instance file of a library, compressed or
// not.
const maxInstanceBytes = 1 << 30

// readInstanceFile reads the library file name of the folder dir (beneath
// it, safefile.ReadIn), decompressing a .gz one (at most maxInstanceBytes
// either way).
func readInstanceFile(dir, name string) ([]byte, error) {
	path := filepath.Join(dir, name)
	data, err := safefile.ReadIn(context.Background(), dir, name, safefile.Path(path), maxInstanceBytes)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return data, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxInstanceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) > maxInstanceBytes {
		return nil, fmt.Errorf("%s: more than %d bytes decompressed", path, maxInstanceBytes)
	}
	return out, nil
}

// LoadInstance reads the instance of entry e from dir, checking the file's
// SHA-256 against the manifest and its optimal value against the library's
// mmds.solu and metadata.csv (an error wrapping ErrListed when they
// disagree), and returns the file's model under e's name. The optimum,
// bound and description are not the manifest's word: Recompute gives them.
func LoadInstance(dir string, e ManifestEntry) (Instance, error) {
	// A manifest names files of its own folder: a path that leaves it, or a
	// missing hash, would let an edited manifest judge solvers against
	// another file than the one it describes.
	if e.File == "" || filepath.Base(e.File) != e.File || !filepath.IsLocal(e.File) {
		return Instance{}, fmt.Errorf("%s: instance %q: file %q is not a file name of the library's folder", filepath.Join(dir, "manifest.json"), e.Name, e.File)
	}
	if e.SHA256 == "" {
		return Instance{}, fmt.Errorf("%s: instance %q: no sha256 of its file", filepath.Join(dir, "manifest.json"), e.Name)
	}
	if err := checkListed(dir, e); err != nil {
		return Instance{}, err
	}
	path := filepath.Join(dir, e.File)
	data, err := readInstanceFile(dir, e.File)
	if err != nil {
		return Instance{}, err
	}
	if safefile.SHA256(data) != e.SHA256 {
		return Instance{}, fmt.Errorf("%s: SHA-256 differs from the manifest's: the file was changed", path)
	}
	mps, err := ReadMPS(bytes.NewReader(data))
	if err != nil {
		return Instance{}, fmt.Errorf("%s: %w", path, err)
	}
	if mps.Model.Maximize != (e.Sense == "max") {
		return Instance{}, fmt.Errorf("%s: the file's sense differs from the manifest's %q", path, e.Sense)
	}
	return Instance{Name: e.Name, Problem: mps.Model, Exact: mps.Exact, mps: data, Optimal: math.NaN(), Bound: math.NaN()}, nil
}

// SelectTiers keeps the entries of the given tiers, in order (all of them
// when tiers is empty). A tier with no entry in es is an error, so that a
// typo does not pass for an empty run.
func SelectTiers(es []ManifestEntry, tiers []string) ([]ManifestEntry, error) {
	if len(tiers) == 0 {
		return es, nil
	}
	var have []string
	for _, e := range es {
		if !slices.Contains(have, e.Tier) {
			have = append(have, e.Tier)
		}
	}
	for _, t := range tiers {
		if !slices.Contains(have, t) {
			return nil, fmt.Errorf("%q: the library has no instance of that tier (its tiers: %s)", t, strings.Join(have, ", "))
		}
	}
	var out []ManifestEntry
	for _, e := range es {
		if slices.Contains(tiers, e.Tier) {
			out = append(out, e)
		}
	}
	return out, nil
}
