// Package e2e holds the end-to-end tests: the real bot process wiring
// (cli.Serve, as `go run .` runs it) against the fake Discord of
// internal/fakediscord over loopback, on both stores (the embedded file and
// Redis), playing as users do: slash commands and button clicks, checking
// every answer's deadline, visibility and arithmetic.
//
//	go test ./e2e/            # needs redis-server on PATH for the Redis half
//	go test -run Bolt ./e2e/  # the embedded store only
package e2e
