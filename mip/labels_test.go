package mip

import (
	"encoding"
	"errors"
	"testing"
)

// Every label round-trips through its text, and text that is none wraps
// ErrUnknownLabel.
func TestLabelsText(t *testing.T) {
	type label interface {
		encoding.TextMarshaler
		String() string
	}
	for _, tc := range []struct {
		v    label
		text string
		back func([]byte) (label, error)
	}{
		{MethodRays, "rays", func(b []byte) (label, error) { var v Method; return v, v.UnmarshalText(b) }},
		{AlgorithmColGen, "column generation", func(b []byte) (label, error) { var v Algorithm; return v, v.UnmarshalText(b) }},
		{AlgorithmFixedMIP, "fixed MIP", func(b []byte) (label, error) { var v Algorithm; return v, v.UnmarshalText(b) }},
		{PricingExact, "exact", func(b []byte) (label, error) { var v Pricing; return v, v.UnmarshalText(b) }},
		{ProofDecisionRulesStopped, "decision rules (search stopped; largest open bound)", func(b []byte) (label, error) { var v Proof; return v, v.UnmarshalText(b) }},
	} {
		b, err := tc.v.MarshalText()
		if err != nil || string(b) != tc.text || tc.v.String() != tc.text {
			t.Errorf("%v: text %q (%v), want %q", tc.v, b, err, tc.text)
		}
		if _, err := tc.back([]byte(tc.text + "x")); !errors.Is(err, ErrUnknownLabel) {
			t.Errorf("%q: error %v, want ErrUnknownLabel", tc.text+"x", err)
		}
	}
	var a Algorithm
	if err := a.UnmarshalText([]byte("column generation")); err != nil || a != AlgorithmColGen {
		t.Errorf("column generation: %v, %v", a, err)
	}
	if _, err := Proof(9).MarshalText(); !errors.Is(err, ErrUnknownLabel) || Proof(9).String() != "Proof(9)" {
		t.Errorf("Proof(9): %v, %s", err, Proof(9))
	}
	var m Method
	if err := m.UnmarshalText([]byte("colgen")); err != nil || m != MethodColGen {
		t.Errorf("colgen: %v, %v", m, err)
	}
}
