// Package oauthmcp makes an MCP server an OAuth 2.0 resource server done
// right: it verifies the access tokens that MCP authorization (revisions
// 2025-11-25 and 2026-07-28) has clients send, and turns them into the
// mcp.Caller the Server authorizes. It lives in a module of its own, so that
// the library's go.mod stays free of a JOSE dependency
// (github.com/go-jose/go-jose/v4 does the parsing and signature checks).
//
// A Verifier stands for one resource, this server's URL, and trusts one
// issuer:
//
//	scopes := oauthmcp.ScopeMap{"notes:read": {"notes.read"}, "notes:write": {"notes.write"}}
//	v, err := oauthmcp.New(&oauthmcp.Options{
//		Issuer:   "https://login.example.com/",
//		Resource: "https://mcp.example.com/mcp",
//		Scopes:   scopes,
//	})
//	handler := mcp.NewHandler(server, &mcp.HandlerOptions{
//		Authenticator:       v.Authenticator(),
//		ScopeChallenge:      scopes.Challenge, // optional: 403 insufficient_scope
//		ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
//	})
//
// # What a token must be
//
// A JWT access token (RFC 9068) is accepted when all of these hold, and
// refused otherwise:
//
//   - at most MaxTokenBytes long, three base64url parts, one signature;
//   - its "alg" on the allow-list (RSA, RSA-PSS, ECDSA, EdDSA; never
//     "none", never HMAC, so a public key can never serve as an HMAC
//     secret), and its "typ" at+jwt (or what Options.TokenTypes allows);
//   - signed by a key of the issuer's JSON Web Key Set whose "kid" it
//     names, whose own "alg" (if any) is the token's and whose type suits
//     it; keys for encryption, symmetric keys and RSA keys under 2048 bits
//     are never loaded;
//   - "iss" equal to Options.Issuer, "aud" containing Options.Resource
//     (RFC 8707: a token issued for another service is refused, so tokens
//     cannot be passed through), "exp" present and not past, "nbf" and
//     "iat" not in the future (both with Options.Leeway), and "sub" or
//     "client_id" present.
//
// An opaque token (not three parts) is refused, or, with
// Options.Introspection, asked about at the issuer's introspection
// endpoint (RFC 7662) and held to the same issuer, audience and time
// checks. Answers are cached by the token's SHA-256, active ones and
// refusals apart, so that made-up tokens never push a good one out; at
// most Introspection.MaxConcurrent requests are in flight, a token that
// finds none free waits up to Introspection.MaxWait, and a quarter of the
// slots is kept for tokens known active, so that a flood of made-up tokens
// slows new clients down but locks nobody out. When the endpoint is busy,
// slow or down the token is neither accepted nor refused: the error wraps
// ErrIntrospection and mcp.ErrAuthUnavailable, which the Handler answers
// 503 with Retry-After, so the client keeps its token and retries.
//
// A token accepted once is remembered by its SHA-256 (Options.TokenCacheSize)
// and accepted again without a new signature check while the key set that
// verified it is the current one and it has not expired: clients send the
// same token with every request.
//
// Every refusal is an error wrapping one of the Err values, logged at Info
// with its reason and never the token; mcp.BearerAuth answers all of them
// alike, 401 with error="invalid_token", so a client learns nothing of why.
// A token in the URL query (access_token=) is refused the same way.
//
// # Principals
//
// Caller.Principal names who the token speaks for, and task ownership,
// per-principal quotas, the console and the logs all go by it. It is the
// token's "sub" when it has one. A token without a subject (a client
// acting for itself, client credentials at most issuers) speaks for its
// client: its principal is ClientPrefix and its "client_id", as in
// "client:ci-bot". A subject that itself begins with "client:" or "sub:"
// gets SubjectPrefix in front ("client:x" becomes "sub:client:x"). So a
// client whose id is "alice" is never the user whose subject is "alice",
// and cannot see her tasks; hosts that name principals in configuration
// (quotas, grants of their own) write clients as "client:" and the id.
//
// # Keys
//
// The key set's URL is discovered from the issuer's metadata: RFC 8414
// (/.well-known/oauth-authorization-server, inserted before the issuer's
// path), then OpenID Connect Discovery as a fallback; the metadata must
// name the same issuer. Keys are fetched on first use and kept; fetched
// again by the first request after KeysRefresh, and when a token names an
// unknown kid, but never more than once per MinRefreshInterval, so a flood
// of made-up kids costs the issuer one request per interval. Every fetch
// is bounded by FetchTimeout and runs once however many requests wait for
// it. When the issuer is down, the keys in hand keep working until
// KeysExpiry after their last successful fetch; then tokens are refused
// (401, reason logged) until a fetch succeeds: never a 500, never a hang.
//
// # Scopes and grants
//
// A ScopeMap turns the token's scopes ("scope", or "scp" as some issuers
// name it) into Caller.Grants: each scope stands for a list of grants, in
// the form mcp.GrantsAuthorizer reads, and a scope the map does not name
// grants nothing. ScopeMap.Challenge is the inverse mapping, for
// mcp.HandlerOptions.ScopeChallenge: for a permission a caller lacks, the
// narrowest scope whose grants cover it. Both directions use one map, so a
// client that asks for the challenged scope gets a token that passes.
package oauthmcp
