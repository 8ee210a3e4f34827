package verify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/mmds-project/mmds/bayes"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
)

// Options configure Certify; the zero value means the defaults.
type Options struct {
	Tol   Tolerances    // zero value: DefaultTolerances()
	Model model.Options // quadrature and solver settings
	// Workers is the number of points certified at once (0: GOMAXPROCS).
	// The report does not depend on it.
	Workers int
	// Progress, when set, is called with the number of points certified
	// so far each time one is (serialized; for progress reports).
	Progress func(done int) `json:"-"`
	// MaxMemory is the run's memory budget in bytes (0:
	// DefaultMaxMemory): Certify refuses a run whose files and work at
	// Workers at once would need more, before any work (ErrMemory).
	MaxMemory int64
	// known caches the references of FINDINGs within a run.
	known *knownRefs
	// Cache, when its Dir is set, supplies and keeps the points'
	// certificates (see Cache); the report does not depend on it.
	Cache Cache `json:"-"`
}

// Learned are the trained estimators' test-split losses, as results.json
// has them (reported, never judged: the verdict uses the certified losses).
type Learned struct {
	loss.Losses
	// The trained binary estimators' hard-decision 0-1 test errors (the
	// estimate thresholded at 1/2).
	ReconHard *float64  `json:"recon_hard,omitempty"`
	AdvHard   []float64 `json:"adv_hard,omitempty"`
	// InBand says whether the learned distortion lies in the protocol's
	// selection band [D − τ, D] of the run (Section V): false flags a
	// point the protocol should not have selected.
	InBand bool `json:"in_protocol_band"`
}

// Excess is how far the trained estimators are from the Bayes-optimal ones
// for the same privatizer: trained test loss − exact Bayes loss. For the
// binary model it uses the hard 0-1 test errors (the exact loss is a 0-1
// error too); Soft gives the soft losses the protocol trained with, minus the
// same exact losses. Test-split noise can make an excess negative.
type Excess struct {
	Recon    float64   `json:"recon"`
	Adv      []float64 `json:"adv"`
	SoftUsed bool      `json:"soft_used,omitempty"` // binary results without hard errors: the soft losses stand in
	Soft     *Excess   `json:"soft,omitempty"`
}

// Point is the verdict at one threshold D and the numbers behind it (a
// Certificate condenses it into a CertPoint).
type Point struct {
	DIndex int     `json:"d_index"`
	D      float64 `json:"D"`
	// Status is certified, cannot certify (the numbers behind a verdict
	// could not be made sound: Verdict gives the reason), not finalized
	// or not trained.
	Status    Status   `json:"status"`
	Finalized bool     `json:"finalized"`
	Learned   *Learned `json:"learned"`
	// Certified are the exact Bayes losses of the learned privatizer at the
	// ends of their intervals a verdict assumes (loss.Intervals.SoundEnds);
	// its reconstructor loss is the certified distortion D̂.
	Certified *loss.Losses `json:"certified"`
	// CertifiedInterval is the interval of every certified loss, lower and
	// upper end: proven where Change is a bound (networks and channels on
	// binary and finite models, Gaussian networks — the runtime's rounding
	// there under the model of docs/certify.md), the estimate's interval for
	// a cell kernel.
	CertifiedInterval *loss.Intervals `json:"certified_interval,omitempty"`
	// Change is the certificate's stated error (its proven bound or error
	// estimate; relative for Gaussian losses), and Rounding the part of it
	// that the runtime's rounding accounts for (a network's precision).
	Change   *float64 `json:"change"`
	Rounding *float64 `json:"rounding,omitempty"`
	// Optimum is the reference optimum at D̂ and OptimumAtD the one at D.
	Optimum    *model.Optimum `json:"optimum"`
	OptimumAtD *model.Optimum `json:"optimum_at_D"`
	// Gap = optimum − certified minimum adversarial loss at D̂ (the trade-off
	// view of the paper's figures; the verdict uses it), GapAtD the same at
	// the asked D (did the privatizer solve the constrained problem at D?).
	// Both are > 0 when the learned privatizer leaks more than the optimum.
	Gap    *float64 `json:"gap"`
	GapAtD *float64 `json:"gap_at_D"`
	// GapBest (Gaussian) = best achievable mechanism at D̂ − certified
	// minimum adversarial loss: < 0 means the learned privatizer beats every
	// mechanism mmds knows, a finding worth a look.
	GapBest *float64 `json:"gap_best_achievable,omitempty"`
	// GapGlobal (binary) = the optimum over all privatizers at D̂ (any
	// output alphabet) − certified minimum adversarial loss: how far the
	// privatizer is from the true optimum, which Proposition 2's
	// binary-output optimum can trail.
	GapGlobal *float64 `json:"gap_global,omitempty"`
	Excess    *Excess  `json:"estimator_excess"`
	// DistortionBand is where D̂ must lie; AdvTol is the largest gap that
	// passes.
	DistortionBand *[2]float64 `json:"distortion_band"`
	AdvTol         *float64    `json:"adv_tolerance"`
	Pass           bool        `json:"pass"`
	Verdict        string      `json:"verdict"`
	// BeatsBest (Gaussian): the point passes and its certified minimum
	// adversarial loss is above that of every mechanism mmds knows by more
	// than both numbers' errors (BestKnown), a finding the verdict names.
	BeatsBest bool       `json:"-"`
	BestKnown *BestKnown `json:"best_known,omitempty"`
	// The model-specific certificate.
	Gauss  *bayes.GaussAnalysis  `json:"gauss,omitempty"`
	Binary *bayes.BinaryAnalysis `json:"binary,omitempty"`
	// Witness is what proves the point's numbers to an independent
	// checker (Options.Model.Witness; the certificate carries it).
	Witness *PointWitness `json:"-"`
}

