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
// Deliberate differences, each a choice the paper leaves open or where the
// authors' code departs from the paper (in which case we follow the paper):
//
//   - Loss scale. The authors' code divides each squared Frobenius term by
//     its number of entries (torch's MSELoss), which is why their learning
//     rates are 1e10 and more. We use the paper's unnormalised norms.
//   - Projection. The authors' unsupervised training does not clamp A at
//     zero after a step; Algorithm 1 does, and so do we (for GD and Adam).
//   - Classifier. The authors learn B as a separate linear layer with 30
//     extra forward/backward passes per epoch. We use the paper's closed
//     form B = (Z∘Y)(S⁽ᴸ⁾)†, inside the graph; CrossEntropy trains B jointly
//     with the A matrices in the same step instead.
//   - Adam's step size is relative: each A⁽ˡ⁾'s learning rate is LR times the
//     mean entry of its initial value, so LR does not depend on the scale of
//     X or of the initialisation.
//   - Dead and collinear topics. The paper assumes every A has full column
//     rank, so that q is unique. The projection can zero a whole column of
//     an A (a dead topic): nnls gives it a zero row of S, but it is wasted,
//     so it is re-initialised to small random values; History.Resets counts
//     it. A step can also make topics (nearly) collinear, where the
//     minimiser is not unique: nnls.Solve then returns the solution
//     Lawson–Hanson would, whose support columns are independent, and
//     training differentiates on that support; it does not stop. A topic
//     exactly collinear with another (|cos| ≥ 1 − 10⁻⁹) is re-initialised
//     too (History.Collinear): in the starting A, and after a step from the
//     cosines the next forward pass's factorisations (nnls.Factor.Cosine)
//     compute anyway, that forward pass then being run again.
//   - Initialisation. Random (uniform on [0, 1)), from HNMF (HNMFInit, the
//     default: multiplicative updates from random starts), or from HNMF by
//     HALS from NNDSVDa starts (NNDSVDInit, deterministic, fastest on large
//     sparse X, but on generated dense hierarchies Adam settles in worse
//     optima from it), or the better of HNMF by multiplicative updates and
//     by HALS from the same random starts (HNMFBestInit, by the error
//     through the hierarchy; multiplicative updates can stop early far from
//     HALS's minimum on large sparse corpora, HALS lands worse on some
//     dense hierarchies). HNMFInit with InitRestarts > 1 picks, per layer, the
//     best of several HNMF starts by the error through the hierarchy. By
//     default the number of starts is sized to X: up to ten
//     where a start is cheap, one where it is most of the fit. On the
//     paper's synthetic data a single start lands in a worse local minimum
//     (two classes merged, 2-layer error 0.324 instead of 0.282) about half
//     the time, and backpropagation does not leave it; the paper's code
//     took ten starts everywhere, which on a corpus is most of the time.
//   - Safeguarded steps. Algorithm 1 takes a fixed (decaying) step. Here
//     every step, GD or Adam, is tried: if the next forward pass fails or
//     its loss is not finite or is above the largest of the last 10 accepted
//     losses (minus an Armijo decrease along the projected path, for GD),
//     the step is undone and retried with the learning rate halved (÷10 on
//     a blow-up). No learning rate makes the loss grow; History.Backtracks
//     and History.LRScale report what the safeguard did. Config.Algorithm1
//     switches the safeguard and the topic resets off and runs Algorithm 1
//     as the paper writes it.
//   - Stopping. The paper runs a fixed number of epochs. Training stops
//     when the loss fell by less than Tol (relative) over the last Window
//     epochs (defaults 1e-4 and 10, scikit-learn's tolerance), or after
//     Epochs epochs; History.Stopped says which, with the numbers. A run
//     whose loss never moved by Tol from its start is reported as "no
//     progress", not "converged": after an HNMF start on large sparse text
//     this is the usual outcome, the start being already near a stationary
//     point of the loss.
//   - Training metrics. History.Accuracy counts only the columns whose
//     labels training used (Supervision.Known); HeldOutAccuracy scores the
//     labelled columns that were not known.
package neuralnmf
