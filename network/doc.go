// Package network holds the one network type of mmds: a privatizer
// k(x, r) as a multilayer perceptron whose noise input r ~ N(0, 1) is
// independent of X and of every side variable (Algorithm 1's r_j).
package network
