package verify

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mmds-project/mmds/internal/jsonconf"
	"github.com/mmds-project/mmds/internal/report"
	"github.com/mmds-project/mmds/internal/safefile"
	"github.com/mmds-project/mmds/loss"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/privatizer"
)

// Certificate is the signed-off outcome of verifying a results directory:
// what was certified (the hashes of the model, of the configuration and of
// every point, as the directory's binding has them and verify recomputed
// them), by which mmds and under which tolerances, and per threshold the
// numbers the verdict rests on. mmds verify --certificate writes it; mmds
// verify --check re-derives it from the directory and compares.
type Certificate struct {
	Format      string `json:"format"` // CertificateFormat
	MMDSVersion string `json:"mmds_version"`
	Model       string `json:"model"`
	ModelSHA256 string `json:"model_sha256"`
	// ModelFile is the model file the certificate is about, relative to
	// the certificate's folder (mmds certify's --model; a results
	// directory's model.json).
	ModelFile string `json:"model_file,omitempty"`
	// ResultsFile is the results directory's results.json, relative to the
	// certificate's folder ("" in mmds certify's certificates).
	ResultsFile  string      `json:"results_file,omitempty"`
	ConfigSHA256 string      `json:"config_sha256"`
	Tolerances   Tolerances  `json:"tolerances"`
	Points       []CertPoint `json:"points"`
	Passed       int         `json:"passed"`
	Failed       int         `json:"failed"`
	// CannotCertify counts the points whose numbers could not be made
	// sound (omitted when none, so earlier certificates still read).
	CannotCertify int  `json:"cannot_certify,omitempty"`
	NotFinalized  int  `json:"not_finalized"`
	NotTrained    int  `json:"not_trained"`
	Pass          bool `json:"pass"`
	// Witness heads the witnesses of the points (binary and finite models;
	// absent in certificates written before witnesses, and on the Gaussian
	// model, which the checker does not cover yet: docs/check.md).
	Witness *CertWitness `json:"witness,omitempty"`
}

// CertificateFormat names the layout of a Certificate.
const CertificateFormat = "mmds-certificate/1"

// CertWitness heads a certificate's witnesses: their format
// (model.WitnessFormat), the model's loss scale and the precision to which
// the certificate's numbers are stated (docs/check.md, "Precision").
type CertWitness struct {
	Format    string          `json:"format"`
	LossScale float64         `json:"loss_scale"`
	Precision model.Precision `json:"precision"`
}

// PointWitness is what proves a point's numbers: a network's channel, and
// the witnesses of the optimum at D̂ and at D (a channel privatizer needs
// nothing more: its losses are finite sums of the file's numbers).
type PointWitness struct {
	// Privatizer: a network's channel, per x (networks with one output).
	Privatizer    *privatizer.NetworkWitness `json:"privatizer,omitempty"`
	OptimumAtDHat *model.Witness             `json:"optimum_at_D_hat"`
	OptimumAtD    *model.Witness             `json:"optimum_at_D"`
}

// newCertWitness is the witness header of a certificate on m, or nil when
// o asks for none or m is Gaussian.
func newCertWitness(m model.Model, o Options) *CertWitness {
	if !o.Model.Witness || m.Kind() == model.Gauss {
		return nil
	}
	return &CertWitness{Format: model.WitnessFormat, LossScale: m.LossScale(), Precision: model.PrecisionOf(m)}
}

// CertPoint is one threshold of a Certificate.
type CertPoint struct {
	D      float64 `json:"D"`
	Status string  `json:"status"`
	// PointSHA256 is the hash of the point's record in results.json, or
	// of the privatizer file's bytes (mmds certify).
	PointSHA256 string `json:"point_sha256,omitempty"`
	// Privatizer is the privatizer file mmds certify read ("" in verify's
	// certificates).
	Privatizer string `json:"privatizer,omitempty"`
	// DHat is the certified distortion; Certified the exact Bayes losses,
	// good to within Error (the certificate's refinement change, relative
	// for Gaussian losses, absolute for binary ones).
	DHat      *float64     `json:"D_hat,omitempty"`
	Certified *loss.Losses `json:"certified,omitempty"`
	Error     *float64     `json:"error,omitempty"`
	// OptimumAtDHat and OptimumAtD are the reference optimum's minimum
	// adversarial loss at D̂ and at D, with its class.
	OptimumClass  string   `json:"optimum_class,omitempty"`
	OptimumAtDHat *float64 `json:"optimum_at_D_hat,omitempty"`
	OptimumAtD    *float64 `json:"optimum_at_D,omitempty"`
	Gap           *float64 `json:"gap,omitempty"`
	GapAtD        *float64 `json:"gap_at_D,omitempty"`
	// ReferenceAtDHat is the optimum the verdict weighs against when it is
	// not OptimumAtDHat: with --reference best on the binary model, the
	// optimum over all privatizers at D̂ (the witness's global optimum).
	ReferenceAtDHat *float64    `json:"reference_at_D_hat,omitempty"`
	Band            *[2]float64 `json:"distortion_band,omitempty"`
	AdvTol          *float64    `json:"adv_tolerance,omitempty"`
	Pass            bool        `json:"pass"`
	Verdict         string      `json:"verdict"`
	// Witness proves the point's numbers (certificates with a Witness
	// header).
	Witness *PointWitness `json:"witness,omitempty"`
}

