package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/mmds-project/mmds/estimate"
	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
)

// A data run has no exact optimum to certify against: its verdict is
// empirical, and every number it rests on is computed by mmds from the
// privatizer and the data file. The run's own networks and recorded
// losses are the author's — an author can train the estimators on the
// test rows, or set them to constants and seal the file again — so they
// are reported beside, never judged.

// DataStatus is the empirical verdict of one threshold of a data run.
type DataStatus int

// The outcomes, none of them a certificate.
const (
	// DataNoLeakFound: mmds's reconstructor meets D + 2 SE on the test
	// split and none of its adversaries beats the run's stated loss by
	// more than 2 SE. Estimators mmds does not fit may still do better.
	DataNoLeakFound DataStatus = iota + 1
	// DataLeakFound: an adversary mmds fitted beats the run's stated loss
	// of that adversary by more than 2 SE on the test split.
	DataLeakFound
	// DataOver: no leak found, but mmds's reconstructor's held-out
	// distortion exceeds D + 2 SE.
	DataOver
	DataNotFinalized
	DataNotTrained
)

var dataStatusText = enum.Text[DataStatus]{Type: "DataStatus",
	Names: []string{DataNoLeakFound: "no leak found", DataLeakFound: "leak found", DataOver: "over D",
		DataNotFinalized: "not finalized", DataNotTrained: "not trained"},
	BadValue: func(s DataStatus) error {
		return fmt.Errorf("%w: DataStatus(%d) is not a data status", ErrInput, int(s))
	},
	BadText: func(b []byte, want string) error {
		return fmt.Errorf("%w: data status %s: want %s", ErrInput, safefile.Excerpt(string(b)), want)
	}}

// String is the status as reports write it.
func (s DataStatus) String() string { return dataStatusText.String(s) }

// MarshalText implements encoding.TextMarshaler.
func (s DataStatus) MarshalText() ([]byte, error) { return dataStatusText.Marshal(s) }

// UnmarshalText implements encoding.TextUnmarshaler; an unknown name is an
// error wrapping ErrInput.
func (s *DataStatus) UnmarshalText(b []byte) error { return dataStatusText.Unmarshal(s, b) }

// DataSE is the number of standard errors of a held-out loss the data
// verdicts allow: the distortion must be at most D + DataSE·SE, and an
// adversary leaks when its loss is below the stated one by more than
// DataSE·SE.
const DataSE = 2

// Estimate is a held-out loss: the mean over the test split and its
// standard error.
type Estimate = estimate.Estimate

// HeldOut are losses on the test split, each with its standard error.
type HeldOut struct {
	Recon  Estimate   `json:"recon"`
	Adv    []Estimate `json:"adv"`
	MinAdv float64    `json:"min_adv"`
	// By names the estimator behind each loss (the reconstructor's, then
	// each adversary's), and Fits every estimator's loss per observer:
	// mmds's own estimators only.
	By   []string            `json:"by,omitempty"`
	Fits [][]estimate.Result `json:"fits,omitempty"`
}

// PlugIn is the plug-in optimum of a threshold: the global optimum over all
// privatizers of the training split's empirical law (mip's LP), and the
// optimal channel's held-out losses (estimate.ChannelBayes).
type PlugIn struct {
	Class   model.Class `json:"class"`
	Train   loss.Losses `json:"train"`
	HeldOut *HeldOut    `json:"held_out,omitempty"`
	Channel [][]float64 `json:"channel,omitempty"`
	Error   string      `json:"error,omitempty"` // why there is none at this D
}

// DataPoint is the report of one threshold of a data run.
type DataPoint struct {
	DIndex int        `json:"d_index"`
	D      float64    `json:"D"`
	Status DataStatus `json:"status"`
	// HeldOut are mmds's own estimators' losses on the test split, the
	// numbers the verdict rests on.
	HeldOut *HeldOut `json:"held_out"`
	// Learned are the test-split losses results.json records, and
	// Networks the run's own networks scored again on the test rows
	// (Algorithm 1): the author's, reported beside.
	Learned  *loss.Losses `json:"learned"`
	Networks *HeldOut     `json:"networks,omitempty"`
	// StatedAdv are the run's stated adversary losses: per adversary the
	// larger of the recorded loss and its network's held-out loss.
	StatedAdv []float64 `json:"stated_adv,omitempty"`
	// WithinD: mmds's reconstructor's held-out distortion is at most D +
	// DataSE·SE; Leaks: the adversaries (1-based) whose mmds loss is below
	// the stated one by more than DataSE·SE.
	WithinD bool    `json:"within_D"`
	Leaks   []int   `json:"leaks,omitempty"`
	PlugIn  *PlugIn `json:"plug_in_optimum,omitempty"`
}

