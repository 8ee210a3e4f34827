package figure

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestBenchScalingWritesPNGAndSVG(t *testing.T) {
	dir := t.TempDir()
	pts := []BenchPoint{{"a", 2, 0.001}, {"a", 3, 0.01}, {"a", 3, 0.03}, {"b", 2, 0.0001}, {"b", 3, 0}}
	for name, magic := range map[string][]byte{"s.png": []byte("\x89PNG"), "s.svg": []byte("<svg")} {
		path := filepath.Join(dir, name)
		if err := BenchScaling(path, "t", pts); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data[:min(len(data), 200)], magic) {
			t.Errorf("%s: %v, starts %.40q", name, err, data)
		}
	}
	if err := BenchScaling(filepath.Join(dir, "s.pdf"), "t", pts); err == nil {
		t.Error(".pdf: no error")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files %v: want s.png and s.svg only", entries)
	}
	if m := benchMedian([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Errorf("median %g", m)
	}
}
