package codeindex

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// Encode writes the index of files.
func Encode(w io.Writer, files []File) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(Header)
	bw.WriteByte('\n')
	n := 0
	for _, f := range files {
		n += len(f.Decls)
	}
	fmt.Fprintf(bw, "decls %d\n", n)
	// The declarations' search words follow; one without a "w" record
	// has none (an index of an earlier version has no such line).
	bw.WriteString(wordsRecord + "\n")
	var num []byte
	for _, f := range files {
		bw.WriteString("file ")
		bw.WriteString(f.Path)
		bw.WriteByte('\n')
		for _, d := range f.Decls {
			if d.Words != "" {
				bw.WriteString("w ")
				bw.WriteString(d.Words)
				bw.WriteByte('\n')
			}
			bw.WriteByte(byte(d.Kind))
			bw.WriteByte(' ')
			if d.Name == "" {
				bw.WriteByte('-')
			} else {
				bw.WriteString(d.Name)
			}
			for _, n := range [...]int32{d.Line, d.EndLine, d.Start, d.End, d.DocStart, d.DocEnd} {
				num = strconv.AppendInt(append(num[:0], ' '), int64(n), 10)
				bw.Write(num)
			}
			if d.Bodyless {
				bw.WriteString(" b")
			}
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// wordsRecord marks an index whose declarations carry their search words.
const wordsRecord = "words"

// Reader reads an index record by record.
type Reader struct {
	sc   *bufio.Scanner
	line int
	file string
	// Decls is the number of declarations the index announces, 0 if it
	// does not say.
	Decls int
	// Words reports an index that gives the search words of its
	// declarations (a version that writes "w" records), once Next has
	// read past its head.
	Words bool
	// held reports that the scanner holds a record not yet returned.
	held bool
	// words are those of the "w" record before the next declaration.
	words string
}

// NewReader checks the header of the index read from r.
func NewReader(r io.Reader) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: empty", ErrFormat)
	}
	if h := sc.Text(); h != Header {
		return nil, fmt.Errorf("%w: header %.80q is not %q", ErrFormat, h, Header)
	}
	ir := &Reader{sc: sc, line: 1}
	if sc.Scan() {
		ir.line++
		if n, ok := bytes.CutPrefix(sc.Bytes(), []byte("decls ")); ok {
			if v, ok := atoi(n); ok {
				ir.Decls = int(v)
			}
		} else {
			ir.held = true
		}
	}
	return ir, nil
}

// Next returns the next declaration and the snapshot path of its file.
// It returns io.EOF after the last one, and an error wrapping ErrFormat
// for a malformed record.
func (r *Reader) Next() (file string, d Decl, err error) {
	for r.held || r.sc.Scan() {
		if r.held {
			r.held = false
		} else {
			r.line++
		}
		b := r.sc.Bytes()
		if rest, ok := bytes.CutPrefix(b, []byte("file ")); ok {
			if len(rest) == 0 {
				return "", Decl{}, r.errorf("empty file path")
			}
			r.file = string(rest)
			r.words = ""
			continue
		}
		if string(b) == wordsRecord {
			r.Words = true
			continue
		}
		if rest, ok := bytes.CutPrefix(b, []byte("w ")); ok {
			r.words = string(rest)
			continue
		}
		if len(b) < 2 || b[1] != ' ' || !Kind(b[0]).valid() {
			continue // a record of a later version
		}
		if r.file == "" {
			return "", Decl{}, r.errorf("declaration before the first file record")
		}
		d, err := r.decl(b)
		d.Words, r.words = r.words, ""
		return r.file, d, err
	}
	if err := r.sc.Err(); err != nil {
		return "", Decl{}, err
	}
	return "", Decl{}, io.EOF
}

func (r *Reader) decl(b []byte) (Decl, error) {
	d := Decl{Kind: Kind(b[0])}
	b = b[2:]
	sp := bytes.IndexByte(b, ' ')
	if sp <= 0 {
		return d, r.errorf("missing fields")
	}
	if name := b[:sp]; !(len(name) == 1 && name[0] == '-') {
		d.Name = string(name)
	}
	b = b[sp+1:]
	for _, p := range [...]*int32{&d.Line, &d.EndLine, &d.Start, &d.End, &d.DocStart, &d.DocEnd} {
		field := b
		if i := bytes.IndexByte(b, ' '); i >= 0 {
			field, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		n, ok := atoi(field)
		if !ok {
			return d, r.errorf("bad number %.20q", field)
		}
		*p = n
	}
	if len(b) > 0 {
		if string(b) != "b" {
			return d, r.errorf("unknown flags %.20q", b)
		}
		d.Bodyless = true
	}
	if d.End < d.Start || d.DocEnd < d.DocStart || d.EndLine < d.Line {
		return d, r.errorf("span out of order")
	}
	return d, nil
}

func (r *Reader) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrFormat, r.line, fmt.Sprintf(format, args...))
}

// atoi parses a non-negative decimal int32 without allocating.
func atoi(b []byte) (int32, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n > 1<<31-1 {
		return 0, false
	}
	return int32(n), true
}

// Build parses packages (each a list of files in compile order) and
// returns their index.
func Build(packages ...[]Source) ([]byte, error) {
	var files []File
	for _, p := range packages {
		fs, err := ParsePackage(p)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	var b bytes.Buffer
	if err := Encode(&b, files); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
