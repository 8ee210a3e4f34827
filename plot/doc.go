// Package plot draws every figure of mmds with gonum.org/v1/plot: the
// paper's Figure 2 (Gaussian data model) and Figure 3 (binary data model)
// for a certified results directory or privatizers trained elsewhere, the
// exact curves of mmds binary --plot and mmds gauss --plot, and the solver
// benchmark's scaling plot and performance profile.
//
// Figures 2 and 3 draw the adversarial loss against the reconstructor's
// distortion D: the exact optimum of the paper's privatizer class as a line
// (Proposition 1, F = aX + bR, for each adversary; Proposition 2's γ*(D)
// over binary-output privatizers) and the learned and certified points as
// markers.
//
// A Spec holds a finished figure (series of (x, y) pairs, labels, marker
// styles); the builders in this package lay out the data handed to them (a
// sweep's model.Curves, a verify.Report) beside the model's optima
// (model.Model.Optimum; plot imports no solver package), and Write renders
// a Spec as PNG or SVG by the file name's extension, atomically
// (internal/report).
package plot