// Report is the certificate of a results directory.
type Report struct {
	Dir          string     `json:"dir"`
	Model        model.Kind `json:"model"`
	ModelSHA256  string     `json:"model_sha256"`
	ConfigSHA256 string     `json:"config_sha256"`
	// Tolerances are the verifier's, with Tau resolved.
	Tolerances Tolerances `json:"tolerances"`
	Epochs     int        `json:"epochs"`
	Points     []Point    `json:"points"`
	// Passed + Failed + CannotCertify + NotFinalized + NotTrained =
	// len(Points), one per threshold of the run's configuration; Pass is
	// true when every point passed.
	Passed        int  `json:"passed"`
	Failed        int  `json:"failed"`
	CannotCertify int  `json:"cannot_certify"`
	NotFinalized  int  `json:"not_finalized"`
	NotTrained    int  `json:"not_trained"`
	Pass          bool `json:"pass"`
	// Witness heads the points' witnesses (Options.Model.Witness on a
	// binary or finite model; nil otherwise).
	Witness *CertWitness `json:"-"`
	// Cached counts the points whose certificates came from Options.Cache.
	Cached int `json:"-"`
}

// Certify holds every threshold of run's configuration against the
// optimum: for a finalized point it rebuilds the learned privatizer from its
// weights, computes its exact Bayes losses (model.Model.Certify), the optimum
// at the certified distortion and at D, the gaps and the verdict. Thresholds
// that were not finalized, or not trained at all, are reported as such and
// do not pass.
func Certify(ctx context.Context, run *Run, o Options) (*Report, error) {
	res := run.Results
	if err := o.resolve(res.Config.D, run.Model); err != nil {
		return nil, err
	}
	workers := workersOf(o.Workers)
	if err := run.checkMemory(o.MaxMemory, workers); err != nil {
		return nil, err
	}
	o.known = newKnownRefs()
	rep := &Report{Dir: run.Dir, Model: run.Model.Kind(), ModelSHA256: run.ModelSHA256,
		ConfigSHA256: res.Binding.ConfigSHA256, Tolerances: o.Tol, Epochs: res.Config.Epochs,
		Points: make([]Point, len(res.Config.D)), Witness: newCertWitness(run.Model, o)}
	o.Model.Witness = o.Model.Witness && run.Model.Kind() != model.Gauss // no Gaussian witnesses yet
	if o.Model.Witness {
		// A network's witness is not kept in the cache: compute it.
		o.Cache = Cache{}
		if o.Model.ExpectTol == 0 {
			o.Model.ExpectTol = CertExpectTol
		}
	}
	cached := o.Cache.load(ctx, run, o)
	outcomes := cached
	if outcomes == nil {
		outcomes = make([]*cachedPoint, len(res.Config.D))
	}
	if err := run.certifyPoints(ctx, rep.Points, o, workers, outcomes); err != nil {
		return nil, err
	}
	rep.count()
	if cached != nil {
		rep.Cached = rep.Passed + rep.Failed + rep.CannotCertify
	} else {
		_ = o.Cache.store(run, o, outcomes) // best effort: a cache that cannot be written costs only time
	}
	return rep, nil
}

