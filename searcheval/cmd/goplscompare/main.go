// Command goplscompare runs the code_search evaluation sets through gopls's
// go_search (gopls mcp) and through code_search, and prints both hit rates
// side by side. It is run by ../../gopls-compare.sh, not by the test
// command: it needs gopls v0.24.0, which installs with a newer Go.
//
// Usage, from the searcheval directory:
//
//	go run ./cmd/goplscompare [-gopls path] [-load 60s]
//
// For each set, gopls runs in the workspace the code lives in: this
// repository's root module for its own set, the searcheval module (which
// requires gofakes3) for the gofakes3 set. A gopls answer counts as a hit
// when a symbol it lists names the expected declaration: the same
// Type.Method or name, in a file of the expected package.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/embedmcp/mcp/searcheval/heldout"
	"github.com/embedmcp/mcp/searcheval/s3app"
	"github.com/embedmcp/mcp/testsupport/searcheval"
)

func main() {
	gopls := flag.String("gopls", defaultGopls(), "gopls `binary` (v0.24.0)")
	load := flag.Duration("load", 90*time.Second, "how long to wait for gopls to load a workspace")
	flag.Parse()
	if err := run(*gopls, *load); err != nil {
		fmt.Fprintln(os.Stderr, "goplscompare:", err)
		os.Exit(1)
	}
}

func defaultGopls() string {
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, "go", "bin", "gopls")
}

// set is one evaluation set and where its code lives.
type set struct {
	name, file, workspace string
	ours                  *searcheval.Client
	// service, when set, evaluates code_search in the service's own
	// binary (heldout.Run) instead of ours; heldOut sets print no
	// per-query lines.
	service *heldout.Service
	heldOut bool
}

func run(gopls string, load time.Duration) error {
	module, err := filepath.Abs(".")
	if err != nil {
		return err
	}
	repo := filepath.Dir(module)
	tmp, err := os.MkdirTemp("", "goplscompare")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	snap := filepath.Join(tmp, "snapshot")
	if err := s3app.WriteSnapshot(module, snap); err != nil {
		return err
	}
	s3srv, _, err := s3app.NewService(os.DirFS(snap), nil)
	if err != nil {
		return err
	}
	repoSrv, err := s3app.RepositoryServer(repo, filepath.Join(tmp, "repository-snapshot"))
	if err != nil {
		return err
	}
	caller := searcheval.Caller(s3app.Grants)
	sets := []set{
		{"embedmcp", filepath.Join(repo, "examples", "codeserver", "testdata", "search-eval.tsv"), repo,
			&searcheval.Client{Server: repoSrv, Caller: caller}, nil, false},
		{"gofakes3", filepath.Join(module, "testdata", "gofakes3.tsv"), module,
			&searcheval.Client{Server: s3srv, Caller: caller}, nil, false},
	}
	for i := range heldout.Tuning {
		sv := heldout.Tuning[i]
		sets = append(sets, set{name: sv.Name + " (tuning)", file: filepath.Join(module, sv.Set), workspace: module, service: &sv})
	}
	for i := range heldout.Services {
		sv := heldout.Services[i]
		sets = append(sets, set{name: sv.Name + " (held-out)", file: filepath.Join(module, sv.Set), workspace: module, service: &sv, heldOut: true})
	}
	// gopls sees the root module and the searcheval module, as an adopter's
	// workspace would hold the service and this library, not the
	// benchmark and interoperability modules of the repository's go.work
	// (other MCP SDKs, Redis), whose symbols would crowd its answers.
	work, err := narrowWorkspace(repo, module, tmp)
	if err != nil {
		return err
	}
	roots := moduleRoots{repo: "github.com/embedmcp/mcp", module: "github.com/embedmcp/mcp/searcheval"}
	var allOurs, allGopls []searcheval.Outcome
	fmt.Printf("| set | kind | queries | code_search top-1 | code_search top-3 | gopls go_search top-1 | gopls go_search top-3 |\n")
	fmt.Printf("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range sets {
		data, err := os.ReadFile(s.file)
		if err != nil {
			return err
		}
		qs, err := searcheval.ParseQueries(data)
		if err != nil {
			return err
		}
		var ours []searcheval.Outcome
		if s.service != nil {
			dir, err := os.MkdirTemp(tmp, "set")
			if err != nil {
				return err
			}
			r, err := heldout.Run(module, *s.service, dir)
			if err != nil {
				return err
			}
			ours = r.Outcomes
		} else if ours, err = searcheval.Evaluate(qs, func(q searcheval.Query) (searcheval.Answer, error) {
			return s.ours.Search(map[string]any{"query": q.Text, "limit": 10})
		}); err != nil {
			return err
		}
		g, err := startGopls(gopls, s.workspace, work, load)
		if err != nil {
			return err
		}
		theirs, err := evaluateGopls(g, qs, roots)
		g.close()
		if err != nil {
			return err
		}
		for _, kind := range []string{searcheval.KindPhrase, searcheval.KindMessage, searcheval.KindStd, searcheval.KindIdent,
			searcheval.KindQualified, searcheval.KindFile, searcheval.KindHost, searcheval.KindDep, ""} {
			o, t := searcheval.RatesOf(ours, kind), searcheval.RatesOf(theirs, kind)
			if o.N == 0 {
				continue
			}
			name := kind
			if kind == "" {
				name = "**all**"
			}
			fmt.Printf("| %s | %s | %d | %s | %s | %s | %s |\n", s.name, name, o.N,
				searcheval.Pct(o.Top1, o.N), searcheval.Pct(o.Top3, o.N), searcheval.Pct(t.Top1, t.N), searcheval.Pct(t.Top3, t.N))
		}
		allOurs, allGopls = append(allOurs, ours...), append(allGopls, theirs...)
		for i := range theirs {
			if s.heldOut {
				break // a held-out set's queries are not looked at one by one
			}
			if theirs[i].Rank != 1 || ours[i].Rank != 1 {
				fmt.Fprintf(os.Stderr, "%s %q: code_search rank %d, go_search rank %d (first: %s)\n",
					s.name, qs[i].Text, ours[i].Rank, theirs[i].Rank, first(theirs[i].IDs))
			}
		}
	}
	o, t := searcheval.RatesOf(allOurs, ""), searcheval.RatesOf(allGopls, "")
	fmt.Printf("| every set | **all** | %d | %s | %s | %s | %s |\n", o.N,
		searcheval.Pct(o.Top1, o.N), searcheval.Pct(o.Top3, o.N), searcheval.Pct(t.Top1, t.N), searcheval.Pct(t.Top3, t.N))
	return nil
}

