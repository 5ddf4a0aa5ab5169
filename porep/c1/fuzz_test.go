package c1

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParse requires that no input makes the decoder, the validator or the
// wrapper parser panic, and that whatever decodes re-encodes to a canonical
// form that decodes to the same canonical form.
func FuzzParse(f *testing.F) {
	raw := rustC1(f, "2KiB")
	f.Add(raw)
	f.Add([]byte(strings.Replace(string(raw), `"index":1},`, `"index":1.0},`, 1)))
	f.Add([]byte(strings.Replace(string(raw), `"Single"`, `"Sub"`, 1)))
	f.Add([]byte(`{"SectorNum":1,"Phase1Out":"e30=","SectorSize":2048}`))
	f.Add([]byte(`{"registered_proof":"StackedDrg2KiBV1","vanilla_proofs":{"StackedDrg2KiBV1":[[]]}}`))
	f.Add([]byte(`"\ud800\udc00"`))
	if o, err := Unmarshal(raw); err == nil {
		w, _ := Wrap(o, 7).MarshalJSON()
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _ = ParseAny(data)
		_, _ = UnmarshalVanillaProofs(data)
		o, err := Unmarshal(data)
		if err != nil {
			return
		}
		_ = o.Validate()
		enc := o.AppendJSON(nil)
		o2, err := Unmarshal(enc)
		if err != nil {
			t.Fatalf("re-encoded C1 does not decode: %v", err)
		}
		if enc2 := o2.AppendJSON(nil); !bytes.Equal(enc, enc2) {
			t.Fatal("encoding is not stable")
		}
	})
}
