//go:build !amd64 || purego

package ifma

func cpuFeatures() Features { return Features{} }
