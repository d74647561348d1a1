// gnark-msm times gnark-crypto's multi-scalar multiplication, the Go peer
// of zkaccel's MSM (scripts/gnark-msm.sh runs it beside `compare msm`).
//
//	go run . -curve bls12-381 -group g1 -log-n 16 -rounds 7
//
// It prints one line: the median wall time in milliseconds of `rounds`
// MultiExp calls on 2^log-n random bases and full-width random scalars,
// with gnark's default configuration (every core). Bases and scalars are
// made before the timed region.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	blsfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	bn "github.com/consensys/gnark-crypto/ecc/bn254"
	bnfr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
)

// timed runs f rounds times after one warm-up call and returns the median
// milliseconds.
func timed(rounds int, f func()) float64 {
	f()
	ms := make([]float64, rounds)
	for i := range ms {
		t := time.Now()
		f()
		ms[i] = float64(time.Since(t).Nanoseconds()) / 1e6
	}
	sort.Float64s(ms)
	return ms[rounds/2]
}

func main() {
	curve := flag.String("curve", "bls12-381", "bls12-381 or bn254")
	group := flag.String("group", "g1", "g1 or g2")
	logN := flag.Int("log-n", 16, "log2 of the number of terms")
	rounds := flag.Int("rounds", 7, "timed calls (the median is printed)")
	flag.Parse()
	n := 1 << *logN
	cfg := ecc.MultiExpConfig{}
	var ms float64
	switch *curve + "/" + *group {
	case "bls12-381/g1", "bls12-381/g2":
		s := make([]blsfr.Element, n)
		k := make([]blsfr.Element, n)
		for i := range s {
			s[i].SetRandom()
			k[i].SetRandom()
		}
		_, _, g1, g2 := bls.Generators()
		if *group == "g1" {
			bases := bls.BatchScalarMultiplicationG1(&g1, k)
			var r bls.G1Jac
			ms = timed(*rounds, func() { r.MultiExp(bases, s, cfg) })
		} else {
			bases := bls.BatchScalarMultiplicationG2(&g2, k)
			var r bls.G2Jac
			ms = timed(*rounds, func() { r.MultiExp(bases, s, cfg) })
		}
	case "bn254/g1", "bn254/g2":
		s := make([]bnfr.Element, n)
		k := make([]bnfr.Element, n)
		for i := range s {
			s[i].SetRandom()
			k[i].SetRandom()
		}
		_, _, g1, g2 := bn.Generators()
		if *group == "g1" {
			bases := bn.BatchScalarMultiplicationG1(&g1, k)
			var r bn.G1Jac
			ms = timed(*rounds, func() { r.MultiExp(bases, s, cfg) })
		} else {
			bases := bn.BatchScalarMultiplicationG2(&g2, k)
			var r bn.G2Jac
			ms = timed(*rounds, func() { r.MultiExp(bases, s, cfg) })
		}
	default:
		fmt.Fprintf(os.Stderr, "gnark-msm: unknown curve/group %s/%s (bls12-381 or bn254, g1 or g2)\n", *curve, *group)
		os.Exit(2)
	}
	fmt.Printf("%.3f\n", ms)
}
