package verify

import (
	"strings"
	"testing"

	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model"
)

// A FINDING is one loud line naming the point, the certified numbers, the
// best known mechanism it beats and where that mechanism comes from.
func TestFindingsAreLoud(t *testing.T) {
	gb, cert := -0.5, 2.0
	rep := &Report{Points: []Point{{D: 2, Finalized: true, GapBest: &gb, BeatsBest: true, Verdict: "pass (above optimum); beats the best known mechanism",
		Certified: &loss.Losses{Recon: 1.9, MinAdv: cert}, Optimum: &model.Optimum{Detail: &model.GaussDetail{Best: loss.Losses{MinAdv: 1.5}}},
		BestKnown: &BestKnown{D: 2, MinAdv: 1.75, Source: "the kernel search at D = 2", Margin: 1e-6, Searched: true}}}}
	if f := findings(rep); len(f) != 1 || !strings.HasPrefix(f[0], "FINDING: at D = 2") || !strings.Contains(f[0], "has 1.75 (the kernel search at D = 2)") {
		t.Errorf("findings %q", f)
	}
}
