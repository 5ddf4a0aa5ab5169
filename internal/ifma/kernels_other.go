//go:build !amd64 || purego

package ifma

const haveAsm = false

var asmKernels kernels
