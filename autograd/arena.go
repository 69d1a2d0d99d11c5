package autograd

import "github.com/neuralnmf/neuralnmf/tensor"

// arena hands out matrices in order and takes them all back on reset. A loop
// that asks for the same sizes in the same order each step reuses the same
// storage and allocates nothing after the first step.
type arena struct {
	bufs []*tensor.Dense
	next int
}

func (a *arena) alloc(r, c int) *tensor.Dense {
	if r < 0 || c < 0 {
		panic("autograd: Alloc with a negative dimension")
	}
	n := r * c
	if a.next < len(a.bufs) {
		d := a.bufs[a.next]
		if cap(d.Data) >= n {
			a.next++
			data := d.Data[:n]
			clear(data)
			// A fresh header: a Dense handed out before the last reset keeps
			// its own shape, even though its storage is now shared.
			nd := &tensor.Dense{Rows: r, Cols: c, Stride: c, Data: data}
			a.bufs[a.next-1] = nd
			return nd
		}
		d = tensor.New(r, c)
		a.bufs[a.next] = d
		a.next++
		return d
	}
	d := tensor.New(r, c)
	a.bufs = append(a.bufs, d)
	a.next++
	return d
}

func (a *arena) reset() { a.next = 0 }
