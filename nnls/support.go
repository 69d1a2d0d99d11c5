package nnls

import (
	"fmt"
	"math/bits"
)

// Support records which entries of each column of a k×M solution S are
// positive: the passive sets T_m = {i : S_im > 0}. It is what the backward
// pass needs from the forward pass and what a warm start reuses.
type Support struct {
	k, m, words int
	bits        []uint64 // column m occupies bits[m*words : (m+1)*words]
}

// NewSupport returns an empty support for a k×m solution.
func NewSupport(k, m int) *Support {
	w := (k + 63) / 64
	return &Support{k: k, m: m, words: w, bits: make([]uint64, w*m)}
}

// Dims returns k and M.
func (s *Support) Dims() (k, m int) { return s.k, s.m }

// Has reports whether S_im > 0.
func (s *Support) Has(i, m int) bool {
	s.check(i, m)
	return s.bits[m*s.words+i/64]>>(uint(i)%64)&1 == 1
}

// Set marks S_im as positive (on true) or zero (on false).
func (s *Support) Set(i, m int, on bool) {
	s.check(i, m)
	w := &s.bits[m*s.words+i/64]
	if on {
		*w |= 1 << (uint(i) % 64)
	} else {
		*w &^= 1 << (uint(i) % 64)
	}
}

func (s *Support) check(i, m int) {
	if uint(i) >= uint(s.k) || uint(m) >= uint(s.m) {
		panic(fmt.Sprintf("nnls: support index (%d, %d) out of range for %d×%d", i, m, s.k, s.m))
	}
}

// Count returns |T_m|, the number of positive entries in column m.
func (s *Support) Count(m int) int {
	n := 0
	for _, w := range s.col(m) {
		n += bits.OnesCount64(w)
	}
	return n
}

func (s *Support) col(m int) []uint64 { return s.bits[m*s.words : (m+1)*s.words] }

// Equal reports whether s and o have the same shape and the same supports.
func (s *Support) Equal(o *Support) bool {
	if s.k != o.k || s.m != o.m {
		return false
	}
	for i, w := range s.bits {
		if o.bits[i] != w {
			return false
		}
	}
	return true
}

// Changed returns the number of columns whose support differs between s and
// o, which must have the same shape.
func (s *Support) Changed(o *Support) int {
	n := 0
	for m := 0; m < s.m; m++ {
		a, b := s.col(m), o.col(m)
		for i := range a {
			if a[i] != b[i] {
				n++
				break
			}
		}
	}
	return n
}

// Hash returns a 64-bit fingerprint of the supports (FNV-1a over the words).
func (s *Support) Hash() uint64 {
	h := uint64(14695981039346656037) ^ uint64(s.k)<<32 ^ uint64(s.m)
	for _, w := range s.bits {
		h ^= w
		h *= 1099511628211
		h ^= h >> 31
	}
	return h
}

// Clone returns a copy of s.
func (s *Support) Clone() *Support {
	c := *s
	c.bits = append([]uint64(nil), s.bits...)
	return &c
}
