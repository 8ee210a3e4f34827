package learn

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mmds-project/mmds/model/kind"
)

// textEnum is one of Config's option enums, through a pointer.
type textEnum interface {
	fmt.Stringer
	encoding.TextMarshaler
	encoding.TextUnmarshaler
}

// Every option's values read back as themselves, the default as "";
// an unknown name or an integer that is no value is an error wrapping
// ErrOption that names the field and the valid names.
func TestOptionText(t *testing.T) {
	pg, el, sl, fr, m := PrivGrad(0), EstLoss(0), SelectLosses(0), FinalizeRule(0), Method(0)
	for _, c := range []struct {
		v     textEnum
		set   func(int)
		names []string // by value
		field string
		want  string
	}{
		{&pg, func(i int) { pg = PrivGrad(i) }, []string{"", "expect"}, "priv_grad", `"" or expect`},
		{&el, func(i int) { el = EstLoss(i) }, []string{"", "log"}, "est_loss", `"" or log`},
		{&sl, func(i int) { sl = SelectLosses(i) }, []string{"", "hard"}, "select", `"" or hard`},
		{&fr, func(i int) { fr = FinalizeRule(i) }, []string{"", "best"}, "finalize", `"" or best`},
		{&m, func(i int) { m = Method(i) }, []string{"", "adam", "radam"}, "optimizer", `"", adam or radam`},
	} {
		for i, name := range c.names {
			c.set(i)
			b, err := c.v.MarshalText()
			if err != nil || string(b) != name || c.v.String() != name {
				t.Errorf("%s %d: MarshalText %q, %v; String %q", c.field, i, b, err, c.v.String())
			}
			c.set(-1)
			if err := c.v.UnmarshalText([]byte(name)); err != nil || c.v.String() != name {
				t.Errorf("%s: UnmarshalText(%q) = %v, %v", c.field, name, c.v, err)
			}
		}
		for _, bad := range []string{"Best", "median", " hard", "adam ", "sgd", strings.Repeat("x", 100)} {
			c.set(1)
			err := c.v.UnmarshalText([]byte(bad))
			want := fmt.Sprintf("learn: unknown option value: %s %q: want %s", c.field, bad, c.want)
			if len(bad) > 40 {
				want = fmt.Sprintf("learn: unknown option value: %s %q…: want %s", c.field, bad[:40], c.want)
			}
			if !errors.Is(err, ErrOption) || err.Error() != want || c.v.String() != c.names[1] {
				t.Errorf("%s: UnmarshalText(%.10q) = %v, left %v; want %s", c.field, bad, err, c.v, want)
			}
		}
		c.set(len(c.names))
		if _, err := c.v.MarshalText(); !errors.Is(err, ErrOption) {
			t.Errorf("%s: MarshalText(%d) = %v, want ErrOption", c.field, len(c.names), err)
		}
	}
}

// legacyConfig is Config's JSON shape as it was while its options were
// strings: results.json's "config" and its binding hash were written in
// it, and the typed options must keep it byte for byte.
type legacyConfig struct {
	Model           kind.Kind      `json:"model"`
	ModelSHA256     string         `json:"model_sha256"`
	D               []float64      `json:"d"`
	DMax            float64        `json:"d_max"`
	Hidden          int            `json:"hidden"`
	BatchSize       int            `json:"batch_size"`
	BatchesPerEpoch int            `json:"batches_per_epoch"`
	Epochs          int            `json:"epochs"`
	TrainSize       int            `json:"train_size"`
	TestSize        int            `json:"test_size"`
	Rho             float64        `json:"rho"`
	Optimizer       string         `json:"optimizer"`
	LR              float64        `json:"lr"`
	PrivLRMult      float64        `json:"priv_lr_mult"`
	ReconLRMult     float64        `json:"recon_lr_mult"`
	AdvLRMult       float64        `json:"adv_lr_mult"`
	LRGamma         float64        `json:"lr_gamma"`
	PrivGrad        string         `json:"priv_grad,omitempty"`
	EstLoss         string         `json:"est_loss,omitempty"`
	Protocol        legacyProtocol `json:"protocol"`
	Method          TrainMethod    `json:"method,omitempty"`
	Labels          *LabelConfig   `json:"labels,omitempty"`
	Seed            uint64         `json:"seed"`
}

type legacyProtocol struct {
	K           int     `json:"k"`
	Tau         float64 `json:"tau"`
	Accept      int     `json:"accept"`
	MaxAttempts int     `json:"max_attempts"`
	Select      string  `json:"select,omitempty"`
	Finalize    string  `json:"finalize,omitempty"`
}

