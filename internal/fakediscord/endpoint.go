package fakediscord

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"
)

// TestPublicKeyHex is the public half, hex-encoded, of the key that signs
// the requests to the interactions endpoint when Options.PrivateKey is nil:
// give it to the bot as its application's public key (DISCORD_PUBLIC_KEY).
// The key is fixed and public; it protects nothing but tests.
const TestPublicKeyHex = "89a24ef2be02755a03ec42d4409c81af5dfa93c1ef382d0071c08815f8a954ec"

// testKeySeed is the seed of the test key: 32 bytes, public on purpose.
const testKeySeed = "fakediscord-test-key-not-secret!"

func testPrivateKey() ed25519.PrivateKey { return ed25519.NewKeyFromSeed([]byte(testKeySeed)) }

// Headers and User-Agent of Discord's requests to an interactions endpoint.
const (
	headerSignature = "X-Signature-Ed25519"
	headerTimestamp = "X-Signature-Timestamp"
	endpointAgent   = "Discord-Interactions/1.0 (+https://discord.com)"
)

// PublicKeyHex is the hex of the public key whose private half signs the
// requests to the interactions endpoint: what the Developer Portal shows as
// the application's public key, and what GET /applications/@me answers as
// verify_key.
func (s *Server) PublicKeyHex() string {
	return hex.EncodeToString(s.opts.PrivateKey.Public().(ed25519.PublicKey))
}

// SetInteractionsURL switches the delivery of the interactions from now on:
// a URL sends them to that interactions endpoint, "" back to the gateway.
// An interaction already sent is unaffected. Unlike the Developer Portal, it
// does not Ping the endpoint first.
func (s *Server) SetInteractionsURL(url string) {
	s.locked(func() { s.endpoint = url })
	s.log.Info("interactions endpoint set", "url", url)
}

// InteractionsURL is the interactions endpoint in use; "" means the gateway.
func (s *Server) InteractionsURL() string { return read(s, &s.endpoint) }

// Ping checks the interactions endpoint as the Developer Portal does when
// the URL is saved: a PING with a wrong signature must be answered 401, and
// a correctly signed PING (type 1) with a PONG ({"type": 1}). It returns
// what went wrong, and records no Failure.
func (s *Server) Ping(ctx context.Context) error {
	url := s.InteractionsURL()
	if url == "" {
		return errors.New("fakediscord: Ping: no interactions endpoint set")
	}
	return s.ping(ctx, url)
}

func (s *Server) ping(ctx context.Context, url string) error {
	s.mu.Lock()
	id, token := s.snowflake(), randomToken()
	s.mu.Unlock()
	body, _ := json.Marshal(map[string]any{
		"id": id, "application_id": s.opts.AppID, "type": 1, "token": token, "version": 1,
		"user":         map[string]any{"id": "1", "username": "discord", "discriminator": "0", "global_name": nil, "avatar": nil, "public_flags": 0},
		"entitlements": []any{},
	})
	ctx, cancel := context.WithTimeout(ctx, s.opts.AckTimeout)
	defer cancel()
	status, _, _, err := s.postSigned(ctx, url, body, true)
	if err != nil {
		return fmt.Errorf("fakediscord: Ping %s: %w", url, err)
	}
	if status != http.StatusUnauthorized {
		return fmt.Errorf("fakediscord: Ping %s: a request with a wrong signature was answered %d, want 401: the endpoint must verify X-Signature-Ed25519", url, status)
	}
	status, _, reply, err := s.postSigned(ctx, url, body, false)
	if err != nil {
		return fmt.Errorf("fakediscord: Ping %s: %w", url, err)
	}
	if status/100 != 2 {
		return fmt.Errorf("fakediscord: Ping %s: answered %d %s", url, status, truncate(string(reply), 200))
	}
	var pong struct {
		Type *int `json:"type"`
	}
	if json.Unmarshal(reply, &pong) != nil || pong.Type == nil || *pong.Type != 1 {
		return fmt.Errorf("fakediscord: Ping %s: answered %q, want a PONG {\"type\": 1}", url, truncate(string(reply), 200))
	}
	return nil
}

