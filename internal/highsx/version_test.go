package highsx

import (
	"regexp"
	"testing"
)

func TestVersion(t *testing.T) {
	if v := Version(); !regexp.MustCompile(`^v?\d+\.\d+\.\d+`).MatchString(v) {
		t.Errorf("HiGHS version %q", v)
	}
}
