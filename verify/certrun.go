package verify

import (
	"path/filepath"

	"github.com/mmds-project/mmds/rundir"
)

// NameRunFiles names, in a certificate of the results directory dir, the
// files an independent checker reads (docs/check.md, "Certificates of
// mmds verify"): the directory's model.json and results.json, relative to
// the certificate's folder certPath. With want (verify --check), the
// names are want's: --check takes the directory from its user, and the
// names are the checker's way to the files, bound by the hashes beside
// them.
func (c *Certificate) NameRunFiles(certPath, dir string, want *Certificate) {
	switch {
	case want != nil:
		c.ModelFile, c.ResultsFile = want.ModelFile, want.ResultsFile
	case certPath != "" && c.Witness != nil:
		c.ModelFile = CertFile(certPath, filepath.Join(dir, rundir.ModelFile))
		c.ResultsFile = CertFile(certPath, filepath.Join(dir, rundir.ResultsFile))
	}
}

// CertExpectTol is the error to which verify computes a network's
// expectations E_R[k(x, R)] when it writes or checks a certificate
// (model.Options.ExpectTol; network.DefaultTol, 1e-8, otherwise). The
// witness lists the cells of r each expectation was computed on, about
// 1/√tol of them: at 1e-8 the paper's binary run needs 23 million (450
// MB), at 1e-4 425,000 (8 MB); the stated error, about 1e-4, stays far
// below the verdict's limit (--tol-quad, 5e-3).
const CertExpectTol = 1e-4
