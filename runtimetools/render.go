package runtimetools

import (
	"fmt"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
)

// shortFile returns how the text answers name a function's source file:
// its package's import path and the file's name
// (github.com/x/app/server.go, net/http/server.go), as code_file and
// code_definition accept them, never the build machine's absolute path.
// function is the function's name as the runtime reports it.
func shortFile(function, file string) string {
	if file == "" {
		return ""
	}
	base := path.Base(file)
	if !strings.HasPrefix(file, "/") && !(len(file) > 2 && file[1] == ':') {
		return file // -trimpath: already module-relative
	}
	dir := stripVersions(path.Dir(strings.ReplaceAll(file, `\`, "/")))
	// The package is the function's name up to a dot after its last
	// slash; of the candidates (gopkg.in/yaml.v3.F: gopkg.in/yaml or
	// gopkg.in/yaml.v3) the one whose trailing elements the directory
	// shares most.
	best, bestScore, first := "", 0, ""
	slash := strings.LastIndexByte(function, '/')
	for i := slash + 1; i < len(function); i++ {
		if function[i] != '.' {
			continue
		}
		pkg := strings.ReplaceAll(function[:i], "%2e", ".")
		if pkg == "main" {
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" && !strings.HasSuffix(bi.Path, ".test") {
				return bi.Path + "/" + base
			}
			break
		}
		if first == "" {
			first = pkg
		}
		if score := sharedTail(dir, pkg); score > bestScore {
			best, bestScore = pkg, score
		}
		if strings.ContainsAny(function[i:i+2], "([") {
			break
		}
	}
	if best == "" && first != "" && stdPackage(first) {
		// A function of the standard library in another package's file
		// (internal/poll.runtime_pollWait in runtime/netpoll.go): the
		// file's directory under GOROOT/src.
		if i := strings.LastIndex(dir, "/src/"); i >= 0 {
			return dir[i+len("/src/"):] + "/" + base
		}
	}
	if best == "" {
		// The module's root directory is not named by its path
		// (/work/src/mcp for github.com/embedmcp/mcp): the package as the
		// function's name gives it.
		best = first
	}
	if best != "" {
		return best + "/" + base
	}
	// Unknown layout: the last directory and the file.
	return path.Base(dir) + "/" + base
}

// sharedTail counts the trailing path elements dir and pkg share.
func sharedTail(dir, pkg string) int {
	n := 0
	for dir != "" && pkg != "" {
		d, p := path.Base(dir), path.Base(pkg)
		if d != p {
			break
		}
		n++
		dir, pkg = strings.TrimSuffix(path.Dir(dir), "."), strings.TrimSuffix(path.Dir(pkg), ".")
	}
	return n
}

// stripVersions removes the @version of the module cache's directories
// (/go/pkg/mod/golang.org/x/net@v0.1.0/http2 → …/golang.org/x/net/http2).
func stripVersions(dir string) string {
	if !strings.Contains(dir, "@") {
		return dir
	}
	parts := strings.Split(dir, "/")
	for i, p := range parts {
		if at := strings.IndexByte(p, '@'); at > 0 {
			parts[i] = p[:at]
		}
	}
	return strings.Join(parts, "/")
}

// fileLine renders a function's place as file:line for the text answers.
func fileLine(function, file string, line int) string {
	f := shortFile(function, file)
	if f == "" {
		return "?"
	}
	if line <= 0 {
		return f
	}
	return f + ":" + strconv.Itoa(line)
}

// frameText renders a frame as "id file:line".
func frameText(f Frame) string {
	return f.ID + " " + fileLine(f.ID, f.File, f.Line)
}

// textBuilder builds a text answer within a byte bound: lines past it are
// counted and summarised in one last line.
type textBuilder struct {
	b       strings.Builder
	max     int
	omitted int
}

// line adds one line, or counts it as omitted when the bound is reached.
func (t *textBuilder) line(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if t.omitted > 0 || (t.max > 0 && t.b.Len()+len(s)+1 > t.max) {
		t.omitted++
		return
	}
	t.b.WriteString(s)
	t.b.WriteByte('\n')
}

func (t *textBuilder) String() string {
	if t.omitted > 0 {
		return t.b.String() + fmt.Sprintf("… %d more lines in structuredContent\n", t.omitted)
	}
	return t.b.String()
}

// oneLine cuts s to n bytes on one line, for a message or a value.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return clip(s, n)
}

// fmtValue renders a profile value in its unit.
func fmtValue(v int64, unit string) string {
	switch unit {
	case "nanoseconds":
		d := float64(v)
		switch {
		case abs(v) >= 1e9:
			return strconv.FormatFloat(d/1e9, 'f', 2, 64) + "s"
		case abs(v) >= 1e6:
			return strconv.FormatFloat(d/1e6, 'f', 1, 64) + "ms"
		case abs(v) >= 1e3:
			return strconv.FormatFloat(d/1e3, 'f', 1, 64) + "µs"
		}
		return strconv.FormatInt(v, 10) + "ns"
	case "bytes":
		return fmtBytes(float64(v))
	}
	return strconv.FormatInt(v, 10)
}

// fmtBytes renders a byte count with a binary unit.
func fmtBytes(b float64) string {
	neg := ""
	if b < 0 {
		neg, b = "-", -b
	}
	switch {
	case b >= 1<<30:
		return neg + strconv.FormatFloat(b/(1<<30), 'f', 1, 64) + "GiB"
	case b >= 1<<20:
		return neg + strconv.FormatFloat(b/(1<<20), 'f', 1, 64) + "MiB"
	case b >= 1<<10:
		return neg + strconv.FormatFloat(b/(1<<10), 'f', 1, 64) + "KiB"
	}
	return neg + strconv.FormatFloat(b, 'f', 0, 64) + "B"
}
