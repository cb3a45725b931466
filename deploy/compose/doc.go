// Package compose tests deploy/compose/compose.yaml, the three-node
// raftapi cluster for Docker Compose, with the real image.
//
// The test brings the cluster up under a project name of its own, on
// free host ports and a free /24 network, writes ConfigMaps through every
// node, and meanwhile kills, disconnects, restarts and wipes nodes one at
// a time. After each fault it measures how long the cluster takes to
// serve on every node again; at the end it checks that every
// acknowledged write is readable from every node. It runs only where a
// Docker engine and Docker Compose (v2 plugin or v1 docker-compose)
// answer and RAFTAPI_IMAGE names the image: make test-deploy builds the
// image and sets it.
//
// Two checks need no Docker engine: every flag compose.yaml and the
// Dockerfile set, on the command line or as RAFTAPI_<FLAG>, is one the
// binary has, and each service advertises its own address.
package compose
