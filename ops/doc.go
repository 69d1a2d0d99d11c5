// Package ops holds the differentiable operations recorded on an
// autograd.Tape: matrix products, element-wise arithmetic, the Frobenius and
// masked losses (and FactorLoss, ‖X − W·H‖² fused so that no N×M matrix is
// formed: prefer it to FrobeniusLoss(x, MatMul(w, h)) when X is large data),
// a pseudoinverse for the semi-supervised classifier
// B = (Z∘Y)S†, a column-wise softmax cross-entropy, and NNLS, the
// nonnegative least-squares layer of Neural NMF.
//
// For losses of one's own: element-wise functions (Log, Exp, Sqrt, Abs,
// Pow, AddScalar, ClampMin, Div, and Elementwise, which makes a unary op
// from a function and its derivative in one call), row and column sums
// and means, broadcasting of a row or column vector (BroadcastRow,
// BroadcastCol), and the β-divergences of NMF: KLDivergence (β = 1; fused
// for a sparse X as SparseKLLoss, touching only X's non-zeros) and
// ItakuraSaito (β = 0); β = 2 is FrobeniusLoss. NNLSElasticNet is the
// NNLS layer with scikit-learn's elastic-net penalty on S, composed of
// ConcatRows and NNLS on an augmented system, so its gradient is the
// paper's theorem there. KLLayer (and KLLayerSparse) is the layer whose S
// minimises the generalised KL divergence instead of the squared error,
// certified by its optimality conditions and differentiated by the same
// implicit-function argument with the KL Hessian.
//
// Every op takes and returns *autograd.Var. Shapes are in each op's doc as
// rows×cols. An op that meets a shape mismatch or other bad input does not
// panic: it records an error on the tape (see autograd.Tape.Fail) that names
// the op and both shapes, and Backward returns it. Scalars are 1×1.
//
// Outputs are allocated in the tape's arena and are valid until the tape is
// Reset.
package ops
