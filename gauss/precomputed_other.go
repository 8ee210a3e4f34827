//go:build !amd64 || amd64.v3

package gauss

// Builds that may fuse multiply-adds evaluate: their bits can differ from
// the table's (precomputed.go).
const precomputedBuild = false

var precomputedModels []precomputedModel
