package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/internal/version"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/privatizer"
)

// FilesRequest names the files of a certification of privatizers trained
// anywhere (mmds certify): a model file and one privatizer at D or a
// points list, or a certificate to re-derive from the files it names
// (Check); and what the run writes, which must not be any of them.
// Messages name the fields by the command line's flags.
type FilesRequest struct {
	Model      string
	Privatizer string
	D          *float64 // the threshold of Privatizer; nil: not given
	Points     string
	// Check is a certificate to re-derive: its files are taken from its
	// folder unless Model, Privatizer or Points name them.
	Check string
	// Certificate is the certificate file the run writes ("": none): the
	// files it names are named from its folder, where Check looks for
	// them.
	Certificate string
	// Output and Plot are the report's and the figure's files ("":
	// standard output, none); PlotKinds the model kinds a figure is drawn
	// for.
	Output, Plot string
	PlotKinds    []model.Kind
	// ExpectTol says that the error bound of the network expectations
	// was given, which only binary and finite models take.
	ExpectTol bool
	// Workers certify at once, and MaxMemory is the run's memory budget in
	// bytes (0: DefaultMaxMemory).
	Workers   int
	MaxMemory int64
}

// Files are the files of a certification, each read once and checked at
// the door (OpenFiles) before any work: the model, and the privatizers,
// each fitting it.
type Files struct {
	Model  model.Model
	Inputs []Input
	// modelFile and names are what the certificate calls the model file
	// and the inputs.
	modelFile string
	names     []string
	// want is the certificate Check re-derives, check its file.
	want    *Certificate
	check   string
	witness bool // the run writes or checks a certificate
}

// ErrMismatch is wrapped by the error of a certificate that its files do
// not reproduce: a hash that differs, or a re-derived certificate that
// does not match.
var ErrMismatch = errors.New("verify: the certificate does not match its files")

// OpenFiles reads and checks the files of r before any work, each once
// (regular files only, safefile.Read; a file named in a list or a
// certificate inside that file's folder, safefile.ReadIn): the model, then
// the points list and the privatizers within the memory budget, every
// output against every input (report.CheckPaths), and every privatizer
// and threshold against the model. With r.Check it reads the certificate
// first, takes the files it names (or those r names) and compares their
// hashes with the certificate's. Errors wrap ErrInput (bad input),
// ErrMemory (over the budget) or ErrMismatch (a hash that differs).
func OpenFiles(ctx context.Context, r FilesRequest) (*Files, error) {
	if r.Check != "" {
		return openCheck(ctx, r)
	}
	m, err := model.Load(ctx, r.Model)
	if err != nil {
		return nil, inputf("--model %w", err)
	}
	if r.Plot != "" && !slices.Contains(r.PlotKinds, m.Kind()) {
		return nil, inputf("--plot %s: figures are drawn for the gauss and binary models only", r.Plot)
	}
	es, err := r.entries(ctx)
	if err != nil {
		return nil, err
	}
	inputs, err := r.readInputs(ctx, es, "")
	if err != nil {
		return nil, err
	}
	if err := r.check(m, inputs); err != nil {
		return nil, err
	}
	f := &Files{Model: m, Inputs: inputs, modelFile: r.Model, witness: r.Certificate != ""}
	for _, in := range inputs {
		f.names = append(f.names, in.Path)
	}
	if r.Certificate != "" { // named from the certificate's folder: Check takes them from there
		f.modelFile = CertFile(r.Certificate, r.Model)
		for i, in := range inputs {
			f.names[i] = CertFile(r.Certificate, in.Path)
		}
	}
	return f, nil
}

// readInputs reads the files of es within r's memory budget (ReadInputs,
// CheckMemory); an error other than ErrMemory is bad input, its message
// after prefix.
func (r FilesRequest) readInputs(ctx context.Context, es []Entry, prefix string) ([]Input, error) {
	inputs, err := ReadInputs(ctx, es, r.MaxMemory)
	if err == nil {
		err = CheckMemory(inputs, r.Workers, r.MaxMemory)
	}
	if err != nil && !errors.Is(err, ErrMemory) {
		return nil, inputf("%s%w", prefix, err)
	}
	return inputs, err
}

