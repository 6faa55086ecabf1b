package storetest

import (
	"context"
	"testing"

	"github.com/lesclefsdutresor/clefs/storage"
)

func testCanceledContext(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	e.must(pid(1), "grant", grant(1))
	before := e.load(pid(1))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.st.Run(ctx, e.step(pid(1), e.op(), grant(1))); err == nil {
		t.Fatal("Run with a canceled context succeeded")
	}
	same(t, "after a canceled Run", e.load(pid(1)), before)
	if _, err := e.st.Load(ctx, pid(1)); err == nil {
		t.Fatal("Load with a canceled context succeeded")
	}
}

func testClosed(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	e.must(pid(1), "grant", grant(1))
	if err := e.st.Ping(e.ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Load after Close", errOf(e.st.Load(e.ctx, pid(1))), storage.ErrClosed)
	wantErr(t, "Run after Close", errOf(e.apply(pid(1), grant(1))), storage.ErrClosed)
	wantErr(t, "Guild after Close", errOf(e.st.Guild(e.ctx, guild)), storage.ErrClosed)
	wantErr(t, "Ping after Close", e.st.Ping(e.ctx), storage.ErrClosed)
	if err := e.st.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
