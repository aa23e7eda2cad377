package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/embedmcp/mcp/codetools"
	"github.com/embedmcp/mcp/internal/codeindex"
	"github.com/embedmcp/mcp/internal/codesnap"
)

// config holds the command-line settings.
type config struct {
	dir   string   // working directory for the go command; "" means current
	env   []string // environment of the go command; nil means this process's
	out   string
	sel   codetools.Selection
	tags  string
	pkg   string
	check bool
}

// listedPackage is the subset of "go list -json" output used here.
type listedPackage struct {
	ImportPath string
	Name       string
	Dir        string
	Standard   bool
	GoFiles    []string
	CgoFiles   []string
	Module     *listedModule
	Error      *struct{ Err string }
}

type listedModule struct {
	Path    string
	Version string
	Sum     string
	Main    bool
	Replace *listedModule
}

// snapshotFiles is what generate writes: slash-separated paths relative
// to the output directory, and their contents.
type snapshotFiles struct {
	man   *codesnap.Manifest
	files map[string][]byte
}

// generate computes the snapshot described by cfg. It writes nothing.
func generate(ctx context.Context, cfg config) (*snapshotFiles, error) {
	if err := cfg.sel.Validate(); err != nil {
		return nil, err
	}
	pkgs, err := listPackages(ctx, cfg)
	if err != nil {
		return nil, err
	}
	root := pkgs[len(pkgs)-1] // -deps lists the named package last
	if root.Name != "main" {
		return nil, fmt.Errorf("package %s is not a main package", root.ImportPath)
	}
	m := &codesnap.Manifest{Format: codesnap.Format, MainPackage: root.ImportPath, Selection: codesnap.Selection(cfg.sel)}
	env, err := run(ctx, cfg, "go", "env", "GOOS", "GOARCH", "GOVERSION")
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(env))
	if len(f) != 3 {
		return nil, fmt.Errorf("go env GOOS GOARCH GOVERSION printed %q", env)
	}
	m.GOOS, m.GOARCH = f[0], f[1]
	for _, t := range strings.Split(cfg.tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			m.Tags = append(m.Tags, t)
		}
	}
	out := &snapshotFiles{man: m, files: map[string][]byte{}}
	mods := map[string]codesnap.Module{}
	var sources [][]codeindex.Source
	for _, p := range pkgs {
		mod, main := "", false
		if p.Module != nil {
			mods[p.Module.Path] = manifestModule(p.Module)
			mod, main = p.Module.Path, p.Module.Main
		} else if !p.Standard {
			continue // no module: not part of a module build
		}
		if !cfg.sel.Includes(p.ImportPath, mod, main) {
			continue
		}
		if p.Standard {
			m.GoVersion = f[2]
		}
		mp := codesnap.Package{ImportPath: p.ImportPath, Name: p.Name, Module: mod, Standard: p.Standard}
		var srcs []codeindex.Source
		// The compiler gets the Go files, then the cgo files, each sorted:
		// that order numbers the package's init functions.
		for _, name := range append(sorted(p.GoFiles), sorted(p.CgoFiles)...) {
			data, err := os.ReadFile(filepath.Join(p.Dir, name))
			if err != nil {
				return nil, err
			}
			rel := path.Join("src", p.ImportPath, name+codesnap.SourceSuffix)
			out.files[rel] = data
			sum := sha256.Sum256(data)
			mp.Files = append(mp.Files, codesnap.File{Name: name, Path: rel,
				SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))})
			srcs = append(srcs, codeindex.Source{Path: rel, Name: filepath.Join(p.Dir, name), Src: data})
		}
		m.Packages = append(m.Packages, mp)
		sources = append(sources, srcs)
	}
	for _, mm := range mods {
		m.Modules = append(m.Modules, mm)
	}
	sort.Slice(m.Modules, func(i, j int) bool { return m.Modules[i].Path < m.Modules[j].Path })
	order := make([]int, len(m.Packages))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return m.Packages[order[i]].ImportPath < m.Packages[order[j]].ImportPath })
	sortedPkgs := make([]codesnap.Package, len(order))
	sortedSrcs := make([][]codeindex.Source, len(order))
	for i, k := range order {
		sortedPkgs[i], sortedSrcs[i] = m.Packages[k], sources[k]
	}
	m.Packages = sortedPkgs
	index, err := codeindex.Build(sortedSrcs...)
	if err != nil {
		return nil, fmt.Errorf("indexing: %w", err)
	}
	out.files[codesnap.IndexName] = index
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	out.files[codesnap.ManifestName] = append(data, '\n')
	return out, nil
}

// listPackages runs go list for cfg.pkg and its dependencies.
func listPackages(ctx context.Context, cfg config) ([]listedPackage, error) {
	args := []string{"list", "-deps", "-json=ImportPath,Name,Dir,Standard,GoFiles,CgoFiles,Module,Error"}
	if cfg.tags != "" {
		args = append(args, "-tags", cfg.tags)
	}
	args = append(args, "--", cfg.pkg)
	data, err := run(ctx, cfg, "go", args...)
	if err != nil {
		return nil, err
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: package %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, errors.New("go list returned no packages")
	}
	return pkgs, nil
}

func manifestModule(lm *listedModule) codesnap.Module {
	mm := codesnap.Module{Path: lm.Path, Version: lm.Version, Sum: lm.Sum, Main: lm.Main}
	if r := lm.Replace; r != nil {
		mm.Replace, mm.Sum = r.Path, r.Sum
		if r.Version != "" {
			mm.Replace += "@" + r.Version
		} else {
			mm.Local = true
		}
	}
	return mm
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

func run(ctx context.Context, cfg config, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = cfg.dir, cfg.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
