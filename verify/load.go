package verify

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/mmds-project/mmds/data"
	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/internal/version"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
	"github.com/mmds-project/mmds/rundir"
)

// ErrInput is wrapped by every error that reports a missing, corrupt,
// tampered or inconsistent results directory: the caller's input, not a
// failed computation.
var ErrInput = errors.New("verify: invalid results directory")

// ModelFile is the name of the model file of a results directory.
const ModelFile = rundir.ModelFile

// Run is a results directory of mmds train, loaded, bound and checked
// against its model: the model file is the one the run was trained on, the
// configuration and every point are as training wrote them, and every
// finalized point has its networks, of the shapes the model implies.
type Run struct {
	Dir         string
	Results     *learn.Results
	Model       model.Model
	ModelSHA256 string
	// held is the memory the run's files take (with a run's base): what
	// Certify budgets its work beside.
	held int64
}

// Load reads DIR/results.json and DIR/model.json, each once (regular files
// only, the folder's own: rundir.Dir.Read), parses the bytes it read and checks the binding
// (learn.Results.CheckBinding). A folder marked as another kind than a
// results directory is refused; one without a marker (written by an older
// mmds) is read. A run on a user's data (mmds train data) has no model and
// is refused: Open reads it. Every error wraps ErrInput (or ctx's error)
// and names the file and what is wrong with it.
func Load(ctx context.Context, dir string) (*Run, error) {
	d, rb, mb, held, err := readDir(ctx, dir, 0)
	if err != nil {
		return nil, err
	}
	if data.IsFile(mb) { // the data file is not read: the refusal needs only its name
		name := "its data"
		if spec, err := data.DecodeFile(mb, d.Path(ModelFile)); err == nil {
			name = safefile.Path(spec.CSV)
		}
		return nil, fmt.Errorf("%w: %s holds a run on a user's data (mmds train data on %s): it has no model to hold it against; mmds verify reports its held-out losses",
			ErrInput, dir, name)
	}
	return openRun(d, rb, mb, held)
}

// DirRequest is what mmds verify reads at the door (OpenDir): a results
// directory, a certificate to re-derive, a data run's data file; and the
// files the run writes, which must not be any of them. Messages name the
// fields by the command line's flags.
type DirRequest struct {
	Dir string
	// Check is a certificate to re-derive from Dir ("": none).
	Check string
	// DataFile is the data file of a run on a user's data; empty: the
	// copy in the results directory named by the spec's base name
	// (data.Spec.FileName). Its SHA-256 must be the one the spec records.
	DataFile string
	// Seed is a data run's seed of the noise and of mmds's estimators
	// (nil: drawn afresh, DataRun.Seed).
	Seed *uint64
	// CertFlags are the flags given that ask for a certificate, which a
	// run on a user's data refuses before its data file is read.
	CertFlags []string
	// Certificate and Output are the files the run writes ("": none,
	// standard output).
	Certificate, Output string
	// MaxMemory is the memory budget in bytes (0: DefaultMaxMemory):
	// results.json is measured against it before it is decoded.
	MaxMemory int64
}

// Dir is a results directory read and checked at the door: a run on a
// model (Run, with the certificate to re-derive, Want) or on a user's
// data (Data), exactly one of them set.
type Dir struct {
	Run  *Run
	Data *DataRun
	Want *Certificate
	// check and certificate are the files of Want and of the certificate
	// the run writes.
	check, certificate string
}

