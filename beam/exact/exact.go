// Package exact sums float64 values without rounding, so that a sum does
// not depend on the order of its terms or on how a distributed runner split
// them among workers and merged the parts: the reduce of distributed
// training (issue 40) must give the single-process result bit for bit,
// however Beam's runner shards and combines the work, and a float64 sum
// changes in its last bits with the order of its terms.
//
// A Sum holds Σ xᵢ as a fixed-point number with one binary place for every
// power of two a float64 can hold, from 2⁻¹⁰⁷⁴ (the least subnormal) up,
// with 63 bits of headroom above float64's range, so at least 2⁶³ terms of
// any finite magnitude sum exactly. Float64 rounds that exact value once,
// to nearest with ties to even (IEEE 754's default), so the result is the
// correctly rounded sum: equal for every order and split of the terms, and
// at least as accurate as any float64 summation. An Add costs a few integer
// operations on three digits; a Sum takes about 560 bytes.
//
// Non-finite terms follow IEEE 754: a NaN term, or both +Inf and −Inf,
// make the sum NaN; otherwise an infinite term makes it that infinity. A
// finite exact sum beyond float64's range rounds to ±Inf.
package exact

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
)

const (
	digitBits = 32
	digitMask = 1<<digitBits - 1
	// digits covers binary places 2⁻¹⁰⁷⁴ … 2¹⁰⁸⁷: a float64's significand
	// (53 bits) at its highest place ends below 2¹⁰²⁴, and 63 bits of
	// headroom sit above.
	digits = (2098 + 63 + digitBits - 1) / digitBits // 68
	// normalizeEvery bounds the Adds between carry propagations: each Add
	// puts less than 2³³ into a digit, so 2²⁹ of them stay below 2⁶².
	normalizeEvery = 1 << 29
)

// Sum is an exact sum of float64 values. The zero value is an empty sum,
// ready to use. A Sum is not safe for concurrent use; sum in parts and
// Merge them instead.
type Sum struct {
	d      [digits]int64 // digit i weighs 2^(32i − 1074); signed until normalised
	adds   int           // Adds since the last normalisation
	nan    bool
	posInf bool
	negInf bool
}

// Add adds x to s.
func (s *Sum) Add(x float64) {
	b := math.Float64bits(x)
	exp := int(b>>52) & 0x7ff
	frac := b & (1<<52 - 1)
	neg := b>>63 != 0
	if exp == 0x7ff {
		switch {
		case frac != 0:
			s.nan = true
		case neg:
			s.negInf = true
		default:
			s.posInf = true
		}
		return
	}
	m, place := frac, 0 // x = ±m·2^(place − 1074)
	if exp != 0 {
		m, place = frac|1<<52, exp-1
	}
	if m == 0 {
		return
	}
	q, r := place/digitBits, uint(place%digitBits)
	lo, hi := (m&digitMask)<<r, (m>>digitBits)<<r // m·2^r = lo + hi·2³²
	d0 := int64(lo & digitMask)
	d1 := int64(lo>>digitBits + hi&digitMask)
	d2 := int64(hi >> digitBits)
	if neg {
		d0, d1, d2 = -d0, -d1, -d2
	}
	s.d[q] += d0
	s.d[q+1] += d1
	s.d[q+2] += d2
	if s.adds++; s.adds >= normalizeEvery {
		s.normalize()
	}
}

// Merge adds the terms of o to s (o is unchanged).
func (s *Sum) Merge(o *Sum) {
	s.normalize()
	oc := *o
	oc.normalize()
	for i, v := range oc.d {
		s.d[i] += v
	}
	s.nan = s.nan || oc.nan
	s.posInf = s.posInf || oc.posInf
	s.negInf = s.negInf || oc.negInf
	s.normalize()
}

// normalize propagates carries: every digit but the last in [0, 2³²), the
// last carrying the sign. The value is unchanged.
func (s *Sum) normalize() {
	var carry int64
	for i := range s.d[:digits-1] {
		v := s.d[i] + carry
		carry = v >> digitBits // floor division by 2³²
		s.d[i] = v - carry<<digitBits
	}
	s.d[digits-1] += carry
	s.adds = 0
}

// magnitude returns |Σ| as a big.Int and whether Σ < 0, for a normalised s.
func (s *Sum) magnitude() (*big.Int, bool) {
	v := new(big.Int)
	t := new(big.Int)
	for i := digits - 1; i >= 0; i-- {
		v.Lsh(v, digitBits)
		v.Add(v, t.SetInt64(s.d[i]))
	}
	neg := v.Sign() < 0
	return v.Abs(v), neg
}

