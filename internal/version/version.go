// Package version reports the version of the running mmds build: the
// module version, or the VCS revision the binary was built from.
package version

import (
	"runtime/debug"
)

// revision is set by the Makefile (-ldflags -X) to `git describe --always
// --dirty`, for builds where Go's own VCS stamping is off (-buildvcs=false).
var revision string

// String returns the module version ("v1.2.3", or "(devel)" for a build from
// a checkout) followed by the VCS revision and "+dirty" when the checkout
// had uncommitted changes, e.g. "(devel) 5f05a39c1b2d+dirty".
func String() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	switch {
	case rev != "":
		v += " " + rev + dirty
	case revision != "":
		v += " " + revision
	}
	return v
}
