package main

import (
	"context"
	"io"

	"github.com/cuzk-dev/cuzk/groth16"
)

func runVerifyGroth16(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify-groth16", stderr)
	vkPath := fs.String("vk", "", "verifying key `file` (bellperson .vk layout)")
	proofPath := fs.String("proof", "", "proof `file`: one or more concatenated 192-byte proofs")
	inputsPath := fs.String("inputs", "", "public inputs `file`: JSON array of 64-hex little-endian Fr, or an array of such arrays (one per proof)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk verify-groth16")
	if *vkPath == "" || *proofPath == "" || *inputsPath == "" {
		return fail("--vk, --proof and --inputs are required")
	}
	ok, err := groth16.VerifyFiles(*vkPath, *proofPath, *inputsPath)
	return reportVerdict(stdout, fail, ok, err)
}
