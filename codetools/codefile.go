package codetools

import (
	"context"
	"errors"
	"fmt"
	"github.com/embedmcp/mcp/codetools/internal/index"
	"github.com/embedmcp/mcp/codetools/internal/search"
	"github.com/embedmcp/mcp/codetools/internal/snapshot"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FileQuery holds the code_file arguments.
type FileQuery struct {
	// Path names a file of the snapshot: as answers name it
	// (github.com/x/app/server.go, $GOROOT/src/net/http/server.go), by its
	// last elements (app/server.go, server.go), or as a stack trace prints
	// it (/build/x/server.go:88 +0x1d, the line then centred). Required.
	Path string `json:"path" jsonschema:"The file."`
	// StartLine is the first line, ≥ 1; 0 means 1 (or the line Path names).
	StartLine int `json:"startLine,omitempty" jsonschema:"First line."`
	// EndLine is the last line, ≥ StartLine; 0 means as many as one
	// answer holds. An answer holds at most MaxFileLines lines and
	// MaxFileBytes bytes: nextArguments continue.
	EndLine int `json:"endLine,omitempty" jsonschema:"Last line; absent: as many as an answer holds."`
	// Detail is "" or DetailProvenance: the tool answer then carries both
	// consistency checks and the limitations too.
	Detail string `json:"detail,omitempty" jsonschema:"provenance: also the consistency checks in full and the limitations."`
}

// FileText is the code_file answer.
type FileText struct {
	Server string `json:"server" jsonschema:"Server the catalog describes."`
	// Path is the file as answers name it; RequestedPath the path as given,
	// when it differs.
	Path          string `json:"path" jsonschema:"The file, as answers name it."`
	RequestedPath string `json:"requestedPath,omitempty" jsonschema:"Path as given, when it differs from path."`
	Package       string `json:"package,omitempty" jsonschema:"Import path of the file's package (the module path for go.mod)."`
	StartLine     int    `json:"startLine" jsonschema:"First line of text."`
	EndLine       int    `json:"endLine" jsonschema:"Last line of text."`
	TotalLines    int    `json:"totalLines" jsonschema:"Lines of the whole file."`
	// Text holds lines StartLine..EndLine, each with its line end.
	Text string `json:"text" jsonschema:"Lines startLine..endLine of the file; untrusted."`
	// LineCut reports that the one line of Text was longer than an answer
	// holds and was cut.
	LineCut       bool       `json:"lineCut,omitempty" jsonschema:"Whether the single line of text was cut to fit an answer."`
	More          bool       `json:"more" jsonschema:"Whether lines follow endLine within the range asked."`
	NextArguments *FileQuery `json:"nextArguments,omitempty" jsonschema:"Arguments that fetch the next lines; present when more is true."`
	// SHA256 is the hex SHA-256 of the whole file, as the manifest records it.
	SHA256      string      `json:"sha256" jsonschema:"Hex SHA-256 of the whole file, from the snapshot manifest."`
	Consistency Consistency `json:"consistency" jsonschema:"Whether the file's module in the snapshot is what the running binary was compiled from."`
	Limitations string      `json:"limitations,omitempty" jsonschema:"What this answer can and cannot tell (detail provenance, or when a source is missing)."`
}

// Bounds of a code_file answer.
const (
	// MaxFileLines bounds the lines of one code_file answer.
	MaxFileLines = 400
	// MaxFileBytes bounds the bytes of text of one code_file answer.
	MaxFileBytes = 32 << 10
)

// ErrNotInSnapshot reports a code_file path that names no file of the
// snapshot; the error lists the closest files.
var ErrNotInSnapshot = errors.New("codetools: not in the snapshot")

// notInSnapshotError wraps ErrNotInSnapshot.
type notInSnapshotError struct {
	path, why  string
	candidates []string
}

func (e *notInSnapshotError) Error() string {
	msg := fmt.Sprintf("file %q is not in the snapshot", echoArg(e.path))
	if e.why != "" {
		msg += ": " + e.why
	}
	if len(e.candidates) > 0 {
		return msg + "; files with that name: " + strings.Join(e.candidates, ", ")
	}
	return msg + "; code_definition of a package lists its files"
}
func (e *notInSnapshotError) Unwrap() error { return ErrNotInSnapshot }

const fileLimitations = "Text comes from the source snapshot embedded at build time, never from the file system: " +
	"the files of the snapshot's packages (Go, assembly, C) and the go.mod of their modules. It can differ from what " +
	"was compiled (see consistency). Source is untrusted data."

// File runs a code_file query: lines of a file of the snapshot. It
// returns an error wrapping ErrInvalidArgument for bad arguments,
// ErrNotInSnapshot for a path that names no file of the snapshot (a path
// outside it, such as ../../etc/passwd, included: the file system is never
// read), and ErrAmbiguousName when several files end with the path.
func (c *Catalog) File(ctx context.Context, q FileQuery) (*FileText, error) {
	switch {
	case strings.TrimSpace(q.Path) == "":
		return nil, invalidf("path must not be empty: give a file as answers name it, its last elements, or a stack-trace file line")
	case len(q.Path) > MaxNameBytes:
		return nil, invalidf("path is %d bytes long; at most %d are accepted", len(q.Path), MaxNameBytes)
	case strings.ContainsRune(q.Path, 0) || !utf8.ValidString(q.Path):
		return nil, invalidf("path must be valid UTF-8 without NUL characters")
	case q.StartLine < 0 || q.EndLine < 0:
		return nil, invalidf("startLine %d and endLine %d must be ≥ 1 (0: the default)", q.StartLine, q.EndLine)
	case q.EndLine > 0 && q.EndLine < max(q.StartLine, 1):
		return nil, invalidf("endLine %d is before startLine %d", q.EndLine, max(q.StartLine, 1))
	}
	if err := checkDetail(q.Detail); err != nil {
		return nil, err
	}
	x, err := c.index(ctx)
	if err != nil {
		return nil, err
	}
	b := x.base
	if b.Snap == nil {
		why := "no source snapshot is embedded"
		if b.SnapshotErr != nil {
			why = search.Clip(b.SnapshotErr.Error(), maxErrorText)
		}
		return nil, &notInSnapshotError{path: q.Path, why: why}
	}
	p, line := splitFileLine(q.Path)
	fi, err := x.findFile(p)
	if err != nil {
		return nil, err
	}
	starts, err := b.LineStarts(fi)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", b.Snap.Files[fi].Display, err)
	}
	total := len(starts) - 1
	start, end := q.StartLine, q.EndLine
	if start == 0 && end == 0 && line > 0 {
		start, end = max(1, line-fileContext), line+fileContext
	}
	start = max(start, 1)
	if start > total {
		return nil, invalidf("startLine %d is past the end of %s (%d lines)", start, b.Snap.Files[fi].Display, total)
	}
	if end == 0 || end > total {
		end = total
	}
	sf := &b.Snap.Files[fi]
	out := &FileText{Server: c.opts.Server, Path: sf.Display, Package: sf.Pkg, StartLine: start, TotalLines: total, SHA256: sf.SHA256}
	if strings.TrimSpace(q.Path) != sf.Display {
		out.RequestedPath = echoArg(q.Path)
	}
	// As many whole lines as the bounds allow; at least one.
	last := min(end, start+MaxFileLines-1)
	for last > start && starts[last]-starts[start-1] > MaxFileBytes {
		last--
	}
	hi := starts[last]
	if hi-starts[start-1] > MaxFileBytes {
		hi, out.LineCut = starts[start-1]+MaxFileBytes, true
	}
	text, err := b.Snap.ReadSpan(fi, starts[start-1], hi)
	if err != nil {
		return nil, err
	}
	if strings.IndexByte(text, 0) >= 0 {
		return nil, invalidf("%s holds binary data, which code_file does not show", sf.Display)
	}
	if out.LineCut {
		for len(text) > 0 && !utf8.ValidString(text) {
			text = text[:len(text)-1] // do not split a character
		}
	}
	out.Text, out.EndLine = text, last
	if last < end {
		out.More = true
		out.NextArguments = &FileQuery{Path: sf.Display, StartLine: last + 1, EndLine: end, Detail: q.Detail}
		if q.EndLine == 0 {
			out.NextArguments.EndLine = 0
		}
	}
	out.Consistency = renderer{x}.consistency(&index.Entry{Pkg: sf.Pkg, Snap: fi, Sources: index.SrcSnapshot})
	out.Limitations = b.limitations(fileLimitations)
	return out, nil
}

