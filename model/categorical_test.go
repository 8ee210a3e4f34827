package model

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/mmds-project/mmds/mip"
	"github.com/mmds-project/mmds/network"
	"github.com/mmds-project/mmds/privatizer"
)

// A categorical network, or one that takes x one-hot, is a finite X's
// privatizer: the Gaussian model refuses it before any work, and the finite
// and binary models refuse a one-hot x over another alphabet than theirs.
func TestCheckPrivatizerCategorical(t *testing.T) {
	cat := &network.Network{Name: "cat", Inputs: []string{"x=0", "x=1", "r"}, Precision: network.Float64,
		Layers: []network.Layer{{W: [][]float64{{1, 0, 0}, {0, 1, 0}}, B: []float64{0, 0}, Act: network.Softmax}}}
	if err := cat.Validate(); err != nil {
		t.Fatal(err)
	}
	f := privatizer.File{Format: privatizer.FormatNetworkJSON, Network: cat}
	g, err := Paper(Gauss)
	if err != nil {
		t.Fatal(err)
	}
	fin, err := mip.RandomFinite(rand.New(rand.NewPCG(1, 2)), 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Model{g, NewFinite(fin)} {
		if err := m.CheckPrivatizer(f); !errors.Is(err, privatizer.ErrInput) {
			t.Errorf("%v model: %v, want privatizer.ErrInput", m.Kind(), err)
		}
	}
	b, err := Paper(Binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CheckPrivatizer(f); err != nil {
		t.Errorf("binary model, one-hot x over 2 values: %v", err)
	}
}
