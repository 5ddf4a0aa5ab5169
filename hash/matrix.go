package hash

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Dense square matrices over Fr, as a slice of rows (neptune src/matrix.rs).
// They are used only while deriving constants, so clarity wins over speed.

var errSingular = errors.New("hash: singular matrix")

func newMatrix(n int) [][]fr.Element {
	m := make([][]fr.Element, n)
	for i := range m {
		m[i] = make([]fr.Element, n)
	}
	return m
}

func identity(n int) [][]fr.Element {
	m := newMatrix(n)
	for i := range m {
		m[i][i].SetOne()
	}
	return m
}

func cloneMatrix(a [][]fr.Element) [][]fr.Element {
	m := make([][]fr.Element, len(a))
	for i := range a {
		m[i] = append([]fr.Element(nil), a[i]...)
	}
	return m
}

// matMul returns a·b.
func matMul(a, b [][]fr.Element) [][]fr.Element {
	n := len(a)
	m := newMatrix(n)
	var t fr.Element
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var acc fr.Element
			for k := 0; k < n; k++ {
				t.Mul(&a[i][k], &b[k][j])
				acc.Add(&acc, &t)
			}
			m[i][j] = acc
		}
	}
	return m
}

// rowTimesMatrix returns v·m with v a row vector: out[j] = sum_i v[i]*m[i][j].
// This is neptune v11's apply_matrix, the orientation used everywhere in
// Poseidon (hashing, preprocessing and the circuit).
func rowTimesMatrix(m [][]fr.Element, v []fr.Element) []fr.Element {
	out := make([]fr.Element, len(v))
	var t fr.Element
	for j := range out {
		for i := range v {
			t.Mul(&m[i][j], &v[i])
			out[j].Add(&out[j], &t)
		}
	}
	return out
}

// minor00 drops row 0 and column 0.
func minor00(a [][]fr.Element) [][]fr.Element {
	n := len(a) - 1
	m := newMatrix(n)
	for i := 0; i < n; i++ {
		copy(m[i], a[i+1][1:])
	}
	return m
}

// invert returns a^-1 by Gauss-Jordan elimination. The inverse of a matrix is
// unique, so any elimination order gives neptune's values exactly.
func invert(a [][]fr.Element) ([][]fr.Element, error) {
	n := len(a)
	w := cloneMatrix(a)
	inv := identity(n)
	var f, t fr.Element
	for col := 0; col < n; col++ {
		p := col
		for p < n && w[p][col].IsZero() {
			p++
		}
		if p == n {
			return nil, errSingular
		}
		w[col], w[p] = w[p], w[col]
		inv[col], inv[p] = inv[p], inv[col]
		f.Inverse(&w[col][col])
		for j := 0; j < n; j++ {
			w[col][j].Mul(&w[col][j], &f)
			inv[col][j].Mul(&inv[col][j], &f)
		}
		for r := 0; r < n; r++ {
			if r == col || w[r][col].IsZero() {
				continue
			}
			f = w[r][col]
			for j := 0; j < n; j++ {
				t.Mul(&f, &w[col][j])
				w[r][j].Sub(&w[r][j], &t)
				t.Mul(&f, &inv[col][j])
				inv[r][j].Sub(&inv[r][j], &t)
			}
		}
	}
	return inv, nil
}