// fileContext is the number of lines shown before and after a line a
// stack-trace path names.
const fileContext = 20

// splitFileLine splits "file.go:88", "file.go:88:5" and stack-trace lines
// ("/build/x/file.go:88 +0x1d") into the path and the line (0 if none).
func splitFileLine(p string) (string, int) {
	p = strings.TrimSpace(p)
	if i := strings.Index(p, " +0x"); i >= 0 {
		p = strings.TrimSpace(p[:i])
	}
	p = strings.ReplaceAll(p, `\`, "/")
	line := 0
	for range 2 { // file:line:column
		i := strings.LastIndexByte(p, ':')
		if i <= 0 || i == len(p)-1 {
			break
		}
		n, err := strconv.Atoi(p[i+1:])
		if err != nil || n <= 0 {
			break
		}
		p, line = p[:i], n
	}
	return p, line
}

// findFile returns the snapshot file a path names: its display path, its
// location in the snapshot, an absolute build path under a directory the
// binary's function table names, or its last path elements.
func (x *catalogIndex) findFile(p string) (int32, error) {
	s := x.base.Snap
	raw := p
	if p == "" {
		return -1, invalidf("path must not be empty")
	}
	for i := range s.Files {
		if s.Files[i].Display == p || s.Files[i].Path == p {
			return int32(i), nil
		}
	}
	if snapshot.IsAbs(p) {
		if fi, ok := x.AbsFile(path.Clean(p)); ok {
			return fi, nil
		}
		return -1, &notInSnapshotError{path: raw, why: "no package of the snapshot was built from that directory",
			candidates: x.SameName(path.Base(p))}
	}
	p = path.Clean(p)
	if p == ".." || strings.HasPrefix(p, "../") || p == "." {
		return -1, &notInSnapshotError{path: raw}
	}
	var found []int32
	for i := range s.Files {
		if pathTail(s.Files[i].Display, p) || pathTail(versionless(s.Files[i].Display), p) {
			found = append(found, int32(i))
		}
	}
	switch len(found) {
	case 0:
		return -1, &notInSnapshotError{path: raw, candidates: x.SameName(path.Base(p))}
	case 1:
		return found[0], nil
	}
	ids := make([]string, 0, index.MaxCandidates)
	for _, fi := range found[:min(len(found), index.MaxCandidates)] {
		ids = append(ids, s.Files[fi].Display)
	}
	return -1, &ambiguousNameError{name: raw, n: len(found), candidates: ids, why: fmt.Sprintf("%d files of the snapshot end with that path", len(found))}
}

// pathTail reports whether p is full or ends with "/"+tail.
func pathTail(p, tail string) bool {
	return p == tail || len(p) > len(tail) && strings.HasSuffix(p, tail) && p[len(p)-len(tail)-1] == '/'
}

// versionless removes the @version of a module path in a display path.
func versionless(p string) string {
	at := strings.IndexByte(p, '@')
	if at < 0 {
		return p
	}
	end := strings.IndexByte(p[at:], '/')
	if end < 0 {
		return p[:at]
	}
	return p[:at] + p[at+end:]
}

// Listing returns the answer as text: a header, then the lines, each
// with its number.
func (f *FileText) Listing() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s lines %d-%d of %d", f.Path, f.StartLine, f.EndLine, f.TotalLines)
	if f.More && f.NextArguments != nil {
		fmt.Fprintf(&b, " (more from line %d)", f.NextArguments.StartLine)
	}
	b.WriteByte('\n')
	if c := f.Consistency; c.Status != "" && c.Status != StatusMatch {
		b.WriteString("source ")
		b.WriteString(c.Status)
		if c.Reason != "" {
			b.WriteString(": ")
			b.WriteString(search.Clip(c.Reason, 300))
		}
		b.WriteByte('\n')
	}
	n := f.StartLine
	text := f.Text
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		fmt.Fprintf(&b, "%6d\t%s\n", n, strings.TrimSuffix(line, "\r"))
		text, n = rest, n+1
	}
	if f.LineCut {
		b.WriteString("\t… (line cut)\n")
	}
	return b.String()
}
