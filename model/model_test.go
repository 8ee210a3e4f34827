package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/gauss"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
)

// smallGauss is a Gaussian model with closed forms: Var[X | Y] = 4 − 2²/2
// = 2, Var[X | Z] = 4 − 1²/1 = 3, and for F = X + N, N ~ N(0, σ²)
// independent, posterior precisions add: 1/Var[X | F, S] = 1/Var[X | S] +
// 1/σ².
const smallGauss = `{"names": ["X", "Y", "Z"], "cov": [[4, 2, 1], [2, 2, 0.5], [1, 0.5, 1]],
 "private": "X", "reconstructor": ["Y"], "adversaries": [["Z"]]}`

// Every kind's file is detected by Parse and Load, read as its kind by
// ParseAs, and refused as any other kind; files of no kind are refused
// with ErrConfig.
func TestParseAndLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		file string
		body string // when file is ""
		kind Kind
		dmax float64
		advs int
	}{
		{file: "../examples/binary-paper.json", kind: Binary, dmax: 0.2, advs: 1},
		{file: "../paper/binary/model.json", kind: Binary, dmax: 0.2, advs: 1},
		{file: "../examples/finite-paper-binary.json", kind: Finite, dmax: 0.2, advs: 1},
		{file: "../examples/finite-ternary.json", kind: Finite, advs: 2},
		{file: "../examples/gauss-coalition.json", kind: Gauss},
		{file: "../paper/gauss/model.json", kind: Gauss, advs: 2},
		{body: smallGauss, kind: Gauss, dmax: 2, advs: 1},
		{body: `{"q_z": [0.3, 0.1], "q_y": 0.05, "p": 0.5}`, kind: Binary, dmax: 0.05, advs: 2},
	} {
		path := c.file
		if path == "" {
			path = write("model.json", c.body)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(b)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		l, err := Load(context.Background(), path)
		if err != nil || l.Kind() != c.kind || m.Kind() != c.kind {
			t.Errorf("%s: kind %v (Load: %v, %v), want %v", path, m.Kind(), l, err, c.kind)
		}
		if c.dmax != 0 && !scalar.EqualWithinAbs(m.DMax(), c.dmax, 1e-12) {
			t.Errorf("%s: D_max %g, want %g", path, m.DMax(), c.dmax)
		}
		if c.advs != 0 && m.Adversaries() != c.advs {
			t.Errorf("%s: %d adversaries, want %d", path, m.Adversaries(), c.advs)
		}
		if len(m.SideWidths()) != 1+m.Adversaries() {
			t.Errorf("%s: %d side widths for %d adversaries", path, len(m.SideWidths()), m.Adversaries())
		}
		for _, k := range Kinds() {
			if _, err := ParseAs(k, b); (err == nil) != (k == c.kind) {
				t.Errorf("%s as %v: %v", path, k, err)
			}
		}
	}
	for _, body := range []string{``, `null`, `{}`, `[]`, `{"p": 2, "q_y": 0.2, "q_z": [0.4]}`, `{"p": 0.5, "q_y": 0.2}`,
		`{"p": 0.5, "q_y": 0.2, "q_z": [0.4], "prior": [1]}`, `{"p": 0.5, "q_y": 0.2, "q_z": [0.4]`,
		`{"p": 0.5, "p": 0.5, "q_y": 0.2, "q_z": [0.4]}`, `{"names": ["X"], "cov": [[1]], "private": "X"}`,
		strings.Replace(smallGauss, "[4, 2, 1]", "[4, 2, 9]", 1)} {
		if m, err := Parse([]byte(body)); !errors.Is(err, ErrConfig) {
			t.Errorf("%q: %v, %v; want ErrConfig", body, m, err)
		}
	}
	for _, p := range []string{filepath.Join(dir, "absent.json"), dir} {
		if _, err := Load(context.Background(), p); !errors.Is(err, ErrConfig) {
			t.Errorf("Load(%s): %v, want ErrConfig", p, err)
		}
	}
	bin := write("binary.json", `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
	if _, err := LoadAs(context.Background(), Gauss, bin); !errors.Is(err, ErrConfig) {
		t.Errorf("a binary file as Gaussian: %v", err)
	}
	if b, err := LoadBinary(context.Background(), bin); err != nil || b.M.P != 0.54 {
		t.Errorf("LoadBinary: %+v, %v", b, err)
	}
	if _, err := ParseAs(Kind(0), []byte(`{}`)); !errors.Is(err, ErrConfig) {
		t.Errorf("kind 0: %v", err)
	}
	if _, err := Paper(Finite); !errors.Is(err, ErrConfig) || err.Error() != "a finite model needs a --config file (docs/finite.md); there is no default" {
		t.Errorf("finite has no paper model: %v", err)
	}
}

// Hashes bind results directories and certificates: equal models hash
// equally whatever the layout of their file, a changed parameter changes
// the hash, Encode round-trips, and the paper's models hash to what the
// committed certificates recorded.
func TestHash(t *testing.T) {
	h := func(body string) string {
		m, err := Parse([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		s, err := Hash(m)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := h(`{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
	if b := h("{\n  \"q_z\": [0.44],\n  \"q_y\": 0.20,\n  \"p\": 5.4e-1\n}\n"); a != b {
		t.Errorf("layout changes the hash: %s vs %s", a, b)
	}
	if c := h(`{"p": 0.54, "q_y": 0.2, "q_z": [0.49]}`); a == c || len(a) != 64 {
		t.Errorf("hashes %s %s", a, c)
	}
	for _, c := range []struct {
		kind Kind
		cert string
	}{{Binary, "../paper/binary/certificate.json"}, {Gauss, "../paper/gauss/certificate.json"}} {
		var cert struct {
			ModelSHA256 string `json:"model_sha256"`
		}
		b, err := os.ReadFile(c.cert)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &cert); err != nil {
			t.Fatal(err)
		}
		m, _ := Paper(c.kind)
		if got, _ := Hash(m); got != cert.ModelSHA256 {
			t.Errorf("paper %v model hashes to %s, the committed certificate says %s", c.kind, got, cert.ModelSHA256)
		}
	}
	for _, body := range []string{smallGauss, `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`, mustRead(t, "../examples/finite-ternary.json")} {
		m, _ := Parse([]byte(body))
		e, _ := m.Encode()
		m2, err := Parse(e)
		if err != nil {
			t.Fatalf("%v: %v", m.Kind(), err)
		}
		if e2, _ := m2.Encode(); !bytes.Equal(e, e2) || m2.Kind() != m.Kind() {
			t.Errorf("%v: encoding does not round-trip", m.Kind())
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Each kind's optimum against numbers computed without it: at D = 0 the
// release must reveal X (every adversary's loss is 0); at D = D_max it may
// reveal nothing (each adversary keeps its loss from its side information
// alone); in between, the Gaussian closed form of smallGauss.
func TestOptimumClosedForms(t *testing.T) {
	ctx := context.Background()
	g, _ := Parse([]byte(smallGauss))
	b := NewBinary(mip.PaperBinary())
	f := NewFinite(mip.PaperBinary().Finite())
	for _, c := range []struct {
		m            Model
		d            float64
		recon, adv   float64
		class        Class
		tol          float64
		detailIsSane func(Optimum) bool
	}{
		{g, 0, 0, 0, LinearGaussian, 1e-12, func(o Optimum) bool { return o.Gauss() != nil && o.Gauss().SNR == nil }},
		{g, 1, 1, 1 / (1.0/3 + 1.0/2), LinearGaussian, 1e-12, func(o Optimum) bool {
			d := o.Gauss()
			return d != nil && d.DEff == 1 && d.SNR != nil && d.UpperBound >= d.Best.MinAdv && d.Best.MinAdv >= o.MinAdv-1e-12
		}},
		{g, 2, 2, 3, LinearGaussian, 1e-12, func(o Optimum) bool { return o.Gauss() != nil }},
		{g, 5, 2, 3, LinearGaussian, 1e-12, func(o Optimum) bool { return scalar.EqualWithinAbs(o.Gauss().DEff, 2, 1e-12) }},
		// MAP error from Z alone: Σ_z min_x P(x, z) = 0.2376 + 0.2024.
		{b, 0.2, 0.2, 0.44, BinaryOutput, 1e-9, func(o Optimum) bool {
			d := o.Binary()
			return d != nil && d.Global.MinAdv >= o.MinAdv-1e-9 && o.Finite() == nil && o.Gauss() == nil
		}},
		{b, 0, 0, 0, BinaryOutput, 1e-9, func(o Optimum) bool { return o.Binary().S0 > 1-1e-9 && o.Binary().S1 > 1-1e-9 }},
		{f, 0.2, 0.2, 0.44, All, 1e-9, func(o Optimum) bool { return o.Finite() != nil && len(o.Finite().Mechanism) == 2 }},
		{f, 0, 0, 0, All, 1e-9, func(o Optimum) bool { return o.Finite() != nil }},
	} {
		o, err := c.m.Optimum(ctx, c.d, Options{})
		if err != nil {
			t.Fatalf("%v at %g: %v", c.m.Kind(), c.d, err)
		}
		if !scalar.EqualWithinAbs(o.Recon, c.recon, c.tol) || !scalar.EqualWithinAbs(o.MinAdv, c.adv, c.tol) || o.Class != c.class || !c.detailIsSane(o) {
			t.Errorf("%v at D = %g: %+v (detail %+v), want recon %g, min adv %g, class %v", c.m.Kind(), c.d, o, o.Detail, c.recon, c.adv, c.class)
		}
	}
}

// Optimum's JSON is the flat object reports have always held: the common
// fields and the detail's, and it reads back to the same value.
func TestOptimumJSON(t *testing.T) {
	ctx := context.Background()
	g, _ := Parse([]byte(smallGauss))
	keys := map[Kind]string{
		Gauss:  "D recon_loss adv_loss min_adv_loss class D_eff snr best_achievable best_family upper_bound",
		Binary: "D recon_loss adv_loss min_adv_loss class global s0 s1 gamma status",
		Finite: "D recon_loss adv_loss min_adv_loss class upper_bound mechanism status",
	}
	for _, m := range []Model{g, NewBinary(mip.PaperBinary()), NewFinite(mip.PaperBinary().Finite())} {
		o, err := m.Optimum(ctx, 0.15, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.Token()
		for dec.More() {
			k, _ := dec.Token()
			got = append(got, k.(string))
			var v json.RawMessage
			dec.Decode(&v)
		}
		if strings.Join(got, " ") != keys[m.Kind()] {
			t.Errorf("%v: keys %q, want %q", m.Kind(), got, keys[m.Kind()])
		}
		var back Optimum
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if b2, _ := json.Marshal(back); !bytes.Equal(b, b2) {
			t.Errorf("%v: %s reads back as %s", m.Kind(), b, b2)
		}
	}
}

// Describe names the wider optimum exactly when the reference optimum
// carries one (the Gaussian bracket's best mechanism, the binary model's
// global optimum), and says the rest in words for every kind.
func TestDescribe(t *testing.T) {
	g, _ := Parse([]byte(smallGauss))
	for _, c := range []struct {
		m     Model
		wider string
	}{{g, "best"}, {NewBinary(mip.PaperBinary()), "global"}, {NewFinite(mip.PaperBinary().Finite()), ""}} {
		d := c.m.Describe()
		if d.Wider != c.wider {
			t.Errorf("%v: Wider %q, want %q", c.m.Kind(), d.Wider, c.wider)
		}
		if d.StdErr == "" || d.Optimum == "" || d.PaperVerdicts == "" || d.BestVerdicts == "" {
			t.Errorf("%v: empty description %+v", c.m.Kind(), d)
		}
		o, err := c.m.Optimum(context.Background(), 0.15, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if carries := o.Gauss() != nil || o.Binary() != nil; carries != (d.Wider != "") {
			t.Errorf("%v: Wider %q, but the optimum carries a wider one: %v", c.m.Kind(), d.Wider, carries)
		}
	}
}

// Certify round trips: the optimum's own privatizer, certified, has the
// optimum's losses; a network, a channel and package bayes's form of the
// same privatizer certify alike; a privatizer that cannot fit is refused
// before any work.
func TestCertifyRoundTrips(t *testing.T) {
	ctx := context.Background()
	netOf := func(n network.Network) *network.Network {
		mlp, err := learn.MLPOf(&n)
		if err != nil {
			t.Fatal(err)
		}
		nw := mlp.Network("privatizer", n.Inputs)
		return &nw
	}
	// Gaussian: F = X + σR with 1/σ² = 1/D − 1/Var[X|Y] at D = 1: σ² = 2.
	g, _ := Parse([]byte(smallGauss))
	net := netOf(learntest.LinearNet(1, math.Sqrt2, 0))
	k, err := bayes.FromNetwork(net)
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.Certify(t.Context(), k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Within the certificate's stated error (relative), which spends part of
	// the tolerance on the far terms it leaves out (docs/verify.md).
	if tol := max(1e-6, c.Change); !scalar.EqualWithinRel(c.Recon, 1, tol) || !scalar.EqualWithinRel(c.MinAdv, 1.2, tol) || c.Gauss == nil {
		t.Errorf("Gaussian certificate %+v (stated error %.2g), want recon 1, adversary 1.2", c.Losses, c.Change)
	}
	cf, err := g.CertifyFile(ctx, privatizer.File{Network: net}, Options{})
	if err != nil || cf.Recon != c.Recon || cf.MinAdv != c.MinAdv {
		t.Errorf("Gaussian CertifyFile %+v, %v; Certify %+v", cf.Losses, err, c.Losses)
	}
	channel := privatizer.File{Channel: &privatizer.Channel{Name: "c.json", P: [][]float64{{0.9, 0.1}, {0.2, 0.8}}}}
	if err := g.CheckPrivatizer(channel); !errors.Is(err, privatizer.ErrInput) {
		t.Errorf("a channel on the Gaussian model: %v", err)
	}
	if _, err := g.CertifyFile(ctx, channel, Options{}); !errors.Is(err, privatizer.ErrInput) {
		t.Errorf("certifying a channel on the Gaussian model: %v", err)
	}

	// Binary: (s0, s1) = (0.9, 0.8) as a network and as its channel.
	b := NewBinary(mip.PaperBinary())
	s := mip.Privatizer{S0: 0.9, S1: 0.8}
	bnet := netOf(learntest.ConstantNet(s.S0, s.S1))
	bk, _ := bayes.FromNetwork(bnet)
	cb, err := b.Certify(t.Context(), bk, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := b.M.ReconLoss(s)
	if !scalar.EqualWithinAbs(cb.Recon, want, 1e-12) || cb.Binary == nil {
		t.Errorf("binary certificate recon %g, want %g", cb.Recon, want)
	}
	for name, f := range map[string]privatizer.File{"network": {Network: bnet}, "channel": channel} {
		cf, err := b.CertifyFile(ctx, f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !scalar.EqualWithinAbs(cf.Recon, want, 1e-9) || !scalar.EqualWithinAbs(cf.MinAdv, cb.MinAdv, 1e-9) {
			t.Errorf("binary CertifyFile of the %s: %+v, Certify %+v", name, cf.Losses, cb.Losses)
		}
	}
	// A row short of 1 is renormalized; what that may hide is the stated
	// error (privatizer.Channel.Bound), never 0: with 0-1 losses the row of
	// x = 0 moves by up to 2·5e-7 in ℓ1 and a risk by π(0)·5e-7.
	short := privatizer.File{Channel: &privatizer.Channel{Name: "short.json", P: [][]float64{{0.9, 0.1 - 5e-7}, {0.2, 0.8}}}}
	shortErr := (1 - b.M.P) * 5e-7
	if cf, err := b.CertifyFile(ctx, short, Options{}); err != nil || !scalar.EqualWithinRel(cf.Change, shortErr, 1e-9) {
		t.Errorf("binary CertifyFile of a row 5e-7 short: stated error %g, %v; want %g", cf.Change, err, shortErr)
	}
	if cf, err := NewFinite(b.M.Finite()).CertifyFile(ctx, short, Options{}); err != nil || !scalar.EqualWithinRel(cf.Change, shortErr, 1e-9) {
		t.Errorf("finite CertifyFile of a row 5e-7 short: stated error %g, %v; want %g", cf.Change, err, shortErr)
	}
	if cf, err := CertifyChannel(b, short.Channel.P, "short"); err != nil || !scalar.EqualWithinRel(cf.Change, shortErr, 1e-9) {
		t.Errorf("CertifyChannel of a row 5e-7 short: stated error %g, %v; want %g", cf.Change, err, shortErr)
	}
	three := privatizer.File{Channel: &privatizer.Channel{Name: "three.json", P: [][]float64{{1}, {1}, {1}}}}
	if err := b.CheckPrivatizer(three); !errors.Is(err, privatizer.ErrInput) {
		t.Errorf("a three-row channel on the binary model: %v", err)
	}

	// Finite: the optimum's mechanism, certified, has the optimum's losses.
	f := NewFinite(mip.PaperBinary().Finite())
	o, err := f.Optimum(ctx, 0.1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	opt := privatizer.File{Channel: &privatizer.Channel{Name: "opt.json", P: o.Finite().Mechanism}}
	cf, err = f.CertifyFile(ctx, opt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !scalar.EqualWithinAbs(cf.Recon, o.Recon, 1e-9) || !scalar.EqualWithinAbs(cf.MinAdv, o.MinAdv, 1e-9) {
		t.Errorf("finite: the optimum's mechanism certifies to %+v, the optimum is %+v", cf.Losses, o.Losses)
	}
	if err := f.CheckPrivatizer(three); !errors.Is(err, privatizer.ErrInput) {
		t.Errorf("a three-row channel on a two-value finite model: %v", err)
	}
	if _, err := f.Certify(t.Context(), bk, Options{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("finite Certify of a network: %v", err)
	}
	// Finite models draw datasets of symbols for the labels method (learn).
	if x, y, z := f.Sample(rand.New(rand.NewPCG(1, 2)), 10); len(x) != 10 || (&learn.Dataset{X: x, Y: y, Z: z}).Validate() != nil {
		t.Errorf("finite Sample: %d rows, %v", len(x), (&learn.Dataset{X: x, Y: y, Z: z}).Validate())
	}
}

func TestStdErr(t *testing.T) {
	g, b := NewGauss(gauss.Paper()), NewBinary(mip.PaperBinary())
	if got, want := g.StdErr(2, 2000), 2*math.Sqrt(2.0/2000); !scalar.EqualWithinRel(got, want, 1e-15) {
		t.Errorf("Gaussian SE %g, want %g", got, want)
	}
	if got, want := b.StdErr(0.2, 2000), math.Sqrt(0.2*0.8/2000); !scalar.EqualWithinRel(got, want, 1e-15) {
		t.Errorf("binary SE %g, want %g", got, want)
	}
	f := NewFinite(mip.PaperBinary().Finite())
	if got, want := f.StdErr(0.2, 2000), math.Sqrt(0.2*0.8/2000); !scalar.EqualWithinRel(got, want, 1e-15) {
		t.Errorf("finite 0-1 SE %g, want %g", got, want)
	}
	if !math.IsInf(b.StdErr(0.2, 0), 1) {
		t.Error("no test rows: the SE should be infinite")
	}
}

// The Gaussian sample has the model's columns; side names are the
// Gaussian model's variables and nil for the others.
func TestSampleAndSideNames(t *testing.T) {
	g := NewGauss(gauss.Paper())
	if x, _, z := g.Sample(rand.New(rand.NewPCG(1, 2)), 100); len(x) != 100 || len(z) != 2 {
		t.Errorf("Gaussian sample: %d rows, %d adversaries", len(x), len(z))
	}
	if n := g.SideNames(2); len(n) != 1 || n[0] != "Z2" {
		t.Errorf("Gaussian adversary 2 sees %q", n)
	}
	if n := NewBinary(mip.PaperBinary()).SideNames(1); n != nil {
		t.Errorf("binary side names %q", n)
	}
	if x, y, z := NewBinary(mip.PaperBinary()).Sample(rand.New(rand.NewPCG(1, 2)), 50); len(x) != 50 || len(y) != 1 || len(z) != 1 {
		t.Errorf("binary sample: %d rows, %d + %d side columns", len(x), len(y), len(z))
	}
}

// Kind and Class: text forms round-trip, other values are refused.
func TestEnums(t *testing.T) {
	for _, k := range Kinds() {
		b, err := k.MarshalText()
		var back Kind
		if err != nil || back.UnmarshalText(b) != nil || back != k {
			t.Errorf("kind %v: %s, %v → %v", k, b, err, back)
		}
	}
	var k Kind
	if err := k.UnmarshalText([]byte("poisson")); !errors.Is(err, ErrConfig) {
		t.Errorf("kind poisson: %v", err)
	}
	if _, err := Kind(0).MarshalText(); err == nil || Kind(9).String() != "Kind(9)" {
		t.Errorf("kind 0 marshals: %v", err)
	}
	for c := LinearGaussian; c <= AllLowerBound; c++ {
		b, err := c.MarshalText()
		var back Class
		if err != nil || back.UnmarshalText(b) != nil || back != c {
			t.Errorf("class %v: %s, %v → %v", c, b, err, back)
		}
	}
	var c Class
	if err := c.UnmarshalText([]byte("some")); !errors.Is(err, ErrConfig) {
		t.Errorf("class some: %v", err)
	}
	if s, _ := json.Marshal(struct{ K Kind }{Finite}); string(s) != `{"K":"finite"}` {
		t.Errorf("kind JSON %s", s)
	}
}

// A file no kind accepts gets one parser's error: the kind its keys point
// to, or the JSON's own, never three at once.
func TestDetectOneError(t *testing.T) {
	for _, c := range []struct{ body, want, not string }{
		{`{"p": 2, "q_y": 0.2, "q_z": [0.3]}`, `not a valid binary model: field "p" = 2`, "gauss"},
		{`{"names": ["X"]}`, "not a valid gauss model", "binary"},
		{`{"prior": [1], "reconstructor": {}}`, "not a valid finite model", "gauss"},
		{`{"zzz": 1}`, "not a model file", "allowed"},
		{`{"zzz": 1}`, `want the fields of a gauss model ("names", "cov" or "var" and "corr", "private", …), a binary one ("p", "q_y", "q_z") or a finite one ("prior", "reconstructor", "adversaries")`, "allowed"},
		{"\uFEFF{}", "byte order mark", "binary"},
		{`garbage`, "malformed JSON", "gauss"},
	} {
		_, err := Parse([]byte(c.body))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) ||
			strings.Contains(err.Error(), "invalid configuration") {
			t.Errorf("%s: got %v, want one error containing %q", c.body, err, c.want)
		}
	}
}
