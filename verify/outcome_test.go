package verify

import (
	"errors"
	"testing"
)

// TestOutcomeText: every outcome's text reads back as itself, and text or
// numbers that name none are errors wrapping ErrOutcome.
func TestOutcomeText(t *testing.T) {
	for o := OutcomePass; o <= OutcomeNotTrained; o++ {
		b, err := o.MarshalText()
		if err != nil {
			t.Fatalf("%d: %v", o, err)
		}
		var back Outcome
		if err := back.UnmarshalText(b); err != nil || back != o {
			t.Errorf("%q reads back as %v, %v", b, back, err)
		}
	}
	for _, bad := range []Outcome{0, OutcomeNotTrained + 1, -1} {
		if _, err := bad.MarshalText(); !errors.Is(err, ErrOutcome) {
			t.Errorf("Outcome(%d).MarshalText: %v, want ErrOutcome", int(bad), err)
		}
	}
	for _, bad := range []string{"", "PASS", "passed", "pass "} {
		var o Outcome
		if err := o.UnmarshalText([]byte(bad)); !errors.Is(err, ErrOutcome) {
			t.Errorf("%q: %v, want ErrOutcome", bad, err)
		}
	}
	if got := Outcome(9).String(); got != "Outcome(9)" {
		t.Errorf("String of an unknown outcome = %q", got)
	}
}

// TestOutcomeCounts: a point's outcome follows its status, then whether it
// passed; a report counts them, and comes to cannot certify only when
// nothing else fell short.
func TestOutcomeCounts(t *testing.T) {
	pts := []Point{
		{Status: StatusCertified, Finalized: true, Pass: true},
		{Status: StatusCertified, Finalized: true},
		{Status: StatusCannotCertify, Finalized: true},
		{Status: StatusNotFinalized},
		{Status: StatusNotTrained},
	}
	want := []Outcome{OutcomePass, OutcomeFail, OutcomeCannotCertify, OutcomeNotFinalized, OutcomeNotTrained}
	for i := range pts {
		if got := pts[i].Outcome(); got != want[i] {
			t.Errorf("point %d: %v, want %v", i, got, want[i])
		}
	}
	for _, c := range []struct {
		pts  []Point
		want Outcome
		n    [5]int // passed, failed, cannot certify, not finalized, not trained
	}{
		{pts[:1], OutcomePass, [5]int{1, 0, 0, 0, 0}},
		{pts, OutcomeFail, [5]int{1, 1, 1, 1, 1}},
		{[]Point{pts[0], pts[2]}, OutcomeCannotCertify, [5]int{1, 0, 1, 0, 0}},
		{[]Point{pts[2], pts[3]}, OutcomeFail, [5]int{0, 0, 1, 1, 0}},
	} {
		r := Report{Points: c.pts}
		r.count()
		got := [5]int{r.Passed, r.Failed, r.CannotCertify, r.NotFinalized, r.NotTrained}
		if got != c.n || r.Outcome() != c.want || r.Pass != (c.want == OutcomePass) {
			t.Errorf("%d points: counts %v, %v (pass %v); want %v, %v", len(c.pts), got, r.Outcome(), r.Pass, c.n, c.want)
		}
	}
}

// TestReportVerdict: a report's verdict is nil when it passes, else an error
// with its outcome that counts thresholds of a directory or points of
// privatizer files.
func TestReportVerdict(t *testing.T) {
	pass := Point{Status: StatusCertified, Finalized: true, Pass: true}
	fail := Point{Status: StatusCertified, Finalized: true}
	cannot := Point{Status: StatusCannotCertify, Finalized: true}
	for _, c := range []struct {
		pts  []Point
		dir  string
		want Outcome
		msg  string
	}{
		{[]Point{pass}, "d", OutcomePass, ""},
		{[]Point{pass, fail}, "d", OutcomeFail, "certification of d failed: 1 of 2 thresholds pass (1 fail, 0 not finalized, 0 not trained)"},
		{[]Point{pass, fail}, "", OutcomeFail, "certification failed: 1 of 2 points pass"},
		{[]Point{pass, cannot}, "d", OutcomeCannotCertify, "certification of d: 1 of 2 thresholds cannot be certified soundly (1 pass)"},
		{[]Point{pass, cannot}, "", OutcomeCannotCertify, "cannot certify: 1 of 2 points cannot be certified soundly (1 pass)"},
	} {
		r := &Report{Points: c.pts}
		r.count()
		err := r.Verdict(c.dir)
		var ve *VerdictError
		switch {
		case c.want == OutcomePass && err != nil:
			t.Errorf("%v: %v, want nil", c.pts, err)
		case c.want != OutcomePass && (!errors.As(err, &ve) || ve.Outcome != c.want || err.Error() != c.msg):
			t.Errorf("%v in %q: %v, want %v %q", c.pts, c.dir, err, c.want, c.msg)
		}
	}
}
