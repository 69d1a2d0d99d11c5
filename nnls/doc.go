// Package nnls solves nonnegative least-squares problems with many right-hand
// sides to working precision, certifies each solution, and differentiates
// it: it is the forward and backward pass of the q(A, X) layer of Neural NMF,
// usable with or without an autograd tape (ops.NNLS wraps it).
//
// # Problem
//
// For A (N×k) and X (N×M) of any sign, shape and rank, Solve returns
//
//	S = argmin_{S ≥ 0} ‖X − A·S‖_F    (column by column)
//
// On each column's support T = {i : S_i > 0} the support columns of A are
// linearly independent and S_T = (A_TᵀA_T)⁻¹·A_Tᵀ·x. Where the minimiser is
// not unique (dependent columns: duplicates, k > N, rank-deficient A), Solve
// returns one with that property, as Lawson–Hanson does, so that the backward
// pass is defined on its support; which one is an implementation detail. A
// zero column of A gets a zero row of S. The solver needs no sign
// condition: the nonnegativity of data is the models' requirement, and they
// check it.
//
// # Algorithm
//
// Once per A: the nonzero columns are scaled to unit norm (scaling a column
// only rescales a row of S, and it makes the conditioning the one that
// matters), and the scaled Ã is factorised as Ã = Q·R by Householder QR
// (by blocks of rows on all cores when Ã is tall with 32 or more columns),
// or, when A is tall (2048 rows or more) and narrow (fewer than 32
// columns) and cond(Ã) is small enough for its error bounds to be
// Householder's (below a few thousand at 45,534×10), by CholeskyQR2 on all
// cores, about three times as fast there (Q is then kept as Q₁·R₂⁻¹; the
// same from 600 rows and 16 rows a column for 32 columns or more where the
// blocked QR does not fit). For a prepared X (Data), solved every epoch
// against an A that changes a little, the factorisation starts from the
// previous A's R: Q₁ = A·(R·D)⁻¹ is then nearly orthonormal, the first
// pass (AᵀA) is skipped, and the result is accepted only if the computed
// ‖Q₁ᵀQ₁ − I‖_F ≤ 1/16, the condition under which CholeskyQR2's second pass
// has Householder's guarantees; else both passes run. With a sparse X,
// QᵀX is formed inside that pass (Data). Each
// column is then the k-row problem min ‖d − R·s‖ with d = Qᵀx, which has
// the same solution; QᵀX costs the same GEMM as AᵀX, done in column chunks
// on all cores, and cond(R) = cond(Ã). Every column is solved on one of two
// paths:
//
//   - The Gram path, when cond(R) ≤ 10⁶ (RCond ≥ 10⁻⁶): block principal
//     pivoting (Kim & Park, SIAM J. Sci. Comput. 2011) on G = RᵀR, seeded
//     from the signs of the unconstrained solution R⁻¹d or a previous
//     support (Options.Warm); each subproblem is solved by Cholesky of G_FF
//     or, when cond(R) ≤ 10⁴ and the active set is the smaller one, in the
//     Schur form through H = G⁻¹. The solution is then refined with
//     multipliers formed from R, not from G (corrected semi-normal
//     equations), until the correction falls below cond(R)·ε: its error
//     grows like cond(A), not cond(A)².
//   - Lawson–Hanson (Lawson & Hanson 1974, ch. 23) on R itself, with each
//     subproblem solved by QR of R_P, for every column when cond(R) > 10⁶, A
//     has dependent columns or k > N, and for any column whose Gram-path
//     solution is not certified. As in scipy, a column with a positive
//     multiplier joins the passive set if it is independent of those
//     already there (distance above 100ε) and the subproblem gives it a
//     positive coefficient; the passive set never grows beyond A's
//     numerical rank (Factor.Rank: singular values above max(N, k)·ε·σ_max),
//     where every further column is dependent to working precision.
//     Coefficients at the level of rounding are pruned at the end.
//
// # Certificate
//
// Every column's solution s, with support F, is accepted only if the
// multipliers y = Rᵀ(d − R·s), formed from R, satisfy
//
//	on F:   s_i > 0 and |y_i| ≤ τ_F·((|R|ᵀ(|d| + |R|·s))_i + ‖d‖ + √k·‖s‖)
//	off F:  s_i = 0 and y_i ≤ τ·(b_i + ‖d‖)
//
// The first bound is the backward error a least-squares solve on F leaves,
// with the worst-case constant τ_F = 4(p + k + 2)·ε (it accumulates over the
// solve, and stationarity on F is not what tells a wrong support apart).
// b_i bounds the rounding error of forming y_i: b = |R|ᵀ(|d| + |R|·s), or,
// when d − R·s cancels (s large against d, i.e. ill-conditioning), the
// residual is formed again with compensated products and sums (FMA) and
// b = |R|ᵀ(|d − R·s| + ε·(|d| + |R|·s)), as small as the residual itself.
// The ‖d‖ term is the error R and d carry from the QR reduction and QᵀX.
// τ = 2·√(p + k + 2)·ε by default (p = min(N, k); Options.Tol), the
// probabilistic bound on accumulated rounding (Higham & Mary, SIAM J. Sci.
// Comput. 2019). A support that is wrong by more than working precision can
// resolve leaves a variable outside it with a multiplier of the wrong sign
// beyond these bounds, and fails; such a column goes to Lawson–Hanson. On
// the conditioning fixtures below, every feasible support one step from the
// true one (644 of them, cond ≤ 10¹⁰) is rejected, with the smallest
// violation 17·ε·b against at most 1.07·ε·b for the true supports
// (TestCertificateRejectsWrongSupports). Result.Uncertified lists columns
// whose Lawson–Hanson solution still fails: this happens only on degenerate
// problems (a zero coefficient whose multiplier is also zero, such as an exact
// fit by fewer columns than the rank), where the reduction's rounding moves
// multipliers by 10–100·ε·‖x‖; the fuzz target checks that every
// uncertified column is degenerate and optimal to rounding.
//
// # Accuracy
//
// Forward error ‖S − S*‖_F/‖S*‖_F against the exact solution S* (Lawson–
// Hanson in 256-bit arithmetic, in the tests), beside scipy.optimize.nnls
// 1.10.1 (Lawson–Hanson with Householder QR) on the same problems: 30×10
// matrices with 8 right-hand sides, signed (A = U·diag(σ)·Vᵀ, X = A·S₀ +
// noise with S₀ of both signs) and nonnegative (columns a common column plus
// 10⁻ᵉ of their own), cond the condition number of the unit-scaled A.
// Measured by go test -run AgainstScipyByConditioning -v ./nnls/
// (fixtures made by testdata/gen_scipy_conditioning.py):
//
//	problem        cond     Solve     scipy    path
//	signed         1        6.0e-16   4.3e-16  Gram
//	signed         7.2e1    2.0e-15   1.2e-15  Gram
//	signed         7.3e3    2.1e-15   2.0e-14  Gram
//	signed         1.2e6    8.8e-14   2.2e-14  Lawson–Hanson
//	signed         7.4e7    1.5e-13   1.0e-12  Lawson–Hanson
//	signed         8.5e9    4.0e-10   1.9e-10  Lawson–Hanson
//	signed         5.1e11   3.7e-11   3.0e-11  Lawson–Hanson
//	nonnegative    1.0e1    6.4e-16   7.0e-16  Gram
//	nonnegative    1.4e3    3.6e-14   4.2e-14  Gram
//	nonnegative    1.4e5    3.3e-12   1.8e-12  Gram
//	nonnegative    1.0e7    3.4e-16   4.7e-16  Lawson–Hanson
//	nonnegative    1.2e9    3.5e-16   3.6e-16  Lawson–Hanson
//	nonnegative    1.2e11   2.9e-16   1.9e-16  Lawson–Hanson
//	nonnegative    1.4e13   3.8e-16   5.2e-16  Lawson–Hanson
//
// Up to cond 10¹⁰ the test requires the error within 10× of scipy's (the
// worst ratio is 4.0). At cond 1.4·10¹³ the nonnegative problem's columns
// differ by 10⁻¹² of their norm; Lawson–Hanson alone picked another support
// there (error 0.4, objective equal to the optimum to rounding), and the
// exchange step below finds the reference's. The old Gram-only solver had
// errors 600–8000× scipy's for cond 10⁴–10⁶ and refused cond ≳ 3·10⁶.
//
// Beyond cond 10¹⁰ the multipliers of a Lawson–Hanson solution are resolved
// only to about the size the on-support test tolerates (coefficients reach
// 10⁸ while the multipliers' rounding is 10⁻⁹ in the cases examined), so the
// rounding-level sign test cannot tell some supports apart, and two supports
// of one column could both pass with objectives 9 % apart. Lawson–Hanson's
// result is therefore polished by exchange (lh.go): every variable whose
// multiplier is within that resolution is tried in the support, and the
// result kept only if it lowers ‖d − R·x‖², which is resolved to rounding.
// TestIllConditionedNearbyProblems solves 200 ulp-perturbed problems at each
// of cond 10⁸, 10¹⁰ and 10¹² and requires every column to reach the 256-bit
// optimum's objective within a backward-stable solution's slack; without the
// exchange 5 of 1200 columns failed at 10¹⁰ and 77 at 10¹² (10⁻⁵–10⁻²
// relative), and 6 of 240 on 60×15 problems at 10¹¹; with it none do. A polished column whose multipliers still do
// not pass the sign test is reported uncertified (16 of 1200 at 10¹⁰, 135
// at 10¹²; 13 and 111 before).
//
// # Cost
//
// On a well-conditioned A the cost is about one N×k×M GEMM (QᵀX), as before
// the Lawson–Hanson path existed; see package bench for ratios to a
// same-run Dgemm. A column on the Lawson–Hanson path costs O(k·|T|²·min(N, k))
// more, where |T| is its support size: for k = 20 that is about as much again
// as its share of the GEMM; for k = 100 several times more.
//
// # Backward pass
//
// Result.Backward applies the paper's Theorem (derivs_of_q) in the vectorised
// form of the project's MATH.md: U_{T,m} = (A_TᵀA_T)⁻¹·(∂L/∂S)_{T,m}, then
// ∂L/∂X = A·U and ∂L/∂A = X·Uᵀ − A·(S·Uᵀ + U·Sᵀ). No pseudoinverse and no N×M
// residual is formed. With D the column scaling, (A_TᵀA_T)⁻¹ =
// D_T·(R_TᵀR_T)⁻¹·D_T is applied through the Gram factorisation when
// cond(R) ≤ 10⁶ (with one correction step), and through QR of R_T otherwise.
// U is a solve with A_TᵀA_T, whose condition is cond(A_T)², and on every
// path it is within cond(R)²·ε of a 256-bit solve on the same support
// (measured 0.002–0.14 of that, cond 10 to 10⁷;
// TestBackwardUAgainstReference).
//
// # Differences from the authors' code
//
// The reference implementation (jvendrow/NeuralNMF) calls scipy's
// Lawson–Hanson nnls once per column in a Python loop and differentiates with
// two pseudoinverses (SVDs) per column. The solutions agree (tests compare
// against scipy.optimize.nnls and a high-precision reference); the
// differences are speed, parallelism, warm starts, the certificate, and the
// pruning of rounding-level coefficients.
//
// # Performance
//
// Columns whose solution needs no pivoting are solved together. On the Gram
// path with H (cond(R) ≤ 10⁴), a column whose unconstrained solution
// u = R⁻¹d is feasible has x = u, and its certificate needs only the four
// triangular matrix–vector products of the residual and its bounds; for
// every such column of a chunk these are formed as four k×k×(columns)
// products, and the certificate is the one above. In the backward pass
// the columns with a full support get (ÃᵀÃ)⁻¹·g̃ as three such products
// (H·g̃, the residual with G, the correction). In a Neural NMF first layer
// that is almost every column. The products use β = 0 and α = 1, so a
// column's result does not depend on which columns share its chunk, and S
// and the gradients stay bit-identical for any number of workers. A column
// that would need the compensated residual or fails the certificate is
// solved column by column, as every other column is.
//
// Work is split over column chunks, on as many goroutines as have at least
// 2¹⁹ multiply-adds each, counting the N×k×M product and 64·k² a column for
// the column's own solve (measured at about 200·k² on partial supports);
// each worker owns its scratch, so no
// memory is allocated per column and the number of allocations per call does
// not depend on M. The workers' scratch is recycled between calls (a
// sync.Pool per shape, reused only for the same k and chunk size), so a training loop
// that solves problems of one shape every epoch allocates only the result and
// the factorisation of A. Solve is safe for concurrent use. See package bench
// for benchmarks against same-shape Dgemm baselines.
package nnls
