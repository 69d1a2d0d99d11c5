package tensor

// MulTRowsBlocked exposes MulTRows with a chosen block of B's rows.
func (s *Sparse) MulTRowsBlocked(alpha float64, b *Dense, r0, r1 int, dst *Dense, block int) {
	s.mulTRowsBlocked(alpha, b, r0, r1, dst, block)
}
