package nnls_test

import (
	"math"
	"math/big"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// The reference solver: Lawson–Hanson in 256-bit floating point (about 77
// digits), on the float64 data taken exactly. With cond(A) ≤ 10¹⁵ its
// normal-equation solves still carry more than 40 correct digits, so its
// rounding to float64 is the exact solution for every test here. It shares
// no code with the package.

const refPrec = 256

func bf(v float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(v) }
func bz() *big.Float          { return new(big.Float).SetPrec(refPrec) }

// refProblem is A (n×k) and one column x in big precision.
type refProblem struct {
	n, k int
	a    [][]*big.Float // a[r][i]
	x    []*big.Float
}

func newRefProblem(a *tensor.Dense, x []float64) *refProblem {
	p := &refProblem{n: a.Rows, k: a.Cols, a: make([][]*big.Float, a.Rows), x: make([]*big.Float, a.Rows)}
	for r := 0; r < a.Rows; r++ {
		p.a[r] = make([]*big.Float, a.Cols)
		for i := 0; i < a.Cols; i++ {
			p.a[r][i] = bf(a.At(r, i))
		}
		p.x[r] = bf(x[r])
	}
	return p
}

// multipliers returns y = Aᵀ(x − A·s) exactly enough.
func (p *refProblem) multipliers(s []*big.Float) []*big.Float {
	res := make([]*big.Float, p.n)
	for r := 0; r < p.n; r++ {
		v := bz().Set(p.x[r])
		for i := 0; i < p.k; i++ {
			if s[i].Sign() != 0 {
				v.Sub(v, bz().Mul(p.a[r][i], s[i]))
			}
		}
		res[r] = v
	}
	y := make([]*big.Float, p.k)
	for i := 0; i < p.k; i++ {
		v := bz()
		for r := 0; r < p.n; r++ {
			v.Add(v, bz().Mul(p.a[r][i], res[r]))
		}
		y[i] = v
	}
	return y
}

// lsOn solves min ‖x − A_P·z‖ by Cholesky of A_PᵀA_P in big precision. It
// returns nil if a pivot is below 10⁻⁵⁰ of its diagonal (A_P dependent).
func (p *refProblem) lsOn(set []int) []*big.Float {
	m := len(set)
	g := make([][]*big.Float, m)
	c := make([]*big.Float, m)
	for a := 0; a < m; a++ {
		g[a] = make([]*big.Float, m)
		for b := 0; b < m; b++ {
			v := bz()
			for r := 0; r < p.n; r++ {
				v.Add(v, bz().Mul(p.a[r][set[a]], p.a[r][set[b]]))
			}
			g[a][b] = v
		}
		v := bz()
		for r := 0; r < p.n; r++ {
			v.Add(v, bz().Mul(p.a[r][set[a]], p.x[r]))
		}
		c[a] = v
	}
	// Cholesky: g = LLᵀ, in place in the lower triangle.
	tiny := bf(1e-50)
	for j := 0; j < m; j++ {
		d := bz().Set(g[j][j])
		for q := 0; q < j; q++ {
			d.Sub(d, bz().Mul(g[j][q], g[j][q]))
		}
		diag := g[j][j]
		if d.Cmp(bz().Mul(tiny, diag)) <= 0 {
			return nil
		}
		l := bz().Sqrt(d)
		g[j][j] = l
		for i := j + 1; i < m; i++ {
			v := bz().Set(g[i][j])
			for q := 0; q < j; q++ {
				v.Sub(v, bz().Mul(g[i][q], g[j][q]))
			}
			g[i][j] = v.Quo(v, l)
		}
	}
	z := make([]*big.Float, m)
	for i := 0; i < m; i++ { // L·w = c
		v := bz().Set(c[i])
		for q := 0; q < i; q++ {
			v.Sub(v, bz().Mul(g[i][q], z[q]))
		}
		z[i] = v.Quo(v, g[i][i])
	}
	for i := m - 1; i >= 0; i-- { // Lᵀ·z = w
		v := bz().Set(z[i])
		for q := i + 1; q < m; q++ {
			v.Sub(v, bz().Mul(g[q][i], z[q]))
		}
		z[i] = v.Quo(v, g[i][i])
	}
	return z
}

// refSolve is Lawson & Hanson's NNLS algorithm in big precision. A variable
// joins when its multiplier exceeds 10⁻⁴⁰ of ‖a_i‖·‖x‖ and its column is
// independent of the passive ones.
func (p *refProblem) solve() []*big.Float {
	s := make([]*big.Float, p.k)
	for i := range s {
		s[i] = bz()
	}
	xn := 0.0
	for _, v := range p.x {
		f, _ := v.Float64()
		xn = math.Hypot(xn, f)
	}
	thr := make([]*big.Float, p.k)
	for i := 0; i < p.k; i++ {
		an := 0.0
		for r := 0; r < p.n; r++ {
			f, _ := p.a[r][i].Float64()
			an = math.Hypot(an, f)
		}
		thr[i] = bf(1e-40 * an * xn)
	}
	inP := make([]bool, p.k)
	rejected := make([]bool, p.k)
	for outer := 0; outer < 10*p.k+10; outer++ {
		y := p.multipliers(s)
		t := -1
		for i := 0; i < p.k; i++ {
			if !inP[i] && !rejected[i] && y[i].Cmp(thr[i]) > 0 && (t < 0 || y[i].Cmp(y[t]) > 0) {
				t = i
			}
		}
		if t < 0 {
			break
		}
		inP[t] = true
		set := func() []int {
			var l []int
			for i, in := range inP {
				if in {
					l = append(l, i)
				}
			}
			return l
		}
		l := set()
		z := p.lsOn(l)
		zt := bz()
		for a, i := range l {
			if i == t && z != nil {
				zt = z[a]
			}
		}
		if z == nil || zt.Sign() <= 0 {
			inP[t], rejected[t] = false, true
			continue
		}
		clear(rejected)
		for {
			alpha, drop := bf(2), -1
			for a, i := range l {
				if z[a].Sign() <= 0 {
					num := bz().Set(s[i])
					den := bz().Sub(s[i], z[a])
					if q := bz().Quo(num, den); q.Cmp(alpha) < 0 {
						alpha, drop = q, i
					}
				}
			}
			if drop < 0 {
				for a, i := range l {
					s[i] = z[a]
				}
				break
			}
			for a, i := range l {
				d := bz().Sub(z[a], s[i])
				s[i] = bz().Add(s[i], d.Mul(d, alpha))
				if i == drop || s[i].Sign() <= 0 {
					s[i], inP[i] = bz(), false
				}
			}
			l = set()
			if len(l) == 0 {
				break
			}
			z = p.lsOn(l)
		}
	}
	return s
}

// refColumn solves column j of the problem in big precision and returns the
// solution rounded to float64, and the solution and multipliers in big.
func refColumn(a, x *tensor.Dense, j int) (s []float64, sb, y []*big.Float) {
	col := make([]float64, x.Rows)
	for r := range col {
		col[r] = x.At(r, j)
	}
	p := newRefProblem(a, col)
	sb = p.solve()
	s = make([]float64, len(sb))
	for i, v := range sb {
		s[i], _ = v.Float64()
	}
	return s, sb, p.multipliers(sb)
}

// refObjective returns ‖x_j − A·s‖² in big precision, as a float64.
func refObjective(a, x *tensor.Dense, j int, s []float64) float64 {
	var sum big.Float
	sum.SetPrec(refPrec)
	for r := 0; r < a.Rows; r++ {
		v := bf(x.At(r, j))
		for i, si := range s {
			if si != 0 {
				v.Sub(v, bz().Mul(bf(a.At(r, i)), bf(si)))
			}
		}
		sum.Add(&sum, bz().Mul(v, v))
	}
	f, _ := sum.Float64()
	return f
}
