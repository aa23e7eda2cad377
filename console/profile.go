package console

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"runtime/pprof"
	"slices"
	"strconv"
	"time"

	"github.com/google/pprof/profile"
)

// profileKinds are the profiles the Process page links to, besides cpu.
var profileKinds = []string{"heap", "allocs", "goroutine", "mutex", "block", "threadcreate"}

// serveProfile answers profile?kind=heap (and the other kinds of
// profileKinds) to a GET, and a CPU profile (kind=cpu, seconds=N) to a
// POST from the Process page's form, same-origin and carrying its CSRF
// token: a CPU profile is work (and takes the one CPU profiler of the
// process for up to a minute), so a link or an <img> on any page must not
// start one. The profile comes in pprof's format, its labels removed:
// pprof labels are set by code the operator may not know, and may hold
// request values.
func (c *Console) serveProfile(w http.ResponseWriter, r *http.Request, req *request) {
	if !req.profile {
		http.Error(w, "403 forbidden: "+PermissionProfile+" is required", http.StatusForbidden)
		return
	}
	var q url.Values
	var err error
	if r.Method == http.MethodPost {
		q, err = c.profileForm(w, r, req)
	} else {
		q, err = query(r, "kind", "seconds")
	}
	var refused *refusal
	if errors.As(err, &refused) {
		http.Error(w, refused.answer, refused.status)
		return
	}
	if err != nil {
		http.Error(w, "400 bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	kind := q.Get("kind")
	var raw bytes.Buffer
	switch {
	case kind == "cpu" && r.Method != http.MethodPost:
		w.Header().Set("Allow", "POST")
		http.Error(w, "405 method not allowed: a CPU profile is started with a POST from the Process page's form", http.StatusMethodNotAllowed)
		return
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
	case r.Method == http.MethodPost:
		http.Error(w, "400 bad request: kind must be cpu; download the other profiles with GET", http.StatusBadRequest)
		return
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

// refusal is a request refused with status and answer.
type refusal struct {
	status int
	answer string
}

func (e *refusal) Error() string { return e.answer }

// profileForm reads the form of a CPU profile's POST: same-origin, at most
// 4 KiB, the CSRF token issued to the caller, kind and seconds; nothing in
// the query.
func (c *Console) profileForm(w http.ResponseWriter, r *http.Request, req *request) (url.Values, error) {
	if !sameOrigin(r) {
		return nil, &refusal{http.StatusForbidden, "403 forbidden: cross-origin request"}
	}
	if r.URL.RawQuery != "" {
		return nil, &badRequest{"send kind and seconds in the form, not the query"}
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		return nil, &badRequest{"the form is not valid or longer than 4 KiB"}
	}
	if !c.keys.checkCSRF(r.PostForm.Get("csrf"), req.caller, c.now()) {
		return nil, &refusal{http.StatusForbidden, "403 forbidden: the form's CSRF token is missing, expired or not yours; reload the page"}
	}
	for k, v := range r.PostForm {
		if k != "kind" && k != "seconds" && k != "csrf" {
			return nil, &badRequest{"unknown form field " + strconv.Quote(truncate(k, 40)) + "; the form takes kind, seconds and csrf"}
		}
		if len(v) > 1 {
			return nil, &badRequest{"form field " + k + " is given more than once"}
		}
	}
	return r.PostForm, nil
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
