// Package data reads a user's own samples for mmds train data: a CSV file
// whose columns are the private X, the reconstructor's side information Y
// and each adversary's Z_i, chosen by name (Section II with an unknown
// law: only samples of (X, Y, Z_1..Z_K) are known).
//
// # The file
//
// Parse is strict: a header of distinct, non-empty names, then one decimal
// number per column and row; an empty cell, NaN, an infinity, a word, a
// ragged row, a byte-order mark or an empty file is an *Error naming the
// row, the line, the column and an excerpt of the value. A column in use
// that is constant is an error too (it carries no information).
//
// # Discrete and continuous columns
//
// A column is discrete when every value is an integer and it has at most
// MaxDiscreteValues (16) distinct values (Detect); otherwise continuous.
// Choice.Discrete and Choice.Continuous override the rule per column (a
// column declared discrete may hold up to MaxSymbols values of any kind).
// A discrete X is read as symbols 0..n−1, the indices of its sorted
// distinct values; an observer whose side columns are all discrete sees one
// symbol, the index of its tuple of values. ChoosePlan turns the kinds into
// losses and a training method: MSE and Algorithm 1 for a continuous X;
// 0-1 losses and the labels method against exact Bayes observers of the
// training split's empirical law when everything is discrete.
//
// # The split
//
// Section V trains on 5/6 of the rows and tests on the other 1/6. Rows are
// shuffled first (Permutation: Fisher–Yates on PCG(seed, "split")), since a
// user's file may be sorted; then the first ⌊5n/6⌋ shuffled rows train and
// the rest test. The same seed gives the same split on any machine.
//
// # The binding
//
// A results directory of such a run holds, as its model file, the Spec
// ({"data": …}): the file's path and SHA-256, its row count, the columns of
// each role with their kinds, and the split. Its hash is the run's model
// hash, so mmds verify refuses a directory whose data file changed.
package data