func legacy(c Config) legacyConfig {
	p := c.Protocol
	return legacyConfig{Model: c.Model, ModelSHA256: c.ModelSHA256, D: c.D, DMax: c.DMax, Hidden: c.Hidden,
		BatchSize: c.BatchSize, BatchesPerEpoch: c.BatchesPerEpoch, Epochs: c.Epochs, TrainSize: c.TrainSize,
		TestSize: c.TestSize, Rho: c.Rho, Optimizer: c.Optimizer.String(), LR: c.LR, PrivLRMult: c.PrivLRMult,
		ReconLRMult: c.ReconLRMult, AdvLRMult: c.AdvLRMult, LRGamma: c.LRGamma, PrivGrad: c.PrivGrad.String(),
		EstLoss: c.EstLoss.String(), Method: c.Method, Labels: c.Labels, Seed: c.Seed,
		Protocol: legacyProtocol{K: p.K, Tau: p.Tau, Accept: p.Accept, MaxAttempts: p.MaxAttempts,
			Select: p.Select.String(), Finalize: p.Finalize.String()}}
}

// Every preset's configuration (the defaults omitted, the departures of
// the binary quick preset and the labels method's FinalizeBest written) is
// written as the string options wrote it, and reads back as itself.
func TestConfigJSONShape(t *testing.T) {
	cases := map[string]Config{"zero": {Model: kind.Gauss}}
	for _, k := range kind.All() {
		for _, m := range []TrainMethod{MethodAlg1, MethodLabels} {
			for _, name := range []PresetName{PresetPaper, PresetQuick} {
				if c, err := PresetFor(name, k, m, 0); err == nil {
					c.D, c.DMax, c.Seed = []float64{0.1, 0.2}, 0.25, 3
					cases[fmt.Sprintf("%v %v %s", k, m, name)] = c
				}
			}
		}
	}
	seen := map[string]bool{}
	for name, c := range cases {
		got, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, _ := json.Marshal(legacy(c))
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
		for _, key := range []string{`"priv_grad":"expect"`, `"est_loss":"log"`, `"select":"hard"`, `"finalize":"best"`, `"optimizer":""`} {
			seen[key] = seen[key] || bytes.Contains(got, []byte(key))
		}
		var back Config
		if err := json.Unmarshal(got, &back); err != nil || back.Optimizer != c.Optimizer || back.PrivGrad != c.PrivGrad ||
			back.EstLoss != c.EstLoss || back.Protocol != c.Protocol {
			t.Errorf("%s: read back %+v, %v", name, back, err)
		}
	}
	for key, ok := range seen {
		if !ok {
			t.Errorf("no preset writes %s", key)
		}
	}
}

// A results.json whose option names no value is refused at load, with
// the field named and the error wrapping ErrOption.
func TestDecodeResultsOption(t *testing.T) {
	c, err := Preset(PresetQuick, kind.Binary)
	if err != nil {
		t.Fatal(err)
	}
	c.D, c.DMax = []float64{0.1}, 0.2
	good, err := json.Marshal(Results{Model: kind.Binary, Config: c, Points: []DResult{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeResults(good, "results.json"); err != nil {
		t.Fatalf("the quick preset's results: %v", err)
	}
	for _, bad := range []struct{ old, new, want string }{
		{`"select":"hard"`, `"select":"soft"`, `field "config.protocol.select": learn: unknown option value: select "soft": want "" or hard`},
		{`"k":5`, `"k":5,"finalize":"worst"`, `field "config.protocol.finalize": learn: unknown option value: finalize "worst": want "" or best`},
		{`"priv_grad":"expect"`, `"priv_grad":"Expect"`, `field "config.priv_grad": learn: unknown option value: priv_grad "Expect": want "" or expect`},
		{`"est_loss":"log"`, `"est_loss":"mse"`, `field "config.est_loss": learn: unknown option value: est_loss "mse": want "" or log`},
		{`"optimizer":"radam"`, `"optimizer":"sgd"`, `field "config.optimizer": learn: unknown option value: optimizer "sgd": want "", adam or radam`},
		{`"select":"hard"`, `"select":1`, `field "config.protocol.select": cannot use JSON number as a string`},
	} {
		b := bytes.Replace(good, []byte(bad.old), []byte(bad.new), 1)
		if bytes.Equal(b, good) {
			t.Fatalf("%s is not in %s", bad.old, good)
		}
		_, err := DecodeResults(b, "results.json")
		want := "results.json: not a valid results file: " + bad.want
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v\nwant %s", bad.new, err, want)
		}
		if strings.Contains(bad.want, "unknown option") && !errors.Is(err, ErrOption) {
			t.Errorf("%s: %v does not wrap ErrOption", bad.new, err)
		}
	}
}
