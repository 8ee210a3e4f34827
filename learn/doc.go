// Package learn implements the paper's data-driven baseline (Section IV,
// Algorithm 1): small MLPs trained with Adam or RAdam, alternating privatizer,
// reconstructor and adversary updates, and the selection protocol of Section V.
package learn
