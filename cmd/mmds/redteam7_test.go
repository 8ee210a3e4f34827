package main

import (
	"strings"
	"testing"

	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/model"
)

// mmds train data --method alg1 on a discrete X of three or more values
// trains a categorical release with 0-1 losses; its summary said "MSE
// losses", the continuous X's.
func TestPlanNameCategorical(t *testing.T) {
	for _, c := range []struct {
		model model.Kind
		want  string
	}{
		{model.Gauss, "MSE losses"},
		{model.Binary, "binary X, soft 0-1 losses"},
		{model.Finite, "categorical release, soft 0-1 losses"},
	} {
		got := planName(learn.Config{Model: c.model, Method: learn.MethodAlg1})
		if !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.model, got, c.want)
		}
	}
}
