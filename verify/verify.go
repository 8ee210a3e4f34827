package verify

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/mip"
)

// Options configure Certify; the zero value means the defaults.
type Options struct {
	Tol    Tolerances         // zero value: DefaultTolerances()
	Gauss  GaussQuad          // Gaussian quadrature (zero fields: defaults)
	Binary BinaryQuad         // binary quadrature (zero fields: defaults)
	Solver *mip.SolverOptions // HiGHS settings for Proposition 2; nil: mip.DefaultSolver()
	// Workers is the number of points certified at once (0: GOMAXPROCS).
	// The report does not depend on it.
	Workers int
}

// Losses are a privatizer's reconstructor and adversarial losses.
type Losses struct {
	ReconLoss  float64   `json:"recon_loss"`
	AdvLoss    []float64 `json:"adv_loss"`
	MinAdvLoss float64   `json:"min_adv_loss"`
	// The trained binary estimators' hard-decision 0-1 test errors (the
	// estimate thresholded at 1/2), when results.json has them.
	ReconHard *float64  `json:"recon_hard,omitempty"`
	AdvHard   []float64 `json:"adv_hard,omitempty"`
}

// Optimum is the exact optimum at the certified distortion: Proposition 1
// (gauss; optimal among linear-Gaussian privatizers F = aX + bR) or
// Proposition 2 (binary; optimal among all binary-output privatizers).
type Optimum struct {
	D          float64   `json:"D"` // the certified distortion it is taken at
	ReconLoss  float64   `json:"recon_loss"`
	AdvLoss    []float64 `json:"adv_loss"`
	MinAdvLoss float64   `json:"min_adv_loss"`
	Class      string    `json:"class"` // "linear-gaussian" or "binary"
	// Gaussian: D' = min(D, Var[X|Y]) and the optimal SNR a²/b² (null when
	// infinite, at D' = 0).
	DEff *float64 `json:"D_eff,omitempty"`
	SNR  *float64 `json:"snr,omitempty"`
	// Binary: the optimal privatizer, γ* and HiGHS's status.
	S0     *float64 `json:"s0,omitempty"`
	S1     *float64 `json:"s1,omitempty"`
	Gamma  *float64 `json:"gamma,omitempty"`
	Status string   `json:"status,omitempty"`
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

// Point is the certificate of one threshold D.
type Point struct {
	DIndex    int     `json:"d_index"`
	D         float64 `json:"D"`
	Finalized bool    `json:"finalized"`
	// Learned are the trained estimators' test-split losses (results.json).
	Learned *Losses `json:"learned"`
	// Certified are the exact Bayes losses of the learned privatizer.
	Certified *Losses  `json:"certified"`
	Optimum   *Optimum `json:"optimum"`
	// Gap = optimum − certified minimum adversarial loss: positive when the
	// learned privatizer leaks more than the optimum at its distortion.
	Gap    *float64 `json:"gap"`
	Excess *Excess  `json:"estimator_excess"`
	// DistortionBand is where the certified distortion must lie; AdvTol is
	// the largest gap that passes.
	DistortionBand *[2]float64 `json:"distortion_band"`
	AdvTol         *float64    `json:"adv_tolerance"`
	Pass           bool        `json:"pass"`
	Verdict        string      `json:"verdict"`
	// The model-specific certificate.
	Gauss  *GaussCertificate  `json:"gauss,omitempty"`
	Binary *BinaryCertificate `json:"binary,omitempty"`
}

// Report is the certificate of a results directory.
type Report struct {
	Dir        string      `json:"dir"`
	Model      learn.Model `json:"model"`
	Tolerances Tolerances  `json:"tolerances"`
	Tau        float64     `json:"tau"`       // the selection band width τ of the run
	TestSize   int         `json:"test_size"` // test rows behind the learned losses
	Epochs     int         `json:"epochs"`
	Points     []Point     `json:"points"`
	// Passed + Failed + NotFinalized = len(Points); Pass is true when every
	// point passed.
	Passed       int  `json:"passed"`
	Failed       int  `json:"failed"`
	NotFinalized int  `json:"not_finalized"`
	Pass         bool `json:"pass"`
}

// Certify holds every finalized point of run against the exact optimum: it
// rebuilds the learned privatizer from its weights, computes its exact Bayes
// losses (CertifyGauss, CertifyBinary), the optimum at the certified
// distortion, the gap and the verdict. Points that were not finalized are
// reported as such and do not pass.
func Certify(ctx context.Context, run *Run, o Options) (*Report, error) {
	if o.Tol == (Tolerances{}) {
		o.Tol = DefaultTolerances()
	}
	if err := o.Tol.Validate(); err != nil {
		return nil, err
	}
	solver := mip.DefaultSolver()
	if o.Solver != nil {
		solver = *o.Solver
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := run.Results
	rep := &Report{Dir: run.Dir, Model: res.Model, Tolerances: o.Tol, Tau: res.Config.Protocol.Tau,
		TestSize: res.Config.TestSize, Epochs: res.Config.Epochs, Points: make([]Point, len(res.Points))}

	errs := make([]error, len(res.Points))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(res.Points)) {
		wg.Go(func() {
			for i := range jobs {
				if err := ctx.Err(); err != nil {
					errs[i] = err
					continue
				}
				rep.Points[i], errs[i] = run.certifyPoint(i, o, solver)
			}
		})
	}
	for i := range res.Points {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("verify: D[%d] = %g: %w", i, res.Points[i].D, err)
		}
	}
	for _, p := range rep.Points {
		switch {
		case !p.Finalized:
			rep.NotFinalized++
		case p.Pass:
			rep.Passed++
		default:
			rep.Failed++
		}
	}
	rep.Pass = rep.Passed == len(rep.Points)
	return rep, nil
}