// NewCertificate condenses a report into a certificate; pointSHA256 maps a
// threshold index to the hash of what was certified there (Run.PointHashes,
// or the privatizer file's hash).
func NewCertificate(rep *Report, pointSHA256 map[int]string, mmdsVersion string) *Certificate {
	c := &Certificate{Format: CertificateFormat, MMDSVersion: mmdsVersion, Model: rep.Model.String(),
		ModelSHA256: rep.ModelSHA256, ConfigSHA256: rep.ConfigSHA256, Tolerances: rep.Tolerances,
		Passed: rep.Passed, Failed: rep.Failed, CannotCertify: rep.CannotCertify, NotFinalized: rep.NotFinalized, NotTrained: rep.NotTrained, Pass: rep.Pass,
		Witness: rep.Witness}
	for _, p := range rep.Points {
		cp := CertPoint{D: p.D, Status: p.Status.String(), PointSHA256: pointSHA256[p.DIndex], Pass: p.Pass, Verdict: p.Verdict}
		if rep.Witness != nil {
			cp.Witness = p.Witness
		}
		if p.Certified != nil {
			d := p.Certified.Recon
			cp.DHat, cp.Certified, cp.Error = &d, p.Certified, p.Change
			cp.OptimumClass = p.Optimum.Class.String()
			cp.OptimumAtDHat, cp.OptimumAtD = &p.Optimum.MinAdv, &p.OptimumAtD.MinAdv
			cp.Gap, cp.GapAtD, cp.Band, cp.AdvTol = p.Gap, p.GapAtD, p.DistortionBand, p.AdvTol
			if b := p.Optimum.Binary(); b != nil && rep.Tolerances.Reference == ReferenceBest {
				cp.ReferenceAtDHat = &b.Global.MinAdv
			}
		}
		c.Points = append(c.Points, cp)
	}
	return c
}

// PointHashes maps each threshold index of the run to its point's hash.
func (run *Run) PointHashes() map[int]string {
	h := map[int]string{}
	for _, p := range run.Results.Points {
		h[p.DIndex] = p.SHA256
	}
	return h
}

// WriteJSON writes the certificate as JSON, indented, each point's witness
// on one line: witnesses are long lists of multipliers, for checkers, and
// indenting them would multiply their size several times.
func (c *Certificate) WriteJSON(w io.Writer) error {
	type pointOut struct {
		CertPoint
		Witness string `json:"witness,omitempty"` // a placeholder; shadows CertPoint.Witness
	}
	type certOut struct {
		*Certificate
		Points []pointOut `json:"points"`
	}
	out := certOut{Certificate: c, Points: make([]pointOut, len(c.Points))}
	var wit [][]byte
	for i, p := range c.Points {
		out.Points[i].CertPoint = p
		if p.Witness != nil {
			b, err := json.Marshal(p.Witness)
			if err != nil {
				return err
			}
			out.Points[i].Witness = fmt.Sprintf("\x00witness %d", len(wit))
			wit = append(wit, b)
		}
	}
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, out); err != nil {
		return err
	}
	b := buf.Bytes()
	for i, wb := range wit {
		b = bytes.Replace(b, []byte(fmt.Sprintf(`"\u0000witness %d"`, i)), wb, 1)
	}
	_, err := w.Write(b)
	return err
}

// ReadCertificate reads the certificate file path once (a regular file,
// safefile.Read) and decodes it strictly (jsonconf: a key twice, or in
// another case than its field's, is refused: a forged "pass" beside an
// honest "PASS" has no meaning to pick); flag names it in errors, which
// wrap ErrInput.
func ReadCertificate(ctx context.Context, flag, path string) (*Certificate, error) {
	b, err := safefile.Read(ctx, path, jsonconf.MaxBytes)
	if err != nil {
		return nil, inputf("%s %w", flag, err)
	}
	var c Certificate
	if err := jsonconf.Unmarshal(b, &c); err != nil {
		return nil, inputf("%s %s: not a certificate: %w", flag, path, err)
	}
	if c.Format != CertificateFormat {
		return nil, inputf("%s %s: format %s: want %q", flag, path, safefile.Excerpt(c.Format), CertificateFormat)
	}
	return &c, nil
}