func first(ids []string) string {
	if len(ids) == 0 {
		return "nothing"
	}
	return ids[0]
}

// moduleRoots maps the directories of workspace modules to their paths.
type moduleRoots map[string]string

// packageOf returns the import path of the package in directory dir.
func (m moduleRoots) packageOf(dir string) string {
	if rest, ok := strings.CutPrefix(dir, filepath.Join(goEnv("GOROOT"), "src")+string(filepath.Separator)); ok {
		return filepath.ToSlash(rest)
	}
	if rest, ok := strings.CutPrefix(dir, goEnv("GOMODCACHE")+string(filepath.Separator)); ok {
		rest = filepath.ToSlash(rest)
		if at := strings.IndexByte(rest, '@'); at >= 0 {
			tail := rest[at:]
			if slash := strings.IndexByte(tail, '/'); slash >= 0 {
				rest = rest[:at] + tail[slash:]
			} else {
				rest = rest[:at]
			}
		}
		return unescapeModule(rest)
	}
	best := ""
	for root := range m {
		if (dir == root || strings.HasPrefix(dir, root+string(filepath.Separator))) && len(root) > len(best) {
			best = root
		}
	}
	if best == "" {
		return ""
	}
	return m[best] + filepath.ToSlash(strings.TrimPrefix(dir, best))
}

// goEnv returns a variable of the go command's environment.
func goEnv(name string) string {
	out, _ := exec.Command("go", "env", name).Output()
	return strings.TrimSpace(string(out))
}

