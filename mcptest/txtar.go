package mcptest

import (
	"bytes"
	"fmt"
	"strings"
)

// archive is a txtar archive: a comment followed by named files, each
// introduced by a line "-- name --". It is the format of golang.org/x/tools/txtar,
// reimplemented here so that the root module gains no dependency.
type archive struct {
	comment []byte
	files   []archiveFile
}

type archiveFile struct {
	name string
	data []byte
}

// parseArchive parses data as a txtar archive. It never fails: text before the
// first marker is the comment, and a marker is any line "-- name --" with a
// non-empty name.
func parseArchive(data []byte) *archive {
	a := new(archive)
	var name string
	a.comment, name, data = findMarker(data)
	for name != "" {
		f := archiveFile{name: name}
		f.data, name, data = findMarker(data)
		a.files = append(a.files, f)
	}
	return a
}

// findMarker returns the text before the next marker line, the marker's name
// and the text after the marker line.
func findMarker(data []byte) (before []byte, name string, after []byte) {
	var i int
	for {
		if name, after = isMarker(data[i:]); name != "" {
			return fixNL(data[:i]), name, after
		}
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return fixNL(data), "", nil
		}
		i += j + 1
	}
}

// isMarker reports whether data begins with a marker line, and returns its
// name and the data after the line.
func isMarker(data []byte) (name string, after []byte) {
	if !bytes.HasPrefix(data, []byte("-- ")) {
		return "", nil
	}
	line := data
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		line, after = data[:i], data[i+1:]
	}
	line = bytes.TrimRight(line, "\r")
	if !bytes.HasSuffix(line, []byte(" --")) || len(line) < len("-- x --") {
		return "", nil
	}
	return strings.TrimSpace(string(line[3 : len(line)-3])), after
}

// fixNL makes non-empty data end in a newline.
func fixNL(data []byte) []byte {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return data
	}
	return append(data[:len(data):len(data)], '\n')
}

// format encodes a. It fails when a file's name is not a valid marker name or
// a file's data holds a line that would be read as a marker.
func (a *archive) format() ([]byte, error) {
	var buf bytes.Buffer
	if err := checkNoMarker("comment", a.comment); err != nil {
		return nil, err
	}
	buf.Write(fixNL(a.comment))
	for _, f := range a.files {
		if f.name == "" || strings.ContainsAny(f.name, "\r\n") || strings.TrimSpace(f.name) != f.name {
			return nil, fmt.Errorf("mcptest: invalid txtar file name %q", f.name)
		}
		if err := checkNoMarker(f.name, f.data); err != nil {
			return nil, err
		}
		fmt.Fprintf(&buf, "-- %s --\n", f.name)
		buf.Write(fixNL(f.data))
	}
	return buf.Bytes(), nil
}

func checkNoMarker(name string, data []byte) error {
	for line := range bytes.Lines(data) {
		if n, _ := isMarker(line); n != "" {
			return fmt.Errorf("mcptest: txtar section %q holds a marker line %q", name, bytes.TrimSpace(line))
		}
	}
	return nil
}