// DataReport is the report of a data run.
type DataReport struct {
	Dir         string `json:"dir"`
	CSV         string `json:"csv"`
	CSVSHA256   string `json:"csv_sha256"`
	ModelSHA256 string `json:"model_sha256"`
	Method      string `json:"method"`
	Losses      string `json:"losses"`
	TestRows    int    `json:"test_rows"`
	// Seed drew the privatizer's noise r and seeded mmds's estimators:
	// SeedFrom says whether verify drew it or the reviewer gave it (--seed
	// Seed repeats this report), RunSeed is the run's own.
	Seed     uint64 `json:"seed"`
	SeedFrom string `json:"seed_from"`
	RunSeed  uint64 `json:"run_seed"`
	// Estimators says how mmds estimated the held-out losses.
	Estimators string `json:"estimators"`
	// Note says plainly what the numbers and the verdict are.
	Note         string      `json:"note"`
	Points       []DataPoint `json:"points"`
	NoLeakFound  int         `json:"no_leak_found"`
	LeakFound    int         `json:"leak_found"`
	Over         int         `json:"over_D"`
	NotFinalized int         `json:"not_finalized"`
	NotTrained   int         `json:"not_trained"`
	// Pass is true when every threshold is "no leak found": an empirical
	// verdict, never a certificate. Its JSON key is not a certificate's
	// "pass", so that a script reading a report's "pass" cannot take an
	// empirical verdict for a certified one; Verdict says which it is.
	Pass    bool   `json:"no_leak_found_at_every_D"`
	Verdict string `json:"verdict"`
}

// DataVerdict is every data report's Verdict.
const DataVerdict = "empirical, not a certificate"

// DataNote is the plain statement every data report carries.
const DataNote = "Empirical verdict, not a certificate: no exact optimum exists for data of an unknown law. " +
	"Every loss is held out on the test split (± one standard error) by estimators mmds fits itself on the training split; " +
	"\"no leak found\" means these estimators found none, not that none exists."

// The estimators of each kind of run.
const (
	estimatorsFitted  = "fitted by mmds on the training split: linear least squares, k-nearest neighbours (k by 5-fold cross-validation), an MLP; the lowest test loss of the three"
	estimatorsChannel = "the Bayes rule of the training split's empirical law for the privatizer's channel (the plug-in estimator), scored on the test split in expectation over F"
)