// entries lists the privatizers of r: Privatizer at D, or the points
// list's.
func (r FilesRequest) entries(ctx context.Context) ([]Entry, error) {
	single := r.Privatizer != "" || r.D != nil
	switch {
	case r.Points != "" && single:
		return nil, inputf("--points and --privatizer/--d are mutually exclusive")
	case r.Points == "" && (r.Privatizer == "" || r.D == nil):
		return nil, inputf("give --privatizer FILE and --d D, or --points FILE")
	case r.Points != "":
		es, err := ReadPoints(ctx, r.Points)
		if err != nil {
			return nil, inputf("--points %w", err)
		}
		return es, nil
	}
	return []Entry{{D: *r.D, Privatizer: r.Privatizer, Name: safefile.Path(r.Privatizer)}}, nil
}

// check checks every input and output path (report.CheckPaths) and every
// privatizer and threshold against m.
func (r FilesRequest) check(m model.Model, inputs []Input) error {
	paths := []report.Path{report.In("--model", r.Model), report.In("--privatizer", r.Privatizer), report.In("--points", r.Points)}
	if r.Points != "" {
		for i, in := range inputs {
			paths = append(paths, report.In(fmt.Sprintf("--points entry %d", i+1), in.Path))
		}
	}
	paths = append(paths, report.Out("--output", r.Output), report.Out("--certificate", r.Certificate), report.Out("--plot", r.Plot))
	if err := report.CheckPaths(paths); err != nil {
		return inputError(err)
	}
	if r.ExpectTol && !m.Kind().FiniteX() {
		return inputf("--tol-expect does not apply to a Gaussian model: it bounds the network expectations E_R[k(x, R)] of binary and finite models; drop it")
	}
	for i, in := range inputs {
		if err := m.CheckPrivatizer(in.File); err != nil {
			return inputError(err)
		}
		if d := in.D; d > m.DMax()*(1+1e-12) {
			what := "--d"
			if r.Points != "" {
				what = fmt.Sprintf("--points entry %d: D =", i+1)
			}
			// As mmds train says it: the constraint is slack above D_max.
			return inputf("%s %v exceeds the model's D_max = %.6g: thresholds must be in [0, D_max] (above it the distortion constraint is slack)", what, d, m.DMax())
		}
	}
	return nil
}

// openCheck is OpenFiles of a certificate to re-derive: the files it
// names, each read once (or those r names), their SHA-256 compared with
// the certificate's before any work.
func openCheck(ctx context.Context, r FilesRequest) (*Files, error) {
	want, err := ReadCertificate(ctx, "--check", r.Check)
	if err != nil {
		return nil, err
	}
	if want.ModelFile == "" || want.ResultsFile != "" || len(want.Points) == 0 {
		return nil, inputf("--check %s: the certificate names no model file or no privatizer (a certificate of mmds verify? check it with mmds verify --check)", r.Check)
	}
	es, err := r.checkEntries(ctx, want)
	if err != nil {
		return nil, err
	}
	m, err := r.checkModel(ctx, want)
	if err != nil {
		return nil, err
	}
	inputs, err := r.readInputs(ctx, es, fmt.Sprintf("--check %s: ", r.Check))
	if err != nil {
		return nil, err
	}
	f := &Files{Model: m, Inputs: inputs, modelFile: want.ModelFile, want: want, check: r.Check, witness: true}
	for i, in := range inputs {
		if in.SHA256 != want.Points[i].PointSHA256 {
			return nil, mismatchf("--check %s: points[%d].point_sha256: the certificate says %s, %s has %s",
				r.Check, i, safefile.Excerpt(want.Points[i].PointSHA256), es[i].Name, in.SHA256)
		}
		if err := m.CheckPrivatizer(in.File); err != nil {
			return nil, inputError(err)
		}
		// The files were found by these names (or passed by the user):
		// what is compared is their hashes, above, and what they certify.
		f.names = append(f.names, want.Points[i].Privatizer)
	}
	return f, nil
}

// checkModel loads the model of r.Check's certificate (r.Model when
// given, else its model_file from the certificate's folder) and compares
// its hash.
func (r FilesRequest) checkModel(ctx context.Context, want *Certificate) (model.Model, error) {
	path, flag := r.Model, "--model"
	var m model.Model
	var err error
	if path == "" {
		if path, err = ResolveCertFile(r.Check, want.ModelFile); err != nil {
			return nil, inputf("--check %s: model_file %w (pass the model with --model)", r.Check, err)
		}
		flag = "--check " + safefile.Path(r.Check) + ": model_file"
		m, err = model.LoadIn(ctx, filepath.Dir(r.Check), want.ModelFile)
	} else {
		m, err = model.Load(ctx, path)
	}
	if err != nil {
		return nil, inputf("%s: %w", flag, err)
	}
	if h, err := model.Hash(m); err != nil {
		return nil, err
	} else if h != want.ModelSHA256 {
		return nil, mismatchf("--check %s: model_sha256: the certificate says %s, %s has %s", r.Check, safefile.Excerpt(want.ModelSHA256), safefile.Path(path), h)
	}
	return m, nil
}

