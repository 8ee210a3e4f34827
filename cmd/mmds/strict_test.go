package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/rundir"
	"github.com/mmds-project/mmds/verify"
)

// runCLIQuick runs the CLI and fails the test when it has not answered
// within a minute: an input that hangs the process fails instead of
// hanging the test. How soon it answers otherwise is not measured, so that
// no machine is too slow.
func runCLIQuick(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := runCLI(t, args...)
		done <- result{code, out, errs}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.errs
	case <-time.After(time.Minute):
		t.Fatalf("%v: still running after a minute (hung on an input?)", args)
	}
	return 0, "", ""
}

// mkfifo makes a named pipe that a writer holds open with content to serve
// (and could serve something else to a second read): the reader must refuse
// it without reading, and without blocking.
func mkfifo(t *testing.T, path, content string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	w, err := os.OpenFile(path, os.O_RDWR, 0) // O_RDWR: does not wait for a reader
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	go w.Write([]byte(content))
	return path
}

// One file, one meaning: keys twice, keys that differ only in case from
// each other or from their field, are refused with exit 2 naming file and
// key — in every JSON input.
func TestStrictJSONInputs(t *testing.T) {
	dir := t.TempDir()
	bm := binaryModelFile(t)
	leak := `[[1, 0], [0, 1]]`
	good := `[[0.9, 0.1], [0.1, 0.9]]`
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"channel CHANNEL", []string{"--model", bm, "--d", "0.15", "--privatizer",
			writeTestFile(t, dir, "c1.json", `{"channel": `+leak+`, "CHANNEL": `+good+`}`)}, `keys "channel" and "CHANNEL"`},
		{"channel twice", []string{"--model", bm, "--d", "0.15", "--privatizer",
			writeTestFile(t, dir, "c2.json", `{"channel": `+good+`, "channel": `+leak+`}`)}, `key "channel" appears twice`},
		{"Channel alone", []string{"--model", bm, "--d", "0.15", "--privatizer",
			writeTestFile(t, dir, "c3.json", `{"Channel": `+leak+`}`)}, "c3.json"},
		{"inputs INPUTS", []string{"--model", bm, "--d", "0.15", "--privatizer",
			writeTestFile(t, dir, "n1.json", `{"inputs": ["x", "r"], "INPUTS": ["r", "x"], "layers": [{"weight": [[1, 0]], "bias": [0], "activation": "sigmoid"}]}`)}, `keys "inputs" and "INPUTS"`},
		{"layer Weight", []string{"--model", bm, "--d", "0.15", "--privatizer",
			writeTestFile(t, dir, "n2.json", `{"inputs": ["x", "r"], "layers": [{"Weight": [[1, 0]], "bias": [0], "activation": "sigmoid"}]}`)}, `key "Weight" in "layers[0]" differs from the field "weight" only in case`},
		{"model Q_Y", []string{"--d", "0.15", "--privatizer", fixtures + "net-pass.json", "--model",
			writeTestFile(t, dir, "m1.json", `{"p": 0.54, "q_y": 0.2, "Q_Y": 0.5, "q_z": [0.44]}`)}, "m1.json"},
		{"points D twice", []string{"--model", bm, "--points",
			writeTestFile(t, dir, "p1.json", `[{"D": 0.15, "privatizer": "`+fixtures+`net-pass.json", "d": 0.3}]`)}, `keys "D" and "d"`},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, append([]string{"certify"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", c.name, code, out, errs, c.want)
		}
	}

	// results.json with "networks" and "Networks" in a point.
	res := passingBinary(t)
	editJSON(t, res, func(v map[string]any) {
		p := point(v, 0)
		p["Networks"] = p["networks"]
	})
	if code, _, errs := runCLI(t, "verify", res); code != 2 || !strings.Contains(errs, `"networks"`) || !strings.Contains(errs, `"Networks"`) || !strings.Contains(errs, "differ only in case") || !strings.Contains(errs, "results.json") {
		t.Errorf("results.json with networks and Networks: exit %d, stderr %q; want 2 naming both keys", code, errs)
	}
}

