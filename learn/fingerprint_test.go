package learn

import (
	"fmt"
	"testing"

	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/model/kind"
)

// TestFingerprintGolden pins the digests that bind trial and point records
// to their run (Config.fingerprint over the data's hash): a run trained by
// an earlier mmds must still resume, so the bytes fed to FNV-1a and their
// order never change.
func TestFingerprintGolden(t *testing.T) {
	ds := &Dataset{
		X: []float64{0, 1, 1, 0, 1, 0},
		Y: [][]float64{{0, 1, 0, 0, 1, 1}},
		Z: [][][]float64{{{1, 1, 0, 0, 1, 0}}, {{0, 0, 1, 0, 1, 1}}},
	}
	data, err := NewData(ds, 4, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	alg1, err := Preset(PresetQuick, kind.Binary)
	if err != nil {
		t.Fatal(err)
	}
	alg1.D, alg1.DMax, alg1.Seed = []float64{0.1, 0.2}, 0.3, 7
	labels, err := PresetFor(PresetQuick, kind.Binary, MethodLabels, 3)
	if err != nil {
		t.Fatal(err)
	}
	labels.D, labels.DMax, labels.Seed = []float64{0.1, 0.2}, 0.3, 7
	labels.Law = &mip.Finite{Prior: []float64{0.5, 0.5},
		Recon: mip.Observer{Channel: [][]float64{{0.9, 0.1}, {0.1, 0.9}}, Loss: [][]float64{{0, 1}, {1, 0}}}}
	for _, c := range []struct {
		name string
		got  string
		want string
	}{
		{"data", fmtHash(data.hash), "0476bed61c3d0d82"},
		{"algorithm 1", alg1.fingerprint(data.hash), "4b69353022f37c73"},
		{"labels", labels.fingerprint(data.hash), "2c6cc31ce0a1c8e5"},
	} {
		if c.got != c.want {
			t.Errorf("%s: fingerprint %s, want %s", c.name, c.got, c.want)
		}
	}
}

func fmtHash(h uint64) string { return fmt.Sprintf("%016x", h) }
