package learn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mmds-project/mmds/internal/cluster"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model/kind"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
	"github.com/mmds-project/mmds/rundir"
)

// Progress is what Sweep reports to Config.Progress after consuming each
// trial (in trial order; trained or loaded). It is called from Sweep's own
// goroutine, never concurrently.
type Progress struct {
	DIndex, NumD int
	D            float64
	Trial        int  // the trial just consumed
	Loaded       bool // read from the results directory rather than trained
	Attempted    int
	Accepted     int
	Accept       int  // target: Protocol.Accept
	MaxAttempts  int  // cap: Protocol.MaxAttempts
	Done         bool // this threshold is finished
	CapHit       bool // … because the cap was reached
	// TookOverLock, in a report of its own before any trial, describes the
	// holder of a lock that died without releasing it (Lock.TookOver).
	TookOverLock string
	// Waiting, in a report of its own, says that a shard has nothing left
	// to train before a running neighbour publishes a point record: when
	// the wait starts and every 30 s while it lasts.
	Waiting *rundir.Wait
}

// String says where the protocol stands at p's threshold: "D 2/4 =
// 0.05: accepted 3/5, attempted 4/20".
func (p Progress) String() string { return p.line("") }

// Finished is the line of a finished threshold: "D 2/4 = 0.05 done (cap
// hit): accepted 3/5, attempted 20/20".
func (p Progress) Finished() string {
	if p.CapHit {
		return p.line(" done (cap hit)")
	}
	return p.line(" done")
}

func (p Progress) line(state string) string {
	return fmt.Sprintf("D %d/%d = %.4g%s: accepted %d/%d, attempted %d/%d",
		p.DIndex+1, p.NumD, p.D, state, p.Accepted, p.Accept, p.Attempted, p.MaxAttempts)
}

// Results is the outcome of a sweep, and the content of results.json.
type Results struct {
	Model   kind.Kind      `json:"model"`
	Config  Config         `json:"config"` // with defaults filled in
	Binding rundir.Binding `json:"binding"`
	Points  []DResult      `json:"points"` // one per threshold, in order

	// Trained and Loaded count the trials the protocol consumed at the
	// thresholds this run finished (their Attempted, summed), by where each
	// came from: trained by this run, or read back from the results
	// directory. Speculative trials the protocol did not need are not
	// counted: how many of those finish depends on scheduling, and a count
	// must not vary between runs with the same seed. They describe the run,
	// not the result, so they are not written to results.json.
	Trained int `json:"-"`
	Loaded  int `json:"-"`
	// Stalled, in a sharded run, is where the shard stopped because the
	// point it needs is owned by a shard that is not running; Points then
	// holds only the thresholds it finished. Nil when it finished them all.
	Stalled *rundir.Wait `json:"-"`
}

// DResult is the protocol's outcome at one threshold.
type DResult struct {
	DIndex int     `json:"d_index"`
	D      float64 `json:"D"`
	// The finalized point; Finalized is false, Losses nil and the rest
	// null/-1 when no trial was accepted.
	Finalized bool `json:"finalized"`
	// Losses are the training losses at the selected epoch. In JSON they
	// are recon_loss, adv_loss and min_adv_loss after "finalized", null
	// when Losses is nil (see MarshalJSON).
	Losses *loss.Losses `json:"-"`
	// Hard-decision 0-1 errors at the finalized epoch (binary model only).
	ReconHard *float64 `json:"recon_hard,omitempty"`
	AdvHard   Floats   `json:"adv_hard,omitempty"`
	Trial     int      `json:"trial"` // finalized trial, -1 if none
	Epoch     int      `json:"epoch"` // its selected epoch (0-based), -1 if none

	Attempted int            `json:"attempted"`
	Accepted  int            `json:"accepted"`
	CapHit    bool           `json:"cap_hit"`
	Trials    []TrialSummary `json:"trials"` // every consumed trial, in order

	// The finalized trial's networks at the finalized epoch (privatizer,
	// reconstructor, adversary_1, …); NetworksEpoch is that epoch.
	Networks      []network.Network `json:"networks,omitempty"`
	NetworksEpoch int               `json:"networks_epoch"`
	// Channel is the labels method's privatizer at that epoch on a finite
	// X: Channel[x][l] = P(F = l | X = x), a channel file's
	// {"channel": …} (its observers are exact Bayes rules, so Networks is
	// empty).
	Channel [][]float64 `json:"channel,omitempty"`
	// Kernel is the labels method's privatizer at that epoch on a
	// continuous X: a cell kernel, as gauss.Kernel's JSON.
	Kernel *privatizer.Kernel `json:"kernel,omitempty"`

	// SHA256 binds the point: the hash of its finalized losses, selection
	// and networks (Results.Seal).
	SHA256 string `json:"sha256"`
}

