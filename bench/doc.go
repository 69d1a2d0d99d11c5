// Package bench holds neuralnmf's benchmarks; it has no API.
//
// Run them with
//
//	go test -run '^$' -bench . -benchmem ./bench/...
//
// Each benchmark of an op runs beside a baseline of the same shape in the
// same run (a raw gonum Dgemm), so results can be read as ratios, which stay
// meaningful on a shared, noisy machine. Compare two runs with benchstat.
//
// The logs of its runs, which the comments here and docs/ cite by name,
// are in results/bench/.
package bench
