// Package systemd holds no code: it is the systemd unit beside it
// (raftapi.service), an example of its environment file, and their tests.
// The tests run systemd-analyze verify and security on the unit, check
// its readiness and hardening settings and that every flag and RAFTAPI_*
// variable it uses is one of raftapi serve, and start the binary the way
// the unit does, with a notification socket standing in for systemd's.
// See README.md.
package systemd
