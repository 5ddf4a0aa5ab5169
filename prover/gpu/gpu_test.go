package gpu

import (
	"errors"
	"os"
	"testing"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/r1cs"
)

func TestParamsPathSelection(t *testing.T) {
	p1, path1 := setup(t, mixed(200, 1), "one")
	p2, path2 := setup(t, mixed(300, 2), "two")
	p1b, path1b := setup(t, mixed(200, 1), "other toxic waste") // same shape, other keys

	var ps Paths
	if _, err := ps.Lookup(p1); !errors.Is(err, ErrUnknownParams) {
		t.Fatalf("lookup before register: %v, want ErrUnknownParams", err)
	}
	if err := ps.Register(p1, path1); err != nil {
		t.Fatal(err)
	}
	if err := ps.Register(p2, path2); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    *groth16.Params
		want string
	}{{p1, path1}, {p2, path2}} {
		got, err := ps.Lookup(c.p)
		if err != nil || got != c.want {
			t.Fatalf("lookup: %q, %v; want %q", got, err, c.want)
		}
	}
	// Wrong files are refused: another circuit (sizes differ), the same
	// shape under other keys (verifying key differs), a truncated file.
	if err := ps.Register(p1, path2); !errors.Is(err, ErrParamsMismatch) {
		t.Fatalf("p1 with p2's file: %v, want ErrParamsMismatch", err)
	}
	if err := ps.Register(p1, path1b); !errors.Is(err, ErrParamsMismatch) {
		t.Fatalf("p1 with other keys' file: %v, want ErrParamsMismatch", err)
	}
	if err := ps.Register(p1b, path1b); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path1)
	if err != nil {
		t.Fatal(err)
	}
	trunc := path1 + ".trunc"
	if err := os.WriteFile(trunc, raw[:len(raw)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckParamsFile(trunc, p1); !errors.Is(err, ErrParamsMismatch) {
		t.Fatalf("truncated file: %v, want ErrParamsMismatch", err)
	}
	// A count field rewritten (same size, same vk): the h length of p1's
	// file changed by one.
	bad := append([]byte(nil), raw...)
	off := len(p1.VK.Bytes())
	bad[off+3]++
	badPath := path1 + ".bad"
	if err := os.WriteFile(badPath, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckParamsFile(badPath, p1); !errors.Is(err, ErrParamsMismatch) {
		t.Fatalf("h count altered: %v, want ErrParamsMismatch", err)
	}
	if err := ps.Register(p1, path1+".missing"); err == nil || errors.Is(err, ErrParamsMismatch) {
		t.Fatalf("missing file: %v, want an I/O error", err)
	}
	ps.Forget(p1)
	if _, err := ps.Lookup(p1); !errors.Is(err, ErrUnknownParams) {
		t.Fatalf("lookup after forget: %v", err)
	}
	if got, _ := ps.Lookup(p2); got != path2 {
		t.Fatalf("forget dropped the wrong entry")
	}
}

func TestSelectDevices(t *testing.T) {
	all := []Device{
		{Index: 0, Name: "A", Major: 9, Minor: 0, Usable: true},
		{Index: 1, Name: "B", Major: 6, Minor: 1, Usable: false},
		{Index: 2, Name: "C", Major: 8, Minor: 0, Usable: true},
	}
	got, err := selectDevices(all, nil)
	if err != nil || len(got) != 2 || got[0].Index != 0 || got[1].Index != 2 {
		t.Fatalf("all usable: %v, %v", got, err)
	}
	got, err = selectDevices(all, []int{2})
	if err != nil || len(got) != 1 || got[0].Name != "C" {
		t.Fatalf("[2]: %v, %v", got, err)
	}
	for _, want := range [][]int{{1}, {3}, {-1}} {
		if _, err := selectDevices(all, want); !errors.Is(err, ErrNoDevice) {
			t.Fatalf("%v: %v, want ErrNoDevice", want, err)
		}
	}
	if _, err := selectDevices(all, []int{0, 0}); err == nil {
		t.Fatal("duplicate device accepted")
	}
	if _, err := selectDevices(nil, nil); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("no devices: %v", err)
	}
	if _, err := selectDevices(all[1:2], nil); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("only an unusable device: %v", err)
	}
	if s := VisibleDevices([]int{2, 0}); s != "2,0" {
		t.Fatalf("VisibleDevices = %q", s)
	}
	if cc := all[0].ComputeCapability(); cc != "9.0" {
		t.Fatalf("ComputeCapability = %q", cc)
	}
}

func TestCUDAErrorIsNoDevice(t *testing.T) {
	for code, want := range map[int]bool{100: true, 35: true, 34: true, 19: true, 2: false, 700: false} {
		err := error(&CUDAError{Op: "x", Code: code, Msg: "m"})
		if got := errors.Is(err, ErrNoDevice); got != want {
			t.Errorf("code %d: Is(ErrNoDevice) = %v", code, got)
		}
	}
}

func TestCheckBatch(t *testing.T) {
	c := mixed(200, 1)
	p, _ := setup(t, c, "one")
	rnd := make([]groth16.Randomness, 1)
	pa := testcircuits.Assignment(t, c)
	if err := groth16.CheckBatch(p, []*r1cs.ProvingAssignment{pa}, rnd); err != nil {
		t.Fatalf("matching circuit refused: %v", err)
	}
	if err := groth16.CheckBatch(p, nil, nil); err == nil {
		t.Fatal("empty batch accepted")
	}
	if err := groth16.CheckBatch(p, []*r1cs.ProvingAssignment{pa}, nil); err == nil {
		t.Fatal("missing randomness accepted")
	}
	other := testcircuits.Assignment(t, mixed(300, 2))
	if err := groth16.CheckBatch(p, []*r1cs.ProvingAssignment{pa, other}, make([]groth16.Randomness, 2)); !errors.Is(err, groth16.ErrShape) {
		t.Fatalf("other circuit: %v, want ErrShape", err)
	}
	short := testcircuits.Assignment(t, c)
	short.Aux = short.Aux[:len(short.Aux)-1]
	if err := groth16.CheckBatch(p, []*r1cs.ProvingAssignment{short}, rnd); !errors.Is(err, groth16.ErrShape) {
		t.Fatalf("short witness: %v, want ErrShape", err)
	}
}