// A certificate with a forged "pass": true ahead of the honest "PASS":
// false is refused by verify --check and certify --check (exit 2), not
// confirmed.
func TestCheckRefusesCaseVariantCertificate(t *testing.T) {
	dir := passingBinary(t)
	cert := filepath.Join(t.TempDir(), "cert.json")
	if code, _, errs := runCLI(t, "verify", dir, "--certificate", cert); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(cert)
	forged := strings.Replace(string(b), `"pass": true`, `"pass": true, "PASS": false`, 1)
	if forged == string(b) {
		t.Fatalf("no \"pass\" in %s", b)
	}
	path := writeTestFile(t, t.TempDir(), "forged.json", forged)
	if code, _, errs := runCLI(t, "verify", "--check", path, dir); code != 2 || !strings.Contains(errs, `"PASS"`) || !strings.Contains(errs, "forged.json") {
		t.Errorf("verify --check of a case-variant certificate: exit %d, stderr %q; want 2 naming the file and the key", code, errs)
	}
}

// certify --check re-derives a certify certificate from the files it
// names: its own certificate matches (exit 0); a flipped verdict, a
// swapped privatizer file and a case-variant duplicate are caught.
func TestCertifyCheck(t *testing.T) {
	dir := t.TempDir()
	bm := writeTestFile(t, dir, "model.json", `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
	priv := filepath.Join(dir, "priv.json")
	fail, _ := os.ReadFile(fixtures + "channel-fail.json")
	pass, _ := os.ReadFile(fixtures + "channel-pass.json")
	if err := os.WriteFile(priv, pass, 0o644); err != nil {
		t.Fatal(err)
	}
	cert := filepath.Join(dir, "cert.json")
	if code, _, errs := runCLI(t, "certify", "--model", bm, "--privatizer", priv, "--d", "0.15", "--certificate", cert); code != 0 {
		t.Fatalf("certify: exit %d: %s", code, errs)
	}
	if code, out, errs := runCLI(t, "certify", "--check", cert); code != 0 || !strings.Contains(out, "matches") {
		t.Fatalf("--check of its own certificate: exit %d, %q %q", code, out, errs)
	}
	b, _ := os.ReadFile(cert)
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c["model_file"] != "model.json" || point(c, 0)["privatizer"] != "priv.json" {
		t.Errorf("the certificate does not name its files: %s", b)
	}
	for _, edit := range []struct {
		name string
		do   func(map[string]any)
		want string
	}{
		{"pass flipped", func(c map[string]any) { c["pass"] = false }, ".pass"},
		{"point pass flipped", func(c map[string]any) { point(c, 0)["pass"] = false }, "points[0].pass"},
		{"D", func(c map[string]any) { point(c, 0)["D"] = 0.2 }, "does not match its files"},
		{"hash", func(c map[string]any) { point(c, 0)["point_sha256"] = strings.Repeat("0", 64) }, "point_sha256"},
	} {
		var cc map[string]any
		json.Unmarshal(b, &cc)
		edit.do(cc)
		nb, _ := json.Marshal(cc)
		path := writeTestFile(t, dir, "c.json", string(nb))
		if code, _, errs := runCLI(t, "certify", "--check", path); code != 1 || !strings.Contains(errs, edit.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 naming %q", edit.name, code, errs, edit.want)
		}
		// mmds-check, on its own, finds every forgery false.
		if code, out := runChecker(t, path); code != 1 {
			t.Errorf("%s: mmds-check: exit %d, %q; want 1", edit.name, code, out)
		}
	}
	forged := writeTestFile(t, dir, "forged.json", strings.Replace(string(b), `"pass": true`, `"pass": true, "PASS": false`, 1))
	if code, _, errs := runCLI(t, "certify", "--check", forged); code != 2 || !strings.Contains(errs, `"PASS"`) {
		t.Errorf("case-variant PASS: exit %d, stderr %q; want 2", code, errs)
	}
	if code, out := runChecker(t, forged); code != 2 || !strings.Contains(out, `"PASS"`) {
		t.Errorf("case-variant PASS: mmds-check: exit %d, %q; want 2", code, out)
	}
	if code, _, errs := runCLI(t, "certify", "--check", cert, "--d", "0.1"); code != 2 || !strings.Contains(errs, "--d") {
		t.Errorf("--check with --d: exit %d, stderr %q; want 2", code, errs)
	}
	// Moved as a whole, the folder still checks: names are relative to it.
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	cert, priv = filepath.Join(moved, "cert.json"), filepath.Join(moved, "priv.json")
	if code, out, errs := runCLI(t, "certify", "--check", cert); code != 0 || !strings.Contains(out, "matches") {
		t.Fatalf("--check after moving the folder: exit %d, %q %q", code, out, errs)
	}
	// The privatizer file swapped after certification: its hash differs.
	if err := os.WriteFile(priv, fail, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "certify", "--check", cert); code != 1 || !strings.Contains(errs, "point_sha256") {
		t.Errorf("swapped privatizer: exit %d, stderr %q; want exit 1 naming point_sha256", code, errs)
	}
	if code, out := runChecker(t, cert); code != 1 || !strings.Contains(out, "point_sha256") {
		t.Errorf("swapped privatizer: mmds-check: exit %d, %q; want 1 naming point_sha256", code, out)
	}
	// A verify certificate names no privatizer files.
	vdir := passingBinary(t)
	vcert := filepath.Join(t.TempDir(), "v.json")
	if code, _, errs := runCLI(t, "verify", vdir, "--certificate", vcert); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "certify", "--check", vcert); code != 2 || !strings.Contains(errs, "verify --check") {
		t.Errorf("certify --check of a verify certificate: exit %d, stderr %q; want 2", code, errs)
	}
}

// Only regular files are read: a FIFO (which could serve a leak to one read
// and a good channel to the next) or a device where an input should be is
// exit 2 within a second, for certify, verify and train.
func TestNonRegularInputs(t *testing.T) {
	dir := t.TempDir()
	bm := binaryModelFile(t)
	leak := `{"channel": [[1, 0], [0, 1]]}`
	fifoPriv := mkfifo(t, filepath.Join(dir, "priv.json"), leak)
	fifoModel := mkfifo(t, filepath.Join(dir, "model.json"), `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
	fifoPoints := mkfifo(t, filepath.Join(dir, "points.csv"), "0.15,"+fixtures+"channel-pass.json\n")
	cert := mkfifo(t, filepath.Join(dir, "cert.json"), `{}`)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"FIFO privatizer", []string{"certify", "--model", bm, "--d", "0.15", "--privatizer", fifoPriv}, "named pipe"},
		{"FIFO model", []string{"certify", "--model", fifoModel, "--d", "0.15", "--privatizer", fixtures + "channel-pass.json"}, "named pipe"},
		{"FIFO points", []string{"certify", "--model", bm, "--points", fifoPoints}, "named pipe"},
		{"/dev/zero privatizer", []string{"certify", "--model", bm, "--d", "0.15", "--privatizer", "/dev/zero"}, "character device"},
		{"/dev/zero model", []string{"certify", "--model", "/dev/zero", "--d", "0.15", "--privatizer", fixtures + "channel-pass.json"}, "character device"},
		{"directory privatizer", []string{"certify", "--model", bm, "--d", "0.15", "--privatizer", dir}, "a folder"},
		{"FIFO certificate", []string{"certify", "--check", cert}, "named pipe"},
	} {
		code, out, errs := runCLIQuick(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.name, code, out, errs, c.want)
		}
	}

	// verify: model.json is a FIFO.
	res := passingBinary(t)
	mj := filepath.Join(res, rundir.ModelFile)
	os.Remove(mj)
	mkfifo(t, mj, `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`)
	if code, _, errs := runCLIQuick(t, "verify", res); code != 2 || !strings.Contains(errs, "named pipe") {
		t.Errorf("verify with a FIFO model.json: exit %d, stderr %q", code, errs)
	}
	// verify --check: the certificate is a FIFO.
	if code, _, errs := runCLIQuick(t, "verify", "--check", cert, res); code != 2 || !strings.Contains(errs, "named pipe") {
		t.Errorf("verify --check with a FIFO certificate: exit %d, stderr %q", code, errs)
	}
	// train: model.json in --out is a FIFO.
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, report.MarkerFile), []byte("results\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(out, rundir.ModelFile), `{}`)
	if code, _, errs := runCLIQuick(t, tinyTrain("binary", out)...); code != 2 || !strings.Contains(errs, "named pipe") {
		t.Errorf("train with a FIFO model.json: exit %d, stderr %q", code, errs)
	}
}