// CheckTol is the relative tolerance to which --check compares the numbers
// of a certificate with the re-derived ones: the computation is
// deterministic, so equal inputs give equal bits on one platform; 1e-9
// absorbs other platforms' floating-point contraction.
const CheckTol = 1e-9

// Check compares a certificate with the one re-derived from the directory
// and returns nil when they agree: equal hashes, tolerances, statuses and
// verdicts, numbers within CheckTol, witnesses included when the
// certificate has them. The mmds version may differ. The error names the
// first difference.
func (c *Certificate) Check(derived *Certificate) error {
	a, b := *c, *derived
	a.MMDSVersion, b.MMDSVersion = "", ""
	if a.Witness == nil {
		// Written before witnesses: everything else is re-derived.
		b.Witness, b.Points = nil, slices.Clone(b.Points)
		for i := range b.Points {
			b.Points[i].Witness = nil
		}
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if err := cmp.Or(errA, errB); err != nil || bytes.Equal(ja, jb) {
		return err
	}
	var va, vb any
	if err := cmp.Or(json.Unmarshal(ja, &va), json.Unmarshal(jb, &vb)); err != nil {
		return err
	}
	return diff("", va, vb)
}

// diff walks two decoded JSON values and reports the first difference
// beyond CheckTol.
func diff(path string, a, b any) error {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: the certificate has an object, re-derived: %s", path, show(b))
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if _, ok := y[k]; !ok {
				return fmt.Errorf("%s.%s: in the certificate, not re-derived", path, k)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(y)) {
			v := y[k]
			w, ok := x[k]
			if !ok {
				return fmt.Errorf("%s.%s: re-derived, missing from the certificate", path, k)
			}
			if err := diff(path+"."+k, w, v); err != nil {
				return err
			}
		}
		return nil
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Errorf("%s: the certificate has %d entries, re-derived: %s", path, len(x), show(b))
		}
		for i := range x {
			if err := diff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); err != nil {
				return err
			}
		}
		return nil
	case float64:
		y, ok := b.(float64)
		if !ok || math.Abs(x-y) > CheckTol*max(math.Abs(x), math.Abs(y), 1e-300) {
			return fmt.Errorf("%s: the certificate says %v, re-derived: %s", path, x, show(b))
		}
		return nil
	}
	if a != b {
		return fmt.Errorf("%s: the certificate says %s, re-derived: %s", path, show(a), show(b))
	}
	return nil
}

// show prints a decoded JSON value for a message: a string as a short
// excerpt, an object or a list by its size.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return safefile.Excerpt(x)
	case map[string]any:
		return fmt.Sprintf("an object of %d fields", len(x))
	case []any:
		return fmt.Sprintf("%d entries", len(x))
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// ErrCertPath marks a file name in a certificate that --check will not
// follow: absolute, leaving the certificate's folder, or with control
// characters.
var ErrCertPath = errors.New("verify: a certificate's file name must stay in its folder")

// certPathError is a message of ResolveCertFile, matching ErrCertPath.
type certPathError struct {
	msg string
	err error // safefile's
}

func (e certPathError) Error() string        { return e.msg }
func (e certPathError) Is(target error) bool { return target == ErrCertPath }
func (e certPathError) Unwrap() error        { return e.err }

// CertFile is the name a certificate at certPath records for the file it
// read at path: relative to the certificate's folder, with forward slashes
// (so a folder holding the certificate and its files can be moved or
// handed to a reviewer as a whole). A file outside that folder gets a name
// starting with "../", which ResolveCertFile refuses: --check then needs
// the file passed by the user.
func CertFile(certPath, path string) string {
	dir, err1 := filepath.Abs(filepath.Dir(certPath))
	abs, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(path)
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// ResolveCertFile returns the path of the file a certificate at certPath
// names name (a model_file or a point's privatizer), taken from the
// certificate's folder. The certificate is the reviewed author's file, so
// a name that is absolute, that leaves the folder with "..", that reaches
// outside it through a symbolic link, or that has control characters is an
// error wrapping ErrCertPath: a certificate must not make the reviewer's
// mmds read, hash and name in messages files of the reviewer's choosing
// only by knowing their path (keys, other projects' files). A file the
// user names on the command line is taken as given instead. The check is
// safefile.CheckIn's; --check reads the files with safefile.ReadIn, which
// makes it again where no link can be swapped in.
func ResolveCertFile(certPath, name string) (string, error) {
	path, err := safefile.CheckIn(filepath.Dir(certPath), name)
	if err != nil {
		msg := strings.Replace(err.Error(), "its folder", "the certificate's folder", 1)
		if errors.Is(err, safefile.ErrOutside) {
			msg += ": a certificate names its files relative to its own folder"
		}
		return "", certPathError{msg, err}
	}
	return path, nil
}
