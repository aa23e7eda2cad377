package mcp

// Err reports the Options that mean nothing (an unknown revision in
// Versions, a LogLevel or CacheScope outside its values, a bad Tasks
// configuration), nil when there is none. A Server with such options
// refuses every request with 500 and logs why; a host that would rather
// not start checks Err once, after NewServer:
//
//	server := mcp.NewServer(ts, az, opts)
//	if err := server.Err(); err != nil {
//		log.Fatal(err)
//	}
func (s *Server) Err() error { return s.configErr }

// NewServerChecked is NewServer for a host that would rather not start
// than serve with options that mean nothing: it returns the Server, or no
// Server and the error Server.Err would report.
func NewServerChecked(reg Registry, az Authorizer, opts *Options) (*Server, error) {
	s := newServer(reg, az, opts, false)
	if s.configErr != nil {
		return nil, s.configErr
	}
	return s, nil
}
