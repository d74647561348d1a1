// The Go peer of zkaccel's MSM and NTT: gnark-crypto's MultiExp and FFT,
// timed the way `compare msm` and `compare ntt` time zkaccel's
// (scripts/gnark-peer.sh runs them side by side).
//
//	go run . -op msm -curve bls12-381 -group g1 -log-n 16 -rounds 7
//	go run . -op ntt -log-n 20 -rounds 7
//
// It prints one line: the median wall time in milliseconds of `rounds`
// calls, after one untimed call, with gnark's default configuration (every
// core). msm: MultiExp on 2^log-n random bases and full-width random
// scalars. ntt: BN254 Fr, 2^log-n random values, natural order in and out
// as ark-poly's fft_in_place and zkaccel's NttDomain give them (FFT with
// decimation in frequency, then the bit-reversal permutation), followed by
// a second number, the FFT alone (bit-reversed output, as gnark's own
// provers consume it). Inputs and the domain's twiddles are made before
// the timed region; each call transforms the previous call's output.
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
	"github.com/consensys/gnark-crypto/ecc/bn254/fr/fft"
	"github.com/consensys/gnark-crypto/utils"
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

// ntt times BN254 Fr transforms of 2^logN values: natural order in and out,
// and the FFT alone.
func ntt(logN, rounds int) (float64, float64) {
	n := 1 << logN
	a := make([]bnfr.Element, n)
	for i := range a {
		a[i].SetRandom()
	}
	domain := fft.NewDomain(uint64(n))
	natural := timed(rounds, func() {
		domain.FFT(a, fft.DIF)
		utils.BitReverse(a)
	})
	alone := timed(rounds, func() { domain.FFT(a, fft.DIF) })
	return natural, alone
}

func main() {
	op := flag.String("op", "msm", "msm or ntt (BN254 Fr)")
	curve := flag.String("curve", "bls12-381", "bls12-381 or bn254")
	group := flag.String("group", "g1", "g1 or g2")
	logN := flag.Int("log-n", 16, "log2 of the number of terms")
	rounds := flag.Int("rounds", 7, "timed calls (the median is printed)")
	flag.Parse()
	if *op == "ntt" {
		natural, alone := ntt(*logN, *rounds)
		fmt.Printf("%.3f %.3f\n", natural, alone)
		return
	} else if *op != "msm" {
		fmt.Fprintf(os.Stderr, "gnark peer: unknown -op %s (msm or ntt)\n", *op)
		os.Exit(2)
	}
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
		fmt.Fprintf(os.Stderr, "gnark peer: unknown curve/group %s/%s (bls12-381 or bn254, g1 or g2)\n", *curve, *group)
		os.Exit(2)
	}
	fmt.Printf("%.3f\n", ms)
}