// No content in messages: an input that is a symlink to a secret, or a
// JSON file with a long string where a number belongs, is refused without
// quoting more than 40 characters of it.
func TestMessagesQuoteNoContent(t *testing.T) {
	dir := t.TempDir()
	secret := strings.Repeat("S3cr3t-", 14) + "," + strings.Repeat("t0p-", 20) // 200 characters
	secretFile := writeTestFile(t, dir, "secret.txt", secret+"\nsecond line\n")
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bm := binaryModelFile(t)
	long := writeTestFile(t, dir, "long.json", `{"channel": "`+secret+`"}`)
	longModel := writeTestFile(t, dir, "longmodel.json", `{"p": "`+secret+`", "q_y": 0.2, "q_z": [0.44]}`)
	longKey := writeTestFile(t, dir, "longkey.json", `{"`+secret+`": 1}`)
	// A CSV points list whose second column, echoed as a path, is the secret.
	secretPath := writeTestFile(t, dir, "secretpath.csv", "0.1,"+strings.ReplaceAll(secret, ",", "")+"\n")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"points symlink", []string{"certify", "--model", bm, "--points", link("p.csv", secretFile)}},
		{"points json symlink", []string{"certify", "--model", bm, "--points", link("p.json", secretFile)}},
		{"privatizer csv symlink", []string{"certify", "--model", bm, "--d", "0.1", "--privatizer", link("c.csv", secretFile)}},
		{"privatizer json symlink", []string{"certify", "--model", bm, "--d", "0.1", "--privatizer", link("c.json", secretFile)}},
		{"model symlink", []string{"certify", "--model", link("m.json", secretFile), "--d", "0.1", "--privatizer", fixtures + "channel-pass.json"}},
		{"long string channel", []string{"certify", "--model", bm, "--d", "0.1", "--privatizer", long}},
		{"long string model", []string{"certify", "--model", longModel, "--d", "0.1", "--privatizer", fixtures + "channel-pass.json"}},
		{"long key", []string{"certify", "--model", bm, "--d", "0.1", "--privatizer", longKey}},
		{"certificate symlink", []string{"certify", "--check", link("cert.json", secretFile)}},
		{"passwd points", []string{"certify", "--model", bm, "--points", link("pw.csv", "/etc/passwd")}},
		{"points csv symlink, a path column", []string{"certify", "--model", bm, "--points", link("pp.csv", secretPath)}},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (stderr %q)", c.name, code, errs)
		}
		for i := 0; i+41 <= len(secret); i++ {
			if strings.Contains(errs, secret[i:i+41]) {
				t.Errorf("%s: the message quotes more than 40 characters of the file: %q", c.name, errs)
				break
			}
		}
		if strings.Contains(errs, "root:") || strings.Contains(errs, "second line") {
			t.Errorf("%s: the message quotes the file: %q", c.name, errs)
		}
	}
}

