package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/internal/highsx"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/mip"
)

// smallLibrary is a library quick enough for the default suite.
func smallLibrary(seed uint64) LibrarySpec {
	s := DefaultLibrary(seed)
	s.BinaryKs, s.BinaryModels = []int{1, 3}, 1
	s.Finite = []Size{{N: 2, K: 1, Tier: "easy"}}
	s.Fractions = []float64{0.3, 0.7}
	return s
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = data
	}
	return out
}

// The .solu file and the metadata say what the manifest says, and the
// .solu file reads back; the gzipped files hold the MPS text the manifest's
// SHA-256 names.
func TestLibrarySoluAndMetadata(t *testing.T) {
	dir := t.TempDir()
	man, err := WriteLibrary(context.Background(), dir, smallLibrary(5))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, SoluFile))
	if err != nil {
		t.Fatal(err)
	}
	es, err := ReadSolu(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != len(man.Instances) {
		t.Fatalf("%d .solu lines for %d instances", len(es), len(man.Instances))
	}
	for i, e := range es {
		m := man.Instances[i]
		if e.Kind != SoluOpt || e.Name != m.Name || e.Value != *m.OptimalValue {
			t.Errorf(".solu line %+v, manifest %s %v", e, m.Name, *m.OptimalValue)
		}
		if !strings.HasPrefix(strings.Split(string(data), "\n")[i], "=opt=      "+m.Name+" ") {
			t.Errorf("line %d: %q", i, strings.Split(string(data), "\n")[i])
		}
		mps, err := readInstanceFile(dir, m.File)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(mps); hex.EncodeToString(sum[:]) != m.SHA256 || !bytes.HasPrefix(mps, []byte("NAME "+m.Name+" FREE\n")) {
			t.Errorf("%s: the gzipped file is not the manifest's MPS text", m.File)
		}
	}
	meta, err := os.ReadFile(filepath.Join(dir, MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(meta)), "\n")
	if len(lines) != len(man.Instances)+1 || lines[0] != "name,file,rows,columns,integers,nonzeros,tier,set,model,formulation,D,optimal_value,certified_by" {
		t.Errorf("metadata.csv: %d lines, header %q", len(lines), lines[0])
	}
}

