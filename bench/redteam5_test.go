package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadInstanceRefusesForeignFiles: a manifest entry whose file leaves
// the library's folder, or that has no hash, is refused before reading.
func TestLoadInstanceRefusesForeignFiles(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "lib")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "outside.mps"), []byte("NAME x\nENDATA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.mps"), []byte("NAME x\nENDATA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, sha, want string }{
		{"../outside.mps", "00", "not a file name"},
		{"sub/../../outside.mps", "00", "not a file name"},
		{"/etc/hostname", "00", "not a file name"},
		{"", "00", "not a file name"},
		{"in.mps", "", "no sha256"},
	} {
		_, err := LoadInstance(dir, ManifestEntry{Name: "i", File: c.file, SHA256: c.sha})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("file %q, sha %q: err = %v, want %q", c.file, c.sha, err, c.want)
		}
	}
}
