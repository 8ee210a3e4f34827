// Package figure draws mmds's figures with gonum.org/v1/plot: the paper's
// Figure 2 (Gaussian data model) and Figure 3 (binary data model), adversarial
// loss against reconstructor distortion, with the exact optimum curves of
// Propositions 1 and 2 drawn as lines and learned points as markers.
//
// The package only draws: a Spec holds finished data (series of x, y pairs,
// labels, marker styles), built by package verify from the exact optima and
// a certified results directory, or by the mmds command from an optimum
// sweep. Write chooses PNG or SVG from the file name's extension and writes
// atomically (internal/report).
package figure