// CertifyData gives every threshold of a data run its empirical verdict
// (a run whose table and estimators at o.Workers thresholds at once would
// need more than o.MaxMemory is refused first, ErrMemory):
// the held-out losses of mmds's own reconstructor and adversaries
// (HeldOutData), the run's stated losses beside them and, when all columns
// are discrete, the plug-in optimum. A threshold is "no leak found" when
// mmds's reconstructor's distortion is at most D + DataSE·SE and no
// adversary of mmds's is below the stated loss by more than DataSE·SE.
// Thresholds are judged o.Workers at once; the report does not depend on
// it.
func CertifyData(ctx context.Context, run *DataRun, o Options) (*DataReport, error) {
	c := &run.Results.Config
	rep := &DataReport{Dir: run.Dir, CSV: run.Spec.CSV, CSVSHA256: run.Spec.SHA256, ModelSHA256: run.ModelSHA256,
		Method: c.Method.String(), Losses: "0-1", TestRows: run.Spec.Split.Test, Note: DataNote, Estimators: estimatorsFitted,
		Seed: run.Seed, SeedFrom: run.SeedFrom, RunSeed: c.Seed, Verdict: DataVerdict}
	if !c.Model.FiniteX() { // a continuous X is scored by squared errors
		rep.Losses = "MSE"
	}
	if run.usesChannel() {
		rep.Estimators = estimatorsChannel
	}
	if err := run.checkMemory(o.MaxMemory, workersOf(o.Workers)); err != nil {
		return nil, err
	}
	byD := map[int]*learn.DResult{}
	for i := range run.Results.Points {
		byD[run.Results.Points[i].DIndex] = &run.Results.Points[i]
	}
	rep.Points = make([]DataPoint, len(c.D))
	err := eachPoint(ctx, len(c.D), o.Workers, o.Progress, func(i int) (err error) {
		rep.Points[i], err = judgeData(ctx, run, i, byD[i], o.Model)
		if err != nil {
			return fmt.Errorf("verify: D[%d] = %g: %w", i, c.D[i], err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var n [DataNotTrained + 1]int
	for _, p := range rep.Points {
		n[p.Status]++ // judgeData sets one of the statuses
	}
	rep.NoLeakFound, rep.LeakFound, rep.Over, rep.NotFinalized, rep.NotTrained = n[DataNoLeakFound], n[DataLeakFound], n[DataOver], n[DataNotFinalized], n[DataNotTrained]
	rep.Pass = rep.NoLeakFound == len(rep.Points)
	return rep, nil
}

// judgeData is threshold i's report; p is its result (nil: not trained).
func judgeData(ctx context.Context, run *DataRun, i int, p *learn.DResult, o model.Options) (DataPoint, error) {
	d := run.Results.Config.D[i]
	pt := DataPoint{DIndex: i, D: d, Status: DataNotTrained}
	if run.Data.Symbolic() {
		pt.PlugIn = plugIn(ctx, run, d, o)
	}
	if p == nil {
		return pt, nil
	}
	pt.Status = DataNotFinalized
	if !p.Finalized {
		return pt, nil
	}
	l := *p.Losses
	pt.Learned = &l
	h, nets, err := HeldOutData(ctx, run, p)
	if err != nil {
		return pt, err
	}
	pt.HeldOut, pt.Networks = h, nets
	pt.StatedAdv = append([]float64(nil), l.Adv...)
	if nets != nil {
		for a, e := range nets.Adv {
			pt.StatedAdv[a] = max(pt.StatedAdv[a], e.Mean) // finite: squaredErrors refuses the rest
		}
	}
	pt.WithinD = h.Recon.Mean <= d+DataSE*h.Recon.SE
	for a, e := range h.Adv {
		if e.Mean+DataSE*e.SE < pt.StatedAdv[a] {
			pt.Leaks = append(pt.Leaks, a+1)
		}
	}
	switch {
	case pt.Leaks != nil:
		pt.Status = DataLeakFound
	case !pt.WithinD:
		pt.Status = DataOver
	default:
		pt.Status = DataNoLeakFound
	}
	return pt, nil
}

// DrawsNoise reports whether the run's verdict draws anything from its
// Seed: the privatizer's noise r and the MLP's starts (Algorithm 1's
// networks); a channel's plug-in rules draw nothing.
func (run *DataRun) DrawsNoise() bool { return !run.usesChannel() }

// usesChannel reports whether the run's privatizer is a channel P(F | X)
// on discrete data (the labels method, or Algorithm 1's categorical
// release): its held-out losses are the plug-in rule's.
func (run *DataRun) usesChannel() bool {
	c := &run.Results.Config
	return c.Method == learn.MethodLabels || c.Model.CategoricalRelease()
}

// HeldOutData returns the held-out losses of a finalized point's
// privatizer that mmds computes itself, and the run's own networks'
// (nil for a channel, which has none):
//
//   - a channel on discrete data (the labels method, or the channel
//     Algorithm 1's categorical network releases, within about 1e-8):
//     each observer's plug-in Bayes rule (estimate.ChannelBayes);
//   - Algorithm 1's network k(x, r) on a continuous or binary X: the
//     release on every row (r the stream learn.NoiseSeed(seed) draws; a
//     binary F in expectation over F ~ Bernoulli(k(x, r)), two weighted
//     rows), then per observer mmds's estimators of X from (F, side
//     columns) fitted on the training rows and scored on the test rows
//     (estimate.Fit), the lowest test loss kept. The run's networks are
//     scored on the same test rows beside them.
func HeldOutData(ctx context.Context, run *DataRun, p *learn.DResult) (mmds, networks *HeldOut, err error) {
	if run.usesChannel() {
		ch, err := pointChannel(p, len(run.Data.XValues))
		if err != nil {
			return nil, nil, err
		}
		h, err := channelHeldOut(run, ch.P)
		return h, nil, err
	}
	t, err := newTestRows(run, p)
	if err != nil {
		return nil, nil, err
	}
	if mmds, err = t.fitted(ctx, p.DIndex); err != nil {
		return nil, nil, err
	}
	n := run.Spec.Split.Test
	if run.Results.Config.Model.BinaryRelease() {
		l := t.hardErrors()
		networks = &HeldOut{Recon: Estimate{Mean: l.Recon, SE: bernSE(l.Recon, n)}, MinAdv: l.MinAdv}
		for _, a := range l.Adv {
			networks.Adv = append(networks.Adv, Estimate{Mean: a, SE: bernSE(a, n)})
		}
		return mmds, networks, nil
	}
	networks, err = t.squaredErrors(p.DIndex)
	return mmds, networks, err
}

// channelHeldOut is every observer's plug-in Bayes loss under the channel
// ch (rows: values of X).
func channelHeldOut(run *DataRun, ch [][]float64) (*HeldOut, error) {
	cut, end := run.Spec.Split.Train, run.Spec.Rows // rows [0, cut) train, [cut, end) test
	h := &HeldOut{MinAdv: math.Inf(1)}
	for i, sym := range run.Data.Sym {
		rows := func(lo, hi int) estimate.Symbols {
			return estimate.Symbols{X: run.Data.XSym[lo:hi], S: sym[lo:hi], NX: len(run.Data.XValues), NS: run.Data.NSym[i]}
		}
		e, err := estimate.ChannelBayes(ch, rows(0, cut), rows(cut, end))
		if err != nil {
			return nil, fmt.Errorf("%w: results.json: %w", ErrInput, err)
		}
		h.add(i, e, "plug-in Bayes", nil)
	}
	return h, nil
}

// add records observer i's loss (0: the reconstructor), its estimator and
// the fits behind it.
func (h *HeldOut) add(i int, e Estimate, by string, fits []estimate.Result) {
	if i == 0 {
		h.Recon = e
	} else {
		h.Adv = append(h.Adv, e)
		h.MinAdv = min(h.MinAdv, e.Mean)
	}
	h.By = append(h.By, by)
	if fits != nil {
		h.Fits = append(h.Fits, fits)
	}
}

// estimateStream tags the seeds of mmds's estimators.
const estimateStream = 0x657374696d617465 // "estimate"

// fitted is mmds's estimators' held-out loss for every observer of
// threshold di: each fitted on the training rows' (F, side columns) → X,
// the lowest test loss of the three kept. The seed of observer i is
// learn.TrialSeed(DataRun.Seed ⊕ estimateStream, di, i): the same for any
// --workers.
func (t *testRows) fitted(ctx context.Context, di int) (*HeldOut, error) {
	spec := t.run.Spec
	binary := t.run.Results.Config.Model.BinaryRelease()
	lossKind := estimate.MSE
	if binary {
		lossKind = estimate.ZeroOne
	}
	f := make([]float64, spec.Rows) // the release, or P(F = 1)
	for k := range f {
		f[k] = t.mlps[0].Predict([]float64{t.x[k], t.r[k]})
		if math.IsNaN(f[k]) || math.IsInf(f[k], 0) {
			return nil, fmt.Errorf("%w: results.json: points[%d]: the privatizer releases %v on data row %d: estimators cannot be fitted to a non-finite release", ErrInput, di, f[k], t.run.Data.Perm[k]+1)
		}
		if binary {
			f[k] = min(max(f[k], 0), 1)
		}
	}
	h := &HeldOut{MinAdv: math.Inf(1)}
	for i := range t.sides {
		train, test := t.sample(i, f, 0, spec.Split.Train, binary), t.sample(i, f, spec.Split.Train, spec.Rows, binary)
		seed := learn.TrialSeed(t.run.Seed^estimateStream, di, i)
		fits, err := estimate.Fit(ctx, train, test, lossKind, estimate.Options{Seed: seed})
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%w: points[%d]: observer %d: %w", ErrInput, di, i, err)
		}
		b := estimate.Best(fits)
		h.add(i, b.Test, b.Name(), fits)
	}
	return h, nil
}

// sample is observer i's rows lo..hi−1: features (F, its side columns),
// target X; a binary release as two rows per example, F = 0 and F = 1
// weighted 1 − p and p.
func (t *testRows) sample(i int, f []float64, lo, hi int, binary bool) *estimate.Sample {
	s := &estimate.Sample{}
	cols := t.sides[i]
	row := func(k int, fv float64) []float64 {
		v := make([]float64, 1+len(cols))
		v[0] = fv
		for j, c := range cols {
			v[1+j] = c[k]
		}
		return v
	}
	for k := lo; k < hi; k++ {
		if !binary {
			s.V, s.X = append(s.V, row(k, f[k])), append(s.X, t.x[k])
			continue
		}
		for fv, w := range [2]float64{1 - f[k], f[k]} {
			s.V, s.X = append(s.V, row(k, float64(fv))), append(s.X, t.x[k])
			s.W, s.Ex = append(s.W, w), append(s.Ex, k-lo)
		}
	}
	return s
}

// pointChannel is a finalized point's channel P(F | X) on a finite X with
// n values: the labels method's, or the one its categorical network
// releases.
func pointChannel(p *learn.DResult, n int) (*privatizer.Channel, error) {
	if p.Channel != nil {
		return &privatizer.Channel{Name: fmt.Sprintf("points[%d].channel", p.DIndex), P: p.Channel}, nil
	}
	nw, err := p.Privatizer()
	if err != nil {
		return nil, fmt.Errorf("%w: results.json: %w", ErrInput, err)
	}
	// A few milliseconds per row: not worth a context.
	ch, _, err := privatizer.CategoricalChannel(context.Background(), nw, n, network.DefaultTol)
	if err != nil {
		return nil, fmt.Errorf("%w: results.json: points[%d]: %w", ErrInput, p.DIndex, err)
	}
	return ch, nil
}

func bernSE(l float64, n int) float64 {
	l = min(max(l, 0), 1)
	return math.Sqrt(l * (1 - l) / float64(n))
}

// testRows is what scoring Algorithm 1's networks needs: the trained
// networks, the data and the privatizer's noise r on every row, drawn as
// learn.NewData draws it from learn.NoiseSeed(DataRun.Seed).
type testRows struct {
	run   *DataRun
	mlps  []*learn.MLP
	x     []float64
	r     []float64
	sides [][][]float64
}

func newTestRows(run *DataRun, p *learn.DResult) (*testRows, error) {
	t := &testRows{run: run}
	for i := range p.Networks {
		m, err := learn.MLPOf(&p.Networks[i])
		if err != nil {
			return nil, fmt.Errorf("%w: results.json: points[%d]: %w", ErrInput, p.DIndex, err)
		}
		t.mlps = append(t.mlps, m)
	}
	ds := run.Data.Dataset(false)
	t.x, t.sides = ds.X, append([][][]float64{ds.Y}, ds.Z...)
	rng := rand.New(rand.NewPCG(learn.NoiseSeed(run.Seed), 0))
	t.r = make([]float64, run.Spec.Rows)
	for k := range t.r {
		t.r[k] = rng.NormFloat64()
	}
	if len(t.mlps) != 1+len(t.sides) {
		return nil, fmt.Errorf("%w: results.json: points[%d]: %d networks, the data give %d observers and a privatizer", ErrInput, p.DIndex, len(t.mlps), len(t.sides))
	}
	for i, cols := range t.sides {
		if t.mlps[1+i].In != 1+len(cols) {
			return nil, fmt.Errorf("%w: results.json: points[%d]: network %d has %d inputs, the data give it %d", ErrInput, p.DIndex, 1+i, t.mlps[1+i].In, 1+len(cols))
		}
	}
	if t.mlps[0].In != 2 {
		return nil, fmt.Errorf("%w: results.json: points[%d]: the privatizer has %d inputs, want 2 (x, r)", ErrInput, p.DIndex, t.mlps[0].In)
	}
	return t, nil
}

// observe returns observer i's estimate of X from the release f on row k.
func (t *testRows) observe(i, k int, f float64) float64 {
	in := []float64{f}
	for _, col := range t.sides[i] {
		in = append(in, col[k])
	}
	return t.mlps[1+i].Predict(in)
}

// squaredErrors is the held-out MSE of the run's networks, f = k(x, r),
// with SE = the squared errors' sample standard deviation/√n. A network
// whose squared error is not finite on a test row (an estimate of ±Inf or
// NaN, which no report can hold and no claim can rest on) makes
// results.json invalid: an error wrapping ErrInput.
func (t *testRows) squaredErrors(di int) (*HeldOut, error) {
	spec := t.run.Spec
	h := &HeldOut{MinAdv: math.Inf(1)}
	for i := range t.sides {
		per := make([]float64, 0, spec.Split.Test)
		for k := spec.Split.Train; k < spec.Rows; k++ {
			f := t.mlps[0].Predict([]float64{t.x[k], t.r[k]})
			e := t.observe(i, k, f) - t.x[k]
			if math.IsNaN(e*e) || math.IsInf(e*e, 0) {
				return nil, fmt.Errorf("%w: results.json: points[%d]: network %d (%s) estimates %v on data row %d: a squared error that is not finite",
					ErrInput, di, 1+i, observerName(i), t.observe(i, k, f), t.run.Data.Perm[k]+1)
			}
			per = append(per, e*e)
		}
		h.add(i, estimate.MeanSE(per), "", nil)
	}
	h.By = nil
	return h, nil
}

// observerName names observer i (0: the reconstructor).
func observerName(i int) string {
	if i == 0 {
		return "the reconstructor"
	}
	return fmt.Sprintf("adversary %d", i)
}

// hardErrors is the held-out 0-1 error of the run's networks' decisions
// (the estimate thresholded at 1/2, as learn records it), in expectation
// over the release F ~ Bernoulli(k(x, r)) on each test row.
func (t *testRows) hardErrors() loss.Losses {
	spec := t.run.Spec
	errs := make([]float64, len(t.sides))
	for k := spec.Split.Train; k < spec.Rows; k++ {
		p := min(max(t.mlps[0].Predict([]float64{t.x[k], t.r[k]}), 0), 1)
		for i := range t.sides {
			for f, pf := range [2]float64{1 - p, p} {
				d := 0.0
				if t.observe(i, k, float64(f)) > 0.5 {
					d = 1
				}
				if d != t.x[k] {
					errs[i] += pf
				}
			}
		}
	}
	for i := range errs {
		errs[i] /= float64(spec.Split.Test)
	}
	return loss.New(errs[0], errs[1:])
}

// plugIn solves the training split's empirical law at d and scores the
// optimal channel's plug-in Bayes rules on the test split; a threshold the
// law cannot meet (below its D_min) or a solver failure is reported in
// PlugIn.Error.
func plugIn(ctx context.Context, run *DataRun, d float64, o model.Options) *PlugIn {
	train := model.NewFinite(run.Data.Law(false))
	opt, err := train.Optimum(ctx, d, o)
	if err != nil {
		if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
			return &PlugIn{Error: ctx.Err().Error()}
		}
		return &PlugIn{Error: err.Error()}
	}
	pi := &PlugIn{Class: opt.Class, Train: opt.Losses}
	det, ok := opt.Detail.(*model.FiniteDetail)
	if !ok || det.Mechanism == nil {
		pi.Error = "the solver returned no mechanism"
		return pi
	}
	pi.Channel = det.Mechanism
	h, err := channelHeldOut(run, det.Mechanism)
	if err != nil {
		pi.Error = strings.TrimPrefix(err.Error(), ErrInput.Error()+": ")
		return pi
	}
	h.By = nil
	pi.HeldOut = h
	return pi
}