// resolve fills in o's defaults for thresholds ds on m: the default
// tolerances for none, τ (DefaultTau), and a Gaussian refinement target
// of the stated-error limit; and validates the tolerances.
func (o *Options) resolve(ds []float64, m model.Model) error {
	if o.Tol == (Tolerances{}) {
		o.Tol = DefaultTolerances()
	}
	if o.Tol.Tau == 0 {
		o.Tol.Tau = DefaultTau(ds, m)
	}
	if err := o.Tol.Validate(); err != nil {
		return err
	}
	if o.Model.Gauss.Target == 0 {
		o.Model.Gauss.Target = o.Tol.Quad // refine until the stated error meets the verdict's tolerance
	}
	return nil
}

// certifyPoints certifies every threshold of the run into pts (one per
// threshold) with workers goroutines, taking a finalized point's
// certificate from outcomes where it is there and recording it there
// otherwise, then confirms the candidate FINDINGs; the first error, in
// threshold order, is returned.
func (run *Run) certifyPoints(ctx context.Context, pts []Point, o Options, workers int, outcomes []*cachedPoint) error {
	res := run.Results
	byIndex := make([]*learn.DResult, len(res.Config.D))
	for i := range res.Points {
		byIndex[res.Points[i].DIndex] = &res.Points[i]
	}
	certs := make([]model.Analysis, len(pts))
	err := eachPoint(ctx, len(pts), workers, o.Progress, func(i int) (err error) {
		if pts[i], err = run.certifyPoint(ctx, i, byIndex[i], o, &outcomes[i], &certs[i]); err != nil {
			return fmt.Errorf("verify: D[%d] = %g: %w", i, res.Config.D[i], err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return confirmFindings(ctx, run.Model, certs, o.Tol.Abs*run.Model.LossScale(), o.known, pts, workers)
}

// eachPoint calls certify(i) for i = 0..n−1 on workers goroutines (0:
// GOMAXPROCS), each writing only its own point, so that the report does not
// depend on scheduling; progress, when set, gets the count done. It returns
// the first error in index order, or ctx's.
func eachPoint(ctx context.Context, n, workers int, progress func(int), certify func(i int) error) error {
	workers = workersOf(workers)
	errs := make([]error, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(workers, n) {
		wg.Go(func() {
			for i := range jobs {
				if err := ctx.Err(); err != nil {
					errs[i] = err
					continue
				}
				errs[i] = certify(i)
				if progress != nil {
					mu.Lock()
					done++
					progress(done)
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return cmp.Or(errs...)
}

// workersOf is the number of workers of Options.Workers = n: n, or
// GOMAXPROCS for n ≤ 0.
func workersOf(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// certifyPoint certifies threshold i, whose result is dp (nil: not
// trained), leaving its certificate in cert; the finalized point's
// certificate (or refusal) is taken from *outcome when it is set and
// recorded there otherwise.
func (run *Run) certifyPoint(ctx context.Context, i int, dp *learn.DResult, o Options, outcome **cachedPoint, cert *model.Analysis) (Point, error) {
	d := run.Results.Config.D[i]
	p := Point{DIndex: i, D: d}
	switch {
	case dp == nil:
		p.Status, p.Verdict = StatusNotTrained, VerdictNotTrained
		return p, nil
	case !dp.Finalized:
		p.Status, p.Verdict = StatusNotFinalized, VerdictNotFinalized
		return p, nil
	}
	p.Status, p.Finalized = StatusCertified, true
	p.Learned = learned(dp, run.Results.Config.Protocol)
	var c model.Analysis
	switch cp := *outcome; {
	case cp != nil && cp.Analysis != nil:
		c = *cp.Analysis
	case cp != nil:
		p.Status, p.Pass, p.Verdict = StatusCannotCertify, false, cp.Refused
		return p, nil
	default:
		var err error
		c, err = run.certifyPrivatizer(ctx, dp, o)
		if uncertifiable(err) {
			cannotCertify(&p, err, "")
			*outcome = &cachedPoint{DIndex: i, Refused: p.Verdict}
			return p, nil
		}
		if err != nil {
			return p, err
		}
		*outcome = &cachedPoint{DIndex: i, Analysis: &c}
	}
	if err := Judge(ctx, run.Model, c, o, &p); err != nil {
		return p, err
	}
	*cert = c
	p.Excess = excess(p.Learned, c.Losses, run.Model.Kind().BinaryRelease())
	if !p.Learned.InBand {
		p.Verdict += "; selected outside the protocol band"
	}
	return p, nil
}

// certifyPrivatizer certifies a finalized point's privatizer: its channel
// (the labels method on a finite X: exact finite sums) or its network.
func (run *Run) certifyPrivatizer(ctx context.Context, dp *learn.DResult, o Options) (model.Analysis, error) {
	if dp.Kernel != nil {
		c, err := model.CertifyKernel(run.Model, *dp.Kernel, fmt.Sprintf("kernel of point %d", dp.DIndex))
		if err == nil {
			err = model.CheckKernelChange(c, o.Tol.Quad)
		}
		return c, fileInput(err)
	}
	if dp.Channel != nil {
		c, err := model.CertifyChannel(run.Model, dp.Channel, fmt.Sprintf("channel of point %d", dp.DIndex))
		return c, fileInput(err)
	}
	n, err := dp.Privatizer()
	if err != nil {
		return model.Analysis{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if run.Model.Kind().BinaryRelease() || run.Model.Kind().CategoricalRelease() {
		// The channel the network releases (a binary model, or Algorithm 1
		// on a finite X), certified by the same proven method as mmds
		// certify certifies the exported file.
		c, err := run.Model.CertifyFile(ctx, privatizer.File{Format: privatizer.FormatNetworkJSON, Network: n}, o.Model)
		return c, fileInput(err)
	}
	k, err := bayes.FromNetwork(n)
	if err != nil {
		return model.Analysis{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return run.Model.Certify(ctx, k, o.Model)
}

// fileInput marks a privatizer the results directory holds that does not
// fit its model (privatizer.ErrInput) as the directory's bad input.
func fileInput(err error) error {
	if errors.Is(err, privatizer.ErrInput) {
		return fmt.Errorf("%w: %w", ErrInput, err)
	}
	return err
}

// Judge fills p (whose D is set) with the certificate c of a privatizer on
// m: the certified losses, the optimum at D̂ and at D, the gaps, the band,
// the tolerance and the verdict under the tolerances of o (Tau resolved);
// on a model that knows mechanisms beside its optimum, a passing point
// that beats the best of them without the kernel search gets its
// BestKnown, a FINDING's candidate (Certify and CertifyExternal then run
// the kernel search for it).
func Judge(ctx context.Context, m model.Model, c model.Analysis, o Options, p *Point) error {
	d := p.D
	p.Gauss, p.Binary = c.Gauss, c.Binary
	cert, iv := c.Losses, c.Interval
	change := c.Change
	p.Certified, p.Change = &cert, &change
	if len(iv.Adv) > 0 {
		p.CertifiedInterval = &iv
	}
	if c.Rounding > 0 {
		rnd := c.Rounding
		p.Rounding = &rnd
	}
	dHat := max(cert.Recon, 0) // rounding can leave an exact loss of 0 at −1e-17
	opt, err := m.Optimum(ctx, dHat, o.Model)
	if err != nil {
		return err
	}
	optD, err := m.Optimum(ctx, d, o.Model)
	if err != nil {
		return err
	}
	p.Optimum, p.OptimumAtD = &opt, &optD
	if opt.Witness != nil && optD.Witness != nil {
		p.Witness = &PointWitness{Privatizer: c.Witness, OptimumAtDHat: opt.Witness, OptimumAtD: optD.Witness}
	}
	gap, gapD := opt.MinAdv-cert.MinAdv, optD.MinAdv-cert.MinAdv
	p.Gap, p.GapAtD = &gap, &gapD
	// The wider reference beside the paper's: the best known Gaussian
	// mechanism, or the binary model's optimum over all privatizers.
	var wider *loss.Losses
	if g := opt.Gauss(); g != nil {
		gb := g.Best.MinAdv - cert.MinAdv
		p.GapBest, wider = &gb, &g.Best
	}
	if b := opt.Binary(); b != nil {
		gg := b.Global.MinAdv - cert.MinAdv
		p.GapGlobal, wider = &gg, &b.Global
	}
	t := o.Tol
	ref := opt.MinAdv
	if t.Reference == ReferenceBest && wider != nil {
		ref = wider.MinAdv
	}
	abs := t.Abs * m.LossScale()
	seD := m.StdErr(d, t.TestSize)
	band := [2]float64{max(0, d-t.BandTau*t.Tau-t.DistSE*seD-abs), d + t.DistSE*seD + abs}
	advTol := t.AdvSE*m.StdErr(ref, t.TestSize) + abs
	p.DistortionBand, p.AdvTol = &band, &advTol
	if !(c.Change <= t.Quad) {
		// The interval is too wide for the verdict's stated-error limit:
		// neither pass nor fail can be claimed.
		p.Status, p.Pass = StatusCannotCertify, false
		p.Verdict = fmt.Sprintf("%s: stated error %.2g above the limit %.2g (--tol-quad)", VerdictCannotCertify, c.Change, t.Quad)
		if c.Rounding > t.Quad/2 {
			p.Verdict = fmt.Sprintf("%s: stated error %.2g, of which %.2g the rounding of the network's runtime precision, above the limit %.2g (--tol-quad)", VerdictCannotCertify, c.Change, c.Rounding, t.Quad)
		}
		return nil
	}
	p.Pass, p.Verdict = Verdict(Assessment{
		D: d, Recon: cert.Recon, MinAdv: cert.MinAdv, Optimum: ref,
		BandLo: band[0], BandHi: band[1], AdvTol: advTol, Change: c.Change, QuadTol: t.Quad,
		NumFloor: max(abs, c.Change*ref),
	})
	refs := o.known
	if refs == nil {
		refs = newKnownRefs()
	}
	return findingCandidate(ctx, m, c, abs, refs, p)
}

// uncertifiable reports whether err says that a privatizer's numbers
// cannot be made sound: a verdict of cannot certify, not a failed run.
func uncertifiable(err error) bool {
	return errors.Is(err, bayes.ErrCannotCertify) || errors.Is(err, network.ErrPrecision) || errors.Is(err, network.ErrTooComplex)
}

// cannotCertify marks p as a point whose certificate cannot be made sound,
// with the reason: neither pass nor fail. name is the privatizer file's
// name in err ("" for none), which the verdict drops (withoutName).
func cannotCertify(p *Point, err error, name string) {
	p.Status, p.Pass = StatusCannotCertify, false
	msg := strings.TrimPrefix(verdictWords.Replace(err.Error()), "cannot certify: ")
	msg = strings.TrimPrefix(msg, "cannot certify: rounding error bound above tolerance: ")
	msg = strings.TrimPrefix(msg, "network too complex to certify: ")
	p.Verdict = VerdictCannotCertify + ": " + withoutName(msg, verdictWords.Replace(name))
}

// verdictWords reads the sentinels of an uncertifiable input in the
// verdict's words, without their packages' prefixes, as certificates record
// them.
var verdictWords = strings.NewReplacer(
	network.ErrPrecision.Error(), "cannot certify: rounding error bound above tolerance",
	network.ErrTooComplex.Error(), "network too complex to certify",
	bayes.ErrCannotCertify.Error(), "cannot certify")

// withoutName drops a file's name from a reason once, where the model put
// it — first ("NAME: reason") or after a word ("network NAME: reason") —
// so that a verdict reads the same whatever the file is called (--check
// reads it by another name) and a name cannot erase words of the reason
// that happen to spell it.
func withoutName(msg, name string) string {
	switch {
	case name == "":
		return msg
	case strings.HasPrefix(msg, name+": "):
		return msg[len(name)+2:]
	}
	if i := strings.Index(msg, " "+name+":"); i >= 0 {
		return msg[:i] + msg[i+1+len(name):]
	}
	return msg
}

// learned copies a point's trained losses and checks the one the protocol
// selected on (the training loss, or the hard 0-1 error) against the run's
// selection band [D − τ, D].
func learned(dp *learn.DResult, p learn.Protocol) *Learned {
	l := &Learned{Losses: loss.New(dp.Losses.Recon, dp.Losses.Adv)}
	sel := l.Recon
	if dp.ReconHard != nil {
		rh := *dp.ReconHard
		l.ReconHard, l.AdvHard = &rh, append([]float64(nil), dp.AdvHard...)
		if p.Select == learn.SelectHard {
			sel = rh
		}
	}
	l.InBand = sel >= dp.D-p.Tau && sel <= dp.D
	return l
}

// excess returns trained − Bayes losses (see Excess).
func excess(l *Learned, cert loss.Losses, binary bool) *Excess {
	diff := func(recon float64, adv []float64) *Excess {
		e := &Excess{Recon: recon - cert.Recon, Adv: make([]float64, len(adv))}
		for i, a := range adv {
			e.Adv[i] = a - cert.Adv[i]
		}
		return e
	}
	soft := diff(l.Recon, l.Adv)
	if !binary {
		return soft
	}
	if l.ReconHard == nil || len(l.AdvHard) != len(l.Adv) {
		soft.SoftUsed = true
		return soft
	}
	e := diff(*l.ReconHard, l.AdvHard)
	e.Soft = soft
	return e
}
