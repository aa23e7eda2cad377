package mcp

// The wire shapes of the MCP Apps extension (views.go, resources.go): the
// Resource of a view, its contents, and the results of the resources
// methods.

// appendViewMeta appends the _meta object of a view's Resource and
// contents ({"ui":{"csp":…,"prefersBorder":…}}), or nothing when the view
// sets neither.
func appendViewMeta(b []byte, v *View) []byte {
	lists := [...]struct {
		key string
		l   []string
	}{{"connectDomains", v.CSP.ConnectDomains}, {"resourceDomains", v.CSP.ResourceDomains},
		{"frameDomains", v.CSP.FrameDomains}, {"baseUriDomains", v.CSP.BaseURIDomains}}
	csp := false
	for _, l := range lists {
		csp = csp || len(l.l) > 0
	}
	if !csp && v.PrefersBorder == nil {
		return b
	}
	b = append(b, `{"ui":{`...)
	if csp {
		b = append(b, `"csp":{`...)
		first := true
		for _, l := range lists {
			if len(l.l) == 0 {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendString(b, l.key)
			b = append(b, ":["...)
			for i, o := range l.l {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendString(b, o)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	if v.PrefersBorder != nil {
		if csp {
			b = append(b, ',')
		}
		if *v.PrefersBorder {
			b = append(b, `"prefersBorder":true`...)
		} else {
			b = append(b, `"prefersBorder":false`...)
		}
	}
	return append(b, "}}"...)
}

// appendViewResource appends a view as resources/list shows it; meta is
// its encoded _meta (appendViewMeta), nil for none.
func appendViewResource(b []byte, v *View, meta []byte) []byte {
	b = append(b, `{"uri":`...)
	b = appendString(b, v.URI)
	b = append(b, `,"name":`...)
	b = appendString(b, v.Name)
	if v.Title != "" {
		b = append(b, `,"title":`...)
		b = appendString(b, v.Title)
	}
	if v.Description != "" {
		b = append(b, `,"description":`...)
		b = appendString(b, v.Description)
	}
	b = append(b, `,"mimeType":"`+ViewMIMEType+`"`...)
	return appendViewMetaMember(b, meta)
}

// appendViewContents appends a view's TextResourceContents, as
// resources/read answers it.
func appendViewContents(b []byte, v *View, meta []byte) []byte {
	b = append(b, `{"uri":`...)
	b = appendString(b, v.URI)
	b = append(b, `,"mimeType":"`+ViewMIMEType+`","text":`...)
	b = appendString(b, v.HTML)
	return appendViewMetaMember(b, meta)
}

func appendViewMetaMember(b, meta []byte) []byte {
	if len(meta) > 0 {
		b = append(b, `,"_meta":`...)
		b = append(b, meta...)
	}
	return append(b, '}')
}

// appendResourcesListStart opens a ListResourcesResult: the encoded
// resources (appendViewResource) follow, separated by commas, then
// appendResourcesListEnd.
func appendResourcesListStart(b []byte) []byte { return append(b, `{"resources":[`...) }

// appendResourcesListEnd closes the resources array, with the cursor of
// the next page ("" on the last page), leaving the result open.
func appendResourcesListEnd(b []byte, nextCursor string) []byte {
	return appendToolsListEnd(b, nextCursor)
}

// appendResourceTemplatesResult appends the open, empty
// ListResourceTemplatesResult: views have no templates.
func appendResourceTemplatesResult(b []byte) []byte { return append(b, `{"resourceTemplates":[]`...) }

// appendReadResult appends the open ReadResourceResult of one content
// (appendViewContents).
func appendReadResult(b []byte, content []byte) []byte {
	b = append(b, `{"contents":[`...)
	b = append(b, content...)
	return append(b, ']')
}
