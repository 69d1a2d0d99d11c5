package train

import "fmt"

// FanIn is how many vectors one node of the reduce adds. A step's keyed
// vectors, one a shard, are added up a tree: level 1 adds the shards'
// vectors in groups of FanIn consecutive shards (0–15, 16–31, …), each
// level above adds the sums below it in groups of FanIn the same way, up
// to one total; each node starts from a copy of its first child and adds
// the others in index order. So no element of the reduce reads more than
// FanIn vectors whatever the number of shards (the bytes a worker reads do
// not grow with the workers), the order of every float64 addition is
// fixed, and with at most FanIn shards the total is the plain sum in shard
// order.
const FanIn = 16

// treeSizes returns the number of vectors at each level of the reduce of
// n shards: n, ⌈n/FanIn⌉, …, 1 (at least two levels, so that even one
// shard's vector is copied into its total by a node).
func treeSizes(n int) []int {
	sizes := []int{n}
	for {
		n = (n + FanIn - 1) / FanIn
		sizes = append(sizes, n)
		if n <= 1 {
			return sizes
		}
	}
}

// treeSum adds vectors pushed in shard order as the reduce's tree does,
// in memory: one running sum a level, so it holds a few vectors, not one
// a shard.
type treeSum struct {
	acc         [][]float64
	cnt         []int
	shards, got int
}

func newTreeSum(shards int) *treeSum {
	n := len(treeSizes(shards))
	return &treeSum{acc: make([][]float64, n), cnt: make([]int, n), shards: shards}
}

// add adds the next shard's vector (copied).
func (t *treeSum) add(v []float64) error {
	if t.got++; t.got > t.shards {
		return fmt.Errorf("train: %d vectors for a sum of %d shards", t.got, t.shards)
	}
	return t.push(0, append([]float64(nil), v...))
}

// push adds v, which it may keep, as the next child at level l.
func (t *treeSum) push(l int, v []float64) error {
	top := len(t.acc) - 1
	switch {
	case l == top && t.cnt[l] > 0:
		return fmt.Errorf("train: the reduce's top has two vectors")
	case t.cnt[l] == 0:
		t.acc[l] = v
	case len(v) != len(t.acc[l]):
		return fmt.Errorf("train: a vector of %d values for a sum of %d", len(v), len(t.acc[l]))
	default:
		for j, x := range v {
			t.acc[l][j] += x
		}
	}
	t.cnt[l]++
	if l < top && t.cnt[l] == FanIn {
		return t.flush(l)
	}
	return nil
}

// flush passes level l's running sum up as its node's sum.
func (t *treeSum) flush(l int) error {
	v := t.acc[l]
	t.acc[l], t.cnt[l] = nil, 0
	return t.push(l+1, v)
}

// total ends the tree (the last node of each level is complete) and
// returns the total.
func (t *treeSum) total() ([]float64, error) {
	if t.got != t.shards {
		return nil, fmt.Errorf("train: %d vectors for a sum of %d shards", t.got, t.shards)
	}
	top := len(t.acc) - 1
	for l := 0; l < top; l++ {
		if t.cnt[l] > 0 {
			if err := t.flush(l); err != nil {
				return nil, err
			}
		}
	}
	return t.acc[top], nil
}