// certifyPoint certifies results point i.
func (run *Run) certifyPoint(i int, o Options, solver mip.SolverOptions) (Point, error) {
	dp := &run.Results.Points[i]
	p := Point{DIndex: dp.DIndex, D: dp.D, Finalized: dp.Finalized}
	if !dp.Finalized {
		p.Verdict = VerdictNotFinalized
		return p, nil
	}
	p.Learned = &Losses{ReconLoss: *dp.ReconLoss, AdvLoss: append([]float64(nil), dp.AdvLoss...)}
	p.Learned.MinAdvLoss = minOf(p.Learned.AdvLoss)
	if dp.ReconHard != nil {
		rh := *dp.ReconHard
		p.Learned.ReconHard, p.Learned.AdvHard = &rh, append([]float64(nil), dp.AdvHard...)
	}
	m, err := dp.Networks[0].MLP()
	if err != nil {
		return p, fmt.Errorf("%w: %w", ErrInput, err)
	}
	k, err := FromMLP(m)
	if err != nil {
		return p, fmt.Errorf("%w: %w", ErrInput, err)
	}
	binary := run.Binary != nil
	var change, numFloor float64
	if binary {
		c, err := CertifyBinary(*run.Binary, k, o.Binary)
		if err != nil {
			return p, err
		}
		p.Binary = c
		p.Certified = &Losses{ReconLoss: c.ReconLoss, AdvLoss: c.AdvLoss, MinAdvLoss: c.MinAdvLoss}
		opt, err := run.Binary.SolveProp2(clampD(c.ReconLoss), solver)
		if err != nil {
			return p, err
		}
		s0, s1, g := opt.S.S0, opt.S.S1, opt.Gamma
		p.Optimum = &Optimum{D: opt.D, ReconLoss: opt.ReconLoss, AdvLoss: opt.AdvLoss, MinAdvLoss: opt.MinAdvLoss,
			Class: "binary", S0: &s0, S1: &s1, Gamma: &g, Status: opt.Status}
		change, numFloor = c.Change, 1e-9
	} else {
		c, err := CertifyGauss(run.Gauss, k, o.Gauss)
		if err != nil {
			return p, err
		}
		p.Gauss = c
		p.Certified = &Losses{ReconLoss: c.ReconLoss, AdvLoss: c.AdvLoss, MinAdvLoss: c.MinAdvLoss}
		opt, err := run.Gauss.Optimum(clampD(c.ReconLoss))
		if err != nil {
			return p, err
		}
		deff := opt.DEff
		p.Optimum = &Optimum{D: opt.D, ReconLoss: opt.ReconLoss, AdvLoss: opt.AdvLoss, MinAdvLoss: opt.MinAdvLoss,
			Class: "linear-gaussian", DEff: &deff}
		if !math.IsInf(opt.SNR, 0) {
			snr := opt.SNR
			p.Optimum.SNR = &snr
		}
		q := o.Tol.Quad
		if q == 0 {
			q = DefaultQuadTol
		}
		change, numFloor = c.Change, q*max(opt.MinAdvLoss, scaleFloor*run.Gauss.VarX())
	}
	p.Excess = excess(p.Learned, p.Certified, binary)

	gap := p.Optimum.MinAdvLoss - p.Certified.MinAdvLoss
	p.Gap = &gap
	n, tau := run.Results.Config.TestSize, run.Results.Config.Protocol.Tau
	seD := StdErr(binary, dp.D, n)
	band := [2]float64{dp.D - o.Tol.BandTau*tau - o.Tol.DistSE*seD, dp.D + o.Tol.DistSE*seD}
	advTol := o.Tol.AdvSE * StdErr(binary, p.Optimum.MinAdvLoss, n)
	p.DistortionBand, p.AdvTol = &band, &advTol
	p.Pass, p.Verdict = Judge(Assessment{
		D: dp.D, Recon: p.Certified.ReconLoss, MinAdv: p.Certified.MinAdvLoss, Optimum: p.Optimum.MinAdvLoss,
		BandLo: band[0], BandHi: band[1], AdvTol: advTol, Change: change, QuadTol: o.Tol.Quad, NumFloor: numFloor,
	})
	return p, nil
}

// clampD maps a certified distortion to a threshold the optima accept:
// rounding can leave an exact loss of 0 at −1e-17.
func clampD(d float64) float64 { return max(d, 0) }

// excess returns trained − Bayes losses (see Excess).
func excess(learned, cert *Losses, binary bool) *Excess {
	diff := func(recon float64, adv []float64) *Excess {
		e := &Excess{Recon: recon - cert.ReconLoss, Adv: make([]float64, len(adv))}
		for i, a := range adv {
			e.Adv[i] = a - cert.AdvLoss[i]
		}
		return e
	}
	soft := diff(learned.ReconLoss, learned.AdvLoss)
	if !binary {
		return soft
	}
	if learned.ReconHard == nil || len(learned.AdvHard) != len(learned.AdvLoss) {
		soft.SoftUsed = true
		return soft
	}
	e := diff(*learned.ReconHard, learned.AdvHard)
	e.Soft = soft
	return e
}