// OpenDir is Load for any results directory, at the door: it checks the
// outputs against the inputs (report.CheckPaths), reads r.Check's
// certificate, then the directory — a run on a model (Load's *Run) or on
// a user's data, whose model file is a data spec ({"data": …}; a
// *DataRun, bound to its data file's SHA-256, read from r.DataFile or the
// copy in the directory). A request a run does not take (a certificate of
// a data run, a data file or a seed for a run on a model) is refused.
// Every error wraps ErrInput, ErrMemory or ctx's error.
func OpenDir(ctx context.Context, r DirRequest) (*Dir, error) {
	if err := report.CheckPaths([]report.Path{report.InFolder("DIR", r.Dir, report.Results), report.In("--check", r.Check), report.In("--data", r.DataFile),
		report.Out("--certificate", r.Certificate), report.Out("--output", r.Output)}); err != nil {
		return nil, inputError(err)
	}
	out := &Dir{check: r.Check, certificate: r.Certificate}
	if r.Check != "" {
		var err error
		if out.Want, err = ReadCertificate(ctx, "--check", r.Check); err != nil {
			return nil, err
		}
	}
	if len(r.CertFlags) > 0 { // refused before anything else of the directory is read
		if mb, err := rundir.Dir(r.Dir).ReadModel(ctx); err == nil && data.IsFile(mb) {
			f := r.CertFlags[0]
			return nil, inputf("--%s: %s is a run on a user's data (mmds train data): there is no exact optimum to certify against, so no certificate; drop --%s", f, r.Dir, f)
		}
	}
	d, rb, mb, held, err := readDir(ctx, r.Dir, r.MaxMemory)
	if err != nil {
		return nil, err
	}
	if data.IsFile(mb) {
		if out.Data, err = newDataRun(ctx, rb, mb, d, r.DataFile, held, r.MaxMemory); err != nil {
			return nil, err
		}
		out.Data.Dir = r.Dir
		if r.Seed != nil {
			out.Data.SetSeed(*r.Seed)
		}
		return out, nil
	}
	if out.Run, err = openRun(d, rb, mb, held); err != nil {
		return nil, err
	}
	switch {
	case r.DataFile != "":
		return nil, inputf("--data %s: %s is a run on a model, not on a user's data (mmds train data): it reads no data file; drop --data", safefile.Path(r.DataFile), r.Dir)
	case r.Seed != nil:
		return nil, inputf("--seed: %s is a run on a model, certified by exact integrals that draw nothing; drop --seed", r.Dir)
	}
	return out, nil
}

// Certify certifies the run on a model (Certify) and condenses the report
// into its certificate, which names the directory's files (NameRunFiles).
// The user's certificate cache (UserCache) supplies the certificates
// already computed and keeps new ones, except when the run re-derives a
// certificate (Want), which takes every number from the files; a
// re-derived certificate that differs from Want is an error wrapping
// ErrMismatch. Witnesses are computed for a certificate the run writes,
// and for a Want that has them (one written before witnesses is
// re-derived as it was computed).
func (d *Dir) Certify(ctx context.Context, o Options) (*Report, *Certificate, error) {
	o.Model.Witness = d.certificate != "" || d.Want != nil && d.Want.Witness != nil
	if d.Want == nil {
		o.Cache = UserCache()
	}
	rep, err := Certify(ctx, d.Run, o)
	if err != nil {
		return nil, nil, err
	}
	cert := NewCertificate(rep, d.Run.PointHashes(), version.String())
	cert.NameRunFiles(d.certificate, d.Run.Dir, d.Want)
	if d.Want != nil {
		if err := d.Want.Check(cert); err != nil {
			return nil, nil, mismatchf("--check %s: the certificate does not match %s: %w", d.check, d.Run.Dir, err)
		}
	}
	return rep, cert, nil
}

