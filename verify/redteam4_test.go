package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/data"
	"github.com/mmds-project/mmds/learn"
	"github.com/mmds-project/mmds/learn/learntest"
	"github.com/mmds-project/mmds/model"
	"github.com/mmds-project/mmds/rundir"
	"github.com/mmds-project/mmds/verify/verifytest"
)

// finitePaperBinary is the paper's binary model written as a finite model.
const finitePaperBinary = `{"prior": [0.46, 0.54], "reconstructor": {"channel": [[0.8, 0.2], [0.2, 0.8]]},
 "adversaries": [{"channel": [[0.56, 0.44], [0.44, 0.56]]}]}`

// Attack: results.json names its model twice, at the top ("model") and in
// the bound configuration ("config"."model"). verify read the kind from the
// top, which no hash covers, so a directory could be certified as one kind
// of model while its bound configuration says it was trained on another.
// The two must agree.
func TestRedTeam4KindMismatchRefused(t *testing.T) {
	dir := t.TempDir()
	net := learntest.ConstantNet(0.9, 0.8)
	res := verifytest.Synthetic(t, dir, model.Binary, 0.01, []verifytest.Point{{D: 0.1, Priv: &net, Recon: 0.1, Adv: []float64{0.3}}})
	m, err := model.ParseAs(model.Finite, []byte(finitePaperBinary))
	if err != nil {
		t.Fatal(err)
	}
	h, err := model.Hash(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.ModelFile), []byte(finitePaperBinary), 0o644); err != nil {
		t.Fatal(err)
	}
	// A labels-method point (a channel), which either kind certifies.
	res.Config.Method = learn.MethodLabels
	res.Points[0].Networks, res.Points[0].NetworksEpoch = nil, -1
	res.Points[0].Channel = [][]float64{{0.9, 0.1}, {0.2, 0.8}}
	res.Model, res.Config.ModelSHA256 = model.Finite, h // config.model stays "binary"
	verifytest.WriteResults(t, dir, res)
	_, err = Load(context.Background(), dir)
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "config.model") {
		t.Errorf("results.json with \"model\" finite and config.model binary: %v, want ErrInput naming config.model", err)
	}
}

// Attack: a run on a user's data binds its CSV by path and SHA-256 in
// model.json, both the author's to write. Naming a file of the reviewer's
// (a key) made mmds verify parse it as CSV before comparing its hash, and
// the parse error quoted its first line. The recorded path is no longer
// opened at all (only its base name is looked up inside the directory,
// TestDataRunReadsOnlyItsFolder), so nothing of the key is read.
func TestRedTeam4DataRunQuotesNoForeignFile(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("ssh-rsa AAAASECRETKEYMATERIAL\nline2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A spec bound to a hash that is not the secret's (the author cannot
	// know it), naming the secret's path.
	spec := fmt.Sprintf(`{"data":{"csv":%q,"sha256":"%064d","rows":60,"private":{"name":"x","kind":"discrete"},`+
		`"reconstructor":[{"name":"y","kind":"discrete"}],"adversaries":[[{"name":"z","kind":"discrete"}]],"split":{"seed":1,"train":50,"test":10}}}`, secret, 0)
	s, err := data.DecodeFile([]byte(spec), "model.json")
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Hash()
	if err != nil {
		t.Fatal(err)
	}
	res := &learn.Results{Model: model.Finite}
	res.Config.Model, res.Config.ModelSHA256, res.Config.D = model.Finite, h, []float64{0.1}
	res.Config.Method, res.Config.TrainSize, res.Config.TestSize = learn.MethodLabels, 50, 10
	if err := os.WriteFile(filepath.Join(dir, rundir.ModelFile), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	verifytest.WriteResults(t, dir, res)
	_, err = OpenDir(context.Background(), DirRequest{Dir: dir})
	if !errors.Is(err, ErrNoDataFile) || strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "ssh-rsa") {
		t.Errorf("a data run naming another file: %v; want ErrNoDataFile quoting nothing of the file", err)
	}
}
