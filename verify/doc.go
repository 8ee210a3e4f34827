// Package verify certifies trained privatizers against the exact optima of
// packages mip and gauss.
package verify
