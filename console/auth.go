package console

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/embedmcp/mcp"
)

// sessionCookie is the name of the console's session cookie.
const sessionCookie = "mcp_console"

// keys are the secrets of a Console, derived from Options.SessionKey.
type keys struct {
	aead cipher.AEAD // seals the session cookie
	csrf []byte      // signs CSRF tokens
}

func newKeys(secret []byte) (*keys, error) {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, err
		}
	}
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	block, err := aes.NewCipher(derive("embedmcp console session"))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &keys{aead: aead, csrf: derive("embedmcp console csrf")}, nil
}

// seal returns a cookie value carrying token until expires, encrypted and
// authenticated: the browser holds the token, but cannot read or change it.
func (k *keys) seal(token string, expires time.Time) string {
	nonce := make([]byte, k.aead.NonceSize())
	_, _ = rand.Read(nonce)
	plain := binary.BigEndian.AppendUint64(nil, uint64(expires.Unix()))
	plain = append(plain, token...)
	return base64.RawURLEncoding.EncodeToString(k.aead.Seal(nonce, nonce, plain, []byte(sessionCookie)))
}

// open returns the token a cookie value carries, if it is genuine and
// has not expired.
func (k *keys) open(value string, now time.Time) (string, bool) {
	if len(value) > 8<<10 {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(b) < k.aead.NonceSize() {
		return "", false
	}
	plain, err := k.aead.Open(nil, b[:k.aead.NonceSize()], b[k.aead.NonceSize():], []byte(sessionCookie))
	if err != nil || len(plain) < 8 {
		return "", false
	}
	if now.Unix() >= int64(binary.BigEndian.Uint64(plain)) {
		return "", false
	}
	return string(plain[8:]), true
}

// csrfToken returns a token that the forms of the page carry, bound to the
// caller and valid for csrfTTL.
func (k *keys) csrfToken(c mcp.Caller, now time.Time) string {
	b := binary.BigEndian.AppendUint64(nil, uint64(now.Unix()))
	return base64.RawURLEncoding.EncodeToString(append(b, k.csrfMAC(c, b)...))
}

const csrfTTL = 12 * time.Hour

func (k *keys) csrfMAC(c mcp.Caller, issued []byte) []byte {
	m := hmac.New(sha256.New, k.csrf)
	m.Write(issued)
	m.Write([]byte(c.Principal))
	m.Write([]byte{0})
	m.Write([]byte(c.Server))
	return m.Sum(nil)[:16]
}

// checkCSRF reports whether token was issued to c by csrfToken within
// csrfTTL.
func (k *keys) checkCSRF(token string, c mcp.Caller, now time.Time) bool {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) != 8+16 {
		return false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(b)), 0)
	if now.Before(issued.Add(-time.Minute)) || now.After(issued.Add(csrfTTL)) {
		return false
	}
	return hmac.Equal(b[8:], k.csrfMAC(c, b[:8]))
}

// authenticate returns the caller of r. Browsers send HTTP Basic
// credentials (any user name, the token as password) or, once those
// succeeded, the session cookie; both are handed to the Authenticator as
// the bearer token they carry. Any other request (a script's bearer
// token) reaches the Authenticator as it is. sealed is the cookie to set
// after Basic credentials were accepted, "" otherwise.
func (c *Console) authenticate(r *http.Request) (caller mcp.Caller, sealed string, err error) {
	if c.auth == nil {
		return mcp.Caller{}, "", nil // like mcp.HandlerOptions: the zero Caller
	}
	h := r.Header.Get("Authorization")
	switch {
	case len(h) > 6 && strings.EqualFold(h[:6], "basic "):
		_, token, ok := r.BasicAuth()
		if !ok || token == "" {
			return mcp.Caller{}, "", mcp.ErrInvalidToken
		}
		caller, err = c.auth.Authenticate(withBearer(r, token))
		if err != nil {
			return mcp.Caller{}, "", err
		}
		return caller, c.keys.seal(token, c.now().Add(c.sessionTTL)), nil
	case h == "":
		if ck, cerr := r.Cookie(sessionCookie); cerr == nil {
			if token, ok := c.keys.open(ck.Value, c.now()); ok {
				caller, err = c.auth.Authenticate(withBearer(r, token))
				return caller, "", err
			}
		}
	}
	caller, err = c.auth.Authenticate(r)
	return caller, "", err
}

// withBearer returns a shallow copy of r whose Authorization header is the
// bearer token.
func withBearer(r *http.Request, token string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	r2.Header = r.Header.Clone()
	r2.Header.Set("Authorization", "Bearer "+token)
	return r2
}

// setSession sets the session cookie, scoped to the console's path.
func setSession(w http.ResponseWriter, r *http.Request, value string, ttl time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: value, Path: mountPath(r), MaxAge: int(ttl.Seconds()),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

// mountPath returns the path the console is mounted at, with a trailing
// slash: the request's path as sent, less the path the console sees
// (http.StripPrefix leaves RequestURI as it was).
func mountPath(r *http.Request) string {
	full := r.URL.Path
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil && r.RequestURI != "" {
		full = u.Path
	}
	prefix := strings.TrimSuffix(full, r.URL.Path)
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return prefix
}

// fromAnotherSite reports whether a browser says another site's page made
// r: Sec-Fetch-Site is cross-site or same-site (another port, a sibling
// subdomain), or anything but same-origin and none (the address typed,
// a bookmark). Browsers send it with every request; clients that send
// none (scripts, curl, older browsers) are judged as before, by their
// credentials and, for a change, the CSRF token.
func fromAnotherSite(r *http.Request) bool {
	for _, v := range r.Header.Values("Sec-Fetch-Site") {
		if v != "same-origin" && v != "none" {
			return true
		}
	}
	return false
}

// sameOrigin reports whether a state-changing request comes from the
// console's own pages: browsers send Sec-Fetch-Site or Origin with every
// POST (the pages' Referrer-Policy, same-origin, keeps Origin); scripts
// that send neither are judged by the CSRF token alone.
func sameOrigin(r *http.Request) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" {
		return s == "same-origin" || s == "none"
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}
