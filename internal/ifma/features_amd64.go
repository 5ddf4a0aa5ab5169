//go:build !purego

package ifma

import "golang.org/x/sys/cpu"

func cpuFeatures() Features {
	return Features{AVX512F: cpu.X86.HasAVX512F, AVX512DQ: cpu.X86.HasAVX512DQ, AVX512IFMA: cpu.X86.HasAVX512IFMA}
}