// Paths in a --points list are the author's bytes, and messages and tables
// print them: a terminal escape sequence (set the window title, clear the
// screen, cursor up, erase line) and a newline that forges a second line
// "mmds: certification passed" must not reach the reviewer's terminal. A
// points row whose path holds a control character is refused before any
// file is read (exit 2), the message one line with the path escaped; a
// privatizer so named is printed escaped in the verdict table and in CSV.
func TestMessagesEscapeControlCharacters(t *testing.T) {
	bm := binaryModelFile(t)
	dir := t.TempDir()
	forged := "\x1b]0;pwned\x07\x1b[2J\nmmds: certification passed: 1 of 1 points pass\nx.json"
	pts := writeTestFile(t, dir, "pts.json", `[{"D": 0.15, "privatizer": "\u001b]0;pwned\u0007\u001b[2J\nmmds: certification passed: 1 of 1 points pass\nx.json"}]`)
	code, _, errs := runCLI(t, "certify", "--model", bm, "--points", pts)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if strings.ContainsAny(errs, "\x1b\x07") || strings.Count(strings.TrimSuffix(errs, "\n"), "\n") > 0 {
		t.Errorf("stderr carries the path %q raw (escapes, %d lines): %q", forged, strings.Count(errs, "\n"), errs)
	}

	pts = writeTestFile(t, dir, "pts.csv", "0.15,a\x1b[2Jb.json\n")
	code, _, errs = runCLI(t, "certify", "--model", bm, "--points", pts)
	if code != 2 || strings.ContainsRune(errs, '\x1b') || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `a\x1b[2Jb.json`) {
		t.Errorf("CSV points: exit %d, stderr %q; want 2 and one escaped line", code, errs)
	}

	// Existing privatizers whose names hold escapes: the verdict table and
	// the CSV output.
	body, err := os.ReadFile(filepath.Join(fixtures, "channel-fail.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, dir, "f\x1b[1A\x1b[2Kok.json", string(body))
	pts = writeTestFile(t, dir, "pts2.json", `[{"D": 0.15, "privatizer": "f\u001b[1A\u001b[2Kok.json"}]`)
	_, out, errs := runCLI(t, "certify", "--model", bm, "--points", pts)
	if strings.ContainsRune(out+errs, '\x1b') {
		t.Errorf("the table prints the privatizer's name raw (cursor up, erase line): %q", out)
	}
	name := writeTestFile(t, dir, "c\x1b[2Jd.json", string(body))
	_, out, _ = runCLI(t, "certify", "--model", bm, "--privatizer", name, "--d", "0.15", "--format", "csv")
	if strings.ContainsRune(out, '\x1b') || !strings.Contains(out, `c\x1b[2Jd.json`) {
		t.Errorf("CSV output carries the name raw: %q", out)
	}
}

// The context reaches every read: a cancelled run reads nothing.
func TestReadsHonourContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := verify.ReadPoints(ctx, fixtures+"channel-pass.json"); err == nil {
		t.Error("verify.ReadPoints read under a cancelled context")
	}
}

// One link policy for every file an input names: a certificate's
// model_file and privatizers, a --points list's entries and a results
// directory's results.json and model.json are taken from that input's
// folder and must stay in it — an absolute name, "..", or a symbolic link
// at any element that leads out is exit 2 in one line, and nothing of the
// file it reaches is read or quoted. Files the user names on the command
// line are used as given; a link that stays inside the folder is followed.
func TestNamedFilesStayInTheirFolder(t *testing.T) {
	dir := t.TempDir()
	modelBody := `{"p": 0.54, "q_y": 0.2, "q_z": [0.44]}`
	writeTestFile(t, dir, "model.json", modelBody)
	pass, _ := os.ReadFile(fixtures + "channel-pass.json")
	writeTestFile(t, dir, "priv.json", string(pass))
	cert := filepath.Join(dir, "cert.json")
	if code, _, errs := runCLI(t, "certify", "--model", filepath.Join(dir, "model.json"), "--privatizer", filepath.Join(dir, "priv.json"), "--d", "0.15", "--certificate", cert); code != 0 {
		t.Fatalf("certify: exit %d: %s", code, errs)
	}
	certBody, _ := os.ReadFile(cert)
	// Outside the folder: a model, a privatizer, and a "secret" whose
	// contents no message may quote (it fails to parse as anything).
	outside := t.TempDir()
	outModel := writeTestFile(t, outside, "model.json", modelBody)
	outPriv := writeTestFile(t, outside, "priv.json", string(pass))
	secret := writeTestFile(t, outside, "secret.json", `{"channel": "SECRET-TOKEN-0123456789"}`)
	link := func(target, name string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return name
	}
	link(outPriv, "link.json")
	link(secret, "secret-link.json")
	link(outModel, "model-link.json")
	link(outside, "up")
	link("priv.json", "inner-link.json")
	rel, err := filepath.Rel(dir, outPriv)
	if err != nil {
		t.Fatal(err)
	}
	edited := func(name string, edit func(map[string]any)) string {
		var c map[string]any
		if err := json.Unmarshal(certBody, &c); err != nil {
			t.Fatal(err)
		}
		edit(c)
		nb, _ := json.Marshal(c)
		return writeTestFile(t, dir, name, string(nb))
	}
	points := func(name, entry string) string {
		return writeTestFile(t, dir, name, "0.15,"+entry+"\n")
	}
	bm := filepath.Join(dir, "model.json")
	// Results directories whose results.json or model.json is a link out.
	resultsLink := func(file string) string {
		res := passingBinary(t)
		moved := filepath.Join(t.TempDir(), file)
		if err := os.Rename(filepath.Join(res, file), moved); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(moved, filepath.Join(res, file)); err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		// certify --check: the certificate's names
		{"certificate: absolute model_file", []string{"certify", "--check", edited("c1.json", func(c map[string]any) { c["model_file"] = outModel })}, 2, "model_file"},
		{"certificate: model_file a link out", []string{"certify", "--check", edited("c2.json", func(c map[string]any) { c["model_file"] = "model-link.json" })}, 2, "symbolic link out of the certificate's folder"},
		{"certificate: absolute privatizer", []string{"certify", "--check", edited("c3.json", func(c map[string]any) { point(c, 0)["privatizer"] = outPriv })}, 2, "is absolute"},
		{"certificate: privatizer up and out", []string{"certify", "--check", edited("c4.json", func(c map[string]any) { point(c, 0)["privatizer"] = rel })}, 2, "leaves the certificate's folder"},
		{"certificate: privatizer a link out", []string{"certify", "--check", edited("c5.json", func(c map[string]any) { point(c, 0)["privatizer"] = "link.json" })}, 2, "symbolic link out of"},
		{"certificate: privatizer a link to a secret", []string{"certify", "--check", edited("c6.json", func(c map[string]any) { point(c, 0)["privatizer"] = "secret-link.json" })}, 2, "symbolic link out of"},
		{"certificate: privatizer through a folder link", []string{"certify", "--check", edited("c7.json", func(c map[string]any) { point(c, 0)["privatizer"] = "up/priv.json" })}, 2, "symbolic link out of"},
		{"certificate: --model passed by the user", []string{"certify", "--check", edited("c8.json", func(c map[string]any) { c["model_file"] = outModel }), "--model", outModel}, 0, ""},
		{"certificate: --privatizer passed by the user", []string{"certify", "--check", edited("c9.json", func(c map[string]any) { point(c, 0)["privatizer"] = outPriv }), "--privatizer", outPriv}, 0, ""},
		// certify --points: the list's entries
		{"points: entry a link out", []string{"certify", "--model", bm, "--points", points("p1.csv", "link.json")}, 2, "symbolic link out of its folder"},
		{"points: entry a link to a secret", []string{"certify", "--model", bm, "--points", points("p2.csv", "secret-link.json")}, 2, "symbolic link out of its folder"},
		{"points: entry through a folder link", []string{"certify", "--model", bm, "--points", points("p3.csv", "up/secret.json")}, 2, "symbolic link out of its folder"},
		{"points: entry up and out", []string{"certify", "--model", bm, "--points", points("p4.csv", rel)}, 2, "leaves its folder"},
		{"points: absolute entry", []string{"certify", "--model", bm, "--points", points("p5.csv", secret)}, 2, "is absolute"},
		{"points: a link inside the folder", []string{"certify", "--model", bm, "--points", points("p6.csv", "inner-link.json")}, 0, ""},
		{"points: the file passed by the user", []string{"certify", "--model", bm, "--d", "0.15", "--privatizer", outPriv}, 0, ""},
		// verify: a results directory's own files
		{"results: results.json a link out", []string{"verify", resultsLink(rundir.ResultsFile)}, 2, "symbolic link out of its folder"},
		{"results: model.json a link out", []string{"verify", resultsLink(rundir.ModelFile)}, 2, "symbolic link out of its folder"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 || strings.Contains(errs, "SECRET") {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and one line containing %q, quoting nothing of the file", tc.name, code, errs, tc.code, tc.want)
		}
		// mmds-check follows the same rule for a certificate's names, and
		// takes no files from the user: every name outside the folder is
		// refused.
		if tc.args[0] == "certify" && tc.args[1] == "--check" {
			if code, out := runChecker(t, tc.args[2]); code != 2 || tc.code == 0 && !strings.Contains(out, "is absolute") {
				t.Errorf("%s: mmds-check: exit %d, %q; want 2", tc.name, code, out)
			}
		}
	}
}