// readDir reads dir's results.json and model.json once each, measuring
// results.json before it is decoded: with a run's base, its bytes and what
// they decode to must fit limit (0: DefaultMaxMemory), else an error
// wrapping ErrMemory. held is that estimate.
func readDir(ctx context.Context, dir string, limit int64) (d rundir.Dir, res *learn.Results, mb []byte, held int64, err error) {
	d = rundir.Dir(dir)
	if k, err := report.ReadKind(dir); err != nil || (k != "" && k != report.Results) {
		if err == nil {
			err = fmt.Errorf("%w: %s is a %s folder, not a results directory", report.ErrKind, dir, k)
		}
		return d, nil, nil, 0, fmt.Errorf("%w: %w", ErrInput, err)
	}
	rb, err := d.Read(ctx, rundir.ResultsFile)
	if err != nil {
		return d, nil, nil, 0, fmt.Errorf("%w: %w", ErrInput, err)
	}
	name := d.Path(rundir.ResultsFile)
	size, err := jsonconf.Measure(rb)
	if err != nil {
		return d, nil, nil, 0, fmt.Errorf("%w: %s: not a valid results file: %w", ErrInput, name, err)
	}
	held = baseMemory + int64(len(rb)) + size.Bytes()
	if limit = maxMemory(limit); held > limit {
		return d, nil, nil, 0, &MemoryError{Need: held, Limit: limit, What: fmt.Sprintf("%s reads as %s", name, About(int64(len(rb))+size.Bytes()))}
	}
	if res, err = learn.DecodeResults(rb, name); err != nil {
		return d, nil, nil, 0, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if mb, err = d.ReadModel(ctx); err != nil {
		return d, nil, nil, 0, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return d, res, mb, held, nil
}

// openRun checks a run on a model of the directory d (res and modelBytes
// its results and model files), whose files hold held bytes.
func openRun(d rundir.Dir, res *learn.Results, modelBytes []byte, held int64) (*Run, error) {
	resultsName, modelName := d.Path(rundir.ResultsFile), d.Path(ModelFile)
	bad := func(file, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrInput, file, fmt.Sprintf(format, args...))
	}
	kind := res.Model
	if !kind.Valid() {
		return nil, bad(resultsName, "no \"model\": want %s", model.KindsWant(true))
	}
	// The top-level kind is not hashed; the configuration's is (Binding).
	if res.Config.Model != kind {
		return nil, bad(resultsName, "\"model\" is %q, but config.model (which the binding covers) is %q", kind, res.Config.Model)
	}
	m, err := model.ParseAs(kind, modelBytes)
	if err != nil {
		return nil, bad(modelName, "%s says the model is %q, but: %v", resultsName, res.Model, err)
	}
	h, err := model.Hash(m)
	if err != nil {
		return nil, err
	}
	if err := res.CheckBinding(h); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	run := &Run{Dir: string(d), Results: res, Model: m, ModelSHA256: h, held: held}
	if err := run.check(); err != nil {
		return nil, bad(resultsName, "%v", err)
	}
	return run, nil
}

// check validates the results against the model.
func (run *Run) check() error {
	res := run.Results
	c := &res.Config
	if len(c.D) == 0 {
		return fmt.Errorf("config.d is empty: nothing to verify")
	}
	for i, d := range c.D {
		if !finite(d) || d < 0 || (i > 0 && d <= c.D[i-1]) {
			return fmt.Errorf("config.d[%d] = %v: thresholds must be finite, ≥ 0 and increasing", i, d)
		}
	}
	if len(res.Points) > len(c.D) {
		return fmt.Errorf("%d points for %d thresholds", len(res.Points), len(c.D))
	}
	k := run.Model.Adversaries()
	for i := range res.Points {
		p := &res.Points[i]
		where := fmt.Sprintf("points[%d] (D = %v)", i, p.D)
		if p.DIndex < 0 || p.DIndex >= len(c.D) || c.D[p.DIndex] != p.D || (i > 0 && p.DIndex <= res.Points[i-1].DIndex) {
			return fmt.Errorf("%s: d_index %d does not name its threshold in config.d", where, p.DIndex)
		}
		if !p.Finalized {
			continue
		}
		l := p.Losses
		if l == nil || !finite(l.Recon) {
			return fmt.Errorf("%s: finalized but recon_loss is missing or not finite", where)
		}
		if len(l.Adv) != k {
			return fmt.Errorf("%s: adv_loss has %d entries, but the model has %d adversaries", where, len(l.Adv), k)
		}
		for j, a := range l.Adv {
			if !finite(a) {
				return fmt.Errorf("%s: adv_loss[%d] is not finite", where, j)
			}
		}
		if p.AdvHard != nil && len(p.AdvHard) != k {
			return fmt.Errorf("%s: adv_hard has %d entries, but the model has %d adversaries", where, len(p.AdvHard), k)
		}
		if err := run.checkPrivatizer(p); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

// checkPrivatizer checks a finalized point's privatizer: the channel of
// the labels method (a model with a finite X, one row per value of X, each a
// probability vector: privatizer.Channel.Validate) and no networks, its
// cell kernel on the Gaussian model (gauss.Kernel.Validate), or Algorithm
// 1's networks.
func (run *Run) checkPrivatizer(p *learn.DResult) error {
	if run.Results.Config.Method != learn.MethodLabels {
		if p.Channel != nil || p.Kernel != nil {
			return fmt.Errorf("has a channel or kernel, but the run's method is %v, whose privatizers are networks", run.Results.Config.Method)
		}
		if k := run.Model.Adversaries(); len(p.Networks) != 2+k {
			return fmt.Errorf("has %d networks, want %d (privatizer, reconstructor, %d adversaries)", len(p.Networks), 2+k, k)
		}
		if run.Model.Kind().CategoricalRelease() { // one-hot inputs, softmax outputs
			return checkFiniteNetworks(p.Networks, run.Model)
		}
		return run.checkNetworks(p.Networks)
	}
	if !run.Model.Kind().FiniteX() { // a continuous X: a cell kernel
		if len(p.Networks) != 0 || p.Channel != nil || p.Kernel == nil {
			return fmt.Errorf("the labels method's point on the Gaussian model needs its kernel and no networks or channel")
		}
		// Checked here, before any point is certified, as the networks are.
		if err := p.Kernel.Kernel.Validate(); err != nil {
			return fmt.Errorf("\"kernel\": %w", err)
		}
		if r := p.Kernel.Reveal; !(r >= 0 && r < 1) {
			return fmt.Errorf("\"kernel\".\"reveal\" = %g: must be in [0, 1) (the probability of releasing X itself)", r)
		}
		return nil
	}
	law, ok := model.FiniteLaw(run.Model)
	if !ok {
		return fmt.Errorf("has a channel of the labels method, which needs a finite X; the %s model's X is continuous", run.Model.Kind())
	}
	if len(p.Networks) != 0 || len(p.Channel) == 0 || p.Kernel != nil {
		return fmt.Errorf("the labels method's point needs its channel and no networks")
	}
	// Checked here, before any point is certified, as the networks are.
	c := &privatizer.Channel{Name: "\"channel\"", P: p.Channel}
	if err := c.Validate(); err != nil {
		return err
	}
	return c.CheckRows(len(law.Prior))
}

// checkNetworks checks a finalized point's networks (privatizer,
// reconstructor, adversary_1..k: one per side of the model): the input
// widths and output activation the model implies and finite weights.
func (run *Run) checkNetworks(nets []network.Network) error {
	sides := run.Model.SideWidths()
	act := network.Identity
	if run.Model.Kind().BinaryRelease() {
		act = network.Sigmoid
	}
	for i := range nets {
		n := &nets[i]
		role, in := "privatizer", 2
		switch {
		case i == 1:
			role, in = "reconstructor", 1+sides[0]
		case i >= 2:
			role, in = fmt.Sprintf("adversary_%d", i-1), 1+sides[i-1]
		}
		if n.Role != role {
			return fmt.Errorf("networks[%d] has role %q, want %q", i, n.Role, role)
		}
		m, err := learn.MLPOf(n)
		if err != nil {
			return fmt.Errorf("networks[%d] (%s): %w", i, role, err)
		}
		if m.In != in {
			return fmt.Errorf("networks[%d] (%s) has %d inputs, but the model gives it %d", i, role, m.In, in)
		}
		if m.Out != act {
			return fmt.Errorf("networks[%d] (%s) has output activation %s, but the %s model's networks use %s", i, role, m.Out, run.Results.Model, act)
		}
		for j, v := range m.Params {
			if !finite(v) {
				return fmt.Errorf("networks[%d] (%s): weight %d is %v (null in the file: a diverged trial?)", i, role, j, v)
			}
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// checkFiniteNetworks checks the networks of Algorithm 1 on a finite
// model (privatizer, reconstructor, adversaries): the privatizer a
// categorical network over a one-hot x with one value per value of X.
func checkFiniteNetworks(nets []network.Network, m model.Model) error {
	n, err := (&learn.DResult{Networks: nets}).Privatizer()
	if err != nil {
		return err
	}
	law, _ := model.FiniteLaw(m)
	if !n.Categorical() || n.XValues() != len(law.Prior) {
		return fmt.Errorf("privatizer %v: want a categorical network (a softmax release) over a one-hot x with %d values", n, len(law.Prior))
	}
	return nil
}
