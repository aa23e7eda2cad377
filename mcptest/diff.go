package mcptest

import (
	"fmt"
	"strings"
)

// lineDiff returns a readable line diff of want and got ("-" lines only in
// want, "+" lines only in got, three lines of context), or "" when they are
// equal.
func lineDiff(want, got string) string {
	if want == got {
		return ""
	}
	a, b := splitLines(want), splitLines(got)
	ops := diffOps(a, b)
	const context = 3
	var sb strings.Builder
	// Emit hunks: runs of changes with up to `context` equal lines around.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			// a run of equal lines: does another change follow closely?
			j := end
			for j < len(ops) && ops[j].kind == ' ' {
				j++
			}
			if j < len(ops) && j-end <= 2*context {
				end = j
				continue
			}
			end = min(end+context, len(ops))
			break
		}
		fmt.Fprintf(&sb, "@@ want line %d, got line %d @@\n", ops[start].a+1, ops[start].b+1)
		for _, op := range ops[start:end] {
			sb.WriteByte(op.kind)
			sb.WriteString(op.text)
			sb.WriteByte('\n')
		}
		i = end
	}
	return sb.String()
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	text string
	a, b int // line indexes in want and got before this op
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffOps computes a shortest edit script by longest common subsequence,
// after trimming the common prefix and suffix. Inputs too large for the
// quadratic table are diffed as one replaced block.
func diffOps(a, b []string) []diffOp {
	var ops []diffOp
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		ops = append(ops, diffOp{' ', a[p], p, p})
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if len(ma)*len(mb) > 4_000_000 {
		for i, l := range ma {
			ops = append(ops, diffOp{'-', l, p + i, p})
		}
		for j, l := range mb {
			ops = append(ops, diffOp{'+', l, p + len(ma), p + j})
		}
	} else {
		// lcs[i][j] is the LCS length of ma[i:] and mb[j:].
		n, m := len(ma), len(mb)
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && ma[i] == mb[j]:
				ops = append(ops, diffOp{' ', ma[i], p + i, p + j})
				i++
				j++
			case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, diffOp{'-', ma[i], p + i, p + j})
				i++
			default:
				ops = append(ops, diffOp{'+', mb[j], p + i, p + j})
				j++
			}
		}
	}
	for k := s; k > 0; k-- {
		ops = append(ops, diffOp{' ', a[len(a)-k], len(a) - k, len(b) - k})
	}
	return ops
}
