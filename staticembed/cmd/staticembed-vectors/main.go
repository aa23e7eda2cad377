// Command staticembed-vectors precomputes, with a static embedding table,
// the vectors of every declaration of a source snapshot that mcpsnapshot
// wrote, into the snapshot's vectors.bin, as mcpsnapshot -embed-url does
// with an embeddings server: no server, no network.
//
//	mcpsnapshot -deps -o snapshot ./cmd/server
//	staticembed-vectors [-table file] snapshot
//
// Without -table it uses the table compiled into staticembed
// (staticembed.Default), the one a host passes as codetools.Options.Embedder;
// a catalog uses the file only with a table of the same checksum.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codesnap"
	"github.com/embedmcp/mcp/staticembed"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("staticembed-vectors", flag.ContinueOnError)
	fl.SetOutput(stderr)
	table := fl.String("table", "", "table `file` (plain or gzip); default: the table compiled into staticembed")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: staticembed-vectors [-table file] snapshot-dir")
		return 2
	}
	dir := fl.Arg(0)
	tab := staticembed.Default()
	if *table != "" {
		data, err := os.ReadFile(*table)
		if err == nil {
			tab, err = staticembed.Parse(data)
		}
		if err != nil {
			fmt.Fprintln(stderr, "staticembed-vectors:", err)
			return 1
		}
	}
	start := time.Now()
	out := filepath.Join(dir, codesnap.VectorsName)
	tmp, err := os.CreateTemp(dir, ".vectors-*")
	if err != nil {
		fmt.Fprintln(stderr, "staticembed-vectors:", err)
		return 1
	}
	defer os.Remove(tmp.Name())
	n, err := codetools.WriteVectors(ctx, tmp, os.DirFS(dir), tab)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "staticembed-vectors:", err)
		return 1
	}
	fi, _ := os.Stat(out)
	fmt.Fprintf(stdout, "%s: %d vectors of %d dimensions (%s), %d bytes, in %v\n",
		codesnap.VectorsName, n, tab.Dims(), tab.EmbedderName(), fi.Size(), time.Since(start).Round(time.Millisecond))
	return 0
}
