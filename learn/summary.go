package learn

import (
	"fmt"
	"time"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model/kind"
)

// Summary is what a training run says of itself when it ends: its
// results, the configuration it ran with (its directory and shard), the
// number of adversaries and how long it took.
type Summary struct {
	Results     *Results
	Config      Config
	Adversaries int
	Elapsed     time.Duration
}

// summaryJSON is the JSON summary (results.json holds everything).
type summaryJSON struct {
	Dir     string             `json:"dir"`
	Model   kind.Kind          `json:"model"`
	Preset  string             `json:"preset,omitempty"`
	Trained int                `json:"trained"`
	Loaded  int                `json:"loaded"`
	Seconds float64            `json:"seconds"`
	Points  []summaryPointJSON `json:"points"`
	// Left: a shard's thresholds it could not finish (1-based), with why.
	Left    []int  `json:"left,omitempty"`
	LeftFor string `json:"left_for,omitempty"`
}

type summaryPointJSON struct {
	D         float64 `json:"D"`
	Finalized bool    `json:"finalized"`
	// recon_loss, adv_loss, min_adv_loss as results.json writes them
	loss.Nullable[Floats]
	Attempted int  `json:"attempted"`
	Accepted  int  `json:"accepted"`
	CapHit    bool `json:"cap_hit"`
	Trial     int  `json:"trial"`
	Epoch     int  `json:"epoch"`
}

// JSON is s's JSON document.
func (s Summary) JSON() any {
	res := s.Results
	doc := summaryJSON{Dir: s.Config.Dir, Model: res.Model, Trained: res.Trained, Loaded: res.Loaded,
		Seconds: s.Elapsed.Seconds(), Points: []summaryPointJSON{}}
	for _, p := range res.Points {
		doc.Points = append(doc.Points, summaryPointJSON{D: p.D, Finalized: p.Finalized,
			Nullable: loss.NullableOf[Floats](p.Losses), Attempted: p.Attempted, Accepted: p.Accepted,
			CapHit: p.CapHit, Trial: p.Trial, Epoch: p.Epoch})
	}
	if st := res.Stalled; st != nil {
		for _, d := range st.Left {
			doc.Left = append(doc.Left, d+1)
		}
		doc.LeftFor = st.String()
	}
	return doc
}

// Grid lays out the finalized point of every threshold: its test-split
// losses (as the trained estimators achieve them) and the protocol's
// counts; human: a table's headers, title and notes, else CSV's.
func (s Summary) Grid(human bool) *report.Grid {
	res, k := s.Results, s.Config.Model
	metric := "MSE"
	switch {
	case s.Config.Labels != nil:
		metric = "Bayes loss"
	case k.FiniteX(): // Algorithm 1's release of one bit or m labels
		metric = "soft 0-1"
	}
	g := &report.Grid{Header: []string{"D", "finalized", "recon_loss"}}
	if human {
		g.Header = []string{"D", "finalized", "recon " + metric}
	}
	for i := range s.Adversaries {
		if human {
			g.Header = append(g.Header, fmt.Sprintf("adv %d %s", i+1, metric))
		} else {
			g.Header = append(g.Header, fmt.Sprintf("adv_loss_%d", i+1))
		}
	}
	if human {
		g.Header = append(g.Header, "min adv", "accepted/attempted", "trial, epoch")
	} else {
		g.Header = append(g.Header, "min_adv_loss", "accepted", "attempted", "cap_hit", "trial", "epoch")
	}
	for _, p := range res.Points {
		l := loss.NullableOf[Floats](p.Losses) // nil where the point has no losses
		row := []string{report.Num(p.D), fmt.Sprint(p.Finalized), optNum(l.Recon)}
		for i := range s.Adversaries {
			if i < len(l.Adv) {
				row = append(row, report.Num(l.Adv[i]))
			} else {
				row = append(row, "")
			}
		}
		row = append(row, optNum(l.MinAdv))
		if human {
			counts := fmt.Sprintf("%d/%d", p.Accepted, p.Attempted)
			if p.CapHit {
				counts += " (cap hit)"
			}
			at := "-"
			if p.Finalized {
				at = fmt.Sprintf("%d, %d", p.Trial, p.Epoch)
			}
			row = append(row, counts, at)
		} else {
			row = append(row, fmt.Sprint(p.Accepted), fmt.Sprint(p.Attempted), fmt.Sprint(p.CapHit),
				fmt.Sprint(p.Trial), fmt.Sprint(p.Epoch))
		}
		g.Rows = append(g.Rows, row)
	}
	if human {
		s.describe(g)
	}
	return g
}

// describe gives a table its title and notes.
func (s Summary) describe(g *report.Grid) {
	res, c, dir := s.Results, s.Results.Config, s.Config.Dir
	g.Title = fmt.Sprintf("Algorithm 1, %s model: %s per trial, %s per D (cap %d), seed %d",
		s.Config.Model, report.Plural(c.Epochs, "epoch"), report.Plural(c.Protocol.Accept, "accepted trial"), c.Protocol.MaxAttempts, c.Seed)
	if l := c.Labels; l != nil {
		g.Title = fmt.Sprintf("Labels method (%s, %v observers), %s model: %s per trial, best of %s per D, seed %d",
			report.Plural(l.M, "label"), l.Observers, s.Config.Model, report.Plural(c.Epochs, "epoch"), report.Plural(c.Protocol.MaxAttempts, "restart"), c.Seed)
	}
	g.Notes = []string{
		c.LossesNote(),
		fmt.Sprintf("%s trained, %d loaded from %s, in %.1f s.", report.Plural(res.Trained, "trial"), res.Loaded, dir, s.Elapsed.Seconds()),
		"Certify with: mmds verify " + dir,
	}
	if sh := s.Config.Shard; sh.Sharded() {
		g.Title += fmt.Sprintf(", shard %v (thresholds %d of %d)", sh, len(res.Points), len(c.D))
		g.Notes[1] = fmt.Sprintf("%s trained, %d loaded into %s, in %.1f s.", report.Plural(res.Trained, "trial"), res.Loaded, dir, s.Elapsed.Seconds())
		g.Notes[2] = "Once every shard is done, run the same command without --shard to merge (it trains nothing)."
	}
}

// PlanName names c's method and losses, as a data run's table does.
func (c Config) PlanName() string {
	if l := c.Labels; l != nil {
		return fmt.Sprintf("Labels method (%s, observers of the training split), 0-1 losses", report.Plural(l.M, "label"))
	}
	switch {
	case c.Model.BinaryRelease():
		return "Algorithm 1, binary X, soft 0-1 losses"
	case c.Model.CategoricalRelease():
		return "Algorithm 1, categorical release, soft 0-1 losses"
	}
	return "Algorithm 1, MSE losses"
}

func optNum(p *float64) string {
	if p == nil {
		return "-"
	}
	return report.Num(*p)
}
