package console

import (
	"bytes"
	"net/http"
	"runtime/pprof"
	"slices"
	"strconv"
	"time"

	"github.com/google/pprof/profile"
)

// profileKinds are the profiles the Process page links to, besides cpu.
var profileKinds = []string{"heap", "allocs", "goroutine", "mutex", "block", "threadcreate"}

// serveProfile answers profile?kind=heap (or cpu&seconds=N) with the
// profile in pprof's format, its labels removed: pprof labels are set by
// code the operator may not know, and may hold request values.
func (c *Console) serveProfile(w http.ResponseWriter, r *http.Request, req *request) {
	if !req.profile {
		http.Error(w, "403 forbidden: "+PermissionProfile+" is required", http.StatusForbidden)
		return
	}
	q, err := query(r, "kind", "seconds")
	if err != nil {
		http.Error(w, "400 bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	kind := q.Get("kind")
	var raw bytes.Buffer
	switch {
	case kind == "cpu":
		secs, err := strconv.Atoi(q.Get("seconds"))
		if err != nil || secs < 1 || secs > 60 {
			http.Error(w, "400 bad request: seconds must be a whole number from 1 to 60", http.StatusBadRequest)
			return
		}
		if !c.cpu.TryLock() {
			http.Error(w, "409 conflict: a CPU profile is being taken; try again when it is done", http.StatusConflict)
			return
		}
		defer c.cpu.Unlock()
		if err := pprof.StartCPUProfile(&raw); err != nil {
			http.Error(w, "409 conflict: a CPU profile is being taken elsewhere in the process", http.StatusConflict)
			return
		}
		t := time.NewTimer(time.Duration(secs) * time.Second)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
		pprof.StopCPUProfile()
		if r.Context().Err() != nil {
			return
		}
	case slices.Contains(profileKinds, kind):
		if q.Has("seconds") {
			http.Error(w, "400 bad request: seconds is for kind=cpu only", http.StatusBadRequest)
			return
		}
		if err := pprof.Lookup(kind).WriteTo(&raw, 0); err != nil {
			http.Error(w, "500 internal error: the profile could not be written", http.StatusInternalServerError)
			return
		}
	default:
		http.Error(w, "400 bad request: kind must be cpu, "+joinComma(profileKinds), http.StatusBadRequest)
		return
	}
	p, err := profile.Parse(&raw)
	if err != nil {
		http.Error(w, "500 internal error: the profile could not be read", http.StatusInternalServerError)
		return
	}
	for _, s := range p.Sample {
		s.Label, s.NumLabel, s.NumUnit = nil, nil, nil
	}
	var out bytes.Buffer
	if err := p.Write(&out); err != nil {
		http.Error(w, "500 internal error: the profile could not be written", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", `attachment; filename="`+kind+`.pb.gz"`)
	h.Set("Content-Length", strconv.Itoa(out.Len()))
	_, _ = w.Write(out.Bytes())
}

func joinComma(s []string) string {
	b := []byte{}
	for i, v := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, v...)
	}
	return string(b)
}
