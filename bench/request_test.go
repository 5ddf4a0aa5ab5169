package bench

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
)

func TestParseProofType(t *testing.T) {
	for in, want := range map[string]ProofType{
		"porep": TypePoRep, "PoRep-C2": TypePoRep, "seal-commit": TypePoRep,
		"snap": TypeSnap, "snap-deals": TypeSnap, "update": TypeSnap,
		"wpost": TypeWPoSt, "window-post": TypeWPoSt, "windowpost": TypeWPoSt,
		"winning": TypeWinning, "winning-post": TypeWinning, "winningpost": TypeWinning,
		"test": TypeTest,
	} {
		got, err := ParseProofType(in)
		if err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseProofType("c2"); !errors.Is(err, ErrUnknownType) {
		t.Fatal(err)
	}
	if TypeTest.Kind() != client.TestProofKind || TypePoRep.Kind() != cuzkv1.ProofKind_POREP_SEAL_COMMIT || TypeWinning.Kind() != cuzkv1.ProofKind_WINNING_POST {
		t.Fatal("wire kinds")
	}
}

func TestParseVanillaFile(t *testing.T) {
	b64 := `["` + base64.StdEncoding.EncodeToString([]byte("one")) + `", "` + base64.StdEncoding.EncodeToString([]byte("two")) + `"]`
	got, err := ParseVanillaFile([]byte(b64))
	if err != nil || len(got) != 2 || string(got[0]) != "one" || string(got[1]) != "two" {
		t.Fatalf("%q %v", got, err)
	}
	raw := []byte{0, 1, 2}
	if got, err := ParseVanillaFile(raw); err != nil || len(got) != 1 || string(got[0]) != string(raw) {
		t.Fatalf("raw: %q %v", got, err)
	}
	if _, err := ParseVanillaFile([]byte(`["not base64!"]`)); err == nil || !strings.Contains(err.Error(), "vanilla proof 0") {
		t.Fatal(err)
	}
}
