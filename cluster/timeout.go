package cluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/raftapi/raftapi/api/httpstatus"
	"github.com/raftapi/raftapi/api/request"
)

// DefaultRequestTimeout is kube-apiserver's --request-timeout default.
const DefaultRequestTimeout = time.Minute

// writeGrace is how long past its deadline a request's response may still
// take to write: the 504 itself, or the end of a response under way. A
// client that reads no faster is cut.
const writeGrace = 5 * time.Second

// invalidTimeout is kube-apiserver's message for a malformed ?timeout=.
const invalidTimeout = "invalid timeout specified in the request URL"

// withRequestTimeout bounds every request that is not long-running, as
// kube-apiserver's request-deadline and timeout filters do: the request's
// context ends at its deadline, the smaller of max and the ?timeout=
// parameter (a malformed one is 400; zero or negative means max), and a
// handler still running then is answered for: kube's 504 Timeout Status
// when it has written nothing, the connection cut (HTTP/1) or the stream
// reset (HTTP/2) when its response was under way. The handler runs on its
// own goroutine, which ends when it honours its context; what it writes
// after the deadline is discarded.
//
// The connection's read deadline is the request's deadline too while
// there is a body to read, so a body trickled in slowly fails to read
// instead of holding a goroutine and a socket forever. (Only then: past
// the body, an HTTP/1 server reads the connection to notice the client
// leaving, and a deadline there would end the connection's later
// requests too; the server lifts it when the body is read.) The write
// deadline is writeGrace after the request's.
// Long-running requests (longRunning) are left alone. next must recover
// its own panics (withRecover): withRequestTimeout passes on only
// http.ErrAbortHandler.
func withRequestTimeout(max time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if longRunning(r) {
			if drainBody(w, r, max) {
				next.ServeHTTP(w, r)
			}
			return
		}
		timeout, err := requestTimeout(r, max)
		if err != nil {
			httpstatus.Write(w, err)
			return
		}
		deadline := time.Now().Add(timeout)
		ctx, cancel := context.WithDeadline(r.Context(), deadline)
		defer cancel()
		rc := http.NewResponseController(w)
		if hasBody(r) {
			_ = rc.SetReadDeadline(deadline)
		}
		_ = rc.SetWriteDeadline(deadline.Add(writeGrace))
		serveWithin(ctx, deadline, w, r.WithContext(ctx), next)
	})
}

// serveWithin runs next on its own goroutine, its stack grown for r
// (growStackFor), and answers for it if ctx ends first.
func serveWithin(ctx context.Context, deadline time.Time, w http.ResponseWriter, r *http.Request, next http.Handler) {
	tw := newTimeoutWriter(w, deadline)
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		growStackFor(r)
		next.ServeHTTP(tw, r)
	}()
	select {
	case p := <-done:
		finished(tw, p)
	case <-ctx.Done():
		select {
		case p := <-done:
			// Finished as the deadline came: its answer stands.
			finished(tw, p)
		default:
			tw.timeout()
		}
	}
}

// finished completes a request whose handler returned, passing on its
// panic (only http.ErrAbortHandler gets past withRecover).
func finished(tw *timeoutWriter, p any) {
	if p != nil {
		panic(p)
	}
	tw.finish()
}

// requestTimeout is the request's time limit: max, or the ?timeout=
// parameter when it is positive and smaller.
func requestTimeout(r *http.Request, max time.Duration) (time.Duration, *apierrors.StatusError) {
	v, _ := request.Query(r, "timeout")
	if v == "" {
		return max, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("%s - %v", invalidTimeout, err))
	}
	if d > 0 && d < max {
		return d, nil
	}
	return max, nil
}

// longRunning reports the requests no timeout applies to, as
// kube-apiserver's long-running check: watches (the verb its request info
// calls watch), and the snapshot stream, whose length is the size of the
// node's state.
func longRunning(r *http.Request) bool {
	if r.Method == http.MethodGet && r.URL.Path == SnapshotPath {
		return true
	}
	return isWatch(r)
}

// maxIgnoredBody bounds the body of a long-running request, which no
// handler reads: kube-apiserver's request body limit.
const maxIgnoredBody = 3 << 20

// drainBody reads and drops the body of a long-running request within
// the request timeout, so that a body trickled in slowly cannot hold the
// request (the server would otherwise wait for it before the response's
// first flush) without the read deadline outliving the body: once the
// body is read, the server watches the connection for the client's
// leaving without a deadline. false once an error has been written.
func drainBody(w http.ResponseWriter, r *http.Request, max time.Duration) bool {
	if !hasBody(r) {
		return true
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(max))
	n, err := io.Copy(io.Discard, io.LimitReader(r.Body, maxIgnoredBody+1))
	if err == nil && n > maxIgnoredBody {
		httpstatus.Write(w, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", maxIgnoredBody)))
		return false
	}
	if err != nil {
		httpstatus.Write(w, apierrors.NewBadRequest("reading request body: "+err.Error()))
		return false
	}
	_ = rc.SetReadDeadline(time.Time{})
	return true
}

// hasBody reports a request with a body to read (of a known length or
// chunked).
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}