// TrialSummary describes one consumed trial.
type TrialSummary struct {
	Trial    int     `json:"trial"`
	Seed     uint64  `json:"seed"`
	Epochs   int     `json:"epochs"`
	Seconds  float64 `json:"seconds"` // wall-clock training time (of the run that trained it)
	Eligible bool    `json:"eligible"`
	Accepted bool    `json:"accepted"`
	Point    *Point  `json:"point,omitempty"` // representative epoch, when eligible
	File     string  `json:"file,omitempty"`  // trial record with the per-epoch history, relative to the results directory
}

// TrialRecord is one trained trial: what trials/dDD_tTTT.json holds.
type TrialRecord struct {
	Fingerprint string            `json:"fingerprint"` // digest of the training configuration and data
	DIndex      int               `json:"d_index"`
	Trial       int               `json:"trial"`
	D           float64           `json:"D"`
	Seed        uint64            `json:"seed"`
	Epochs      int               `json:"epochs"`
	Seconds     float64           `json:"seconds"`
	History     History           `json:"history"`
	Networks    []network.Network `json:"networks"` // after the last epoch
	// Channel is the labels method's channel after the last epoch.
	Channel [][]float64 `json:"channel,omitempty"`
	// Kernel is the labels method's kernel after the last epoch (continuous X).
	Kernel *privatizer.Kernel `json:"kernel,omitempty"`
	// The networks at the last K epochs with L_recon in [D − τ, D], the
	// candidates of PickEpoch, in epoch order.
	Snapshots []Snapshot `json:"snapshots"`
}

// Sweep runs the paper's protocol over every threshold of cfg.D in
// increasing order (Section V): at each D it trains trials with Algorithm 1
// and offers them, in trial order, to the selection protocol (Selector),
// until Accept trials are accepted or MaxAttempts consumed. Trials run on
// cfg.Workers goroutines, speculatively ahead of the protocol (at most
// Workers outstanding); each trial depends only on TrialSeed(Seed, d, t), so
// the results do not depend on Workers.
//
// With cfg.Dir set, each trained trial is written atomically to
// Dir/TrialFile(d, t) and results.json is rewritten after each threshold; a
// later Sweep over the same Dir with the same training configuration and
// data loads those trials instead of training them again. A trial file from a
// different configuration is an error rather than silently replaced.
//
// With Dir set, Sweep holds the directory's lock (Dir.Lock; per shard for a
// sharded run) while it runs: a second concurrent writer gets ErrLocked.
//
// Cancelling ctx stops the sweep (trials finished so far stay on disk) and
// returns an error wrapping ctx.Err().
func Sweep(ctx context.Context, ds *Dataset, cfg Config) (*Results, error) {
	c, err := cfg.resolve(len(ds.X))
	if err != nil {
		return nil, err
	}
	data, err := NewData(ds, c.TrainSize, c.TestSize, c.Seed)
	if err != nil {
		return nil, err
	}
	s := &sweeper{cfg: &c, data: data, fp: c.fingerprint(data.hash), eligible: map[job]bool{}, made: map[job]bool{}}
	if c.Dir != "" {
		dir := rundir.Dir(c.Dir)
		if err := dir.Prepare(); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir.Path("trials"), 0o755); err != nil {
			return nil, fmt.Errorf("learn: results directory: %w", err)
		}
		lock, err := dir.Lock(c.Shard)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
		if lock.TookOver != "" && c.Progress != nil {
			c.Progress(Progress{TookOverLock: lock.TookOver})
		}
	}
	if c.Shard.Sharded() {
		return s.sweepShard(ctx)
	}
	res := &Results{Model: c.Model, Config: c}
	var prev *Point
	for di := range c.D {
		p, err := s.runD(ctx, dRun{di: di, prev: knownPrev(prev)})
		res.Trained, res.Loaded = s.trained, s.loaded
		if err != nil {
			return res, err
		}
		res.Points = append(res.Points, *p)
		if p.Finalized {
			prev = s.finalized
		}
		if err := s.write(res); err != nil {
			return res, err
		}
	}
	return res, nil
}

