//go:build !amd64 || amd64.v3

package gauss

// Builds that may fuse multiply-adds evaluate the envelope's candidates:
// their bits can differ from the table's (envtable.go).
const envelopeTableBuild = false

var envelopeTables []envelopeTable
