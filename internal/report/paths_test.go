package report

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "res")
	os.MkdirAll(filepath.Join(res, "trials"), 0o755)
	for _, f := range []string{"results.json", "model.json", "notes.txt"} {
		os.WriteFile(filepath.Join(res, f), []byte("{}"), 0o644)
	}
	os.WriteFile(filepath.Join(res, MarkerFile), []byte("results\n"), 0o644)
	lib := filepath.Join(dir, "lib")
	os.MkdirAll(lib, 0o755)
	os.WriteFile(filepath.Join(lib, MarkerFile), []byte("bench-library\n"), 0o644)
	cfg := filepath.Join(dir, "g.json")
	os.WriteFile(cfg, []byte("{}"), 0o644)
	hard := filepath.Join(dir, "hard.json")
	os.Link(cfg, hard)
	soft := filepath.Join(dir, "soft.json")
	os.Symlink(cfg, soft)
	viaLink := filepath.Join(dir, "reslink")
	os.Symlink(res, viaLink)
	// Hard links of files an input folder reserves, and of one it does not.
	os.WriteFile(filepath.Join(res, "trials", "t0.json"), []byte("{}"), 0o644)
	hardResults := filepath.Join(dir, "hard-results.json")
	os.Link(filepath.Join(res, "results.json"), hardResults)
	hardTrial := filepath.Join(dir, "hard-trial.json")
	os.Link(filepath.Join(res, "trials", "t0.json"), hardTrial)
	hardNotes := filepath.Join(dir, "hard-notes.txt")
	os.Link(filepath.Join(res, "notes.txt"), hardNotes)
	hardModel := filepath.Join(dir, "hard-model.json")
	os.Link(filepath.Join(res, "model.json"), hardModel)

	for _, c := range []struct {
		name  string
		paths []Path
		want  error
	}{
		{"distinct", []Path{In("--config", cfg), Out("-o", filepath.Join(dir, "out.txt"))}, nil},
		{"unset and stdout", []Path{In("--config", cfg), Out("-o", "")}, nil},
		{"output is the input", []Path{In("--config", cfg), Out("-o", cfg)}, ErrClash},
		{"output is the input, relative", []Path{In("--config", cfg), Out("-o", filepath.Join(dir, ".", "x", "..", "g.json"))}, ErrClash},
		{"output is a hard link to the input", []Path{In("--config", cfg), Out("-o", hard)}, ErrClash},
		{"output is a symbolic link to the input", []Path{In("--config", cfg), Out("-o", soft)}, ErrClash},
		{"two outputs, one new file", []Path{Out("-o", filepath.Join(dir, "n.txt")), Out("--certificate", filepath.Join(dir, "n.txt"))}, ErrClash},
		{"output at results.json of an input folder", []Path{InFolder("DIR", res, Results), Out("-o", filepath.Join(res, "results.json"))}, ErrClash},
		{"output in trials/ of an input folder", []Path{InFolder("DIR", res, Results), Out("-o", filepath.Join(res, "trials", "new.json"))}, ErrClash},
		{"output via a link to the input folder", []Path{InFolder("DIR", res, Results), Out("-o", filepath.Join(viaLink, "model.json"))}, ErrClash},
		{"output beside the results", []Path{InFolder("DIR", res, Results), Out("-o", filepath.Join(res, "cert.json"))}, nil},
		{"output at a reserved name of a folder that is no input", []Path{Out("-o", filepath.Join(res, "results.json"))}, ErrClash},
		{"output at a marker", []Path{Out("-o", filepath.Join(dir, MarkerFile))}, ErrClash},
		{"library manifest", []Path{InFolder("DIR", lib, BenchLibrary), Out("--json-out", filepath.Join(lib, "manifest.json"))}, ErrClash},
		{"library instance", []Path{Out("--json-out", filepath.Join(lib, "x.mps"))}, ErrClash},
		{"input folder of another kind", []Path{InFolder("DIR", lib, Results)}, ErrKind},
		{"output folder of another kind", []Path{OutFolder("--out", lib, Results)}, ErrKind},
		{"output folder with foreign content", []Path{OutFolder("--out", dir, Results)}, ErrKind},
		{"config at a reserved name of the output folder", []Path{In("--config", filepath.Join(res, "model.json")), OutFolder("--out", res, Results)}, ErrClash},
		{"config beside the output folder's files", []Path{In("--config", filepath.Join(res, "notes.txt")), OutFolder("--out", res, Results)}, nil},
		{"two output folders, one new", []Path{OutFolder("--out", filepath.Join(dir, "new"), Results), OutFolder("--slurm", filepath.Join(dir, "new"), SlurmJobs)}, ErrClash},
		{"output folder inside trials/", []Path{OutFolder("--slurm", filepath.Join(res, "trials", "s"), SlurmJobs)}, ErrClash},
		{"output folder inside a new output folder's reserved name", []Path{OutFolder("--out", filepath.Join(dir, "new"), Results), OutFolder("--slurm", filepath.Join(dir, "new", "points"), SlurmJobs)}, ErrClash},
		{"plain output folder of a kind", []Path{OutFolder("--write-mps", lib, "")}, ErrKind},
		{"plain output folder", []Path{OutFolder("--write-mps", t.TempDir(), "")}, nil},
		{"output is a folder", []Path{Out("-o", lib)}, ErrTarget},
		// Attack: the same file as an input folder's results.json or a
		// trial record, under another name.
		{"output is a hard link of an input folder's results.json", []Path{InFolder("DIR", res, Results), Out("-o", hardResults)}, ErrClash},
		{"output is a hard link of an input folder's trial record", []Path{InFolder("DIR", res, Results), Out("--certificate", hardTrial)}, ErrClash},
		{"output is a hard link of an unreserved file", []Path{InFolder("DIR", res, Results), Out("-o", hardNotes)}, nil},
		{"config is a hard link of the output folder's model.json", []Path{In("--config", hardModel), OutFolder("--out", res, Results)}, ErrClash},
		{"two outputs, one new file through a linked folder", []Path{Out("-o", filepath.Join(res, "n.txt")), Out("--certificate", filepath.Join(viaLink, "n.txt"))}, ErrClash},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckPaths(c.paths)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Errorf("CheckPaths = %v, want %v", err, c.want)
			}
		})
	}
}

