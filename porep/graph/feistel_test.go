package graph

import "testing"

func TestFeistelWidth(t *testing.T) {
	cases := []struct {
		n        uint64
		halfBits uint
	}{
		{1, 1}, {4, 1}, {5, 2}, {16, 2}, {17, 3},
		{8 * 8, 3}, {32 * 8, 4}, {64 * 8, 5}, {1 << 21, 11}, {1 << 33, 17}, {1 << 34, 17},
	}
	for _, tc := range cases {
		if f := newFeistel(tc.n, [4]uint64{}); f.halfBits != tc.halfBits || f.rightMask != 1<<tc.halfBits-1 {
			t.Errorf("n=%d: halfBits %d mask %#x, want %d", tc.n, f.halfBits, f.rightMask, tc.halfBits)
		}
	}
}

// TestFeistelPermutation mirrors upstream test_shuffle and encode_decode:
// permute is a bijection on [0, n) for n a power of four and not, and
// invert undoes it.
func TestFeistelPermutation(t *testing.T) {
	keys := [4]uint64{1, 2, 3, 4}
	for _, n := range []uint64{5, 6, 8, 12, 17, 64, 1 << 10 * 8, 3000} {
		f := newFeistel(n, keys)
		seen := make([]bool, n)
		for i := range n {
			p := f.permute(i)
			if p >= n {
				t.Fatalf("n=%d: permute(%d) = %d out of range", n, i, p)
			}
			if seen[p] {
				t.Fatalf("n=%d: permute(%d) = %d repeats", n, i, p)
			}
			seen[p] = true
			if back := f.invert(p); back != i {
				t.Fatalf("n=%d: invert(permute(%d)) = %d", n, i, back)
			}
		}
	}
}
