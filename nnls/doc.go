// Package nnls solves nonnegative least-squares problems with many right-hand
// sides exactly, and differentiates their solution: it is the forward and
// backward pass of the q(A, X) layer of Neural NMF, usable with or without an
// autograd tape (ops.NNLS wraps it).
//
// # Problem
//
// For A (N×k) and X (N×M), both nonnegative, Solve returns
//
//	S = argmin_{S ≥ 0} ‖X − A·S‖_F    (column by column)
//
// A must have full column rank (k ≤ N, no zero or dependent column); then
// each column has a unique solution, and S_T = (A_TᵀA_T)⁻¹·A_Tᵀ·x on its
// support T = {i : S_i > 0}. The backward pass depends on T, so Solve returns
// the exact active-set solution, not an approximation.
//
// # Algorithm
//
// G = AᵀA is factorised once (Cholesky, with a condition estimate), and
// H = G⁻¹ is formed from it. Columns are processed in chunks on all cores;
// for each chunk, AᵀX and H·AᵀX (the unconstrained solutions) are formed with
// BLAS, and each column is solved by block principal pivoting (Kim & Park,
// "Fast nonnegative matrix factorization", SIAM J. Sci. Comput. 2011):
// full exchange of the infeasible variables while their number falls, and a
// one-variable backup rule that guarantees termination. The passive set is
// seeded from the sign pattern of the unconstrained solution, or from a
// previous support (Options.Warm).
//
// Each pivoting subproblem is solved exactly in the cheaper of two forms: the
// passive block G_FF by Cholesky, or — when the active set B is the smaller
// one — the Schur form s = u + H_{:,B}·y_B with y_B = −H_BB⁻¹·u_B, whose
// cost is |B|³ instead of |F|³. Every finished column's KKT conditions are
// checked from G directly; a Schur-form solution whose residual shows lost
// digits gets one step of iterative refinement. A column that still fails,
// that meets a numerically singular block, or that needs more than MaxIter
// exchanges is solved again in the direct form and, failing that, by
// Lawson–Hanson with QR on A itself. Stats reports how often each happened.
// When cond(AᵀA) exceeds 10⁸ the Schur form is not used at all.
//
// # Tolerances
//
// All tests are relative, so results do not change when A or X is scaled:
// S_im is set exactly to zero when S_im·‖a_i‖ ≤ Tol·‖x_m‖, and a multiplier
// y_i = a_iᵀ(As − x) counts as nonnegative when y_i ≥ −Tol·‖a_i‖·‖x_m‖
// (Tol = 1e-10 by default). The final KKT check allows max(10³·Tol, 10⁻⁸)
// on the same scale; measured violations on the test problems are
// 10⁻¹⁶–10⁻¹³. A is rejected as rank deficient when the estimated reciprocal
// condition number of AᵀA is below 10⁻¹³.
//
// # Backward pass
//
// Result.Backward applies the paper's Theorem (derivs_of_q) in the vectorised
// form of the project's MATH.md: U_{T,m} = (A_TᵀA_T)⁻¹·(∂L/∂S)_{T,m}, then
// ∂L/∂X = A·U and ∂L/∂A = X·Uᵀ − A·(S·Uᵀ + U·Sᵀ). No pseudoinverse and no N×M
// residual is formed; the small solves reuse the forward factorisation.
//
// # Differences from the authors' code
//
// The reference implementation (jvendrow/NeuralNMF) calls scipy's
// Lawson–Hanson nnls once per column in a Python loop and differentiates with
// two pseudoinverses (SVDs) per column. The solution is the same (tests
// compare against scipy.optimize.nnls); the differences are speed,
// parallelism, warm starts, and the relative zero threshold above.
//
// # Performance
//
// Work is split over column chunks; each worker owns its scratch, so no
// memory is allocated per column and the number of allocations per call does
// not depend on M. See package bench for benchmarks against same-shape Dgemm
// baselines.
package nnls
