// Package neuralnmf trains Neural NMF (Gao, Haddock, Molitor, Needell,
// Sadovnik, Will & Zhang, "Neural Nonnegative Matrix Factorization for
// Hierarchical Multilayer Topic Modeling").
//
// # Model
//
// Given X (N×M, nonnegative, samples as columns) and ranks k⁽⁰⁾ > … > k⁽ᴸ⁾,
// the independent variables are the matrices A⁽ˡ⁾ (k⁽ˡ⁻¹⁾×k⁽ˡ⁾, k⁽⁻¹⁾ = N);
// the S matrices are functions of them, computed by nonnegative least
// squares: S⁽⁰⁾ = q(A⁽⁰⁾, X), S⁽ˡ⁾ = q(A⁽ˡ⁾, S⁽ˡ⁻¹⁾). Train builds this
// forward pass from ops.NNLS on an autograd tape and lets the tape do the
// chain rule — there is no hand-written whole-model gradient — then updates
// the A matrices by projected gradient descent (the paper's Algorithm 1) or
// projected Adam.
//
// Losses: Reconstruction ‖X − A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾‖², or Energy
// ‖X − A⁽⁰⁾S⁽⁰⁾‖² + Σ‖S⁽ˡ⁻¹⁾ − A⁽ˡ⁾S⁽ˡ⁾‖², or KL, the generalised
// Kullback–Leibler divergence D(X ‖ A⁽⁰⁾⋯A⁽ᴸ⁾S⁽ᴸ⁾) with every layer a KL
// layer (ops.KLLayer) in place of NNLS; with Supervision, plus
// λ‖Z∘(Y − B·S⁽ᴸ⁾)‖² with B = (Z∘Y)(S⁽ᴸ⁾)† computed in the graph on every
// forward pass (the paper's closed form), or λ times a masked softmax
// cross-entropy with a trained B. Config.CustomLoss replaces all of this with
// any loss built from ops on the Forward variables.
//
// Each epoch warm-starts every NNLS layer from the previous epoch's supports.
//
// # Labels
//
// Train with Supervision trains the paper's semi-supervised model as
// configured. Choosing for the data in hand what to do with the labels
// (what `neuralnmf fit -labels` does) is package semisup's: its
// TrainChoosing was this package's until the choice moved out (the
// configuration hooks it uses are public: Config.Starts, Supervision.Head,
// Supervision.Target, Config.Phase). Model.BX and Model.Intercept hold a
// classifier that reads X; Model.Scores and Classify use them.
//
// # Differences from the paper and from the authors' code
//
// Each a choice the paper leaves open, or where the authors' code departs
// from the paper and we follow the paper (docs/differences.md has the
// reasons and numbers):
//
//   - Loss scale: the paper's unnormalised norms (the authors' code divides
//     each term by its entries, torch's MSELoss; Config.Normalize does too).
//   - Projection: A is clamped at zero after every step, as in Algorithm 1
//     (the authors' unsupervised training does not clamp).
//   - Classifier: the paper's closed form B = (Z∘Y)(S⁽ᴸ⁾)† inside the graph
//     (the authors train a separate layer); CrossEntropy trains B with the
//     A's in the same step.
//   - Adam's step is relative: LR times the mean entry of each initial A.
//   - Dead topics (an all-zero column of A) and exactly collinear ones
//     (|cos| ≥ 1 − 10⁻⁹) are re-initialised (History.Resets, Collinear);
//     nearly collinear ones are differentiated on the support nnls.Solve
//     returns, as Lawson–Hanson's.
//   - Initialisation: HNMF from random starts (HNMFInit, the default on
//     small data), HALS from NNDSVDa (NNDSVDInit, the default on large X
//     and for one layer of a sparse X), the better of both (HNMFBestInit),
//     random or given; the number of starts is sized to X by default (a
//     single start lands in a worse minimum about half the time on the
//     paper's synthetic data, and backpropagation does not leave it).
//   - Safeguarded steps: a step whose loss is not finite or rises above
//     the last 10 accepted losses is undone and retried with a smaller
//     rate (History.Backtracks, LRScale); Config.Algorithm1 runs the
//     paper's fixed-step Algorithm 1 as written.
//   - Stopping: when the loss fell by less than Tol (relative) over Window
//     epochs, or at Epochs (History.Stopped says which; "no progress" when
//     the loss never moved by Tol from its start).
//   - Training metrics: History.Accuracy counts the Known columns only;
//     HeldOutAccuracy scores the labelled columns that were not known.
package neuralnmf
