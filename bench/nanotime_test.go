package bench

import "time"

var epoch0 = time.Now()

// nanotime is a monotonic clock in nanoseconds.
func nanotime() float64 { return float64(time.Since(epoch0).Nanoseconds()) }
