package verify

import (
	"errors"
	"fmt"

	"github.com/mmds-project/mmds/internal/enum"
)

// Outcome is what a verdict comes to, for one threshold or a whole report:
// pass, fail, cannot certify (neither: the numbers behind a verdict cannot
// be made sound), not finalized or not trained. A Point's Verdict says the
// same in words, with the reason; counts, exit statuses and figures act on
// the Outcome.
type Outcome int

// The outcomes.
const (
	OutcomePass Outcome = iota + 1
	OutcomeFail
	OutcomeCannotCertify
	OutcomeNotFinalized
	OutcomeNotTrained
)

var outcomeText = enum.Text[Outcome]{Type: "Outcome",
	Names: []string{OutcomePass: "pass", OutcomeFail: "fail", OutcomeCannotCertify: "cannot certify",
		OutcomeNotFinalized: "not finalized", OutcomeNotTrained: "not trained"},
	BadValue: enum.IntError[Outcome](ErrOutcome), BadText: wantError(ErrOutcome)}

// ErrOutcome is wrapped by the error for text that is not an outcome.
var ErrOutcome = errors.New("verify: unknown outcome")

// String is the outcome in words ("pass", "cannot certify", …).
func (o Outcome) String() string { return outcomeText.String(o) }

// MarshalText implements encoding.TextMarshaler.
func (o Outcome) MarshalText() ([]byte, error) { return outcomeText.Marshal(o) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (o *Outcome) UnmarshalText(b []byte) error { return outcomeText.Unmarshal(o, b) }

// Outcome is the point's verdict: its status, and for a certified point
// whether it passed.
func (p *Point) Outcome() Outcome {
	switch {
	case p.Status == StatusNotTrained:
		return OutcomeNotTrained
	case p.Status == StatusCannotCertify:
		return OutcomeCannotCertify
	case !p.Finalized:
		return OutcomeNotFinalized
	case p.Pass:
		return OutcomePass
	}
	return OutcomeFail
}

// Outcome is the report's verdict: pass when every point passed, cannot
// certify when the only shortfall is points that cannot be certified
// soundly, else fail.
func (r *Report) Outcome() Outcome {
	switch {
	case r.Pass:
		return OutcomePass
	case r.Failed+r.NotFinalized+r.NotTrained == 0 && r.CannotCertify > 0:
		return OutcomeCannotCertify
	}
	return OutcomeFail
}

// count sets the report's counts and Pass from its points' outcomes.
func (r *Report) count() {
	var n [OutcomeNotTrained + 1]int
	for i := range r.Points {
		n[r.Points[i].Outcome()]++
	}
	r.Passed, r.Failed, r.CannotCertify, r.NotFinalized, r.NotTrained = n[OutcomePass], n[OutcomeFail], n[OutcomeCannotCertify], n[OutcomeNotFinalized], n[OutcomeNotTrained]
	r.Pass = r.Passed == len(r.Points)
}

// VerdictError is a report's verdict other than pass, in words.
type VerdictError struct {
	Outcome Outcome // OutcomeFail or OutcomeCannotCertify
	msg     string
}

func (e *VerdictError) Error() string { return e.msg }

// Verdict is nil when r passes, else a *VerdictError that counts r's
// points: the thresholds of the results directory dir, or the privatizer
// files' points when dir is "".
func (r *Report) Verdict(dir string) error {
	n := len(r.Points)
	e := &VerdictError{Outcome: r.Outcome()}
	switch {
	case e.Outcome == OutcomePass:
		return nil
	case e.Outcome == OutcomeCannotCertify && dir == "":
		e.msg = fmt.Sprintf("cannot certify: %d of %d points cannot be certified soundly (%d pass)", r.CannotCertify, n, r.Passed)
	case e.Outcome == OutcomeCannotCertify:
		e.msg = fmt.Sprintf("certification of %s: %d of %d thresholds cannot be certified soundly (%d pass)", dir, r.CannotCertify, n, r.Passed)
	case dir == "":
		e.msg = fmt.Sprintf("certification failed: %d of %d points pass", r.Passed, n)
	default:
		e.msg = fmt.Sprintf("certification of %s failed: %d of %d thresholds pass (%d fail, %d not finalized, %d not trained)",
			dir, r.Passed, n, r.Failed, r.NotFinalized, r.NotTrained)
	}
	return e
}
