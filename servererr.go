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
