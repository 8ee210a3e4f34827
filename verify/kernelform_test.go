package verify_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/privatizer"
	"github.com/mmds-project/mmds/rundir"
	"github.com/mmds-project/mmds/verify"
)

// denseRun is a results directory mmds wrote before kernels had a compact
// JSON form: `mmds train gauss --method labels --preset quick --d 0.6
// --seed 1`, a threshold on the fine grid (53 cells, a periodic labelling
// of 18 labels, "prob" dense), with the certificate `mmds verify
// --certificate` wrote for it and the kernel `mmds export` wrote, both then.
const (
	denseRun      = "testdata/labels-gauss-dense"
	denseRunCert  = "testdata/labels-gauss-dense.certificate.json"
	denseRunKernl = "testdata/labels-gauss-dense.kernel.json"
)

// certifyDir loads dir, certifies it as mmds verify does and checks the
// certificate against want.
func certifyDir(t *testing.T, dir string, want *verify.Certificate) *verify.Run {
	t.Helper()
	run, err := verify.Load(t.Context(), dir)
	if err != nil {
		t.Fatalf("Load %s: %v", dir, err)
	}
	rep, err := verify.Certify(t.Context(), run, verify.Options{Tol: verify.DefaultTolerances()})
	if err != nil {
		t.Fatal(err)
	}
	if err := want.Check(verify.NewCertificate(rep, run.PointHashes(), "test")); err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return run
}

func readKernel(t *testing.T, path string) *privatizer.Kernel {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	k, err := privatizer.ParseKernelJSON(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// sameKernel reports whether a and b hold the same numbers bit for bit.
func sameKernel(a, b *privatizer.Kernel) bool {
	bits := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	if !bits(a.Edges, b.Edges) || !bits([]float64{a.Reveal}, []float64{b.Reveal}) || len(a.Prob) != len(b.Prob) {
		return false
	}
	for j := range a.Prob {
		if !bits(a.Prob[j], b.Prob[j]) {
			return false
		}
	}
	return true
}

// TestDenseKernelRunStillVerifies: the directory written with dense kernels
// loads (its seals hold), certifies to the very certificate mmds wrote for it
// then (same point hashes, numbers bit for bit) and exports the kernel mmds
// exported then, bit for bit, now written in the compact form, which reads
// back as that kernel and is smaller. Written again by today's encoder
// (compact "prob"), results.json keeps its seals and its certificate, and a
// probability edited in the compact form breaks the binding.
func TestDenseKernelRunStillVerifies(t *testing.T) {
	want, err := verify.ReadCertificate(t.Context(), "certificate", denseRunCert)
	if err != nil {
		t.Fatal(err)
	}
	run := certifyDir(t, denseRun, want)

	f, d, err := run.Export(0.6)
	if err != nil || f.Kernel == nil || d != 0.6 {
		t.Fatalf("Export(0.6): %+v, %v, %v", f, d, err)
	}
	var buf bytes.Buffer
	if err := f.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(denseRunKernl)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"prob":{"labels":18,"rows":[[`) || buf.Len() >= len(old) {
		t.Errorf("exported %d bytes (%.60s…), the dense export %d: want the compact form, smaller", buf.Len(), buf.String(), len(old))
	}
	back, err := privatizer.ParseKernelJSON(&buf, "export.json")
	if err != nil {
		t.Fatal(err)
	}
	if then := readKernel(t, denseRunKernl); !sameKernel(back, then) {
		t.Errorf("exported kernel differs from the one exported before compact kernels")
	}

	// results.json written again by today's encoder, its seals untouched.
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(denseRun)); err != nil {
		t.Fatal(err)
	}
	res := run.Results
	write := func() {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"labels": 18`)) {
			t.Fatal(`results.json written again without the compact form of "prob"`)
		}
		if err := os.WriteFile(filepath.Join(dir, rundir.ResultsFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write()
	certifyDir(t, dir, want)

	p := &res.Points[0].Kernel.Prob
	(*p)[0][0], (*p)[0][1] = 0, 1 // cell 0's label moved, rows still summing to 1
	write()
	if _, err := verify.Load(t.Context(), dir); !errors.Is(err, rundir.ErrBinding) {
		t.Errorf("a compact kernel edited after training: %v, want ErrBinding", err)
	}
}

// TestCompactKernelResultsRoundTrip: a results.json point whose kernel is
// written compact decodes to the same kernel, bit for bit, and hashes as the
// dense form did.
func TestCompactKernelResultsRoundTrip(t *testing.T) {
	run, err := verify.Load(t.Context(), denseRun)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(run.Results)
	if err != nil {
		t.Fatal(err)
	}
	back, err := learn.DecodeResults(b, "results.json")
	if err != nil {
		t.Fatal(err)
	}
	k0, k1 := run.Results.Points[0].Kernel, back.Points[0].Kernel
	if !sameKernel(&privatizer.Kernel{Kernel: k0.Kernel, Reveal: k0.Reveal},
		&privatizer.Kernel{Kernel: k1.Kernel, Reveal: k1.Reveal}) {
		t.Fatal("kernel changed through the compact form")
	}
	if err := back.CheckBinding(run.ModelSHA256); err != nil {
		t.Fatal(err)
	}
}
