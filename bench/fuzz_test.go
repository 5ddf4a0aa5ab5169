package bench

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
)

// FuzzParseMetrics: no metrics text makes ParseMetrics panic, take long
// or allocate more than its size allows (fuzzcheck); what parses has
// families in strict name order, of a known type, and encodes as JSON
// (no NaN or infinity left in it: bench writes the families to its
// report). Seeds: the package's sample exposition and variants below.
func FuzzParseMetrics(f *testing.F) {
	f.Add(sampleMetrics)
	f.Add(sampleMetrics[:len(sampleMetrics)/2])
	f.Add(strings.ReplaceAll(sampleMetrics, " 5\n", " NaN\n"))
	f.Add(strings.ReplaceAll(sampleMetrics, "0.5", "+Inf"))
	f.Add(sampleMetrics + sampleMetrics)
	for _, s := range []string{
		"# TYPE s summary\ns{quantile=\"0.5\"} NaN\ns_sum -Inf\ns_count 3\n",
		"# TYPE u untyped\nu{a=\"\\\"\\n\\\\\"} 1e309\n",
		"m{" + strings.Repeat(`a="b",`, 1000) + "} 1\n",
		"m 1 99999999999999999999\n",
		"not metrics {",
		"# TYPE g gauge\n# TYPE g counter\ng 1\n",
	} {
		f.Add(s)
	}
	types := map[string]bool{"counter": true, "gauge": true, "untyped": true, "summary": true, "histogram": true, "gauge_histogram": true}
	f.Fuzz(func(t *testing.T, text string) {
		fuzzcheck.Check(t, len(text), func() { _, _ = ParseMetrics(text) })
		fams, err := ParseMetrics(text)
		if err != nil {
			return
		}
		if !sort.SliceIsSorted(fams, func(i, j int) bool { return fams[i].Name < fams[j].Name }) {
			t.Fatal("families out of order")
		}
		for i, fam := range fams {
			if i > 0 && fams[i-1].Name == fam.Name {
				t.Fatalf("family %q twice", fam.Name)
			}
			if !types[fam.Type] {
				t.Fatalf("family %q of type %q", fam.Name, fam.Type)
			}
		}
		if _, err := json.Marshal(fams); err != nil {
			t.Fatalf("families do not encode as JSON: %v", err)
		}
	})
}
