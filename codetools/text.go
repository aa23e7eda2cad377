package codetools

import (
	"go/ast"
	"go/scanner"
	"go/token"
	"unicode/utf8"
)

// chunk returns at most max characters (runes) of s starting at character
// offset off, and the number of characters in s. It never splits a UTF-8
// sequence.
func chunk(s string, off, max int) (part string, total int) {
	total = utf8.RuneCountInString(s)
	if off >= total {
		return "", total
	}
	start := byteIndex(s, 0, off)
	end := byteIndex(s, start, max)
	return s[start:end], total
}

// byteIndex returns the byte index n characters after byte index from.
func byteIndex(s string, from, n int) int {
	i := from
	for ; n > 0 && i < len(s); n-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// truncateChars returns the first max characters of s and whether s was
// longer.
func truncateChars(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	end := byteIndex(s, 0, max)
	return s[:end], end < len(s)
}

// commentText returns the text of the comments in src, a span of Go
// source holding a doc comment, as ast.CommentGroup.Text does.
func commentText(src string) string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	s.Init(file, []byte(src), nil, scanner.ScanComments)
	var g ast.CommentGroup
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT {
			g.List = append(g.List, &ast.Comment{Text: lit})
		}
	}
	return g.Text()
}
