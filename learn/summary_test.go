package learn

import (
	"strings"
	"testing"

	"github.com/mmds-project/mmds/model/kind"
)

// The plan mmds train data prints names the losses of the release it
// trains: Algorithm 1 on a discrete X of three or more values trains a
// categorical release with 0-1 losses (its summary once said "MSE losses",
// the continuous X's).
func TestPlanName(t *testing.T) {
	for _, c := range []struct {
		model kind.Kind
		want  string
	}{
		{kind.Gauss, "MSE losses"},
		{kind.Binary, "binary X, soft 0-1 losses"},
		{kind.Finite, "categorical release, soft 0-1 losses"},
	} {
		got := Config{Model: c.model, Method: MethodAlg1}.PlanName()
		if !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.model, got, c.want)
		}
	}
}
