package verify

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// A results directory that says "method": "labels" on the Gaussian model
// with a channel in place of the cell kernel, resealed so that its binding
// holds, is an inconsistent directory (bad input, refused by Load before any
// work), not a failed computation: a channel needs a finite X, and the
// Gaussian model's labels privatizer is a kernel on cells of x.
func TestRedTeam3LabelsOnGaussRefused(t *testing.T) {
	dir := t.TempDir()
	net := learntest.LinearNet(1, 1, 0)
	res := verifytest.Synthetic(t, dir, model.Gauss, 0.1, []verifytest.Point{{D: 2, Priv: &net, Recon: 2, Adv: []float64{2, 2}}})
	res.Config.Method = learn.MethodLabels
	res.Points[0].Networks = nil
	res.Points[0].Channel = [][]float64{{1}}
	verifytest.WriteResults(t, dir, res)
	_, err := Load(context.Background(), dir)
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "needs its kernel") {
		t.Fatalf("Load: %v; want ErrInput naming the kernel the Gaussian labels method needs", err)
	}
}

// A labels channel that is not a channel of the model's X (rows off 1,
// negative or huge entries, ragged or missing rows), resealed, is refused
// by Load, before any point is certified, naming the point and the entry.
// A row off by 1e-17 is a channel (privatizer.RowSumTol).
func TestRedTeam3LabelsChannelCheckedOnLoad(t *testing.T) {
	cases := []struct {
		name    string
		channel [][]float64
		want    string // "" = loads
	}{
		{"row off by 1e-3", [][]float64{{0.5, 0.501}, {0, 1}}, "row 0 sums to"},
		{"row off by 1e-17", [][]float64{{0.5, 0.5 + 1e-17}, {0, 1}}, ""},
		{"negative entry", [][]float64{{-0.5, 1.5}, {0, 1}}, "entry [0][0] = -0.5"},
		{"1e308", [][]float64{{1e308, 0}, {0, 1}}, "row 0 sums to 1e+308"},
		{"ragged", [][]float64{{0.5, 0.5}, {1}}, "row 1 has 1 entries"},
		{"one row", [][]float64{{0.5, 0.5}}, "1 rows, but the model's X takes 2 values"},
		{"three rows", [][]float64{{1, 0}, {0, 1}, {1, 0}}, "3 rows"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		net := learntest.LinearNet(1, 1, 0)
		res := verifytest.Synthetic(t, dir, model.Binary, 0.1, []verifytest.Point{{D: 0.1, Priv: &net, Recon: 0.1, Adv: []float64{0.4}}})
		res.Config.Method = learn.MethodLabels
		res.Points[0].Networks = nil
		res.Points[0].Channel = c.channel
		verifytest.WriteResults(t, dir, res)
		_, err := Load(context.Background(), dir)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: Load: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "points[0]")):
			t.Errorf("%s: Load: %v; want ErrInput naming points[0] and %q", c.name, err, c.want)
		}
	}
}