// unescapeModule undoes the module cache's case escaping (!x for X).
func unescapeModule(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '!' && i+1 < len(p) {
			b.WriteString(strings.ToUpper(p[i+1 : i+2]))
			i++
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// symbolLine is one line of a go_search answer: "\tName (Kind in `file`)".
var symbolLine = regexp.MustCompile("^\\s*(\\S+) \\((\\w+) in `([^`]+)`\\)")

// evaluateGopls runs the queries through go_search and ranks its answers:
// each listed symbol becomes the id it names (package.Type.Method).
func evaluateGopls(g *goplsMCP, qs []searcheval.Query, roots moduleRoots) ([]searcheval.Outcome, error) {
	return searcheval.Evaluate(qs, func(q searcheval.Query) (searcheval.Answer, error) {
		text, err := g.search(q.Text)
		if err != nil {
			return searcheval.Answer{}, err
		}
		a := searcheval.Answer{Match: "fuzzy", Bytes: len(text)}
		for _, line := range strings.Split(text, "\n") {
			m := symbolLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			pkg := roots.packageOf(filepath.Dir(m[3]))
			name := m[1]
			if i := strings.LastIndexByte(name, '/'); i >= 0 {
				// A package-qualified name: path/pkg.Name.
				name = name[i+1:]
				name = name[strings.IndexByte(name, '.')+1:]
			} else if pn := packageName(m[3]); pn != "" && strings.HasPrefix(name, pn+".") {
				name = strings.TrimPrefix(name, pn+".") // pkg.Name, as Go code spells it
			}
			a.IDs = append(a.IDs, canonical(pkg, name, q.Want))
		}
		return a, nil
	})
}

// canonical returns the id of symbol name (Name or Type.Method) in pkg,
// spelled as the wanted id that names it, if any.
func canonical(pkg, name string, want []string) string {
	id := pkg + "." + name
	for _, w := range want {
		if strings.NewReplacer("(*", "", ")", "").Replace(w) == id {
			return w
		}
	}
	return id
}

// narrowWorkspace writes dir/go.work using only the root module (repo)
// and the searcheval module, with the go version and the replacements of
// the repository's go.work, and returns its path.
func narrowWorkspace(repo, module, dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(repo, "go.work"))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "use (\n\t%s\n\t%s\n)\n", repo, module)
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "go ") {
			b.WriteString(line + "\n") // the repository's go version
		}
		if strings.HasPrefix(line, "replace ") {
			b.WriteString(strings.Replace(line, "=> ./", "=> "+repo+"/", 1) + "\n")
		}
	}
	path := filepath.Join(dir, "go.work")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// packageName returns the name in the package clause of the Go file
// path ("smtp" for go-smtp, "miniredis" for miniredis/v2), "" if it
// cannot be read: go_search qualifies a symbol of another package with
// it.
func packageName(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "package "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// goplsMCP is a gopls mcp process spoken to over stdio.
type goplsMCP struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startGopls(path, dir, work string, load time.Duration) (*goplsMCP, error) {
	cmd := exec.Command(path, "mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK="+work)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (install it with gopls-compare.sh): %w", path, err)
	}
	g := &goplsMCP{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := g.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "goplscompare", "version": "1"}}); err != nil {
		g.close()
		return nil, err
	}
	if err := g.notify("notifications/initialized"); err != nil {
		g.close()
		return nil, err
	}
	// Wait until the workspace is loaded: a symbol every workspace has.
	deadline := time.Now().Add(load)
	for {
		text, err := g.search("main")
		if err != nil {
			g.close()
			return nil, err
		}
		if strings.Contains(text, "Top symbol matches") {
			return g, nil
		}
		if time.Now().After(deadline) {
			g.close()
			return nil, fmt.Errorf("gopls did not load %s within %v", dir, load)
		}
		time.Sleep(2 * time.Second)
	}
}

func (g *goplsMCP) search(query string) (string, error) {
	res, err := g.call("tools/call", map[string]any{"name": "go_search", "arguments": map[string]any{"query": query}})
	if err != nil {
		return "", err
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return "", err
	}
	var texts []string
	for _, c := range r.Content {
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, "\n"), nil
}

func (g *goplsMCP) notify(method string) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	_, err := g.in.Write(append(b, '\n'))
	return err
}

func (g *goplsMCP) call(method string, params any) (json.RawMessage, error) {
	g.id++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": g.id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := g.in.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for ctx.Err() == nil {
		line, err := g.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != g.id {
			continue // a notification or a log line
		}
		if msg.Error != nil {
			return nil, errors.New(msg.Error.Message)
		}
		return msg.Result, nil
	}
	return nil, ctx.Err()
}

func (g *goplsMCP) close() {
	g.in.Close()
	done := make(chan struct{})
	go func() { g.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		g.cmd.Process.Kill()
		<-done
	}
}
