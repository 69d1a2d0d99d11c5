package tensor

// lanes holds the four partial sums of a long sum of products: term e
// (counted from 0 in the order the terms are given, row-major for a matrix)
// goes to partial e mod 4, and total combines them as (s₀ + s₁) + (s₂ + s₃).
// One running sum is a chain of dependent additions that runs at the
// adder's latency (about 0.6 ns a term on this project's 2-core Zen 4); four
// independent chains run twice as fast, and the rounding error bound is
// that of a sum of n/4 + 2 terms instead of n. Because a term's partial
// depends on its index only, a matrix summed row by row (strided) gives
// the same bits as the same matrix summed in one contiguous run.
type lanes [4]float64

// dot adds a_j·b_j for every j (len(b) ≥ len(a)) to s, the first as term
// ph mod 4, and returns the phase of the next term.
func (s *lanes) dot(a, b []float64, ph int) int {
	b = b[:len(a)]
	j := 0
	for ; ph&3 != 0 && j < len(a); j++ {
		s[ph&3] += a[j] * b[j]
		ph++
	}
	s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
	for ; j+4 <= len(a); j += 4 {
		p, q := a[j:j+4:j+4], b[j:j+4:j+4]
		s0 += p[0] * q[0]
		s1 += p[1] * q[1]
		s2 += p[2] * q[2]
		s3 += p[3] * q[3]
	}
	s[0], s[1], s[2], s[3] = s0, s1, s2, s3
	for ; j < len(a); j++ {
		s[ph&3] += a[j] * b[j]
		ph++
	}
	return ph & 3
}

// sqDiff adds (a_j − b_j)² for every j (len(b) ≥ len(a)) to s, as dot does.
func (s *lanes) sqDiff(a, b []float64, ph int) int {
	b = b[:len(a)]
	j := 0
	for ; ph&3 != 0 && j < len(a); j++ {
		d := a[j] - b[j]
		s[ph&3] += d * d
		ph++
	}
	s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
	for ; j+4 <= len(a); j += 4 {
		p, q := a[j:j+4:j+4], b[j:j+4:j+4]
		d0, d1, d2, d3 := p[0]-q[0], p[1]-q[1], p[2]-q[2], p[3]-q[3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	s[0], s[1], s[2], s[3] = s0, s1, s2, s3
	for ; j < len(a); j++ {
		d := a[j] - b[j]
		s[ph&3] += d * d
		ph++
	}
	return ph & 3
}

// total returns (s₀ + s₁) + (s₂ + s₃).
func (s *lanes) total() float64 { return (s[0] + s[1]) + (s[2] + s[3]) }