func TestSoluRoundTrip(t *testing.T) {
	es := []SoluEntry{{SoluOpt, "a", -0.1899230000000001}, {SoluBest, "b", 3}, {SoluBestDual, "c", -1e-300},
		{SoluInf, "d", math.NaN()}, {SoluUnknown, "e", math.NaN()}}
	var b bytes.Buffer
	if err := WriteSolu(&b, es); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSolu(bytes.NewReader(append([]byte("# a comment\n\n"), b.Bytes()...)))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(es) {
		t.Fatalf("%d entries back: %+v", len(back), back)
	}
	for i, e := range es {
		g := back[i]
		if g.Kind != e.Kind || g.Name != e.Name || (g.Value != e.Value && !(math.IsNaN(g.Value) && math.IsNaN(e.Value))) {
			t.Errorf("entry %d: %+v, want %+v", i, g, e)
		}
	}
	for _, bad := range []string{"=opt= a\n", "=opt= a x\n", "=opt= a NaN\n", "=inf= a 1\n", "=opt a 1\n", "=best= a 1 2\n"} {
		if _, err := ReadSolu(strings.NewReader(bad)); !errors.Is(err, ErrSolu) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	for _, bad := range [][]SoluEntry{{{SoluOpt, "a b", 1}}, {{SoluOpt, "a", math.Inf(1)}}, {{"=x=", "a", 1}}} {
		if err := WriteSolu(io.Discard, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestLibraryIsReproducibleBitForBit(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	ctx := context.Background()
	man, err := WriteLibrary(ctx, a, smallLibrary(7))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteLibrary(ctx, b, smallLibrary(7)); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteLibrary(ctx, c, smallLibrary(8)); err != nil {
		t.Fatal(err)
	}
	fa, fb, fc := readDir(t, a), readDir(t, b), readDir(t, c)
	// 2 binary models × 2 fractions, one finite model × 2 fractions × 6, + 2
	// manifests, the .solu file, benchmark.test, the metadata and the marker.
	if want := 4 + 12 + 2 + 3 + 1; len(fa) != want {
		t.Fatalf("%d files, want %d", len(fa), want)
	}
	if !reflect.DeepEqual(fa, fb) {
		t.Error("two libraries from the same seed differ")
	}
	if bytes.Equal(fa["manifest.json"], fc["manifest.json"]) {
		t.Error("libraries from seeds 7 and 8 have the same manifest")
	}
	back, err := ReadManifest(a)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, man) {
		t.Error("manifest.json does not read back as written")
	}
	for _, e := range man.Instances {
		if e.Sense != "min" || e.File != e.Name+".mps.gz" {
			t.Errorf("%s: sense %q file %q", e.Name, e.Sense, e.File)
		}
		if e.OptimalValue == nil || e.BestBound == nil {
			t.Errorf("%s: small instances must all be certified", e.Name)
		}
	}
}

// A library is never written into a folder of another kind, or a non-empty
// one of no kind, and nothing is built or written when it is refused; an
// empty folder becomes a marked library, and run refuses a results directory.
func TestLibraryFolderKind(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // building would fail with the context's error: a refusal comes first
	res := t.TempDir()
	os.WriteFile(filepath.Join(res, report.MarkerFile), []byte("results\n"), 0o644)
	mine := t.TempDir()
	os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("mine"), 0o644)
	older := t.TempDir() // results of an older mmds: no marker
	os.WriteFile(filepath.Join(older, "model.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(older, "results.json"), []byte("{}"), 0o644)
	for _, dir := range []string{res, mine, older} {
		before := readDir(t, dir)
		if _, err := WriteLibrary(ctx, dir, smallLibrary(1)); !errors.Is(err, report.ErrKind) {
			t.Errorf("%s: %v, want ErrKind", dir, err)
		}
		if after := readDir(t, dir); !reflect.DeepEqual(before, after) {
			t.Errorf("%s changed", dir)
		}
	}
	if _, err := ReadManifest(res); !errors.Is(err, report.ErrKind) {
		t.Errorf("ReadManifest of a results directory: %v", err)
	}
	lib := t.TempDir()
	if _, err := WriteLibrary(context.Background(), lib, smallLibrary(1)); err != nil {
		t.Fatal(err)
	}
	if k, _ := report.ReadKind(lib); k != report.BenchLibrary {
		t.Errorf("kind %q", k)
	}
	if _, err := WriteLibrary(context.Background(), lib, smallLibrary(1)); err != nil {
		t.Errorf("rewriting a library: %v", err)
	}
}

// The default library's tiers, as docs/bench.md lists them: every instance
// certified, and the open tier small (each of its MIPs costs every solver
// its whole time limit) and made of n = 4, K = 1 models at D = D_max/4.
func TestDefaultLibraryTiers(t *testing.T) {
	ins, err := DefaultLibrary(1).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, in := range ins {
		count[in.Tier]++
		if math.IsNaN(in.Optimal) || math.IsNaN(in.Bound) {
			t.Errorf("%s: not certified (%s)", in.Name, in.Certificate)
		}
		if in.Tier != "open" {
			continue
		}
		if in.N != 4 || in.K != 1 || in.Fraction != 0.25 || in.Model > 1 {
			t.Errorf("%s: open instance of n = %d, K = %d, D/D_max = %g, model %d", in.Name, in.N, in.K, in.Fraction, in.Model)
		}
		if in.Variant != "derivedM" && in.Variant != "hull+sym" && in.Variant != GlobalName {
			t.Errorf("%s: formulation %q in the open tier", in.Name, in.Variant)
		}
	}
	want := map[string]int{"easy": 36, "medium": 36, "hard": 6, "open": 6}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("instances per tier %v, want %v", count, want)
	}
}

// The certified values agree with HiGHS solving the instance (the MIP
// being certified), and for the binary model also with a grid search that
// shares no code with either.
func TestLibraryCertifiedValuesMatchIndependentSolves(t *testing.T) {
	dir := t.TempDir()
	man, err := WriteLibrary(context.Background(), dir, smallLibrary(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range man.Instances {
		in, err := LoadInstance(dir, e)
		if err != nil {
			t.Fatal(err)
		}
		res, err := in.Problem.Solve(context.Background(), mip.DefaultSolver())
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		x, obj := res.X, res.Objective
		opt, bound := *e.OptimalValue, *e.BestBound // smallLibrary certifies every instance
		if math.Abs(obj-opt) > 1e-7 {
			t.Errorf("%s: HiGHS %.10g, certified %.10g", e.Name, obj, opt)
		}
		if bound > opt+CertTol {
			t.Errorf("%s: bound %.10g above the optimum %.10g", e.Name, bound, opt)
		}
		// The solution HiGHS returns passes the independent check.
		if v := CheckExact(in.Exact, x); v.Reason != "" || v.Exceeds(DefaultTolerances()) != "" {
			t.Errorf("%s: %s %s", e.Name, v.Reason, v.Exceeds(DefaultTolerances()))
		}
	}
}

// gridOptimum searches Proposition 2 on an N×N grid of (s0, s1) with
// mip.Binary's own loss code: a lower bound on γ* that approaches it.
func gridOptimum(m mip.Binary, d float64, n int) float64 {
	best := math.Inf(-1)
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			s := mip.Privatizer{S0: float64(i) / float64(n), S1: float64(j) / float64(n)}
			if m.ReconLoss(s) <= d {
				best = math.Max(best, loss.Min(m.AdvLosses(s)))
			}
		}
	}
	return best
}

func TestBinaryOptimumAgainstGridAndMIP(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 20 {
		k := 1 + trial%3
		m := randomBinary(rng, k)
		d := rng.Float64() * m.DMax()
		g, s0, s1, err := BinaryOptimum(m, d)
		if err != nil {
			t.Fatal(err)
		}
		// The point attains the value and is feasible.
		p := mip.Privatizer{S0: s0, S1: s1}
		if r := m.ReconLoss(p); r > d+1e-12 {
			t.Errorf("%+v D=%g: recon %g > D", m, d, r)
		}
		if v := loss.Min(m.AdvLosses(p)); math.Abs(v-g) > 1e-12 {
			t.Errorf("%+v: value %g, point gives %g", m, g, v)
		}
		grid := gridOptimum(m, d, 400)
		if grid > g+1e-12 || g-grid > 0.01 {
			t.Errorf("%+v D=%g: enumeration %g, grid %g", m, d, g, grid)
		}
		opt, err := m.SolveProp2(d, mip.DefaultSolver())
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(opt.Gamma-g) > 1e-7 {
			t.Errorf("%+v D=%g: enumeration %.10g, HiGHS MIP %.10g", m, d, g, opt.Gamma)
		}
	}
}

func TestCertifyGlobalBracketsTheLP(t *testing.T) {
	for _, nk := range [][2]int{{2, 1}, {3, 2}, {4, 1}} {
		m, err := FamilyModel(5, nk[0], nk[1], 0)
		if err != nil {
			t.Fatal(err)
		}
		g, err := m.PrepareGlobal(mip.GlobalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, frac := range []float64{0.1, 0.5, 0.9} {
			d := frac * m.DMax()
			c, err := CertifyGlobal(g, d)
			if err != nil {
				t.Fatal(err)
			}
			opt, err := g.Solve(d, mip.DefaultSolver())
			if err != nil {
				t.Fatal(err)
			}
			if c.Gap() < -1e-12 || c.Gap() > CertTol {
				t.Errorf("n=%d K=%d D=%g: bracket [%g, %g]", nk[0], nk[1], d, c.Lower, c.Upper)
			}
			if opt.Gamma < c.Lower-1e-9 || opt.Gamma > c.Upper+1e-9 {
				t.Errorf("LP %g outside [%g, %g]", opt.Gamma, c.Lower, c.Upper)
			}
			if nk[0] > 2 {
				continue // the MIP with n + K + 1 outputs takes seconds to minutes
			}
			// The fixed MIP with n + K + 1 outputs reaches the same value.
			fo, err := m.SolveFixed(d, mip.FixedOptions{Outputs: m.GlobalOutputs(), Hull: true}, mip.DefaultSolver())
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(fo.Gamma-c.Lower) > 1e-7 {
				t.Errorf("n=%d K=%d D=%g: MIP %g, certified %g", nk[0], nk[1], d, fo.Gamma, c.Lower)
			}
		}
	}
}

func TestMPSRoundTrip(t *testing.T) {
	ins, err := smallLibrary(2).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mod := highsx.NewProblem(4) // every bound and row kind the writer knows
	mod.Offset = 0.125
	copy(mod.Cost, []float64{1, -2.5, 0, 1e-17})
	copy(mod.Lower, []float64{math.Inf(-1), -1, 2, 0})
	copy(mod.Upper, []float64{math.Inf(1), 3, 2, math.Inf(1)})
	copy(mod.Integer, []bool{false, true, false, true})
	mod.AddRow(-1, -1, []int{0}, []float64{1})
	mod.AddRow(math.Inf(-1), 2, []int{1}, []float64{0.1 + 0.2})
	mod.AddRow(0.1, math.Inf(1), []int{3}, []float64{-7})
	mod.AddRow(4, 5, []int{0, 2}, []float64{1, math.Pi})
	ins = append(ins, Instance{Name: "handmade", Problem: mod})
	for _, in := range ins {
		data, err := in.MPSBytes()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ReadMPS(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", in.Name, err)
		}
		if !sameModel(in.Problem, back.Model) {
			t.Errorf("%s: the model does not read back", in.Name)
		}
		if back.Name != in.Name {
			t.Errorf("name %q, want %q", back.Name, in.Name)
		}
	}
}

// sameModel compares two models entry by entry.
func sameModel(a, b *highsx.Problem) bool {
	if a.NumRows() != b.NumRows() {
		return false
	}
	for i := range a.NumRows() {
		alo, ahi, acol, aval := a.Row(i)
		blo, bhi, bcol, bval := b.Row(i)
		if alo != blo || ahi != bhi || !slices.Equal(acol, bcol) || !slices.Equal(aval, bval) {
			return false
		}
	}
	return a.Maximize == b.Maximize && a.Offset == b.Offset && slices.Equal(a.Cost, b.Cost) &&
		slices.Equal(a.Lower, b.Lower) && slices.Equal(a.Upper, b.Upper) && slices.Equal(a.Integer, b.Integer)
}

func TestReadMPSErrors(t *testing.T) {
	for _, tc := range []string{
		"",
		"NAME x\nROWS\n N obj\n", // no ENDATA
		"NAME x\nROWS\n L r\nCOLUMNS\n x r 1\nENDATA\n",       // no objective
		"NAME x\nROWS\n N obj\n Q r\nENDATA\n",                // bad row type
		"NAME x\nROWS\n N obj\nCOLUMNS\n x nope 1\nENDATA\n",  // unknown row
		"NAME x\nROWS\n N obj\nCOLUMNS\n x obj abc\nENDATA\n", // bad number
		"NAME x\nROWS\n N obj\nCOLUMNS\n x obj 1\nBOUNDS\n ZZ b x 1\nENDATA\n",
		"NAME x\nROWS\n N obj\nCOLUMNS\n x obj 1\n y obj 1\n x obj 2\nENDATA\n", // not contiguous
		"NAME x\nBOGUS\nENDATA\n",
		// An entry given twice: HiGHS keeps one, the exact checker would sum them.
		"NAME x\nROWS\n N obj\n L r\nCOLUMNS\n x r 1 r 2\nRHS\n B r 1\nENDATA\n",
		"NAME x\nROWS\n N obj\n L r\nCOLUMNS\n x obj 1\n x obj 1\nENDATA\n",
		"NAME x\nROWS\n N obj\n L r\nCOLUMNS\n x r 0\n x r 1\nENDATA\n",
	} {
		if _, err := ReadMPS(bytes.NewReader([]byte(tc))); err == nil {
			t.Errorf("%q: no error", tc)
		}
	}
}

func FuzzReadMPS(f *testing.F) {
	ins, err := smallLibrary(1).Build(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	for _, in := range ins[:3] {
		data, _ := in.MPSBytes()
		f.Add(data)
	}
	f.Add([]byte("NAME x\nOBJSENSE\n MAX\nROWS\n N o\n E r\nCOLUMNS\n a o 1 r 2\nRHS\n r 1\nRANGES\n R r -1\nBOUNDS\n BV b a\nENDATA\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadMPS(bytes.NewReader(data))
		if err != nil {
			return
		}
		// What reads is a consistent model (AddRow panics on an entry out of
		// range), and its exact reading agrees with the float one: every
		// exact number rounds to the float read (costs summed in float may
		// differ by rounding, so only bounds and sides are compared),
		// infinite where the float is.
		m, x := p.Model, p.Exact
		same := func(r *big.Rat, f float64) bool {
			if r == nil {
				return math.IsInf(f, 0)
			}
			g, _ := r.Float64()
			return g == f || math.Abs(g-f) <= 1e-12*math.Abs(f) // ranges are sums
		}
		for j := range m.NumCols() {
			if !same(x.ColLower[j], m.Lower[j]) || !same(x.ColUpper[j], m.Upper[j]) || x.Integer[j] != m.Integer[j] {
				t.Fatalf("column %d: exact [%v, %v] int %v, float [%v, %v] int %v", j, x.ColLower[j], x.ColUpper[j], x.Integer[j], m.Lower[j], m.Upper[j], m.Integer[j])
			}
		}
		entries := 0
		for i := range m.NumRows() {
			lo, hi, col, _ := m.Row(i)
			if !same(x.RowLower[i], lo) || !same(x.RowUpper[i], hi) {
				t.Fatalf("row %d: exact [%v, %v], float [%v, %v]", i, x.RowLower[i], x.RowUpper[i], lo, hi)
			}
			entries += len(col)
		}
		if len(x.Entries) != entries {
			t.Fatalf("%d exact entries, %d float", len(x.Entries), entries)
		}
	})
}

func TestMinimizeNegatesWithoutNegativeZero(t *testing.T) {
	m := highsx.NewProblem(3)
	m.Maximize, m.Cost[1], m.Cost[2] = true, 1, -2
	got := Minimize(m)
	if got.Maximize || got.Cost[1] != -1 || got.Cost[2] != 2 || math.Signbit(got.Cost[0]) || math.Signbit(got.Offset) {
		t.Errorf("%+v", got)
	}
	if m.Cost[1] != 1 {
		t.Error("Minimize changed its argument")
	}
}
