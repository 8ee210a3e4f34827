//go:build tools

// This file pins github.com/bartolsthoorn/gohighs in go.mod and go.sum, so
// the static HiGHS library and headers that scripts/highs-pkgconfig.sh takes
// from it are checksum-verified. It is never built (its Go package does not
// link on Linux with gcc); only its library and headers are used.
package highsx

import _ "github.com/bartolsthoorn/gohighs/highs"
