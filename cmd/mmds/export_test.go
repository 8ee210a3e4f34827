package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
	"github.com/mmds-project/mmds/verify"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// A results directory's privatizer, exported as ONNX and in the JSON layout
// and certified by mmds certify on the directory's model file, has the
// losses, stated error and verdict mmds verify certified: one certification
// per object, the same proven method on both paths, on the Gaussian and the
// binary model alike.
func TestExportCertifiesAsVerify(t *testing.T) {
	for _, c := range []struct {
		name  string
		train func(testing.TB, string) *learn.Results
		exact bool
	}{
		{"gauss", verifytest.Gauss, true},
		{"binary", verifytest.Binary, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			c.train(t, dir)
			code, out, errs := runCLI(t, "verify", dir, "--format", "json", "--report-only")
			if code != 0 {
				t.Fatalf("verify: exit %d: %s", code, errs)
			}
			var rep verify.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, p := range rep.Points {
				if p.Certified == nil {
					continue
				}
				for _, ext := range []string{".onnx", ".json"} {
					file := filepath.Join(t.TempDir(), "priv"+ext)
					args := []string{"export", dir, "--d", fmt.Sprint(p.D), "-o", file}
					if ext == ".onnx" {
						args = append(args, "--onnx")
					}
					if code, _, errs := runCLI(t, args...); code != 0 {
						t.Fatalf("export %v: exit %d: %s", args, code, errs)
					}
					// The verifier's τ of the run, so that the verdicts compare.
					code, out, errs := runCLI(t, "certify", "--model", filepath.Join(dir, "model.json"), "--privatizer", file, "--d", fmt.Sprint(p.D),
						"--tau", fmt.Sprint(rep.Tolerances.Tau), "--format", "json")
					if code != 0 && code != 1 {
						t.Fatalf("certify %s: exit %d: %s", file, code, errs)
					}
					var cert struct {
						Points []verify.Point `json:"points"`
					}
					if err := json.Unmarshal([]byte(out), &cert); err != nil || len(cert.Points) != 1 || cert.Points[0].Certified == nil {
						t.Fatalf("certify %s: %v\n%s", file, err, out)
					}
					q := cert.Points[0]
					tol := 0.0
					if !c.exact {
						tol = *p.Change + 2**q.Change + 1e-12 // certify's losses are the ends of its intervals
					}
					got, want := q.Certified, p.Certified
					if math.Abs(got.Recon-want.Recon) > tol || math.Abs(got.MinAdv-want.MinAdv) > tol {
						t.Errorf("D = %g, %s: certify %+v, verify %+v (tolerance %g)", p.D, ext, *got, *want, tol)
					}
					if c.exact && (q.Verdict != p.Verdict || *q.Change != *p.Change) {
						t.Errorf("D = %g, %s: certify's verdict %q and error %g, verify's %q and %g", p.D, ext, q.Verdict, *q.Change, p.Verdict, *p.Change)
					}
				}
				checked++
			}
			if checked == 0 {
				t.Fatal("no certified threshold to export")
			}
		})
	}
}

