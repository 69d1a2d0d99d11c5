// Package mt19937 is the 32-bit Mersenne Twister (Matsumoto & Nishimura
// 1998) with NumPy's legacy seeding and doubles, so that Go code can start
// from exactly the random numbers a published Python experiment drew.
//
// After np.random.seed(s) (s an integer in [0, 2³²)), the values of
// np.random.rand(...) in row-major order are New(s).Float64() called in
// turn. Experiments use it to reproduce the paper's HNMF baseline seed for
// seed; everything else in neuralnmf seeds tensor.NewRand.
package mt19937

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// Source is a Mersenne Twister state. It is not safe for concurrent use; the
// zero value is not usable (call New).
type Source struct {
	mt  [n]uint32
	pos int
}

// New returns the generator seeded as NumPy's np.random.seed(seed) seeds
// its legacy RandomState (init_genrand of the reference implementation).
func New(seed uint32) *Source {
	s := &Source{pos: n}
	s.mt[0] = seed
	for i := 1; i < n; i++ {
		prev := s.mt[i-1]
		s.mt[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	return s
}

// Uint32 returns the next 32-bit output.
func (s *Source) Uint32() uint32 {
	if s.pos >= n {
		s.twist()
	}
	y := s.mt[s.pos]
	s.pos++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// Float64 returns a double in [0, 1) built from two outputs as NumPy's
// random_sample does: (a>>5 · 2²⁶ + b>>6) / 2⁵³.
func (s *Source) Float64() float64 {
	a, b := s.Uint32()>>5, s.Uint32()>>6
	return (float64(a)*67108864 + float64(b)) / 9007199254740992
}

func (s *Source) twist() {
	for i := range n {
		y := s.mt[i]&upperMask | s.mt[(i+1)%n]&lowerMask
		v := s.mt[(i+m)%n] ^ y>>1
		if y&1 != 0 {
			v ^= matrixA
		}
		s.mt[i] = v
	}
	s.pos = 0
}
