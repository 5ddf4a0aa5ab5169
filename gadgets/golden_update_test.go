package gadgets

import (
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Golden cases of the EmptySectorUpdate gadgets, each alone, written by
// tools/rustref from upstream's own gadget code (storage-proofs-update
// src/gadgets.rs compiled into the harness). Each case's description states
// how its inputs come from the shared stream; these tests draw the same
// values, allocate them the same way and compare rows and witness.

func allocBitsU64(cs *r1cs.CS, v uint64, n int) []AllocatedBit {
	out := make([]AllocatedBit, n)
	for i := range out {
		out[i] = AllocBit(cs, v>>uint(i)&1 == 1)
	}
	return out
}

func checkGadgetRows(t *testing.T, g *golden.R1CS, rows int) {
	t.Helper()
	if want, ok := goldenExtra(t, g)["gadget_rows"].(float64); ok && int(want) != rows {
		t.Errorf("gadget rows %d, golden %v", rows, want)
	}
}

func TestGoldenUpdateGadgets(t *testing.T) {
	const kib2, kib16, mib8 = 1 << 6, 1 << 9, 1 << 18
	partitions := func(nodes int) int {
		switch {
		case nodes <= 1<<8:
			return 1
		case nodes <= 1<<10:
			return 2
		case nodes <= 1<<19:
			return 4
		}
		return 16
	}
	log2 := func(n int) int {
		l := 0
		for 1<<l < n {
			l++
		}
		return l
	}
	cases := map[string]func(t *testing.T, s *golden.Stream, cs *r1cs.CS) (rows int, extra map[string]string){
		"poseidon_2_gen_randomness": func(t *testing.T, s *golden.Stream, cs *r1cs.CS) (int, map[string]string) {
			a, b := AllocNum(cs, s.Fr()), AllocNum(cs, s.Fr())
			before := cs.NumConstraints()
			h := PoseidonGenRandomness(cs, a, b)
			return cs.NumConstraints() - before, map[string]string{"hash": golden.FrHex(h.Val)}
		},
		"allocated_num_to_allocated_bits": func(t *testing.T, s *golden.Stream, cs *r1cs.CS) (int, map[string]string) {
			x := AllocNum(cs, s.Fr())
			before := cs.NumConstraints()
			bits := NumToAllocatedBits(cs, nil, x)
			str := make([]byte, len(bits))
			for i, b := range bits {
				str[i] = '0'
				if b.Value() {
					str[i] = '1'
				}
			}
			return cs.NumConstraints() - before, map[string]string{"bits_le": string(str)}
		},
		"label_r_new": func(t *testing.T, s *golden.Stream, cs *r1cs.CS) (int, map[string]string) {
			o, d, r := AllocNum(cs, s.Fr()), AllocNum(cs, s.Fr()), AllocNum(cs, s.Fr())
			before := cs.NumConstraints()
			l := LabelRNew(cs, o, d, r)
			return cs.NumConstraints() - before, map[string]string{"label_r_new": golden.FrHex(l.Val)}
		},
		"select_128": func(t *testing.T, s *golden.Stream, cs *r1cs.CS) (int, map[string]string) {
			vals := make([]AllocatedNum, 128)
			for i := range vals {
				vals[i] = AllocNum(cs, s.Fr())
			}
			idx := s.U64() % 128
			bits := Booleans(nil, allocBitsU64(cs, idx, 7))
			before := cs.NumConstraints()
			out := Select(cs, append([]AllocatedNum(nil), vals...), bits)
			return cs.NumConstraints() - before, map[string]string{"selected": golden.FrHex(out.Val)}
		},
		"por_no_challenge_input_poseidon_8": func(t *testing.T, s *golden.Stream, cs *r1cs.CS) (int, map[string]string) {
			leaves := make([]fr.Element, 64)
			for i := range leaves {
				leaves[i] = s.Fr()
			}
			c := int(s.U64() % 64)
			tree, err := merkle.BuildPoseidon(merkle.ShapeBase, leaves, 1)
			if err != nil {
				t.Fatal(err)
			}
			p, err := tree.Prove(c)
			if err != nil {
				t.Fatal(err)
			}
			bits := allocBitsU64(cs, uint64(c), 6)
			leaf := AllocNum(cs, p.Leaf)
			var path [][]AllocatedNum
			for _, e := range p.Path {
				path = append(path, allocNums(cs, e.Hashes))
			}
			root := AllocNum(cs, tree.Root())
			before := cs.NumConstraints()
			por := PoRNoChallenge{Shape: merkle.Shape{Base: 8}, Hasher: PoseidonHasher{}}
			if err := por.Synthesize(cs, bits, leaf, path, root); err != nil {
				t.Fatal(err)
			}
			return cs.NumConstraints() - before, map[string]string{"root": golden.FrHex(tree.Root()), "leaf": golden.FrHex(p.Leaf)}
		},
		"por_no_challenge_input_sha256_2": func(t *testing.T, s *golden.Stream, cs *r1cs.CS) (int, map[string]string) {
			raw := make([][32]byte, 8)
			for i := range raw {
				fr.LittleEndian.PutElement(&raw[i], s.Fr())
			}
			c := int(s.U64() % 8)
			tree, err := merkle.BuildSha254(raw, 1)
			if err != nil {
				t.Fatal(err)
			}
			p, err := tree.Prove(c)
			if err != nil {
				t.Fatal(err)
			}
			bits := allocBitsU64(cs, uint64(c), 3)
			leaf := AllocNum(cs, frLE(t, p.Leaf))
			var path [][]AllocatedNum
			for _, e := range p.Path {
				path = append(path, []AllocatedNum{AllocNum(cs, frLE(t, e.Hashes[0]))})
			}
			root := AllocNum(cs, frLE(t, tree.Root()))
			before := cs.NumConstraints()
			por := PoRNoChallenge{Shape: merkle.Shape{Base: 2}, Hasher: &Sha254Hasher{}}
			if err := por.Synthesize(cs, bits, leaf, path, root); err != nil {
				t.Fatal(err)
			}
			r := tree.Root()
			return cs.NumConstraints() - before, map[string]string{"root": hex.EncodeToString(r[:])}
		},
	}
	for _, v := range []struct {
		name   string
		nodes  int
		forceK int // -1: k as drawn
	}{{"2KiB", kib2, -1}, {"8MiB", mib8, -1}, {"8MiB_k3", mib8, 3}} {
		nodes := v.nodes
		cases["gen_challenge_bits_"+v.name] = func(t *testing.T, s *golden.Stream, cs *r1cs.CS) (int, map[string]string) {
			crn := s.Fr()
			parts := partitions(nodes)
			k := int(s.U64() % uint64(parts))
			if v.forceK >= 0 {
				k = v.forceK // the u64 is still drawn
			}
			cr := AllocNum(cs, crn)
			kn := AllocNum(cs, elem(int64(k)))
			pbits := log2(parts)
			NumToAllocatedBits(cs, nil, kn)
			challenges := 10
			before := cs.NumConstraints()
			gen, err := GenChallengeBits(cs, cr, kn, challenges, log2(nodes)-pbits)
			if err != nil {
				t.Fatal(err)
			}
			var cs0 []string
			for _, g := range gen {
				var c uint64
				for i, b := range g {
					if b.Value() {
						c |= 1 << uint(i)
					}
				}
				cs0 = append(cs0, fmt.Sprint(c|uint64(k)<<uint(len(g))))
			}
			return cs.NumConstraints() - before, map[string]string{"challenges": fmt.Sprint(cs0)}
		}
		if v.forceK >= 0 {
			continue
		}
		cases["get_challenge_high_bits_"+v.name] = func(t *testing.T, s *golden.Stream, cs *r1cs.CS) (int, map[string]string) {
			c := s.U64() % uint64(nodes)
			hIndex := int(s.U64() % 6)
			hs := []int{1, 1, 1, 1, 1, 1}
			if nodes > 1<<10 {
				hs = []int{7, 8, 9, 10, 11, 12}
			}
			cb := allocBitsU64(cs, c, log2(nodes))
			sel := allocBitsU64(cs, 1<<uint(hIndex), 6)
			before := cs.NumConstraints()
			out, err := ChallengeHighBits(cs, cb, sel, hs)
			if err != nil {
				t.Fatal(err)
			}
			return cs.NumConstraints() - before, map[string]string{"high": fmt.Sprint(out.Val.Uint64())}
		}
	}
	for _, ac := range []struct {
		name                      string
		nodes, parts, apexPerPart int
	}{{"apex_por_2KiB", kib2, 1, 8}, {"apex_por_16KiB_4x16", kib16, 4, 16}, {"apex_por_16KiB_8x8", kib16, 8, 8}} {
		cases[ac.name] = func(t *testing.T, s *golden.Stream, cs *r1cs.CS) (int, map[string]string) {
			raw := make([][32]byte, ac.nodes)
			for i := range raw {
				fr.LittleEndian.PutElement(&raw[i], s.Fr())
			}
			k := int(s.U64() % uint64(ac.parts))
			tree, err := merkle.BuildSha254(raw, 1)
			if err != nil {
				t.Fatal(err)
			}
			pb := log2(ac.parts)
			rootsRow := log2(ac.nodes) - pb
			leafsRow := rootsRow - log2(ac.apexPerPart)
			commD := AllocNum(cs, frLE(t, tree.Root()))
			bits := allocBitsU64(cs, uint64(k), pb)
			var leafs []AllocatedNum
			for _, l := range tree.Level(leafsRow)[k*ac.apexPerPart : (k+1)*ac.apexPerPart] {
				leafs = append(leafs, AllocNum(cs, frLE(t, l)))
			}
			var path [][]AllocatedNum
			for i := 0; i < pb; i++ {
				path = append(path, []AllocatedNum{AllocNum(cs, frLE(t, tree.Level(rootsRow + i)[(k>>uint(i))^1]))})
			}
			before := cs.NumConstraints()
			var sha Sha254Hasher
			var por PoRNoChallenge
			if err := ApexPoR(cs, &sha, &por, leafs, bits, path, commD); err != nil {
				t.Fatal(err)
			}
			root := tree.Root()
			return cs.NumConstraints() - before, map[string]string{"comm_d": hex.EncodeToString(root[:])}
		}
	}
	for _, name := range []string{
		"poseidon_2_gen_randomness", "allocated_num_to_allocated_bits",
		"gen_challenge_bits_2KiB", "gen_challenge_bits_8MiB", "gen_challenge_bits_8MiB_k3",
		"get_challenge_high_bits_2KiB", "get_challenge_high_bits_8MiB",
		"label_r_new", "por_no_challenge_input_poseidon_8", "por_no_challenge_input_sha256_2",
		"apex_por_2KiB", "apex_por_16KiB_4x16", "apex_por_16KiB_8x8", "select_128",
	} {
		t.Run(name, func(t *testing.T) {
			g := loadGolden(t, name)
			var rows int
			var extra map[string]string
			d := digest(t, func(cs *r1cs.CS) { rows, extra = cases[name](t, caseStream(name), cs) })
			golden.Compare(t, g, d)
			checkGadgetRows(t, g, rows)
			ge := goldenExtra(t, g)
			for k, v := range extra {
				gv, ok := ge[k]
				if !ok {
					continue
				}
				if k == "challenges" {
					gv = fmt.Sprint(toStrings(gv))
				} else if f, isNum := gv.(float64); isNum {
					gv = fmt.Sprint(uint64(f))
				}
				if fmt.Sprint(gv) != v {
					t.Errorf("extra %s: Go %s, golden %v", k, v, gv)
				}
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	if xs, ok := v.([]any); ok {
		for _, x := range xs {
			if f, ok := x.(float64); ok {
				out = append(out, fmt.Sprint(uint64(f)))
			}
		}
	}
	return out
}
