package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/srs"
)

// TestBadParamsFailJob breaks test-k10's parameter file in each way a file
// can be broken, and checks each ends the job FAILED with ErrParamsUnusable
// and a message naming the file and where in it, whether the fault is found
// at planning (header) or at loading (a point), and that the engine then
// proves with the repaired file: nothing about a bad file sticks.
func TestBadParamsFailJob(t *testing.T) {
	good, path := testkit.BreakableParams(t, 10)
	dir := filepath.Dir(path)
	const vkFixed = 3*groth16.G1Uncompressed + 3*groth16.G2Uncompressed // alpha, beta, gamma, delta
	nIC := int(uint32(good[vkFixed])<<24 | uint32(good[vkFixed+1])<<16 | uint32(good[vkFixed+2])<<8 | uint32(good[vkFixed+3]))
	hStart := vkFixed + 4 + nIC*groth16.G1Uncompressed + 4
	corrupt := func(off int) []byte {
		b := append([]byte(nil), good...)
		b[off] ^= 0x01 // the low byte of x: the point leaves the curve
		return b
	}

	offset := regexp.MustCompile(`(byte|offset) \d+`)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		data []byte // nil: no file
		dir  bool   // a directory where the file should be
		want []string
	}{
		{"missing", nil, false, []string{"parameter file not found"}},
		{"directory", nil, true, []string{"not a regular file"}},
		{"empty", []byte{}, false, []string{"ic count at offset 864"}},
		{"inside the vk", good[:100], false, []string{"ic count at offset 864"}},
		{"inside the ic count", good[:vkFixed+2], false, []string{"ic count at offset 864"}},
		{"inside ic", good[:vkFixed+4+groth16.G1Uncompressed], false, []string{"ic count at offset 864"}},
		{"inside h", good[:hStart+10*groth16.G1Uncompressed], false, []string{fmt.Sprintf("h count at offset %d", hStart-4)}},
		{"last byte", good[:len(good)-1], false, []string{"b_g2 count at offset"}},
		{"trailing byte", append(append([]byte(nil), good...), 0), false, []string{"trailing bytes after b_g2, from offset"}},
		{"h[3] off the curve", corrupt(hStart + 3*groth16.G1Uncompressed + 47), false,
			[]string{fmt.Sprintf("h[3] at byte %d", hStart+3*groth16.G1Uncompressed), "not on curve"}},
	} {
		// cold: a fresh engine meets the bad file (a bad header fails the
		// plan, a bad point the load); warm: the engine proved with the
		// good file before, so it knows the sizes and only the load can
		// find the fault.
		for _, warm := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/warm=%v", tc.name, warm), func(t *testing.T) {
				r := newRigWith(t, engine.Config{}, rigOptions{locator: testkind.Locator(dir)})
				put := func(data []byte, isDir bool) {
					t.Helper()
					if err := os.RemoveAll(path); err != nil {
						t.Fatal(err)
					}
					var err error
					switch {
					case isDir:
						err = os.Mkdir(path, 0o755)
					case data != nil:
						err = os.WriteFile(path, data, 0o644)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if warm {
					put(good, false)
					if res, err := r.eng.Prove(ctx, testReq("", 10, testkind.Options{})); err != nil || res.State != engine.StateCompleted {
						t.Fatalf("good file: %v %v %v", err, res.State, res.Err)
					}
					if _, _, err := r.eng.EvictParams("test-k10"); err != nil {
						t.Fatal(err)
					}
				}
				put(tc.data, tc.dir)
				res, err := r.eng.Prove(ctx, testReq("", 10, testkind.Options{}))
				if err != nil {
					t.Fatalf("an error, not a FAILED job: %v", err)
				}
				if res.State != engine.StateFailed || !errors.Is(res.Err, engine.ErrParamsUnusable) {
					t.Fatalf("state %v, err %v; want FAILED with ErrParamsUnusable", res.State, res.Err)
				}
				msg := res.Err.Error()
				want := []string{path}
				if !warm {
					want = append(want, tc.want...)
				}
				for _, w := range want {
					if !strings.Contains(msg, w) {
						t.Errorf("message %q does not name %q", msg, w)
					}
				}
				if len(tc.data) > 0 && !offset.MatchString(msg) { // an empty file is said to be empty
					t.Errorf("message %q names no offset", msg)
				}
				t.Log(msg)

				// The repaired file proves at once: nothing of the bad
				// file sticks.
				put(good, false)
				res, err = r.eng.Prove(ctx, testReq("", 10, testkind.Options{}))
				if err != nil || res.State != engine.StateCompleted {
					t.Fatalf("after the repair: %v %v %v", err, res.State, res.Err)
				}
			})
		}
	}
}

// A file under a circuit's name that holds another circuit's parameters
// fails the job as a parameter-file problem naming the file, whether the
// circuit outgrows the domain (found after synthesis) or the counts differ
// (found by the prover's shape check).
func TestParamsOfAnotherCircuit(t *testing.T) {
	swapped := srs.LocatorFunc(func(id string) (srs.Files, error) {
		k, err := testkind.ParseCircuitID(id)
		if err != nil {
			return srs.Files{}, err
		}
		other := map[int]int{10: 12, 12: 10}[k]
		base := filepath.Join(paramDir, testkind.FileBase(other))
		return srs.Files{Params: base + ".params", VK: base + ".vk"}, nil
	})
	r := newRigWith(t, engine.Config{}, rigOptions{locator: swapped})
	ctx := context.Background()
	for _, tc := range []struct {
		k    int
		file string
		want string
	}{
		{12, testkind.FileBase(10) + ".params", "do not fit the parameters' domain"},
		{10, testkind.FileBase(12) + ".params", "circuit does not match the parameters"},
	} {
		res, err := r.eng.Prove(ctx, testReq("", tc.k, testkind.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		if res.State != engine.StateFailed || !errors.Is(res.Err, engine.ErrParamsUnusable) || !errors.Is(res.Err, groth16.ErrShape) ||
			!strings.Contains(res.Err.Error(), tc.file) || !strings.Contains(res.Err.Error(), tc.want) {
			t.Fatalf("test-k%d: %v %v; want FAILED naming %s and %q", tc.k, res.State, res.Err, tc.file, tc.want)
		}
		t.Logf("test-k%d: %v", tc.k, res.Err)
	}
}
