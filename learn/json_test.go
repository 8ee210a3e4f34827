package learn

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/rundir"
)

// legacyDResult is DResult as it was before its losses became one
// *loss.Losses: results.json and the point hashes were written in its shape,
// which DResult's JSON must keep byte for byte.
type legacyDResult struct {
	DIndex        int             `json:"d_index"`
	D             float64         `json:"D"`
	Finalized     bool            `json:"finalized"`
	ReconLoss     *float64        `json:"recon_loss"`
	AdvLoss       Floats          `json:"adv_loss"`
	MinAdvLoss    *float64        `json:"min_adv_loss"`
	ReconHard     *float64        `json:"recon_hard,omitempty"`
	AdvHard       Floats          `json:"adv_hard,omitempty"`
	Trial         int             `json:"trial"`
	Epoch         int             `json:"epoch"`
	Attempted     int             `json:"attempted"`
	Accepted      int             `json:"accepted"`
	CapHit        bool            `json:"cap_hit"`
	Trials        []TrialSummary  `json:"trials"`
	Networks      []legacyNetwork `json:"networks,omitempty"`
	NetworksEpoch int             `json:"networks_epoch"`
	SHA256        string          `json:"sha256"`
}

// legacyNetwork is the record of a network as results.json and the point
// hashes have always had it, which network.Network's JSON must keep byte
// for byte.
type legacyNetwork struct {
	Role   string        `json:"role"`
	Inputs []string      `json:"inputs"`
	Layers []legacyLayer `json:"layers"`
}

type legacyLayer struct {
	In         int      `json:"in"`
	Out        int      `json:"out"`
	Activation string   `json:"activation"`
	Weights    []Floats `json:"weights"`
	Bias       Floats   `json:"bias"`
}

func TestDResultJSONShape(t *testing.T) {
	hard := 0.02
	// 3e-5 and 2e-5 are written differently by encoding/json (0.00003) and
	// by Floats (2e-05): each field must keep its own encoding.
	recon, minAdv := 3e-5, 2e-5
	adv := []float64{2e-5, math.NaN(), 0.4}
	fin := DResult{DIndex: 1, D: 0.1, Finalized: true, Losses: &loss.Losses{Recon: recon, Adv: adv, MinAdv: minAdv},
		ReconHard: &hard, AdvHard: Floats{0.3}, Trial: 2, Epoch: 7, Attempted: 3, Accepted: 2,
		Trials:        []TrialSummary{{Trial: 2, Seed: 9, Eligible: true, Accepted: true, Point: &Point{Trial: 2, Epoch: 7, Recon: 0.1, Adv: []float64{0.2}}}},
		NetworksEpoch: 7, SHA256: "ab"}
	// A diverged weight (NaN, written null) and numbers that encoding/json
	// and Floats write differently.
	fin.Networks = []network.Network{{Role: "privatizer", Inputs: []string{"x", "r"}, Layers: []network.Layer{
		{W: [][]float64{{2e-5, math.NaN()}, {1e21, -0.5}}, B: []float64{0, 3e-7}, Act: network.ReLU},
		{W: [][]float64{{1, 1.5}}, B: []float64{-2}, Act: network.Sigmoid}}}}
	legacyNets := []legacyNetwork{{Role: "privatizer", Inputs: []string{"x", "r"}, Layers: []legacyLayer{
		{In: 2, Out: 2, Activation: "relu", Weights: []Floats{{2e-5, math.NaN()}, {1e21, -0.5}}, Bias: Floats{0, 3e-7}},
		{In: 2, Out: 1, Activation: "sigmoid", Weights: []Floats{{1, 1.5}}, Bias: Floats{-2}}}}}
	open := DResult{DIndex: 0, D: 0.05, Trial: -1, Epoch: -1, Attempted: 4, CapHit: true, Trials: []TrialSummary{}, NetworksEpoch: -1}
	for _, tc := range []struct {
		name string
		p    DResult
		old  legacyDResult
	}{
		{"finalized", fin, legacyDResult{DIndex: 1, D: 0.1, Finalized: true, ReconLoss: &recon, AdvLoss: adv, MinAdvLoss: &minAdv,
			ReconHard: &hard, AdvHard: Floats{0.3}, Trial: 2, Epoch: 7, Attempted: 3, Accepted: 2, Trials: fin.Trials, Networks: legacyNets, NetworksEpoch: 7, SHA256: "ab"}},
		{"not finalized", open, legacyDResult{DIndex: 0, D: 0.05, Trial: -1, Epoch: -1, Attempted: 4, CapHit: true, Trials: []TrialSummary{}, NetworksEpoch: -1}},
	} {
		got, err := json.Marshal(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(tc.old)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: JSON\n%s\nwant the legacy shape\n%s", tc.name, got, want)
		}
		var back DResult
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		again, err := json.Marshal(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, got) {
			t.Errorf("%s: round trip\n%s\nwant\n%s", tc.name, again, got)
		}
		if (back.Losses == nil) != (tc.p.Losses == nil) {
			t.Errorf("%s: decoded losses %+v, want nil exactly when the point has none", tc.name, back.Losses)
		}
		if s0, s1 := mustSeal(t, &tc.p), mustSeal(t, &back); s0 != s1 {
			t.Errorf("%s: seal %s after a round trip, %s before", tc.name, s1, s0)
		}
	}
}

func mustSeal(t *testing.T, p *DResult) string {
	t.Helper()
	s, err := p.seal()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCommittedResultsRoundTrip: the committed results directories decode,
// their points still match their hashes, and writing them back gives the
// file byte for byte.
func TestCommittedResultsRoundTrip(t *testing.T) {
	for _, name := range []string{"gauss", "binary"} {
		path := filepath.Join("..", "paper", name, rundir.ResultsFile)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := DecodeResults(b, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.CheckBinding(res.Config.ModelSHA256); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		var out bytes.Buffer
		if err := report.WriteJSON(&out, res); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), b) {
			t.Errorf("%s: written back differently (%d bytes, file %d)", path, out.Len(), len(b))
		}
	}
}