// checkEntries lists the privatizers r.Check reads, one per point of the
// certificate: r.Points (as many entries as points), r.Privatizer (for a
// one-point certificate), or the files the certificate names, from its
// folder.
func (r FilesRequest) checkEntries(ctx context.Context, want *Certificate) ([]Entry, error) {
	for i, p := range want.Points {
		if math.IsNaN(p.D) || math.IsInf(p.D, 0) || p.D < 0 {
			return nil, inputf("--check %s: points[%d].D = %v: must be a finite number ≥ 0", r.Check, i, p.D)
		}
	}
	switch {
	case r.Points != "" && r.Privatizer != "":
		return nil, inputf("--points and --privatizer are mutually exclusive")
	case r.Points != "":
		es, err := ReadPoints(ctx, r.Points)
		if err != nil {
			return nil, inputf("--points %w", err)
		}
		if len(es) != len(want.Points) {
			return nil, inputf("--points %s: %d entries, but the certificate %s has %d points", safefile.Path(r.Points), len(es), safefile.Path(r.Check), len(want.Points))
		}
		return es, nil
	case r.Privatizer != "":
		if len(want.Points) != 1 {
			return nil, inputf("--privatizer: the certificate %s has %d points: pass them with --points", safefile.Path(r.Check), len(want.Points))
		}
		return []Entry{{D: want.Points[0].D, Privatizer: r.Privatizer, Name: safefile.Path(r.Privatizer)}}, nil
	}
	es := make([]Entry, len(want.Points))
	for i, p := range want.Points {
		_, err := ResolveCertFile(r.Check, p.Privatizer)
		if err == nil {
			es[i], err = NamedIn(p.D, filepath.Dir(r.Check), p.Privatizer, fmt.Sprintf("points[%d].privatizer (%s)", i, safefile.Excerpt(p.Privatizer)))
		}
		if err != nil {
			return nil, inputf("--check %s: points[%d].privatizer %w (pass the files with --privatizer or --points)", r.Check, i, err)
		}
	}
	return es, nil
}

// Certify certifies the files' privatizers on their model (CertifyExternal;
// o.Model.Witness is set when the run writes or checks a certificate), one
// point per input in order, and condenses the report into the
// certificate, which names the files read. The certificate of a Check is
// compared with the one it re-derives: a difference is an error wrapping
// ErrMismatch. A privatizer that turns out not to fit the model is an
// error wrapping ErrInput.
func (f *Files) Certify(ctx context.Context, o Options) (*Report, *Certificate, error) {
	o.Model.Witness = f.witness
	rep, err := CertifyExternal(ctx, f.Model, f.Inputs, o)
	if errors.Is(err, privatizer.ErrInput) {
		return nil, nil, inputError(err)
	}
	if err != nil {
		return nil, nil, err
	}
	hashes := map[int]string{}
	for i := range rep.Points {
		hashes[i] = f.Inputs[i].SHA256
	}
	cert := NewCertificate(rep, hashes, version.String())
	cert.ModelFile = f.modelFile
	for i := range cert.Points {
		cert.Points[i].Privatizer = f.names[i]
	}
	if f.want != nil {
		if err := f.want.Check(cert); err != nil {
			return nil, nil, mismatchf("--check %s: the certificate does not match its files: %w", f.check, err)
		}
	}
	return rep, cert, nil
}

// markedError is err in its own words, matching the sentinel mark
// (ErrInput, ErrMismatch, ErrPoints) without saying so.
type markedError struct{ mark, err error }

func (e markedError) Error() string   { return e.err.Error() }
func (e markedError) Unwrap() []error { return []error{e.mark, e.err} }

// inputError is bad input in its own words.
func inputError(err error) error { return markedError{ErrInput, err} }

// inputf is a formatted inputError.
func inputf(format string, args ...any) error { return inputError(fmt.Errorf(format, args...)) }

// mismatchf is a certificate its files do not reproduce, in its own words.
func mismatchf(format string, args ...any) error {
	return markedError{ErrMismatch, fmt.Errorf(format, args...)}
}