// Float64 returns the sum rounded to the nearest float64, ties to even:
// NaN, ±Inf as described in the package doc.
func (s *Sum) Float64() float64 {
	switch {
	case s.nan || s.posInf && s.negInf:
		return math.NaN()
	case s.posInf:
		return math.Inf(1)
	case s.negInf:
		return math.Inf(-1)
	}
	c := *s
	c.normalize()
	mag, neg := c.magnitude()
	if mag.Sign() == 0 {
		return 0 // an exact zero is +0, whatever the terms' signs
	}
	// mag·2⁻¹⁰⁷⁴: rounded to 53 bits once here. Below 2⁻¹⁰²² mag < 2⁵³ is
	// exact at 53 bits and, a multiple of 2⁻¹⁰⁷⁴, a float64; above, the
	// 53-bit value is one, or out of range (±Inf).
	f := new(big.Float).SetPrec(53).SetMode(big.ToNearestEven).SetInt(mag)
	f.SetMantExp(f, -1074)
	v, _ := f.Float64()
	if neg {
		v = -v
	}
	return v
}

// wire format: version, flags, first nonzero digit (uint16), count (uint16),
// then count magnitude digits (uint32, little-endian), least first.
const (
	wireVersion = 1
	flagNaN     = 1 << iota
	flagPosInf
	flagNegInf
	flagNeg
)

// MarshalBinary encodes s compactly (the digits between its lowest and
// highest nonzero ones: a few for most sums). Equal sums encode to equal
// bytes, however their terms were ordered, split and merged.
func (s *Sum) MarshalBinary() ([]byte, error) {
	c := *s
	c.normalize()
	mag, neg := c.magnitude()
	var flags byte
	if c.nan {
		flags |= flagNaN
	}
	if c.posInf {
		flags |= flagPosInf
	}
	if c.negInf {
		flags |= flagNegInf
	}
	if neg {
		flags |= flagNeg
	}
	words := make([]uint32, 0, 4)
	lo := -1
	for i := 0; mag.Sign() != 0; i++ {
		w := uint32(new(big.Int).And(mag, big.NewInt(digitMask)).Uint64())
		mag.Rsh(mag, digitBits)
		if lo < 0 {
			if w == 0 {
				continue
			}
			lo = i
		}
		words = append(words, w)
	}
	lo = max(lo, 0)
	out := make([]byte, 6, 6+4*len(words))
	out[0], out[1] = wireVersion, flags
	binary.LittleEndian.PutUint16(out[2:], uint16(lo))
	binary.LittleEndian.PutUint16(out[4:], uint16(len(words)))
	for _, w := range words {
		out = binary.LittleEndian.AppendUint32(out, w)
	}
	return out, nil
}

// ErrEncoding is wrapped by UnmarshalBinary's errors.
var ErrEncoding = errors.New("exact: not an encoded Sum")

// UnmarshalBinary sets s to the sum MarshalBinary encoded in data. It
// returns an error wrapping ErrEncoding, and leaves s unchanged, if data is
// not such an encoding.
func (s *Sum) UnmarshalBinary(data []byte) error {
	if len(data) < 6 || data[0] != wireVersion {
		return fmt.Errorf("%w: %d bytes, version %v", ErrEncoding, len(data), firstByte(data))
	}
	flags := data[1]
	if flags&^(flagNaN|flagPosInf|flagNegInf|flagNeg) != 0 {
		return fmt.Errorf("%w: unknown flags %#x", ErrEncoding, flags)
	}
	lo := int(binary.LittleEndian.Uint16(data[2:]))
	n := int(binary.LittleEndian.Uint16(data[4:]))
	if len(data) != 6+4*n || lo+n > digits {
		return fmt.Errorf("%w: %d digits from digit %d in %d bytes", ErrEncoding, n, lo, len(data))
	}
	var t Sum
	for i := range n {
		t.d[lo+i] = int64(binary.LittleEndian.Uint32(data[6+4*i:]))
	}
	if flags&flagNeg != 0 {
		for i := range t.d {
			t.d[i] = -t.d[i]
		}
		t.normalize()
	}
	t.nan, t.posInf, t.negInf = flags&flagNaN != 0, flags&flagPosInf != 0, flags&flagNegInf != 0
	*s = t
	return nil
}

func firstByte(b []byte) any {
	if len(b) == 0 {
		return "none"
	}
	return b[0]
}