// The exported ONNX file reads back as the network in results.json, bit for
// bit; bad input is exit 2 with one line naming it.
func TestExportInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	verifytest.Gauss(t, dir)
	run, err := verify.Load(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	d := run.Finalized()[0]
	f, _, err := run.Export(d)
	if err != nil || f.Network == nil {
		t.Fatalf("%v: want a network", err)
	}
	want := f.Network
	file := filepath.Join(t.TempDir(), "p.onnx")
	if code, _, errs := runCLI(t, "export", dir, "--d", fmt.Sprint(d), "--onnx", "-o", file); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := network.ParseONNX(b, file)
	if err != nil {
		t.Fatal(err)
	}
	for x := -3.0; x <= 3; x += 0.5 {
		for r := -3.0; r <= 3; r += 0.5 {
			if got.Eval(x, r) != want.Eval(x, r) {
				t.Fatalf("k(%g, %g) = %v from ONNX, %v from results.json", x, r, got.Eval(x, r), want.Eval(x, r))
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", dir, "--d", "0.5", "-o", file}, "no finalized privatizer at D = 0.5"},
		{[]string{"export", dir, "--d", fmt.Sprint(verifytest.GaussD[0]), "-o", file}, "no finalized privatizer"},
		{[]string{"export", dir, "--onnx"}, "--onnx: give -o FILE"},
		{[]string{"export", dir, "-o", file}, "--d:"},
		{[]string{"export", filepath.Join(dir, "absent"), "--d", "2", "-o", file}, "absent"},
		{[]string{"export", dir, "--d", "2", "-o", filepath.Join(dir, "results.json")}, "--output"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", c.args, code, errs, c.want)
		}
	}
}

// checkLabelsExport exports every certified point of the labels-method run
// dir with mmds export -o and certifies the file with mmds certify against
// dir/model.json: the file is the format wanted (a channel or a kernel
// file), and its certified losses and stated error are mmds verify's
// exactly (the same numbers through the same finite sums or quadrature).
// --onnx on the same point is exit 2, one line naming the object and the
// plain -o FILE to use instead.
func checkLabelsExport(t *testing.T, dir string, want privatizer.Format) {
	t.Helper()
	code, out, errs := runCLI(t, "verify", dir, "--format", "json", "--report-only")
	if code != 0 {
		t.Fatalf("verify: exit %d: %s", code, errs)
	}
	var rep verify.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range rep.Points {
		if p.Certified == nil {
			continue
		}
		d := fmt.Sprint(p.D)
		file := filepath.Join(t.TempDir(), "priv.json")
		if code, _, errs := runCLI(t, "export", dir, "--d", d, "-o", file); code != 0 {
			t.Fatalf("export --d %s: exit %d: %s", d, code, errs)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if f, err := privatizer.ParseNamed(b, file, file); err != nil || f.Format != want {
			t.Fatalf("exported file: format %v, %v; want %v", f.Format, err, want)
		}
		code, out, errs := runCLI(t, "certify", "--model", filepath.Join(dir, "model.json"), "--privatizer", file, "--d", d, "--format", "json")
		if code != 0 && code != 1 {
			t.Fatalf("certify %s: exit %d: %s", file, code, errs)
		}
		var cert struct {
			Points []verify.Point `json:"points"`
		}
		if err := json.Unmarshal([]byte(out), &cert); err != nil || len(cert.Points) != 1 || cert.Points[0].Certified == nil {
			t.Fatalf("certify %s: %v\n%s", file, err, out)
		}
		q := cert.Points[0]
		got, wantL := *q.Certified, *p.Certified
		if got.Recon != wantL.Recon || !slices.Equal(got.Adv, wantL.Adv) || *q.Change != *p.Change {
			t.Errorf("D = %g: certify %+v (error %g), verify %+v (error %g): want equal", p.D, got, *q.Change, wantL, *p.Change)
		}
		code, _, errs = runCLI(t, "export", dir, "--d", d, "--onnx", "-o", filepath.Join(t.TempDir(), "p.onnx"))
		if code != exitUsage || !strings.Contains(errs, want.Object()+", not a network k(x, r)") || !strings.Contains(errs, "-o FILE alone") ||
			strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("export --onnx of a %v: exit %d, %q; want exit 2, one line naming it and -o FILE", want, code, errs)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no certified threshold to export")
	}
}

// syntheticLabels writes a results directory of the labels method with one
// finalized point at D: on the binary paper model a channel, on the
// Gaussian paper model a cell kernel (cells of width 2 on 0..8, two
// labels). It is for inputs refused before any certificate.
func syntheticLabels(t *testing.T, dir string, kind model.Kind, d float64) {
	t.Helper()
	net := learntest.LinearNet(1, 1, 0)
	adv := []float64{d} // the binary paper model's one adversary
	if kind == model.Gauss {
		adv = []float64{d, d} // the Gaussian paper model's two
	}
	res := verifytest.Synthetic(t, dir, kind, 0.1, []verifytest.Point{{D: d, Priv: &net, Recon: d, Adv: adv}})
	res.Config.Method = learn.MethodLabels
	res.Points[0].Networks = nil
	if kind == model.Gauss {
		res.Points[0].Kernel = &privatizer.Kernel{}
		res.Points[0].Kernel.Edges = []float64{0, 2, 4, 6, 8}
		res.Points[0].Kernel.Prob = [][]float64{{1, 0}, {0, 1}, {1, 0}, {0, 1}, {1, 0}, {0, 1}}
	} else {
		res.Points[0].Channel = [][]float64{{0.9, 0.1}, {0.2, 0.8}}
	}
	verifytest.WriteResults(t, dir, res)
}
