package verify

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCertFileAndResolve(t *testing.T) {
	dir := t.TempDir()
	cert := filepath.Join(dir, "c", "cert.json")
	if err := os.MkdirAll(filepath.Join(dir, "c", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(outside, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "c", "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "c", "inner")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{filepath.Join(dir, "c", "m.json"), "m.json"},
		{filepath.Join(dir, "c", "sub", "p.onnx"), "sub/p.onnx"},
		{outside, "../secret.json"},
	} {
		if got := CertFile(cert, tc.file); got != tc.want {
			t.Errorf("CertFile(%s) = %q, want %q", tc.file, got, tc.want)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{"m.json", filepath.Join(dir, "c", "m.json")},
		{"sub/p.onnx", filepath.Join(dir, "c", "sub", "p.onnx")},
		{"sub/../m.json", filepath.Join(dir, "c", "m.json")},
		{"inner/p.onnx", filepath.Join(dir, "c", "inner", "p.onnx")},
		{"/etc/passwd", "is absolute"},
		{"../secret.json", "leaves"},
		{"sub/../../secret.json", "leaves"},
		{"..", "leaves"},
		{"link.json", "symbolic link out of"},
		{"a\x1b[2Jb.json", "plain relative file name"},
		{"", "plain relative file name"},
	} {
		got, err := ResolveCertFile(cert, tc.name)
		if strings.HasPrefix(tc.want, dir) {
			if err != nil || got != tc.want {
				t.Errorf("ResolveCertFile(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrCertPath) || !strings.Contains(err.Error(), tc.want) || strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("ResolveCertFile(%q): %v; want an ErrCertPath containing %q", tc.name, err, tc.want)
		}
	}
}
