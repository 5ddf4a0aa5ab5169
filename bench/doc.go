// Package bench holds the harnesses behind `cuzk bench`: the in-process
// synthesis microbenchmark, and the single/batch/stress runs against a
// daemon with their summaries and timelines.
package bench
