package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"

	"github.com/mmds-project/mmds/data"
	"github.com/mmds-project/mmds/internal/enum"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
	"github.com/mmds-project/mmds/rundir"
)

// DataRun is a results directory of mmds train data, loaded and bound: its
// model file is the data spec ({"data": …}) results.json was trained on,
// and the data file read for it (DataFile) has the SHA-256 the spec
// records.
type DataRun struct {
	Dir     string
	Results *learn.Results
	Spec    *data.Spec
	Data    *data.Prepared
	// DataFile is the path of the data file read: the reviewer's --data
	// file, or the copy in Dir.
	DataFile    string
	ModelSHA256 string
}

// ErrNoDataFile is wrapped by the error of a data run whose data file was
// not given and has no copy in the results directory.
var ErrNoDataFile = errors.New("the run's data file is not in the results directory")

// newDataRun checks a data run: the spec's hash is results.json's model
// hash, the data file (dataFile when not empty, else the copy in d that
// the spec names, DataFileOf) is read and hashed, and every finalized
// point has the privatizer its method needs.
func newDataRun(ctx context.Context, res *learn.Results, modelBytes []byte, d rundir.Dir, dataFile string) (*DataRun, error) {
	spec, err := data.DecodeFile(modelBytes, d.Path(ModelFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	h, err := spec.Hash()
	if err != nil {
		return nil, err
	}
	if err := res.CheckBinding(h); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	raw, path, err := readDataFile(ctx, spec, d, dataFile)
	if err != nil {
		return nil, err
	}
	t, err := data.Parse(raw, path)
	if err != nil {
		return nil, fmt.Errorf("%w: the run's data file: %w", ErrInput, err)
	}
	prep, err := data.Prepare(t, spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	run := &DataRun{Results: res, Spec: spec, Data: prep, DataFile: path, ModelSHA256: h}
	if err := run.check(); err != nil {
		return nil, fmt.Errorf("%w: results.json: %w", ErrInput, err)
	}
	return run, nil
}

// readDataFile reads the data file of spec — dataFile when not empty (the
// reviewer's choice), else the copy in d named by spec's base name — and
// checks its SHA-256 before anything parses it. The path spec records is
// the author's to write: it never names the file opened, so a run cannot
// make its reviewer read a file outside the results directory (an absolute
// path, "..", a symbolic link), and a file that is not the bound data
// never has a line quoted in a parse error.
func readDataFile(ctx context.Context, spec *data.Spec, d rundir.Dir, dataFile string) (raw []byte, path string, err error) {
	if dataFile != "" {
		path = dataFile
		if raw, err = safefile.Read(ctx, dataFile, data.MaxFileBytes); err != nil {
			return nil, "", fmt.Errorf("%w: the data file given (--data): %w", ErrInput, err)
		}
	} else if raw, path, err = readDataCopy(ctx, spec, d); err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != spec.SHA256 {
		return nil, "", fmt.Errorf("%w: %w: the data file %s is not the one this run was trained on (its sha256 is %s, the run was trained on %s)",
			ErrInput, rundir.ErrBinding, safefile.Path(path), got[:12], spec.SHA256[:12])
	}
	return raw, path, nil
}

// readDataCopy reads the copy of the data file in d (rundir.ReadDataCopy).
func readDataCopy(ctx context.Context, spec *data.Spec, d rundir.Dir) ([]byte, string, error) {
	noFile := func(err error) error {
		return fmt.Errorf("%w: %w: %w; give the data file with --data FILE", ErrInput, ErrNoDataFile, err)
	}
	name, err := spec.FileName()
	if err != nil {
		return nil, "", noFile(err)
	}
	path, err := d.DataCopy(name)
	if err != nil {
		return nil, "", noFile(err)
	}
	raw, err := d.ReadDataCopy(ctx, name, data.MaxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", fmt.Errorf("%w: %w: looked for %s (a copy beside results.json); give the data file with --data FILE",
			ErrInput, ErrNoDataFile, safefile.Path(path))
	case err != nil:
		return nil, "", fmt.Errorf("%w: the run's data file: %w", ErrInput, err)
	}
	return raw, path, nil
}

// check validates the points against the data: one loss per adversary, and
// a channel with a row per value of X (labels) or Algorithm 1's networks.
func (run *DataRun) check() error {
	c := &run.Results.Config
	k := len(run.Spec.Adversaries)
	switch {
	case !c.Model.Valid():
		return fmt.Errorf("\"model\" = %q: want gauss, binary or finite", c.Model)
	case c.Model.FiniteX() != (run.Data.XValues != nil):
		return fmt.Errorf("\"model\" = %q does not match X's kind (%v)", c.Model, run.Spec.Private.Kind)
	case c.TrainSize != run.Spec.Split.Train || c.TestSize != run.Spec.Split.Test:
		return fmt.Errorf("config's split %d + %d is not the data spec's %d + %d", c.TrainSize, c.TestSize, run.Spec.Split.Train, run.Spec.Split.Test)
	case c.Method == learn.MethodLabels && !run.Data.Symbolic():
		return fmt.Errorf("the labels method needs discrete data, but the spec has continuous columns")
	}
	if err := run.checkPlan(); err != nil {
		return err
	}
	for i := range run.Results.Points {
		p := &run.Results.Points[i]
		if !p.Finalized {
			continue
		}
		where := fmt.Sprintf("points[%d] (D = %v)", i, p.D)
		if p.Losses == nil || len(p.Losses.Adv) != k {
			return fmt.Errorf("%s: want the losses of the reconstructor and %d adversaries", where, k)
		}
		if c.Method == learn.MethodLabels {
			if len(p.Channel) != len(run.Data.XValues) {
				return fmt.Errorf("%s: the channel has %d rows, X takes %d values", where, len(p.Channel), len(run.Data.XValues))
			}
			continue
		}
		if len(p.Networks) != 2+k {
			return fmt.Errorf("%s: %d networks, want %d (privatizer, reconstructor, %d adversaries)", where, len(p.Networks), 2+k, k)
		}
	}
	return nil
}

// checkPlan refuses a run whose model is not the one mmds train data
// trains its data on with its method (data.Prepared.ChoosePlan): how
// verify computes the held-out losses follows the model, and on a binary X
// they are the errors results.json records, so a run on an X of more
// values relabelled "binary" would have its recorded numbers reported in
// place of the losses of the channel its network releases.
func (run *DataRun) checkPlan() error {
	c := &run.Results.Config
	plan, err := run.Data.ChoosePlan(&c.Method)
	if err != nil {
		return fmt.Errorf("the %v method cannot train these data: %w", c.Method, err)
	}
	if plan.Model != c.Model {
		x := "a continuous X"
		if n := len(run.Data.XValues); n > 0 {
			x = fmt.Sprintf("an X of %d values", n)
		}
		return fmt.Errorf("\"model\" = %v with the %v method, but the data train %v (%s)", c.Model, c.Method, plan.Model, x)
	}
	return nil
}

// DataStatus is the outcome of one threshold of a data run.
type DataStatus int

// The outcomes. There is no optimum to hold the privatizer against, so the
// only judgement is the distortion constraint, held out.
const (
	// DataWithin: the held-out distortion is at most D + 2 standard
	// errors.
	DataWithin DataStatus = iota + 1
	// DataOver: the held-out distortion exceeds D + 2 standard errors.
	DataOver
	DataNotFinalized
	DataNotTrained
)

var dataStatusText = enum.Text[DataStatus]{Type: "DataStatus",
	Names: []string{DataWithin: "within D", DataOver: "over D",
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

// Estimate is a held-out loss: the mean over the test split and its
// standard error.
type Estimate struct {
	Mean float64 `json:"mean"`
	SE   float64 `json:"se"`
}

// HeldOut are the losses of a privatizer on the test split, each with its
// standard error.
type HeldOut struct {
	Recon  Estimate   `json:"recon"`
	Adv    []Estimate `json:"adv"`
	MinAdv float64    `json:"min_adv"`
}

// PlugIn is the plug-in optimum of a threshold: the global optimum over all
// privatizers of the training split's empirical law (mip's LP), and the
// optimal channel's losses on the test split's empirical law.
type PlugIn struct {
	Class   model.Class `json:"class"`
	Train   loss.Losses `json:"train"`
	HeldOut *HeldOut    `json:"held_out,omitempty"`
	Channel [][]float64 `json:"channel,omitempty"`
	Error   string      `json:"error,omitempty"` // why there is none at this D
}

// DataPoint is the report of one threshold of a data run.
type DataPoint struct {
	DIndex  int          `json:"d_index"`
	D       float64      `json:"D"`
	Status  DataStatus   `json:"status"`
	Learned *loss.Losses `json:"learned"`  // results.json's test-split losses
	HeldOut *HeldOut     `json:"held_out"` // recomputed from the data file
	PlugIn  *PlugIn      `json:"plug_in_optimum,omitempty"`
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
	// Note says plainly what the numbers are.
	Note   string      `json:"note"`
	Points []DataPoint `json:"points"`
	Within int         `json:"within"`
	Pass   bool        `json:"pass"`
}

// DataNote is the plain statement every data report carries.
const DataNote = "No exact optimum exists for data of an unknown law: the losses are held-out estimates on the test split, each ± one standard error; nothing is certified."

// CertifyData reports every threshold of a data run: the held-out losses of
// its privatizer with standard errors (HeldOutData) and, when all columns
// are discrete, the plug-in optimum beside them. A threshold passes when
// its held-out distortion is at most D + 2 SE.
func CertifyData(ctx context.Context, run *DataRun, o model.Options) (*DataReport, error) {
	c := &run.Results.Config
	rep := &DataReport{Dir: run.Dir, CSV: run.Spec.CSV, CSVSHA256: run.Spec.SHA256, ModelSHA256: run.ModelSHA256,
		Method: c.Method.String(), Losses: "0-1", TestRows: run.Spec.Split.Test, Note: DataNote}
	if !c.Model.FiniteX() { // a continuous X is scored by squared errors
		rep.Losses = "MSE"
	}
	byD := map[int]*learn.DResult{}
	for i := range run.Results.Points {
		byD[run.Results.Points[i].DIndex] = &run.Results.Points[i]
	}
	for di, d := range c.D {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pt := DataPoint{DIndex: di, D: d, Status: DataNotTrained}
		if p := byD[di]; p != nil {
			pt.Status = DataNotFinalized
			if p.Finalized {
				l := *p.Losses
				pt.Learned = &l
				h, err := HeldOutData(run, p)
				if err != nil {
					return nil, err
				}
				pt.HeldOut = h
				pt.Status = DataWithin
				if h.Recon.Mean > d+2*h.Recon.SE {
					pt.Status = DataOver
				}
			}
		}
		if run.Data.Symbolic() {
			pt.PlugIn = plugIn(ctx, run, d, o)
		}
		if pt.Status == DataWithin {
			rep.Within++
		}
		rep.Points = append(rep.Points, pt)
	}
	rep.Pass = rep.Within == len(rep.Points)
	return rep, nil
}

// HeldOutData returns the held-out losses of a finalized point's
// privatizer:
//
//   - a channel (labels method): its exact Bayes losses under the test
//     split's empirical law (observers that know that law), SE
//     √(l(1 − l)/n) for 0-1 losses;
//   - Algorithm 1 on a continuous X: the trained networks' squared errors
//     on the test rows, recomputed from the data file, SE = their sample
//     standard deviation/√n;
//   - Algorithm 1 on a binary X: the hard 0-1 test errors of the trained
//     estimators (their output thresholded at 1/2), recomputed from the
//     networks and the data file with the expectation over F ~
//     Bernoulli(k(x, r)), r as for a continuous X, SE √(l(1 − l)/n);
//   - Algorithm 1 on a finite X of more values: the channel its
//     categorical network releases (privatizer.CategoricalChannel, within
//     about 1e-8), whose exact Bayes losses under the test split's
//     empirical law are taken as a channel's.
func HeldOutData(run *DataRun, p *learn.DResult) (*HeldOut, error) {
	c := &run.Results.Config
	n := run.Spec.Split.Test
	bern := func(l loss.Losses) *HeldOut {
		h := &HeldOut{Recon: Estimate{l.Recon, bernSE(l.Recon, n)}, MinAdv: l.MinAdv}
		for _, a := range l.Adv {
			h.Adv = append(h.Adv, Estimate{a, bernSE(a, n)})
		}
		return h
	}
	if c.Method == learn.MethodLabels || c.Model.CategoricalRelease() {
		ch, err := pointChannel(p, len(run.Data.XValues))
		if err != nil {
			return nil, err
		}
		l, err := ch.FiniteLosses(run.Data.Law(true))
		if err != nil {
			return nil, fmt.Errorf("%w: results.json: %w", ErrInput, err)
		}
		return bern(l), nil
	}
	t, err := newTestRows(run, p)
	if err != nil {
		return nil, err
	}
	if c.Model.BinaryRelease() {
		return bern(t.hardErrors()), nil
	}
	return t.squaredErrors(), nil
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

// testRows is what recomputing Algorithm 1's held-out losses needs: the
// trained networks, the data and the privatizer's noise r on every row,
// drawn as learn.NewData draws it from learn.NoiseSeed(seed).
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
		m, err := p.Networks[i].MLP()
		if err != nil {
			return nil, fmt.Errorf("%w: results.json: points[%d]: %w", ErrInput, p.DIndex, err)
		}
		t.mlps = append(t.mlps, m)
	}
	ds := run.Data.Dataset(false)
	t.x, t.sides = ds.X, append([][][]float64{ds.Y}, ds.Z...)
	rng := rand.New(rand.NewPCG(learn.NoiseSeed(run.Results.Config.Seed), 0))
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

// squaredErrors is the held-out MSE of every observer, f = k(x, r), with
// SE = the squared errors' sample standard deviation/√n.
func (t *testRows) squaredErrors() *HeldOut {
	spec := t.run.Spec
	sum, sq := make([]float64, len(t.sides)), make([]float64, len(t.sides))
	n := spec.Split.Test
	for k := spec.Split.Train; k < spec.Rows; k++ {
		f := t.mlps[0].Predict([]float64{t.x[k], t.r[k]})
		for i := range t.sides {
			e := t.observe(i, k, f) - t.x[k]
			sum[i] += e * e
			sq[i] += e * e * e * e
		}
	}
	est := func(i int) Estimate {
		m := sum[i] / float64(n)
		v := max(sq[i]/float64(n)-m*m, 0) * float64(n) / float64(max(n-1, 1))
		return Estimate{m, math.Sqrt(v / float64(n))}
	}
	h := &HeldOut{Recon: est(0), MinAdv: math.Inf(1)}
	for i := 1; i < len(t.sides); i++ {
		h.Adv = append(h.Adv, est(i))
		h.MinAdv = min(h.MinAdv, h.Adv[i-1].Mean)
	}
	return h
}

// hardErrors is the held-out 0-1 error of every observer's decision (its
// estimate thresholded at 1/2, as learn records it), in expectation over
// the release F ~ Bernoulli(k(x, r)) on each test row.
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

// plugIn solves the training split's empirical law at d and evaluates the
// optimal channel on the test split's; a threshold the law cannot meet
// (below its D_min) or a solver failure is reported in PlugIn.Error.
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
	det, ok := opt.Detail.(*model.FiniteOptimum)
	if !ok || det.Mechanism == nil {
		pi.Error = "the solver returned no mechanism"
		return pi
	}
	pi.Channel = det.Mechanism
	ch := &privatizer.Channel{Name: "plug-in optimum", P: det.Mechanism}
	l, err := ch.FiniteLosses(run.Data.Law(true))
	if err != nil {
		pi.Error = err.Error()
		return pi
	}
	n := run.Spec.Split.Test
	pi.HeldOut = &HeldOut{Recon: Estimate{l.Recon, bernSE(l.Recon, n)}, MinAdv: l.MinAdv}
	for _, a := range l.Adv {
		pi.HeldOut.Adv = append(pi.HeldOut.Adv, Estimate{a, bernSE(a, n)})
	}
	return pi
}
