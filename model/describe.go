package model

// Description is a model's reference numbers in words, as a report prints
// them beside its verdicts: what Model.StdErr and Model.Optimum compute,
// and which optimum a verdict is set against.
type Description struct {
	// StdErr is Model.StdErr's formula and the losses it assumes.
	StdErr string
	// Optimum is what Model.Optimum computes at the certified distortion
	// D̂ and over which privatizers it is optimal.
	Optimum string
	// PaperVerdicts and BestVerdicts say which optimum verdicts are set
	// against under the paper's reference (Proposition 1 or 2) and under
	// the best one known, and what the report's other gap is.
	PaperVerdicts, BestVerdicts string
	// Wider names the report's gap to the wider optimum the reference
	// optimum carries beside it: "best" (the best known Gaussian mechanism,
	// GaussDetail.Best) or "global" (the optimum over all privatizers,
	// BinaryDetail.Global); "" where the reference optimum is already
	// over all privatizers.
	Wider string
}

// Describe implements Model.
func (GaussModel) Describe() Description {
	return Description{
		StdErr:        "SE(L) = L·√(2/n): a squared error with Gaussian errors",
		Optimum:       "Proposition 1 at the certified distortion, optimal among linear-Gaussian privatizers F = aX + bR (a non-linear privatizer may beat it: \"above optimum\")",
		PaperVerdicts: "verdicts against Proposition 1 (optimal among linear-Gaussian privatizers); \"best\": gap to the best known mechanism (docs/gauss.md)",
		BestVerdicts:  "verdicts against the best known mechanism (docs/gauss.md); \"optimum\" and \"gap\": Proposition 1, the paper's reference",
		Wider:         "best",
	}
}

// Describe implements Model.
func (BinaryModel) Describe() Description {
	return Description{
		StdErr:        "SE(L) = √(L(1−L)/n): a 0-1 test error",
		Optimum:       "Proposition 2 (HiGHS) at the certified distortion, optimal among all binary privatizers",
		PaperVerdicts: "verdicts against Proposition 2 (optimal among binary-output privatizers); \"global\": gap to the optimum over all privatizers",
		BestVerdicts:  "verdicts against the optimum over all privatizers; \"optimum\" and \"gap\": Proposition 2, the paper's reference; \"global\": gap to the optimum over all privatizers",
		Wider:         "global",
	}
}

// Describe implements Model: the reference optimum is over all
// privatizers, so both references are the same.
func (FiniteModel) Describe() Description {
	v := "verdicts against the optimum over all privatizers (the global LP; docs/finite.md)"
	return Description{
		StdErr:        "SE(L) = √(L(s−L)/n), s the largest loss: a mean of bounded losses",
		Optimum:       "the global LP over all privatizers at the certified distortion; a channel's certified losses are exact finite sums",
		PaperVerdicts: v,
		BestVerdicts:  v,
	}
}
