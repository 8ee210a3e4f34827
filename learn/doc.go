// Package learn implements the paper's data-driven baseline (Section IV,
// Algorithm 1): small MLPs trained with Adam or RAdam, alternating privatizer,
// reconstructor and adversary updates, and the selection protocol of Section V,
// run as parallel, deterministic, resumable sweeps over distortion thresholds.
//
// # Networks
//
// Every network is an MLP (In → Hidden ReLU units → 1 output): the privatizer
// k(x, r), the reconstructor g(f, y) and adversary i's h_i(f, z_i), where y
// and z_i may be vectors. The output is the identity for the Gaussian model and
// a sigmoid for the binary model. Weights and biases start as PyTorch's
// default nn.Linear: U(−1/√fan_in, 1/√fan_in). Forward and backward passes are
// written out over preallocated feature-major buffers (no autodiff), in AVX2
// assembly on amd64 with a bit-identical portable Go fallback.
//
// # Algorithm 1
//
// One iteration on minibatches of M rows (each step draws its own minibatch):
//
//  1. Privatizer (lines 6–15), g and h_i frozen, gradients flowing through them
//     into f and on into θ_k:
//     L_priv = −min_i L_adv,i + ρ/2 ((L_recon − D)⁺ + (D − L_recon)⁺)   (eq. (priv_loss))
//  2. Reconstructor (lines 16–21), k frozen: descend on L_recon of g(f, y).
//  3. Adversary i = 1..K (lines 23–30), k frozen: descend on L_adv,i of h_i(f, z_i).
//
// Gaussian model (Section V-A): f = k(x, r), L = mean squared error, Adam with
// learning rate 0.001, ρ = 1000. Binary model (Section V-B): p̂ = k(x, r) and
// f ~ Bernoulli(p̂); L = mean(x(1 − x̂) + (1 − x)x̂), the differentiable 0-1
// loss; in the privatizer step the reconstructor receives p̂ in place of f so
// gradients flow, the adversaries receive the sampled f — whose derivative in
// θ_k is zero, so the adversarial term does not move the privatizer (the
// paper's practical compromise); RAdam with η(D) = η0 (1 + γ D/DMax), η0 =
// 0.01, γ = −0.98, multiplied by 5, 2 and 1 for the privatizer,
// reconstructor and adversaries; ρ = 1.
//
// # Optimizers
//
// Adam and RAdam follow torch.optim.Adam and torch.optim.RAdam (β = (0.9,
// 0.999), ε = 1e-8): RAdam takes the rectified adaptive step only when the
// length of the approximated SMA ρ_t = ρ∞ − 2tβ2^t/(1 − β2^t) exceeds 5, and a
// plain momentum step before. See Optimizer.
//
// # Selection
//
// After every epoch the networks are evaluated on the test split. For each D
// in increasing order, trials are offered in order to the protocol (Select):
// per trial the last K epochs with L_recon ∈ [D − τ, D] are kept and the one
// with the lower-median mean adversarial loss represents the trial; a trial is
// accepted when each adversary's loss strictly exceeds that of the previous
// D's finalized point; after Accept accepted trials the one whose mean
// adversarial loss is the lower median is finalized; MaxAttempts caps the
// trials per D.
//
// # The labels method
//
// On a model with a finite X (Config.Method = MethodLabels) the privatizer
// is a softmax over a codebook of M labels per value of x, so its release is
// exactly the channel P(l | x), and every observer is the exact Bayes rule
// for (label, side value) under the model's law (Config.Law) or the
// training split's: its loss R(P) = Σ_{l,v} min_a Σ_x π(x) W(v|x) L(x, a)
// P(l|x) is the exact expectation over the labels, no label is sampled, and
// it is the loss mmds verify certifies. The logits descend on
// −softmin_i R_adv,i + ρ (R_recon − D′)⁺ with Adam, the observers' decisions
// annealed from soft to exact; each trial is a restart and the protocol
// finalizes the best one (Protocol.Finalize). See LabelConfig.
//
// On the Gaussian model the privatizer is a table of logits per cell of x
// (cells of width LabelConfig.CellWidth·σ_X, tails included), its release
// a cell kernel K[j][l] = P(F = l | X ∈ c_j), and every observer the exact
// MMSE estimator from (label, side information), whose loss of the kernel
// and its gradient come from Config.Cells (package gauss's KernelGrid,
// at Gauss–Hermite order 64 for training, 256 for the record). The recorded
// kernel is what mmds verify certifies by gauss.KernelLosses. Where the
// cells of width w = √(12·Floor·D) are finer than CellWidth·σ_X (small D,
// LabelConfig.Fine), the privatizer is instead the periodic labelling
// j ↦ j mod P on that fine grid — X mod Δ quantized, Δ = P·w — with P
// found by a pattern search on the certified value.
//
// # Sweeps
//
// NewTraining prepares a run on a data model (a Source: package model's
// kinds): it draws the dataset, binds the run to the model's encoding and
// gives the observers the model's law. Sweep runs trials on Config.Workers goroutines with seeds TrialSeed(seed,
// d, t), so results are bit-identical for any worker count, writes each
// trial to its own JSON file and results.json into Config.Dir (a results
// directory, package rundir, locked while the sweep runs), and resumes
// from them. docs/learn.md describes the results directory and our readings
// of the paper's ambiguities.
package learn
