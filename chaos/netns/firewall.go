package netns

import (
	"fmt"
	"strconv"
)

// chain is the iptables chain in each namespace's INPUT that holds the
// faults' rules; healing flushes it.
const chain = "RAFTAPI-CHAOS"

// Block makes node to drop every packet from the nodes in from: a
// one-way cut from→to. Block both ways for a full partition.
func (nw *Network) Block(to string, from ...string) error {
	h, ok := nw.Host(to)
	if !ok {
		return fmt.Errorf("netns: no node %s", to)
	}
	for _, f := range from {
		src, ok := nw.Host(f)
		if !ok {
			return fmt.Errorf("netns: no node %s", f)
		}
		if _, err := run(inNS(h.NS, "iptables", "-A", chain, "-s", src.IP, "-j", "DROP")...); err != nil {
			return err
		}
	}
	return nil
}

// Lose makes node to drop packets from the other nodes at random with
// probability p (iptables' statistic match).
func (nw *Network) Lose(to string, p float64) error {
	h, ok := nw.Host(to)
	if !ok {
		return fmt.Errorf("netns: no node %s", to)
	}
	for _, src := range nw.Hosts {
		if src.Name == to {
			continue
		}
		args := inNS(h.NS, "iptables", "-A", chain, "-s", src.IP, "-m", "statistic", "--mode", "random",
			"--probability", strconv.FormatFloat(p, 'f', 3, 64), "-j", "DROP")
		if _, err := run(args...); err != nil {
			return err
		}
	}
	return nil
}

// Heal removes every partition and loss rule on every node.
func (nw *Network) Heal() error {
	var first error
	for _, h := range nw.Hosts {
		if _, err := run(inNS(h.NS, "iptables", "-F", chain)...); err != nil && first == nil {
			first = err
		}
	}
	return first
}
