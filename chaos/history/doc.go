// Package history holds what a chaos run records: client operations with
// their invoke and complete times and outcomes, the events every watcher
// received, the fault windows and the nodes' status samples. A Recorder
// collects them concurrently while the run lasts; the History it returns
// is written and read as JSON lines, one record per line, so a run can be
// checked again later and hand-made histories can be fed to the checkers.
package history
