package main

import (
	"strings"
	"testing"
)

// mmds optimum --model FILE prints what the model kind's own command prints
// for --config FILE, whatever the kind and the format; messages name
// mmds optimum.
func TestOptimumIsTheKindsCommand(t *testing.T) {
	for _, c := range []struct {
		model string
		kind  []string // the kind's command, before --config
		rest  []string
	}{
		{"binary-paper.json", []string{"binary"}, []string{"--d", "0.15", "--format", "json"}},
		{"binary-paper.json", []string{"binary"}, []string{"--sweep", "0:0.2:3", "--format", "csv"}},
		{"finite-ternary.json", []string{"finite"}, []string{"--d", "0.1", "--format", "json"}},
		{"finite-ternary.json", []string{"finite"}, []string{"--sweep", "0:0.2:3", "--max-points", "2", "--format", "csv"}},
		{"gauss-coalition.json", []string{"gauss"}, []string{"--d", "2", "--format", "json"}},
		{"gauss-coalition.json", []string{"gauss"}, []string{"--d", "2"}},
	} {
		path := "../../examples/" + c.model
		wantCode, want, wantErr := runCLI(t, append(append(c.kind, "--config", path), c.rest...)...)
		code, got, errs := runCLI(t, append([]string{"optimum", "--model", path}, c.rest...)...)
		// Messages name the command that runs.
		wantErr = strings.ReplaceAll(wantErr, "mmds "+c.kind[0]+":", "mmds optimum:")
		if code != wantCode || !sameOutput(got, want) || errs != wantErr {
			t.Errorf("optimum --model %s %v: exit %d, stderr %q, stdout\n%s\nwant exit %d, stderr %q, stdout\n%s",
				c.model, c.rest, code, errs, got, wantCode, wantErr, want)
		}
	}
}
