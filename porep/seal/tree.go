package seal

import "github.com/cuzk-dev/cuzk/merkle"

// TreeRLast is the replica's tree_r_last, whose leaves are the sealed
// replica: what a sealed sector keeps for WindowPoSt, WinningPoSt and
// SnapDeals. The tree is the replica's own: read it, never modify it.
func (r *Replica) TreeRLast() *merkle.PoseidonTree { return r.treeR }
