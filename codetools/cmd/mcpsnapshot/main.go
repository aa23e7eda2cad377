// Command mcpsnapshot writes a source snapshot of a main package for the
// codetools catalog, to be embedded with //go:embed.
//
// Usage:
//
//	mcpsnapshot [-o dir] [-deps] [-std] [-tags list] [package]
//
// It runs "go list -deps -json" for the package (default ".") and copies
// the Go files of the build into dir/src/<importpath>/<file>.go.txt:
// packages of the main module by default, of dependency modules with
// -deps, and of the standard library with -std. It writes
// dir/manifest.json (replacing any earlier dir/src and manifest) with the module versions, each file's sha256, the
// revision of the main module ("git rev-parse HEAD", with a dirty flag
// from "git status --porcelain"), and GOOS, GOARCH and build tags.
//
// Typical use in the host's main package:
//
//	//go:generate go run github.com/embedmcp/mcp/codetools/cmd/mcpsnapshot -o snapshot .
//	//go:embed snapshot
//	var snapshotFS embed.FS
//
// and Options.Snapshot set to fs.Sub(snapshotFS, "snapshot").
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.out, "o", "snapshot", "output `directory`")
	flag.BoolVar(&cfg.deps, "deps", false, "include packages of dependency modules")
	flag.BoolVar(&cfg.std, "std", false, "include standard library packages")
	flag.StringVar(&cfg.tags, "tags", "", "comma-separated build `tags` passed to go list")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: mcpsnapshot [-o dir] [-deps] [-std] [-tags list] [package]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	switch flag.NArg() {
	case 0:
		cfg.pkg = "."
	case 1:
		cfg.pkg = flag.Arg(0)
	default:
		flag.Usage()
		os.Exit(2)
	}
	m, err := generate(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpsnapshot:", err)
		os.Exit(1)
	}
	n := 0
	for _, p := range m.Packages {
		n += len(p.Files)
	}
	fmt.Fprintf(os.Stderr, "mcpsnapshot: wrote %d packages, %d files to %s\n", len(m.Packages), n, cfg.out)
}