// postSigned POSTs body to url signed as Discord signs it (or, with
// tamper, with a signature of other bytes) and returns the status, the
// content type and the body of the reply (≤ 1 MiB, or 25 MiB if multipart).
func (s *Server) postSigned(ctx context.Context, url string, body []byte, tamper bool) (int, string, []byte, error) {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	signed := append([]byte(ts), body...)
	if tamper {
		signed = append(signed, ' ')
	}
	sig := ed25519.Sign(s.opts.PrivateKey, signed)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", endpointAgent)
	req.Header.Set(headerSignature, hex.EncodeToString(sig))
	req.Header.Set(headerTimestamp, ts)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	limit := int64(maxJSONBody)
	if mt, _, _ := mime.ParseMediaType(ct); mt == "multipart/form-data" {
		limit = maxMultipartBody
	}
	reply, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return resp.StatusCode, ct, nil, fmt.Errorf("reading the reply: %w", err)
	}
	if int64(len(reply)) > limit {
		return resp.StatusCode, ct, nil, fmt.Errorf("reply larger than %d bytes", limit)
	}
	return resp.StatusCode, ct, reply, nil
}

// post sends in to the interactions endpoint and processes the reply as
// its initial response, exactly as a POST to the callback endpoint. It
// runs in its own goroutine, counted in s.wg.
func (s *Server) post(in *interaction, url string, body []byte) {
	defer s.wg.Done()
	// Discord waits for the reply until the deadline, not after.
	ctx, cancel := context.WithDeadline(s.ctx, in.dispatched.Add(s.opts.AckTimeout))
	defer cancel()
	// Webhook calls made meanwhile wait for the reply to be processed.
	defer s.replied(in)
	status, ct, reply, err := s.postSigned(ctx, url, body, false)
	switch {
	case err != nil && ctx.Err() != nil:
		// Past the deadline (expire records it) or the server is closing.
		return
	case err != nil:
		s.endpointFailed(in, url, status, 0, "interactions endpoint: "+err.Error(), nil)
		return
	case status/100 != 2:
		s.endpointFailed(in, url, status, 0, fmt.Sprintf("interactions endpoint answered %d: %s", status, truncate(string(bytes.TrimSpace(reply)), 200)), nil)
		return
	}
	if len(bytes.TrimSpace(reply)) == 0 {
		if !read(s, &in.called) { // answering over REST, then 2xx without a body, is fine
			s.endpointFailed(in, url, http.StatusBadRequest, 50109, "The interactions endpoint's reply has no body: it must be the initial response.", nil)
		}
		return
	}
	// A reply with files is multipart/form-data, as a callback with files.
	var files []upload
	if mt, params, _ := mime.ParseMediaType(ct); mt == "multipart/form-data" {
		var e *ackError
		reply, files, e = parseMultipart(bytes.NewReader(reply), params["boundary"])
		if e != nil {
			s.endpointFailed(in, url, e.status, e.code, "interactions endpoint's reply: "+e.message, e.errs)
			return
		}
	}
	if !json.Valid(reply) {
		s.endpointFailed(in, url, http.StatusBadRequest, 50109, "The interactions endpoint's reply is not valid JSON.", nil)
		return
	}
	if e := s.acknowledge(in, reply, files); e != nil {
		s.endpointFailed(in, url, e.status, e.code, e.message, e.errs)
	}
}

// endpointFailed records a Failure of the interactions endpoint's reply and,
// unless the bot already called back, fails the interaction: Discord shows
// the user "This interaction failed" and accepts no late callback.
func (s *Server) endpointFailed(in *interaction, url string, status, code int, msg string, errs []fieldErr) {
	f := newFailure(http.MethodPost, url, status, code, msg, errs, in.id)
	s.mu.Lock()
	s.recordFailureLocked(f)
	if !in.called && !in.expired {
		in.expired = true
		in.failed = fmt.Errorf("%w: %s", ErrEndpoint, f)
		in.timer.Stop()
		close(in.done)
	}
	s.mu.Unlock()
}

// replied marks the endpoint's reply to in as processed and wakes the
// webhook calls waiting for it.
func (s *Server) replied(in *interaction) {
	s.mu.Lock()
	in.replied = true
	wake(&in.editedCh)
	s.mu.Unlock()
}

// awaitReply waits, for a webhook call made while the endpoint's reply to
// in is still being read, until it is processed (the bot may edit its
// deferred reply as soon as it has written it); it reports whether the bot
// has called back.
func (s *Server) awaitReply(ctx context.Context, in *interaction) bool {
	for {
		s.mu.Lock()
		pending, called := in.viaHTTP && !in.replied, in.called
		ch := in.editedCh
		s.mu.Unlock()
		if !pending {
			return called
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return read(s, &in.called)
		}
	}
}
