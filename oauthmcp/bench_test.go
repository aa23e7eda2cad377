package oauthmcp

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// BenchmarkVerify measures Verify of a JWT access token whose key is
// cached (no fetch in the loop; the token cache off, so every op is a full
// check), per algorithm, beside a baseline: the signature check alone (hash
// and verify with the standard library), which no verifier can go below;
// and Verify of a token seen before (the token cache on). Each op is
// timed; p50-ns and p99-ns are reported with the mean.
func BenchmarkVerify(b *testing.B) {
	f := newFakeAS(b, "")
	rsa4096, err := rsa.GenerateKey(rand.Reader, 4096)
	if err != nil {
		b.Fatal(err)
	}
	f.mu.Lock()
	f.published = append(f.published, newTestKey(b, "es", jose.ES256), newTestKey(b, "ed", jose.EdDSA),
		&testKey{kid: "rsa4096", alg: jose.RS256, priv: rsa4096})
	f.mu.Unlock()
	v, _, _ := newTestVerifier(b, f, func(o *Options) { o.TokenCacheSize = -1 })
	v.now = time.Now
	cached, _, _ := newTestVerifier(b, f, nil)
	cached.now = time.Now
	for _, k := range f.published {
		name := string(k.alg)
		if k.kid == "rsa4096" {
			name = "RS256-4096"
		}
		tok := sign(b, k, f.claims(time.Now(), "notes:read notes:write"))
		if _, err := v.Verify(background(), tok); err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/verify", func(b *testing.B) {
			timed(b, func() {
				if _, err := v.Verify(background(), tok); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(name+"/cached-token", func(b *testing.B) {
			timed(b, func() {
				if _, err := cached.Verify(background(), tok); err != nil {
					b.Fatal(err)
				}
			})
		})
		check := signatureOnly(b, k, tok)
		b.Run(name+"/signature-only", func(b *testing.B) {
			timed(b, func() {
				if !check() {
					b.Fatal("signature does not verify")
				}
			})
		})
	}
	if n := f.jwksFetches.Load(); n != 2 { // one per Verifier
		b.Errorf("%d key set fetches, want 2", n)
	}
}

// timed runs op b.N times, timing each, and reports the median and the
// 99th percentile.
func timed(b *testing.B, op func()) {
	b.ReportAllocs()
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		op()
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds()), "p99-ns")
}

// signatureOnly returns the standard library's check of tok's signature
// by k: the floor under any JWT verification.
func signatureOnly(b *testing.B, k *testKey, tok string) func() bool {
	i := strings.LastIndexByte(tok, '.')
	input := []byte(tok[:i])
	sig, err := base64.RawURLEncoding.DecodeString(tok[i+1:])
	if err != nil {
		b.Fatal(err)
	}
	switch pub := k.priv.Public().(type) {
	case *rsa.PublicKey:
		return func() bool {
			h := sha256.Sum256(input)
			return rsa.VerifyPKCS1v15(pub, crypto.SHA256, h[:], sig) == nil
		}
	case *ecdsa.PublicKey:
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		return func() bool {
			h := sha256.Sum256(input)
			return ecdsa.Verify(pub, h[:], r, s)
		}
	case ed25519.PublicKey:
		return func() bool { return ed25519.Verify(pub, input, sig) }
	}
	b.Fatalf("no baseline for %T", k.priv.Public())
	return nil
}