type sweeper struct {
	cfg       *Config
	data      *Data
	fp        string
	mu        sync.Mutex   // guards made, trained and loaded
	made      map[job]bool // the trials this run trained
	trained   int          // consumed trials this run trained
	loaded    int          // consumed trials read from the directory
	finalized *Point       // the last threshold's finalized point
	// eligible caches, per trial seen, whether it has an eligible epoch
	// (read by runD's goroutine only).
	eligible map[job]bool
}

type trialOut struct {
	d, trial int
	rec      *TrialRecord
	loaded   bool
	err      error
}

// job is trial t of threshold index d.
type job struct{ d, t int }

// dRun is one threshold for runD.
type dRun struct {
	di   int
	prev prevFunc // the previous threshold's finalized point
	// ahead are later thresholds of the same shard, whose surely consumed
	// trials are trained while prev is unknown.
	ahead []int
	owner cluster.Shard // who publishes prev, in a sharded run
	// publish, if set, is called with the result as soon as the threshold
	// is finished, before runD waits for trials of later thresholds.
	publish func(*DResult) error
}

// runD runs the protocol at threshold index r.di.
//
// While r.prev is not yet known (a sharded run waiting for another shard),
// runD trains only trials that the protocol consumes whatever prev turns out
// to be: trials of r.di in order until Accept of them are eligible — the
// fewest the protocol can consume, since only eligible trials are accepted —
// and then the same for each threshold of r.ahead in turn, counting the
// in-flight trials as possibly eligible so that it never overshoots there.
// It polls prev every pollInterval. With none of that work left it waits
// while r.owner is running (reporting every waitReport) and otherwise stops
// with a *stallError. Trials are offered to the selector only once prev is
// known, so the outcome is the same as with prev known from the start. A
// trial trained ahead is saved to the results directory, where a later runD
// loads it; it is never cancelled when this threshold finishes.
func (s *sweeper) runD(ctx context.Context, r dRun) (*DResult, error) {
	c := s.cfg
	st := &dState{s: s, r: r, jobs: make(chan job, c.Workers), ahead: make([]aheadState, len(r.ahead)),
		pending: map[int]trialOut{}, recs: map[int]*TrialRecord{}, summaries: []TrialSummary{}}
	if _, err := st.known(); err != nil {
		return nil, err
	}
	poll := time.NewTicker(rundir.PollInterval)
	defer poll.Stop()
	ctxD, cancel := context.WithCancel(ctx)
	out := make(chan trialOut, c.Workers)
	var wg sync.WaitGroup
	s.startWorkers(ctx, ctxD, r.di, st.jobs, out, &wg)
	defer wg.Wait()
	defer cancel()
	defer close(st.jobs)
	for st.sel == nil || !st.sel.Done() {
		st.dispatch()
		o := trialOut{trial: -1}
		select {
		case o = <-out:
			st.inflight--
		case <-poll.C:
			if err := st.poll(); err != nil {
				return nil, err
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("learn: sweep stopped at D[%d] = %g: %w", r.di, c.D[r.di], ctx.Err())
		}
		if err := st.receive(o); err != nil {
			return nil, err
		}
		st.offer()
	}
	res := s.result(r.di, st.sel.Result(), st.summaries, st.recs)
	if r.publish != nil {
		if err := r.publish(res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// startWorkers starts c.Workers goroutines that train (or load) the jobs
// they receive and send the outcomes on out until jobs is closed or ctxD is
// done. A trial of threshold di runs under ctxD; a trial trained ahead runs
// under ctx, so that it is finished even once di is done.
func (s *sweeper) startWorkers(ctx, ctxD context.Context, di int, jobs <-chan job, out chan<- trialOut, wg *sync.WaitGroup) {
	for range s.cfg.Workers {
		wg.Go(func() {
			for j := range jobs {
				tctx := ctxD
				if j.d != di {
					tctx = ctx
				}
				rec, loaded, err := s.trial(tctx, j.d, j.t)
				select {
				case out <- trialOut{j.d, j.t, rec, loaded, err}:
				case <-ctxD.Done():
					return
				}
			}
		})
	}
}

// dState is runD's state at one threshold.
type dState struct {
	s *sweeper
	r dRun
	// sel is the protocol's selector, nil while prev is unknown.
	sel *Selector
	// eligible counts the finished trials of r.di with an eligible epoch
	// while prev is unknown.
	eligible int
	jobs     chan job
	// dispatched trials of r.di are sent; those below next are offered to
	// sel; inflight jobs, of any threshold, are sent and not yet received.
	dispatched, next, inflight int
	ahead                      []aheadState // per threshold of r.ahead
	pending                    map[int]trialOut
	recs                       map[int]*TrialRecord
	summaries                  []TrialSummary
	waitStart, reported        time.Time
}

// aheadState is a threshold of dRun.ahead: its trials dispatched, in
// flight, and known eligible, in trial order.
type aheadState struct{ next, inflight, eligible int }

// known reports whether prev is known, creating the selector when it has
// just become so.
func (st *dState) known() (bool, error) {
	if st.sel != nil {
		return true, nil
	}
	p, ok, err := st.r.prev()
	if err != nil || !ok {
		return false, err
	}
	c := st.s.cfg
	st.sel = NewSelector(c.D[st.r.di], p, c.Protocol)
	return true, nil
}

// dispatch sends jobs while a worker is free: trials of r.di in order (once
// prev is known, at most Workers ahead of the selector; before, until Accept
// of them are eligible), else speculative trials of r.ahead.
func (st *dState) dispatch() {
	c := st.s.cfg
	for st.inflight < c.Workers {
		switch {
		case st.sel != nil:
			if st.dispatched >= c.Protocol.MaxAttempts || st.dispatched-st.next >= c.Workers {
				return
			}
		case st.eligible < c.Protocol.Accept && st.dispatched < c.Protocol.MaxAttempts:
			// Speculating on this threshold.
		default:
			j, ok := st.nextAhead()
			if !ok {
				return
			}
			st.jobs <- j
			st.inflight++
			continue
		}
		st.jobs <- job{st.r.di, st.dispatched}
		st.dispatched++
		st.inflight++
	}
}

// nextAhead returns the next trial of r.ahead that the protocol consumes
// whatever prev is: one of a threshold with fewer than Accept trials known
// eligible or in flight, skipping those already seen.
func (st *dState) nextAhead() (job, bool) {
	p := st.s.cfg.Protocol
	for k, a := range st.r.ahead {
		ah := &st.ahead[k]
		for ah.next < p.MaxAttempts && ah.eligible+ah.inflight < p.Accept {
			e, seen := st.s.eligible[job{a, ah.next}]
			if !seen {
				ah.inflight++
				ah.next++
				return job{a, ah.next - 1}, true
			}
			if e {
				ah.eligible++
			}
			ah.next++
		}
	}
	return job{}, false
}

// poll looks for prev again. With nothing this shard can train before it
// is known, it stops with a *stallError when prev's owner is not running,
// and otherwise reports the wait every rundir.WaitReport.
func (st *dState) poll() error {
	c, di := st.s.cfg, st.r.di
	if ok, err := st.known(); err != nil || ok || st.inflight > 0 {
		st.waitStart = time.Time{}
		return err
	}
	alive, err := rundir.Dir(c.Dir).ShardAlive(st.r.owner)
	if err != nil {
		return err
	}
	// Read the record once more: its owner may have published it and
	// exited since the last look.
	if ok, err := st.known(); err != nil || ok {
		return err
	}
	w := rundir.Wait{DIndex: di, NumD: len(c.D), Owner: st.r.owner, Alive: alive}
	if !alive {
		return &stallError{w}
	}
	now := time.Now()
	if st.waitStart.IsZero() {
		st.waitStart = now
	}
	if now.Sub(st.reported) >= rundir.WaitReport && c.Progress != nil {
		st.reported, w.For = now, now.Sub(st.waitStart)
		c.Progress(Progress{Waiting: &w})
	}
	return nil
}

// receive records a finished trial (o.trial < 0: none): whether it has an
// eligible epoch, for the speculation of later thresholds, and a trial of
// r.di as pending its turn at the selector.
func (st *dState) receive(o trialOut) error {
	c := st.s.cfg
	if o.err != nil {
		return fmt.Errorf("learn: D[%d] = %g, trial %d: %w", o.d, c.D[o.d], o.trial, o.err)
	}
	if o.trial < 0 {
		return nil
	}
	_, ok := PickEpoch(o.rec.History.selected(c.Protocol), o.rec.Trial, c.D[o.d], c.Protocol.Tau, c.Protocol.K)
	st.s.eligible[job{o.d, o.trial}] = ok
	for k, a := range st.r.ahead {
		if a == o.d {
			st.ahead[k].inflight--
			if ok {
				st.ahead[k].eligible++
			}
		}
	}
	if o.d != st.r.di {
		return nil
	}
	st.pending[o.rec.Trial] = o
	if ok && st.sel == nil {
		st.eligible++
	}
	_, err := st.known()
	return err
}

// offer hands the pending trials of r.di to the selector in trial order,
// once prev is known, until the protocol is done.
func (st *dState) offer() {
	di := st.r.di
	for st.sel != nil && !st.sel.Done() {
		o, ok := st.pending[st.next]
		if !ok {
			return
		}
		delete(st.pending, st.next)
		st.sel.Offer(&o.rec.History)
		st.recs[st.next] = o.rec
		v := st.sel.sel.Verdicts[st.next]
		st.summaries = append(st.summaries, TrialSummary{
			Trial: st.next, Seed: o.rec.Seed, Epochs: o.rec.Epochs, Seconds: o.rec.Seconds,
			Eligible: v.Eligible, Accepted: v.Accepted, Point: v.Point,
			File: filepath.ToSlash(rundir.TrialFile(di, st.next)),
		})
		st.s.consumed(job{di, st.next})
		st.next++
		st.s.progress(di, st.next-1, o.loaded, st.sel)
	}
}

// consumed counts a trial the protocol consumed, as trained by this run or
// loaded (a trial this run trained ahead and saved, then read back, is
// trained).
func (s *sweeper) consumed(j job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.made[j] {
		s.trained++
	} else {
		s.loaded++
	}
}

func (s *sweeper) progress(di, trial int, loaded bool, sel *Selector) {
	if s.cfg.Progress == nil {
		return
	}
	r := sel.sel
	done := sel.Done()
	s.cfg.Progress(Progress{
		DIndex: di, NumD: len(s.cfg.D), D: s.cfg.D[di], Trial: trial, Loaded: loaded,
		Attempted: r.Attempted, Accepted: r.Accepted,
		Accept: s.cfg.Protocol.Accept, MaxAttempts: s.cfg.Protocol.MaxAttempts,
		Done: done, CapHit: done && r.Accepted < s.cfg.Protocol.Accept,
	})
}

// result assembles the DResult of threshold di and remembers its finalized
// point for the next threshold.
func (s *sweeper) result(di int, sel Selection, sums []TrialSummary, recs map[int]*TrialRecord) *DResult {
	c := s.cfg
	if s.cfg.Dir == "" {
		for k := range sums {
			sums[k].File = ""
		}
	}
	r := &DResult{DIndex: di, D: c.D[di], Trial: -1, Epoch: -1, NetworksEpoch: -1,
		Attempted: sel.Attempted, Accepted: sel.Accepted, CapHit: sel.CapHit, Trials: sums}
	if f := sel.Finalized; f != nil {
		rec := recs[f.Trial]
		// The training losses at the selected epoch (what f holds when the
		// protocol selects on them; the hard errors follow).
		sp := rec.History.point(f.Trial, f.Epoch)
		l := loss.New(sp.Recon, sp.Adv)
		r.Finalized, r.Losses = true, &l
		r.Trial, r.Epoch = f.Trial, f.Epoch
		if h := &rec.History; h.ReconHard != nil {
			rh := h.ReconHard[f.Epoch]
			r.ReconHard = &rh
			for i := range h.AdvHard {
				r.AdvHard = append(r.AdvHard, h.AdvHard[i][f.Epoch])
			}
		}
		for _, sn := range rec.Snapshots {
			if sn.Epoch == f.Epoch {
				r.Networks, r.Channel, r.Kernel, r.NetworksEpoch = sn.Networks, sn.Channel, sn.Kernel, sn.Epoch
			}
		}
		s.finalized = f
	}
	r.SHA256, _ = r.seal() // plain data: marshalling cannot fail
	return r
}

// trial returns trial t at threshold index di: loaded from the results
// directory when it is there, trained (and saved) otherwise.
func (s *sweeper) trial(ctx context.Context, di, t int) (*TrialRecord, bool, error) {
	c := s.cfg
	if c.Dir != "" {
		rec, err := s.load(ctx, di, t)
		if err != nil || rec != nil {
			return rec, rec != nil, err
		}
	}
	seed := TrialSeed(c.Seed, di, t)
	tr, err := newTrial(s.data, c, c.D[di], seed)
	if err != nil {
		return nil, false, err
	}
	start := time.Now()
	if err := tr.Run(ctx.Err); err != nil {
		return nil, false, err
	}
	final := tr.Final()
	rec := &TrialRecord{
		Fingerprint: s.fp, DIndex: di, Trial: t, D: c.D[di], Seed: seed, Epochs: c.Epochs,
		Seconds: time.Since(start).Seconds(), History: *tr.History(), Networks: final.Networks,
		Channel: final.Channel, Kernel: final.Kernel, Snapshots: tr.Snapshots(),
	}
	s.mu.Lock()
	s.made[job{di, t}] = true
	s.mu.Unlock()
	if c.Dir != "" {
		if err := rundir.Dir(c.Dir).WriteRecord(rundir.TrialFile(di, t), rec); err != nil {
			return nil, false, err
		}
	}
	return rec, false, nil
}

// load reads trial t of threshold index di from the results directory, or
// returns nil if it is not there. A record from a different configuration
// or data, or for another trial, is an error.
func (s *sweeper) load(ctx context.Context, di, t int) (*TrialRecord, error) {
	dir, rel := rundir.Dir(s.cfg.Dir), rundir.TrialFile(di, t)
	var rec TrialRecord
	ok, err := dir.ReadRecord(ctx, rel, &rec)
	if errors.Is(err, rundir.ErrResume) {
		return nil, fmt.Errorf("%w (delete it to retrain the trial)", err)
	}
	if err != nil || !ok {
		return nil, err
	}
	path := dir.Path(rel)
	if rec.Fingerprint != s.fp {
		return nil, fmt.Errorf("%w: %s was written by a run with a different training configuration, seed or data (fingerprint %s, this run %s); use a fresh results directory", rundir.ErrResume, path, rec.Fingerprint, s.fp)
	}
	if rec.DIndex != di || rec.Trial != t || rec.History.Len() != s.cfg.Epochs || len(rec.History.Adv) != s.data.NumAdversaries() {
		return nil, fmt.Errorf("%w: %s does not hold trial %d of D[%d] with %d epochs; delete it to retrain the trial", rundir.ErrResume, path, t, di, s.cfg.Epochs)
	}
	return &rec, nil
}

// write rewrites results.json.
func (s *sweeper) write(res *Results) error {
	if s.cfg.Dir == "" {
		return nil
	}
	return writeResults(rundir.Dir(s.cfg.Dir), res)
}

// trialRun is one trial of a training method.
type trialRun interface {
	Run(stop func() error) error
	History() *History
	Final() Snapshot       // after the last epoch: its networks, channel or kernel
	Snapshots() []Snapshot // the selection band's candidates
}

// newTrial returns the trainer of c.Method for one trial; c is resolved.
func newTrial(data *Data, c *Config, d float64, seed uint64) (trialRun, error) {
	if c.Method == MethodLabels && !c.Model.FiniteX() {
		return newCellTrainer(c, d, seed)
	}
	if c.Method == MethodLabels {
		return newLabelTrainer(data, c, d, seed)
	}
	if c.Model.CategoricalRelease() {
		return newFiniteTrainer(data, c, d, seed)
	}
	return NewTrainer(data, *c, d, seed)
}

// Final implements trialRun: the trainer's networks as they are now,
// privatizer, reconstructor, adversary_1, ….
func (t *Trainer) Final() Snapshot {
	return Snapshot{Epoch: t.hist.Len() - 1, Networks: t.networksOf(t.params())}
}

// networksOf returns the trainer's networks with the given
// parameters (privatizer, reconstructor, adversaries).
func (t *Trainer) networksOf(params [][]float64) []network.Network {
	tr := t.data.Train
	with := func(m *MLP, p []float64) *MLP { c := *m; c.Params = p; return &c }
	ny := names("y", "", tr.NY)
	nets := []network.Network{
		with(t.Priv, params[0]).Network("privatizer", []string{"x", "r"}),
		with(t.Recon, params[1]).Network("reconstructor", append([]string{"f"}, ny...)),
	}
	for i, a := range t.Adv {
		nz := names(fmt.Sprintf("z%d", i+1), "_", tr.NZ[i])
		nets = append(nets, with(a, params[2+i]).Network(fmt.Sprintf("adversary_%d", i+1), append([]string{"f"}, nz...)))
	}
	return nets
}

// names returns [base] for one column, else base+sep+"1", … .
func names(base, sep string, n int) []string {
	if n == 1 {
		return []string{base}
	}
	out := make([]string, n)
	for k := range out {
		out[k] = fmt.Sprintf("%s%s%d", base, sep, k+1)
	}
	return out
}
