package netns

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// TestProxyForwardsWithLatency runs an echo server behind a proxy on
// loopback and checks bytes arrive intact, and later once a latency is
// set.
func TestProxyForwardsWithLatency(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); buf := make([]byte, 1024); n, _ := c.Read(buf); c.Write(buf[:n]) }()
		}
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := NewProxy(ln, echo.Addr().String())
	defer p.Close()
	if d := roundTrip(t, ln.Addr().String()); d > 150*time.Millisecond {
		t.Errorf("round trip without latency took %s", d)
	}
	p.SetLatency(100*time.Millisecond, 10*time.Millisecond)
	if d := roundTrip(t, ln.Addr().String()); d < 200*time.Millisecond {
		t.Errorf("round trip with 100ms each way took only %s", d)
	}
}

func roundTrip(t *testing.T, addr string) time.Duration {
	t.Helper()
	start := time.Now()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || line != "ping\n" {
		t.Fatalf("echo through proxy: %q %v", line, err)
	}
	return time.Since(start)
}
