// Package verify certifies trained privatizers against the exact optima of
// packages mip and gauss (through package model): given what Algorithm 1 learned (a results directory
// of package learn), it says with exact numbers how far the learned
// privatizer is from the optimum, and whether that is within stated
// tolerances. It replaces the by-eye comparison of the paper's Figures 2 and 3
// with numbers; package plot draws those figures.
//
// # What is certified
//
// A learned privatizer is a network k(x, r) whose noise input r ~ N(0,1) is
// independent of X and of all side information (Algorithm 1's r_j), or what
// the labels method learns (a channel on a finite model, a cell kernel on
// the Gaussian one); a run on a user's data is judged by estimators mmds
// fits itself (package estimate). The
// certificate evaluates the privatizer itself with Bayes-optimal
// reconstructor and adversaries, independently of the trained estimators:
//
//   - certified losses: the exact Bayes losses (MAP 0-1 error, MMSE) of
//     the reconstructor (side information Y) and of each adversary (Z_i);
//   - certified distortion: the certified reconstructor loss D̂;
//   - optimum at D̂: the model's reference (model.Optimizer) — Proposition 2
//     (binary-output privatizers) or the global LP over all privatizers
//     (finite models, and binary ones with --reference best), Proposition 1
//     (linear-Gaussian privatizers) with the bracket of the best known
//     mechanism and an upper bound for the Gaussian model;
//   - gap = optimum − certified minimum adversarial loss: > 0 when the
//     learned privatizer leaks more than the optimum at its own distortion.
//
// The trained estimators' test losses (results.json) are reported beside, and
// their excess over the Bayes losses measures how far each trained estimator
// is from the Bayes-optimal one for the same privatizer.
//
// # Binding
//
// Load refuses (ErrInput) a results directory whose model file, configuration
// or points do not match the SHA-256 hashes training recorded
// (learn.Results.CheckBinding): what is certified is what was trained.
//
// # Verdicts
//
// Every tolerance is the verifier's (Tolerances), never read from the
// directory. A finalized point passes when its certified distortion D̂ lies
// in [max(0, D − BandTau·τ − DistSE·SE(D) − a), D + DistSE·SE(D) + a] and its
// gap at D̂ is at most AdvSE·SE(optimum) + a, with the certificate converged
// to Quad; τ is half the step of the run's threshold grid (Section V), SE
// the model's standard error of a test-split loss over TestSize rows, and
// a = Abs × the model's loss scale, so rounding never decides a verdict.
// The gap at the asked D is reported beside. Every threshold of the run's
// configuration counts: one not trained or not finalized does not pass.
// Certificate condenses a report into the file mmds verify --certificate
// writes and --check compares.
//
// # The doors
//
// The commands' files are opened, checked and read once, before any work,
// by OpenDir (mmds verify: a results directory, --check's certificate, a
// data run's data file), OpenFiles (mmds certify: a model and privatizers
// trained anywhere, or the files a certificate names) and ExportFile (mmds
// export); paths are checked against one another by report.CheckPaths and
// files read through safefile (regular files only; a file named inside
// another, inside that file's folder). The rest of the package receives
// their bytes and values. Run.Render, DataRun.Render and Files.Render
// lay the reports out: tables, CSV (docs/verify.md, docs/certify.md), JSON
// and the summary.
//
// # Cache
//
// Options.Cache keeps the points' certificates (the expensive part) in
// mmds's own cache folder, bound to the directory's bytes, the certificate
// policy and the build, and re-checked before use (Cache); the optima, gaps
// and verdicts are derived again every time, so a report is the same with
// or without it.
package verify