// Attack: on a case-insensitive file system (macOS, Windows, ext4 casefold)
// -o A.json and --certificate a.json are one file, and -o DIR/RESULTS.JSON
// replaces DIR/results.json. Linux test folders are case-sensitive, so the
// probe is simulated; caseInsensitive itself is tested below.
func TestCheckPathsCaseInsensitive(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "res")
	os.MkdirAll(res, 0o755)
	os.WriteFile(filepath.Join(res, "results.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(res, "model.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(res, MarkerFile), []byte("results\n"), 0o644)
	insensitive := func(string) bool { return true }
	for _, c := range []struct {
		name  string
		paths []Path
		want  error // with a case-insensitive probe; nil on Linux's
	}{
		{"two outputs in two cases", []Path{Out("-o", filepath.Join(dir, "A.json")), Out("--certificate", filepath.Join(dir, "a.json"))}, ErrClash},
		{"a reserved name in upper case", []Path{InFolder("DIR", res, Results), Out("-o", filepath.Join(res, "RESULTS.JSON"))}, ErrClash},
		{"a reserved name in upper case, no input folder", []Path{Out("-o", filepath.Join(res, "Model.json"))}, ErrClash},
		{"the marker in upper case", []Path{Out("-o", filepath.Join(dir, ".MMDS-KIND"))}, ErrClash},
		{"different names", []Path{Out("-o", filepath.Join(dir, "A.json")), Out("--certificate", filepath.Join(dir, "b.json"))}, nil},
	} {
		if err := checkPaths(c.paths, insensitive); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("%s, case-insensitive: %v, want %v", c.name, err, c.want)
		}
		if err := CheckPaths(c.paths); err != nil && c.name != "the marker in upper case" {
			t.Errorf("%s, here (case-sensitive): %v, want nil", c.name, err)
		}
	}
}

func TestCaseInsensitiveProbe(t *testing.T) {
	dir := t.TempDir()
	if caseInsensitive(dir) {
		t.Fatalf("an empty test folder probed case-insensitive")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(left) > 0 {
		t.Errorf("the probe left %v", left)
	}
	os.WriteFile(filepath.Join(dir, "Data.json"), nil, 0o644)
	if caseInsensitive(dir) {
		t.Errorf("a folder where dATA.JSON is not Data.json probed case-insensitive")
	}
	// A folder where every name's swapped case is the same file behaves as
	// a case-insensitive one does.
	ci := t.TempDir()
	os.WriteFile(filepath.Join(ci, "Data.json"), nil, 0o644)
	if err := os.Link(filepath.Join(ci, "Data.json"), filepath.Join(ci, "dATA.JSON")); err != nil {
		t.Skip("no hard links here:", err)
	}
	if !caseInsensitive(ci) {
		t.Errorf("the simulated case-insensitive folder probed case-sensitive")
	}
}
