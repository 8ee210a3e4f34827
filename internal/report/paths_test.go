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
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckPaths(c.paths)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Errorf("CheckPaths = %v, want %v", err, c.want)
			}
		})
	}
}
