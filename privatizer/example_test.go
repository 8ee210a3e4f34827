package privatizer_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
)

// A channel with three outputs on the paper's binary model: exact MAP losses.
func ExampleChannel_BinaryLosses() {
	c, err := privatizer.ParseChannelJSON(strings.NewReader(`{"channel": [[0.7, 0.2, 0.1], [0.05, 0.15, 0.8]]}`), "channel.json")
	if err != nil {
		panic(err)
	}
	l, err := c.BinaryLosses(mip.PaperBinary())
	if err != nil {
		panic(err)
	}
	fmt.Printf("recon %.4f, adversary %.4f\n", l.Recon, l.MinAdv)
	// Output:
	// recon 0.1076, adversary 0.1491
}

// A two-hidden-layer ReLU network exported from PyTorch to ONNX: the channel
// it releases, E_R[k(x, R)], is exact (a sum over its activation regions).
func ExampleNetworkBinaryLosses() {
	ctx := context.Background()
	data, err := os.ReadFile("testdata/relu2-binary.onnx")
	if err != nil {
		panic(err)
	}
	n, err := network.ParseONNX(data, "relu2-binary.onnx")
	if err != nil {
		panic(err)
	}
	r, err := privatizer.NetworkBinaryLosses(ctx, n, mip.PaperBinary(), privatizer.DefaultTol)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v: %d and %d pieces, exact %v\n", n, r.Rows[0].Pieces, r.Rows[1].Pieces, r.Exact)
	fmt.Printf("s0 %.6f s1 %.6f: recon %.6f, adversary %.6f\n", r.S0(), r.S1(), r.Losses.Recon, r.Losses.MinAdv)
	// Output:
	// 2→8 relu→8 relu→1 identity→2 relu→1 identity: 13 and 13 pieces, exact true
	// s0 0.717614 s1 0.359105: recon 0.200000, adversary 0.427420
}
