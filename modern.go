package mcp

import "strconv"

// _meta keys of protocol revision 2026-07-28.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// appendCacheable appends the CacheableResult fields of 2026-07-28.
func (s *Server) appendCacheable(b []byte) []byte {
	b = append(b, `,"ttlMs":`...)
	b = strconv.AppendInt(b, s.opts.ListTTL.Milliseconds(), 10)
	b = append(b, `,"cacheScope":`...)
	return appendString(b, s.opts.CacheScope)
}

// appendModernResult appends resultType and, unless the result carries its
// own _meta, the server's identity.
func (s *Server) appendModernResult(b []byte, hasMeta bool) []byte {
	b = append(b, `,"resultType":"complete"`...)
	if !hasMeta {
		b = append(b, `,"_meta":{"`+metaServerInfo+`":`...)
		b = append(b, s.infoRaw...)
		b = append(b, '}')
	}
	return b
}

// withServerInfo returns res with the server's identity in its _meta (a
// copy when res has a _meta of its own).
func (s *Server) withServerInfo(res *Result) *Result {
	if len(res.Meta) == 0 {
		return res
	}
	cp := *res
	cp.Meta = make(map[string]any, len(res.Meta)+1)
	for k, v := range res.Meta {
		cp.Meta[k] = v
	}
	cp.Meta[metaServerInfo] = rawJSONValue(s.infoRaw)
	return &cp
}
