package learn

import (
	"fmt"
	"math"
)

// Method names an optimizer. The zero value is none, written "" (a
// Config without one does not resolve).
type Method int

// The optimizers of Section V: Adam for the Gaussian model, RAdam for the
// binary one.
const (
	Adam Method = iota + 1
	RAdam
)

var methodNames = optionText[Method]("Method", "optimizer", []string{Adam: "adam", RAdam: "radam"})

// String returns "adam", "radam", or "" for the zero value.
func (m Method) String() string { return methodNames.String(m) }

// MarshalText implements encoding.TextMarshaler.
func (m Method) MarshalText() ([]byte, error) { return methodNames.Marshal(m) }

// UnmarshalText implements encoding.TextUnmarshaler; an unknown name is an
// error wrapping ErrOption.
func (m *Method) UnmarshalText(b []byte) error { return methodNames.Unmarshal(m, b) }

// Optimizer is Adam (Kingma & Ba, 2015) or RAdam (Liu et al., ICLR 2020) over
// one flat parameter slice, with the arithmetic of PyTorch's torch.optim.Adam
// and torch.optim.RAdam (no weight decay, no amsgrad). At step t, with
// gradient g:
//
//	m ← m + (1−β1)(g − m)            v ← β2 v + (1−β2) g²
//	m̂ = m / (1 − β1^t)
//
//	Adam:  θ ← θ − LR · m̂ / (√v / √(1 − β2^t) + ε)
//
//	RAdam: ρ∞ = 2/(1−β2) − 1,  ρ_t = ρ∞ − 2 t β2^t / (1 − β2^t)
//	       if ρ_t > 5:  r_t = √((ρ_t−4)(ρ_t−2)ρ∞ / ((ρ∞−4)(ρ∞−2)ρ_t))
//	                    θ ← θ − LR · m̂ · r_t · √(1 − β2^t) / (√v + ε)
//	       otherwise:   θ ← θ − LR · m̂   (the un-rectified early steps)
//
// The zero value is not usable; call NewOptimizer.
type Optimizer struct {
	Method       Method
	LR           float64 // learning rate; may be changed between steps
	Beta1, Beta2 float64
	Eps          float64
	t            int
	m, v         []float64
}

// NewOptimizer returns an optimizer for n parameters with PyTorch's default
// β = (0.9, 0.999) and ε = 1e-8. It panics on an unknown method.
func NewOptimizer(method Method, lr float64, n int) *Optimizer {
	if method != Adam && method != RAdam {
		panic(fmt.Sprintf("learn: unknown optimizer %v", method))
	}
	return &Optimizer{
		Method: method, LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8,
		m: make([]float64, n), v: make([]float64, n),
	}
}

// Steps returns the number of steps taken.
func (o *Optimizer) Steps() int { return o.t }

// Step updates params in place from grad. It allocates nothing.
func (o *Optimizer) Step(params, grad []float64) {
	if len(params) != len(o.m) || len(grad) != len(o.m) {
		panic(fmt.Sprintf("learn: optimizer for %d parameters got %d params, %d gradients", len(o.m), len(params), len(grad)))
	}
	o.t++
	t := float64(o.t)
	b1, b2 := o.Beta1, o.Beta2
	bc1 := 1 - math.Pow(b1, t)
	bc2 := 1 - math.Pow(b2, t)
	m, v := o.m[:len(params)], o.v[:len(params)]
	grad = grad[:len(params)]
	// Every product is rounded before it is added (the float64
	// conversions keep the compiler from fusing at GOAMD64=v3), so the
	// vector kernels of optim_amd64.s, which round the same way, give the
	// same bits.
	c1, c2 := 1-b1, 1-b2
	k0 := momentsKernel(m, v, grad, c1, b2, c2)
	for k := k0; k < len(grad); k++ {
		g := grad[k]
		m[k] += float64(c1 * (g - m[k]))
		v[k] = float64(b2*v[k]) + float64(float64(c2*g)*g)
	}
	switch o.Method {
	case Adam:
		step := o.LR / bc1
		sbc2 := math.Sqrt(bc2)
		for k := adamKernel(params, m, v, step, sbc2, o.Eps); k < len(params); k++ {
			params[k] -= step * m[k] / (math.Sqrt(v[k])/sbc2 + o.Eps)
		}
	case RAdam:
		rhoInf := 2/(1-b2) - 1
		rhoT := rhoInf - 2*t*math.Pow(b2, t)/bc2
		if rhoT > 5 {
			rect := math.Sqrt((rhoT - 4) * (rhoT - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rhoT))
			sbc2 := math.Sqrt(bc2)
			for k := radamKernel(params, m, v, bc1, o.LR, sbc2, o.Eps, rect); k < len(params); k++ {
				params[k] -= float64(float64(float64(m[k]/bc1*o.LR)*(sbc2/(math.Sqrt(v[k])+o.Eps))) * rect)
			}
		} else {
			for k := range params {
				params[k] -= float64(m[k] / bc1 * o.LR)
			}
		}
	}
}
