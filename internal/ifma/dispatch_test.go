package ifma

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

func TestDecide(t *testing.T) {
	all := Features{AVX512F: true, AVX512DQ: true, AVX512IFMA: true}
	ok := func() error { return nil }
	broken := func() error { return errors.New("fp multiplication, lane 3") }
	called := false
	mustNotRun := func() error { called = true; return nil }
	cases := []struct {
		name   string
		f      Features
		env    string
		check  func() error
		arith  string
		reason string
		failed bool
	}{
		{"ifma", all, "", ok, ArithIFMA, "", false},
		{"env 0 keeps ifma", all, "0", ok, ArithIFMA, "", false},
		{"forced scalar", all, "1", mustNotRun, ArithScalar, "CUZK_NO_IFMA=1", false},
		{"no ifma", Features{AVX512F: true, AVX512DQ: true}, "", mustNotRun, ArithScalar, "avx512ifma=false", false},
		{"no avx512", Features{}, "", mustNotRun, ArithScalar, "avx512f=false", false},
		{"check fails", all, "", broken, ArithScalar, "known-answer check failed: fp multiplication, lane 3", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := decide(c.f, c.env, c.check)
			if !haveAsm {
				if s.Arithmetic != ArithScalar {
					t.Fatalf("%+v without kernels", s)
				}
				return
			}
			if s.Arithmetic != c.arith || !strings.Contains(s.Reason, c.reason) || s.Failed != c.failed || s.FrVector != (c.arith == ArithIFMA) {
				t.Fatalf("got %+v, want %s, reason containing %q, failed %v", s, c.arith, c.reason, c.failed)
			}
		})
	}
	if called {
		t.Fatal("the known-answer check ran although IFMA was ruled out")
	}
}

// TestKnownAnswers: the check passes on correct kernels and names the
// kernel that is wrong.
func TestKnownAnswers(t *testing.T) {
	if err := knownAnswers(goKernels); err != nil {
		t.Fatalf("reference kernels: %v", err)
	}
	if Enabled() {
		if err := knownAnswers(asmKernels); err != nil {
			t.Fatalf("assembly kernels: %v", err)
		}
	}
	for _, c := range []struct {
		name string
		mod  func(k *kernels)
	}{
		{"fp multiplication", func(k *kernels) {
			k.fpMul = func(z, x, y *Fp8, n int) { goFpMul(z, x, y, n); groups(z, n)[n-1][0][7] ^= 1 }
		}},
		{"fp subtraction", func(k *kernels) { k.fpSub = goFpAdd }},
		{"fr GS butterfly (lanes)", func(k *kernels) { k.frGSv = goFrCTv }},
		{"G1 batch addition", func(k *kernels) {
			k.g1Backward = func(accs, qs *unsafe.Pointer, neg *uint8, grp *g1Group, zero *uint8, work *g1Work, n int) {
				goG1Backward(accs, qs, neg, grp, zero, work, n)
				(*bls.G1Affine)(*accs).Y.SetOne()
			}
		}},
		{"G2 batch addition", func(k *kernels) {
			k.g2Forward = func(accs, qs *unsafe.Pointer, grp *g2Group, zero *uint8, work *g2Work, n int) {
				goG2Forward(accs, qs, grp, zero, work, n)
				work.run[1][0][3] ^= 1 // a wrong product: every inverse of lane 3 is off
			}
		}},
		{"fp conversion", func(k *kernels) {
			k.fpTo64 = func(dst *fp.Element, x *Fp8, stride, n int) { goFpTo64(dst, x, stride, n); dst.SetOne() }
		}},
	} {
		k := goKernels
		c.mod(&k)
		if err := knownAnswers(k); err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("broken %s: got %v", c.name, err)
		}
	}
}

// TestCurrent: the process's decision is decide's on this machine and
// environment (CUZK_NO_IFMA=1 go test … gives scalar), and no kernel fails
// its known-answer check here.
func TestCurrent(t *testing.T) {
	s := Current()
	t.Logf("arithmetic: %s", s)
	if s.Failed {
		t.Fatalf("known-answer check failed on this machine: %s", s)
	}
	if want := decide(cpuFeatures(), os.Getenv(NoIFMAEnv), func() error { return nil }); s != want {
		t.Fatalf("Current() = %+v, decide gives %+v", s, want)
	}
}
